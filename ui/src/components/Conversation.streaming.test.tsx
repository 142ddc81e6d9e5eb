// While an answer streams, only the streaming message renders again: the
// finished messages and tool cards above it keep their props, and the
// answer's settled paragraphs are not parsed again.
import { act, render, screen } from "@testing-library/react";
import { createRef, type ComponentProps } from "react";
import { describe, expect, it, vi } from "vitest";
import type { SessionListItem, SessionView } from "../api/types";
import type { LiveEvent } from "../bindings/LiveEvent";
import { applyLiveEvents } from "../state/transcript";
import { createStore, initialState } from "../state/store";
import { StoreProvider } from "../state/StoreProvider";
import type { Entry } from "../state/transcript";
import { Conversation } from "./Conversation";
import type { MessageListHandle } from "./MessageList";

const counts = vi.hoisted(() => ({ renders: new Map<string, number>(), parsed: [] as string[] }));
const rendered = (id: string) => counts.renders.set(id, (counts.renders.get(id) ?? 0) + 1);

vi.mock("./Messages", async (importOriginal) => {
  const real = await importOriginal<typeof import("./Messages")>();
  return {
    ...real,
    UserMessage: (props: ComponentProps<typeof real.UserMessage>) => (rendered(props.entry.id), <real.UserMessage {...props} />),
    AssistantMessage: (props: ComponentProps<typeof real.AssistantMessage>) => (rendered(props.entry.id), <real.AssistantMessage {...props} />),
  };
});
vi.mock("./ToolCallCard", async (importOriginal) => {
  const real = await importOriginal<typeof import("./ToolCallCard")>();
  return { ...real, ToolCallCard: (props: ComponentProps<typeof real.ToolCallCard>) => (rendered(props.tool.id), <real.ToolCallCard {...props} />) };
});
vi.mock("react-markdown", async (importOriginal) => {
  const real = await importOriginal<typeof import("react-markdown")>();
  const Real = real.default;
  return { ...real, default: (props: ComponentProps<typeof Real>) => (counts.parsed.push(String(props.children)), <Real {...props} />) };
});

const SESSION = "0193a1b2-c3d4-7e5f-8a9b-000000000a01";
const summary = { id: SESSION, title: "Streaming", workspace: "/w", model: "demo" } as unknown as SessionListItem;
const view = { summary, records: [], context: [], threshold: 8000, live: true, record_count: 0 } as unknown as SessionView;

const finished: Entry[] = [
  { kind: "user", id: "u1", text: "Read the notes" },
  { kind: "tool", id: "call:c1", call_id: "c1", name: "read_file", arguments: '{"path":"notes.txt"}', status: "success", output: { preview: "one", chars: 3 } },
  { kind: "assistant", id: "a1", text: "The notes say **one**.", streaming: false },
  { kind: "user", id: "u2", text: "Now write a lot" },
];

let seq = 0;
function delta(text: string, first = false): LiveEvent {
  seq += 1;
  return {
    envelope: { v: 1, seq, session_id: SESSION, event: { family: "mainline", event: { kind: "text_delta", turn_id: "t2", round_id: "r2", delta: text } } },
    updates: [first ? { op: "append", entry: { kind: "assistant", id: "stream:r2", text, streaming: true, turn_id: "t2" } } : { op: "append_text", id: "stream:r2", delta: text }],
  };
}

describe("a streaming answer", () => {
  it("renders again alone, and parses only its growing last paragraph", () => {
    const store = createStore({ ...initialState, view, mode: "live", transcript: { ...initialState.transcript, entries: finished, runningTurn: "t2" } });
    render(
      <StoreProvider store={store}>
        <Conversation summary={summary} listRef={createRef<MessageListHandle>()} composerRef={createRef<HTMLTextAreaElement>()} />
      </StoreProvider>,
    );
    const apply = (events: LiveEvent[]) => act(() => store.set((s) => ({ transcript: applyLiveEvents(s.transcript, events) })));
    apply([delta("First paragraph, ", true), delta("done.\n\n")]);
    expect(screen.getByRole("article", { name: "Strata", busy: false })).toHaveTextContent("The notes say one.");
    const before = new Map(counts.renders);
    counts.parsed.length = 0;

    for (let frame = 0; frame < 10; frame += 1) apply([delta(`word${frame} `), delta(`more${frame} `)]);
    apply([delta("\n\nThird paragraph.")]);

    for (const id of ["u1", "call:c1", "a1", "u2"]) expect(counts.renders.get(id), id).toBe(before.get(id));
    expect(counts.renders.get("stream:r2")! - before.get("stream:r2")!).toBe(11);
    // Each paragraph is parsed once settled; only the growing last one again on every frame.
    expect(counts.parsed.filter((text) => text.startsWith("First paragraph"))).toEqual(["First paragraph, done.\n\n"]);
    const second = counts.parsed.filter((text) => text.startsWith("word0"));
    expect(second).toHaveLength(11);
    expect(second.at(-1)).toMatch(/more9 \n\n$/);
    expect(counts.parsed.filter((text) => text === "Third paragraph.")).toHaveLength(1);
    expect(screen.getByRole("article", { name: "Strata", busy: true })).toHaveTextContent("First paragraph, done.word0 more0");
  });
});
