// Issue 12's actions on transcript items, through the whole app and a
// scripted shell: Pin / Unpin (and a refused pin), Compact up to here, Fork
// from here on a message and on a compaction divider, Undo on the latest
// compaction's divider.
import { mockShell } from "../test/shell";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import { emptyConsoleView } from "../state/console";
import type { CompactionStatus } from "../bindings/CompactionStatus";
import type { CompactionSummary } from "../bindings/CompactionSummary";
import type { TranscriptEntry } from "../bindings/TranscriptEntry";
import { demoSettings, shellPage, shellSessions, shellView, type ShellSession } from "../test/fixtures";
import { CompactionCard } from "../console/Compactions";
import { consoleViews } from "../test/consoleFixtures";
import { ItemMenu, PIN_HINT } from "./ItemActions";

const settings = demoSettings;

const summary: CompactionSummary = {
  id: "sum-1",
  summary: "The parser was made to stream.",
  metadata: { trigger: "manual", reason: "Compaction up to item i-u3 requested by the user", removed: 3, kept: 2, summarizer_model: "strata-demo", duration_ms: 900 },
};

const transcript: TranscriptEntry[] = [
  { kind: "user", id: "i-u1", text: "Make the JSON parser stream." },
  { kind: "assistant", id: "i-a1", text: "The parser now streams.", streaming: false },
  {
    kind: "tool",
    id: "call:c1",
    call_id: "c1",
    item_id: "i-o1",
    name: "read_file",
    arguments: '{"path":"src/parser.rs"}',
    output: { preview: "pub fn parse() {}", chars: 17 },
    status: "finished",
  },
  { kind: "user", id: "i-u3", text: "Now add a benchmark." },
  { kind: "assistant", id: "i-a3", text: "Added benches/parse.rs.", streaming: false },
];

/**
 * A shell holding one session with `transcript`; `answer` handles issue 12's commands, `status` adds
 * to `compaction_status`; `held`: another process holds the session (it opens read-only).
 */
function shell(
  answer: (cmd: string, args: Record<string, unknown>) => unknown,
  entries: TranscriptEntry[] = transcript,
  status: () => Partial<CompactionStatus> = () => ({}),
  held = false,
) {
  const sessions: ShellSession[] = shellSessions();
  sessions[0]!.transcript = entries;
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  mockShell(async (cmd, raw) => {
    const args = (raw ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: settings.profiles[0], is_demo: true };
      case "get_settings":
        return settings;
      case "watch_library":
        return null;
      case "list_sessions":
        return { v: 1, sessions: sessions.map((s) => s.summary), total: sessions.length };
      case "open_console": {
        // The console fold's snapshot: its gauge and whether Undo applies, as `status` says.
        const undo = status().undo_summary;
        const empty = emptyConsoleView(String(args.session_id), 8000, 32000);
        return { ...empty, undo: undo ? { kind: "available", summary_id: undo } : empty.undo };
      }
      case "open_session":
        // Each open sees one more record, as after a write: the app fetches the status again.
        return { ...shellView(sessions.find((s) => s.summary.id === args.session_id)!, !held, held), record_count: calls.filter((c) => c.cmd === "open_session").length };
      case "open_transcript":
        return shellPage(sessions.find((s) => s.summary.id === args.session_id)!);
      default:
        return answer(cmd, args);
    }
  });
  return { calls, sessions };
}

/** Opens the person's own session: live at once, no Resume. */
async function openLive(user: ReturnType<typeof userEvent.setup>) {
  render(<App />);
  await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }));
  await waitFor(() => expect(screen.getByRole("combobox", { name: /message/i })).toBeEnabled());
}

const article = (text: string) => screen.getByText(text).closest("article") as HTMLElement;

describe("Pin / Unpin", () => {
  it("pins a message through pin_item, shows it pinned, and unpins it again", async () => {
    const { calls } = shell((cmd, args) => {
      if (cmd === "pin_item") return { v: 1, session_id: args.session_id, item_id: args.item, pinned: args.pinned };
      throw { kind: "internal", message: `unexpected ${cmd}` };
    });
    const user = userEvent.setup();
    await openLive(user);
    const message = article("Now add a benchmark.");
    const pin = within(message).getByRole("button", { name: "Pin your message" });
    expect(pin).toHaveAttribute("aria-pressed", "false");
    expect(pin).toHaveAttribute("data-tooltip", PIN_HINT);
    expect(pin).not.toHaveAttribute("title");
    await user.click(pin);
    await waitFor(() => expect(pin).toHaveAttribute("aria-pressed", "true"));
    expect(within(article("Now add a benchmark.")).getByTestId("pinned-badge")).toHaveTextContent("Pinned");
    expect(screen.getByText("Pinned: kept verbatim through every compaction.")).toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "pin_item")?.args).toMatchObject({ item: "i-u3", pinned: true });

    await user.click(within(article("Now add a benchmark.")).getByRole("button", { name: "Pin your message" }));
    await waitFor(() => expect(within(article("Now add a benchmark.")).queryByTestId("pinned-badge")).toBeNull());
    expect(calls.filter((c) => c.cmd === "pin_item").map((c) => c.args.pinned)).toEqual([true, false]);
  });

  it("pins a tool card by its output's item id", async () => {
    const { calls } = shell((cmd, args) => {
      if (cmd === "pin_item") return { v: 1, session_id: args.session_id, item_id: args.item, pinned: args.pinned };
      throw { kind: "internal", message: `unexpected ${cmd}` };
    });
    const user = userEvent.setup();
    await openLive(user);
    const card = screen.getByRole("region", { name: "Tool call read_file" });
    await user.click(within(card).getByRole("button", { name: "Pin the read_file output" }));
    await waitFor(() => expect(within(card).getByTestId("pinned-badge")).toBeInTheDocument());
    expect(calls.find((c) => c.cmd === "pin_item")?.args).toMatchObject({ item: "i-o1", pinned: true });
  });

  it("shows a refused pin's reason and leaves the item unpinned", async () => {
    const reason =
      "pinning item i-o1 would make the pinned items about 4100 tokens (an estimate), over half the compaction threshold (4000 of 8000); unpin something first";
    shell((cmd) => {
      if (cmd === "pin_item") throw { kind: "invalid_input", message: reason };
      throw { kind: "internal", message: `unexpected ${cmd}` };
    });
    const user = userEvent.setup();
    await openLive(user);
    const card = screen.getByRole("region", { name: "Tool call read_file" });
    const pin = within(card).getByRole("button", { name: "Pin the read_file output" });
    await user.click(pin);
    expect(await screen.findByRole("alert")).toHaveTextContent(`Not pinned: ${reason}`);
    expect(pin).toHaveAttribute("aria-pressed", "false");
    expect(within(card).queryByTestId("pinned-badge")).toBeNull();
  });

  it("shows recorded pins in a session another process holds, without offering to change them", async () => {
    const pinned = transcript.map((e) => (e.kind === "tool" ? { ...e, pinned: true } : e));
    shell(() => null, pinned, () => ({}), true);
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }));
    const card = await screen.findByRole("region", { name: "Tool call read_file" });
    expect(within(card).getByTestId("pinned-badge")).toBeInTheDocument();
    expect(within(card).queryByRole("button", { name: /^Pin / })).toBeNull();
  });
});

describe("Compact up to here", () => {
  it("is not offered on the first message", async () => {
    shell(() => null);
    const user = userEvent.setup();
    await openLive(user);
    await user.click(within(article("Make the JSON parser stream.")).getByRole("button", { name: /More actions/ }));
    const menu = screen.getByRole("menu");
    expect(within(menu).queryByRole("menuitem", { name: /Compact up to here/ })).toBeNull();
    expect(within(menu).getByRole("menuitem", { name: /Fork from here/ })).toBeInTheDocument();
  });

  it("confirms, sends the item and focus, and shows the divider just before the item", async () => {
    let compacted = false;
    const { calls, sessions } = shell((cmd) => {
      if (cmd === "compact_up_to") {
        compacted = true;
        // Rust's transcript now holds the divider above the item.
        sessions[0]!.transcript = [...transcript.slice(0, 3), { kind: "compaction", id: "compaction:sum-1", summary }, ...transcript.slice(3)];
        return { summary, history_items: 5 };
      }
      throw { kind: "internal", message: `unexpected ${cmd}` };
    });
    const user = userEvent.setup();
    await openLive(user);
    // Keyboard: the "…" button opens its menu with ArrowDown; Enter picks.
    within(article("Now add a benchmark.")).getByRole("button", { name: /More actions/ }).focus();
    await user.keyboard("{ArrowDown}");
    expect(screen.getByRole("menuitem", { name: /Compact up to here/ })).toHaveFocus();
    await user.keyboard("{Enter}");
    const dialog = screen.getByRole("dialog", { name: "Compact up to here?" });
    expect(dialog).toHaveTextContent("Everything before this item is summarised");
    expect(dialog).toHaveTextContent("This item and everything after it stay verbatim");
    expect(within(dialog).getByTestId("history-excerpt")).toHaveTextContent("Now add a benchmark.");
    await user.type(within(dialog).getByRole("textbox", { name: /Focus for the summary/ }), "the parser API{Enter}");
    await waitFor(() => expect(compacted).toBe(true));
    expect(calls.find((c) => c.cmd === "compact_up_to")?.args).toMatchObject({ item: "i-u3", focus: "the parser API" });
    const divider = await screen.findByRole("separator", { name: "Compacted on request" });
    const rows = Array.from(document.querySelectorAll(".message-row"));
    const at = rows.findIndex((row) => row.contains(divider));
    expect(rows[at + 1]).toHaveTextContent("Now add a benchmark.");
    expect(rows[at - 1]).toHaveTextContent("read_file");
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("shows why a partial compaction failed", async () => {
    shell((cmd) => {
      if (cmd === "compact_up_to") throw { kind: "invalid_input", message: "item i-u3 is not in what the model sees now" };
      throw { kind: "internal", message: `unexpected ${cmd}` };
    });
    const user = userEvent.setup();
    await openLive(user);
    await user.click(within(article("Now add a benchmark.")).getByRole("button", { name: /More actions/ }));
    await user.click(screen.getByRole("menuitem", { name: /Compact up to here/ }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Compact up to here" }));
    expect(await screen.findByText("Compact up to here failed: item i-u3 is not in what the model sees now")).toBeInTheDocument();
  });
});

describe("Fork from here", () => {
  const forked = "0193a1b2-c3d4-7e5f-8a9b-000000000f01";

  function forkingShell(parent: TranscriptEntry[] = transcript) {
    const state = shell((cmd, args) => {
      if (cmd === "fork_session") {
        const point = args.point as { kind: string; item_id?: string };
        const end = point.kind === "at_item" ? transcript.findIndex((e) => e.id === point.item_id) + 1 : 2;
        state.sessions.unshift({
          summary: { ...state.sessions[0]!.summary, id: forked, title: "Fork of the parser session" },
          transcript: [...transcript.slice(0, end), { kind: "notice", id: "record:40", text: "Forked from session 0193a1b2" }],
        });
        const files = args.files
          ? { mode: args.files, workspace: "/home/ana/ingest", restore: { v: 1, kind: "restore", session_id: forked, dry_run: false, restored: true, restore_id: "restore-1", files: [{ path: "a.txt", step: "write" }], refused: [] } }
          : undefined;
        return { v: 1, session_id: forked, parent_session_id: args.session_id, point: args.point, history_items: end, files };
      }
      if (cmd === "preview_fork") {
        return { v: 1, kind: "fork_preview", session_id: args.session_id, point: args.point, workspace: "/home/ana/ingest", worktree_unavailable: "the workspace is not in a git repository", files: [{ path: "a.txt", step: "write" }], refused: [] };
      }
      if (cmd === "session_items") {
        return { v: 1, session_id: args.session_id, items: [{ id: "sum-1", kind: "compaction_summary", in_context: true, evicted: false, pinned: false, preview: "" }] };
      }
      throw { kind: "internal", message: `unexpected ${cmd}` };
    }, parent);
    return state;
  }

  /** The live session's Fork from here on the assistant's reply, its dialog open. */
  async function askForkAtTheReply() {
    const { calls } = forkingShell();
    const user = userEvent.setup();
    await openLive(user);
    await user.click(within(article("The parser now streams.")).getByRole("button", { name: /More actions/ }));
    await user.click(screen.getByRole("menuitem", { name: /Fork from here/ }));
    return { calls, user, dialog: screen.getByRole("dialog", { name: "Fork from here?" }) };
  }

  it("says files are not rewound, forks at the message and opens the new session with the earlier items only", async () => {
    const { calls, user, dialog } = await askForkAtTheReply();
    expect(within(dialog).getByTestId("fork-files-notice")).toHaveTextContent("Files in the workspace are not rewound.");
    expect(within(dialog).getByTestId("fork-files-notice")).toHaveTextContent("/home/ana/ingest");
    await user.click(within(dialog).getByRole("button", { name: "Fork session" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Fork of the parser session" })).toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "fork_session")?.args).toMatchObject({ point: { kind: "at_item", item_id: "i-a1" } });
    expect(screen.getByText("The parser now streams.")).toBeInTheDocument();
    expect(screen.queryByText("Now add a benchmark.")).toBeNull();
    expect(screen.getByText(/Workspace files were not rewound/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /^Fork of the parser session/ })).toBeInTheDocument();
  });

  it("forks with the folder restored to that point when chosen, and says so", async () => {
    const { calls, user, dialog } = await askForkAtTheReply();
    await user.click(within(dialog).getByRole("radio", { name: /Restore this folder to that point/ }));
    expect(await within(dialog).findByText("a.txt")).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Fork session" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Fork of the parser session" })).toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "fork_session")?.args).toMatchObject({ point: { kind: "at_item", item_id: "i-a1" }, files: "in_place" });
    expect(screen.getByText(/1 file was returned to that point/)).toBeInTheDocument();
  });

  it("forks from before a compaction divider by its number", async () => {
    const entries: TranscriptEntry[] = [...transcript.slice(0, 3), { kind: "compaction", id: "compaction:sum-1", summary }, ...transcript.slice(3)];
    const { calls } = forkingShell(entries);
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }));
    await user.click(await screen.findByRole("button", { name: "Fork from before this" }));
    const dialog = await screen.findByRole("dialog", { name: "Fork from here?" });
    expect(dialog).toHaveTextContent("just before compaction 1");
    await user.click(within(dialog).getByRole("button", { name: "Fork session" }));
    await screen.findByRole("heading", { level: 1, name: "Fork of the parser session" });
    expect(calls.find((c) => c.cmd === "fork_session")?.args).toMatchObject({ point: { kind: "before_compaction", number: 1 } });
  });

  it("is a button on the console's compaction card", async () => {
    const forks: number[] = [];
    const user = userEvent.setup();
    const v = consoleViews[0]!;
    const figures = { before: { tokens: v.estimated_tokens_before, estimated: true }, after: { tokens: v.estimated_tokens_after, estimated: true }, freed: { tokens: v.estimated_tokens_before - v.estimated_tokens_after, estimated: true } };
    render(<CompactionCard view={v} number={2} of={2} focused={false} onReveal={() => {}} figures={figures} onFork={(n) => forks.push(n)} />);
    await user.click(screen.getByRole("button", { name: "Fork from before this" }));
    expect(forks).toEqual([2]);
  });
});

describe("Undo on the transcript's divider", () => {
  const second: CompactionSummary = { ...summary, id: "sum-2", summary: "The benchmark was added.", metadata: { ...summary.metadata, trigger: "auto" } };
  const twice: TranscriptEntry[] = [
    ...transcript.slice(0, 3),
    { kind: "compaction", id: "compaction:sum-1", summary },
    ...transcript.slice(3),
    { kind: "compaction", id: "compaction:sum-2", summary: second },
  ];
  const refusal = "undoing would bring the next request to about 9100 tokens (an estimate: the restored history and the tool specs), at or over the compaction threshold of 8000; nothing was changed";
  const divider = (name: string) => screen.findByRole("separator", { name });

  /** A shell whose console names `undoable` until an undo succeeds; `refuse` makes undo_compaction fail. */
  function undoShell({ undoable = "sum-2" as string | null, refuse = false, held = false } = {}) {
    let current = undoable;
    return shell(
      (cmd, args) => {
        if (cmd === "undo_compaction") {
          if (refuse) throw { kind: "invalid_input", message: refusal };
          current = null;
          return { v: 1, kind: "compaction_undone", session_id: args.session_id, undone: { summary_item_id: "sum-2", restored: ["i-u1", "i-a1"], estimated_tokens: 900, threshold: 8000 } };
        }
        throw { kind: "internal", message: `unexpected ${cmd}` };
      },
      twice,
      () => ({ undo_summary: current }),
      held,
    );
  }

  it("is offered on the divider of the compaction the status names, not on an older one", async () => {
    undoShell();
    const user = userEvent.setup();
    await openLive(user);
    const latest = await divider("Context compacted");
    await waitFor(() => expect(within(latest).getByRole("button", { name: /Undo/ })).toBeInTheDocument());
    expect(within(await divider("Compacted on request")).queryByRole("button", { name: /Undo/ })).toBeNull();
    expect(screen.getAllByTestId("compaction-undo")).toHaveLength(1);
  });

  /** Once the status was fetched: the divider offers Fork (reading only), not Undo. */
  async function offersNoUndo(calls: { cmd: string }[]) {
    const latest = await divider("Context compacted");
    await waitFor(() => expect(calls.some((c) => c.cmd === "open_console")).toBe(true));
    expect(within(latest).getByRole("button", { name: "Fork from before this" })).toBeInTheDocument();
    expect(screen.queryByTestId("compaction-undo")).toBeNull();
  }

  it("is not offered when the status names no compaction to undo", async () => {
    const { calls } = undoShell({ undoable: null });
    await openLive(userEvent.setup());
    await offersNoUndo(calls);
  });

  it("is not offered while another process holds the session: it can be forked, not changed", async () => {
    const { calls } = undoShell({ held: true });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }));
    await offersNoUndo(calls);
  });

  it("says what it restores, undoes only when confirmed, then is gone", async () => {
    const { calls } = undoShell();
    const user = userEvent.setup();
    await openLive(user);
    const latest = await divider("Context compacted");
    await user.click(await within(latest).findByRole("button", { name: /Undo/ }));
    const confirm = within(latest).getByTestId("undo-confirm");
    expect(confirm).toHaveTextContent("Undo this compaction? The model will see the history exactly as it was just before this compaction");
    expect(calls.some((c) => c.cmd === "undo_compaction")).toBe(false);
    await user.click(within(confirm).getByRole("button", { name: "Undo compaction" }));
    expect(await screen.findByText(/Compaction undone: the model sees 2 items again/)).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "undo_compaction").map((c) => c.args)).toEqual([{ session_id: "0193a1b2-c3d4-7e5f-8a9b-000000000a01" }]);
    await waitFor(() => expect(screen.queryByTestId("compaction-undo")).toBeNull());
  });

  it("shows a refusal in place and changes nothing; Cancel closes it", async () => {
    const { calls } = undoShell({ refuse: true });
    const user = userEvent.setup();
    await openLive(user);
    const latest = await divider("Context compacted");
    await user.click(await within(latest).findByRole("button", { name: /Undo/ }));
    await user.click(within(latest).getByRole("button", { name: "Undo compaction" }));
    expect(await within(latest).findByRole("alert")).toHaveTextContent(`Not undone. ${refusal}`);
    expect(calls.filter((c) => c.cmd === "open_transcript")).toHaveLength(1);
    await user.click(within(latest).getByRole("button", { name: "Cancel" }));
    expect(within(latest).queryByTestId("undo-confirm")).toBeNull();
    expect(within(latest).getByTestId("compaction-undo")).toBeInTheDocument();
  });

  it("works from the keyboard", async () => {
    const { calls } = undoShell();
    const user = userEvent.setup();
    await openLive(user);
    const latest = await divider("Context compacted");
    const undo = await within(latest).findByRole("button", { name: /Undo/ });
    undo.focus();
    await user.keyboard("{Enter}");
    expect(undo).toHaveAttribute("aria-expanded", "true");
    await user.tab();
    expect(within(latest).getByRole("button", { name: "Undo compaction" })).toHaveFocus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(calls.some((c) => c.cmd === "undo_compaction")).toBe(true));
  });
});

describe("the actions menu", () => {
  it("moves with the arrows and closes on Escape, giving focus back", async () => {
    const picked: string[] = [];
    const user = userEvent.setup();
    render(
      <ItemMenu
        subject="this answer"
        entries={[
          { label: "Compact up to here", hint: "", run: () => picked.push("compact") },
          { label: "Fork from here", hint: "", run: () => picked.push("fork") },
        ]}
      />,
    );
    const trigger = screen.getByRole("button", { name: "More actions on this answer" });
    await user.click(trigger);
    expect(trigger).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByRole("menuitem", { name: /Compact/ })).toHaveFocus();
    await user.keyboard("{ArrowDown}");
    expect(screen.getByRole("menuitem", { name: /Fork/ })).toHaveFocus();
    await user.keyboard("{ArrowDown}");
    expect(screen.getByRole("menuitem", { name: /Compact/ })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("menu")).toBeNull();
    expect(trigger).toHaveFocus();
    await user.click(trigger);
    await user.click(screen.getByRole("menuitem", { name: /Fork/ }));
    expect(picked).toEqual(["fork"]);
  });
});
