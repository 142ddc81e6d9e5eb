import { mockShell } from "../test/shell";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionView } from "../api/types";
import { DebugConsolePanel, type ConsoleContext } from "../components/DebugConsolePanel";
import { emptyTranscript } from "../state/transcript";
import { createActions, createStore, initialState } from "../state/store";
import { StoreProvider } from "../state/StoreProvider";
import { CONSOLE_SESSION, consoleConsole, consoleView, consoleViews, manyRoundsConsole, roundPage, summary1, summary2 } from "../test/consoleFixtures";
import type { ConsoleView } from "../bindings/ConsoleView";
import { eventStream } from "../test/fixtures";
import { consoleSections } from "./sections";

// jsdom has no canvas: the chart library is replaced by a stand-in that shows what it was given.
const charted = vi.hoisted(() => ({ data: null as unknown }));
vi.mock("./UPlotChart", () => ({
  UPlotChart: ({ data }: { data: unknown }) => {
    charted.data = data;
    return <div data-testid="uplot-stand-in" />;
  },
}));

interface Backend {
  view: SessionView;
  calls: [string, Record<string, unknown>][];
}

function backend(view: SessionView = consoleView(), views = consoleViews, console: ConsoleView = consoleConsole()): Backend {
  const state: Backend = { view, calls: [] };
  mockShell((cmd, args) => {
    state.calls.push([cmd, { ...(args as Record<string, unknown>) }]);
    if (cmd === "open_session") return state.view;
    if (cmd === "compaction_views") return views;
    if (cmd === "open_console") return console;
    if (cmd === "round_requests") return roundPage(((args as { offset: number }).offset ?? 0) + 1);
    throw { kind: "internal", message: `unexpected ${cmd}` };
  });
  return state;
}

function contextFor(overrides: Partial<ConsoleContext> = {}): ConsoleContext {
  return {
    session: consoleView(),
    transcript: emptyTranscript,
    debugEvents: [],
    focusedCompaction: null,
    revealInTranscript: () => {},
    ...overrides,
  };
}

/** The panel over an app store that opened `context.session`'s console as the app does (`open_console`). */
function renderConsole(context: ConsoleContext) {
  const store = createStore({ ...initialState, view: context.session });
  const actions = createActions(store);
  if (context.session) void actions.loadConsole(context.session.summary.id);
  const panel = (c: ConsoleContext) => (
    <StoreProvider store={store}>
      <DebugConsolePanel context={c} sections={consoleSections} width={460} onResize={() => {}} onClose={() => {}} />
    </StoreProvider>
  );
  const utils = render(panel(context));
  return { ...utils, store, actions, rerenderWith: (next: ConsoleContext) => utils.rerender(panel(next)) };
}

beforeEach(() => {
  charted.data = null;
});

describe("the compactions tab", () => {
  it("shows the tile's count, the estimated tokens freed and the last compaction, from one open_console", async () => {
    const ipc = backend();
    renderConsole(contextFor());
    const tile = await screen.findByTestId("compactions-tile");
    expect(within(tile).getByTestId("compactions-count")).toHaveTextContent("2");
    // Freed is before minus after, never below zero (a tiny history can grow by its summary).
    const freed = consoleViews.reduce((sum, v) => sum + Math.max(0, v.estimated_tokens_before - v.estimated_tokens_after), 0);
    expect(within(tile).getByTestId("compactions-reclaimed")).toHaveTextContent(`≈ ${freed}`);
    expect(tile).toHaveTextContent("estimated, history before minus after");
    expect(within(tile).getByTestId("compactions-last")).toHaveTextContent("Asked for");
    expect(within(tile).getByTestId("compactions-last")).toHaveTextContent("Compacted on request");
    expect(ipc.calls.map(([cmd]) => cmd)).toEqual(["open_console"]);
    expect(ipc.calls.every(([, args]) => args.session_id === CONSOLE_SESSION)).toBe(true);
  });

  it("shows a card per compaction with its numbers, newest first", async () => {
    backend();
    renderConsole(contextFor());
    const cards = await screen.findAllByTestId("compaction-card");
    expect(cards.map((c) => c.dataset.summaryId)).toEqual([summary2.id, summary1.id]);
    const first = within(screen.getByRole("article", { name: /Compaction 1 of 2/ }));
    expect(first.getByTestId("compaction-context-tokens")).toHaveTextContent("8,412");
    expect(first.getByTestId("compaction-threshold")).toHaveTextContent("8,000");
    expect(first.getByTestId("compaction-removed")).toHaveTextContent("3");
    expect(first.getByTestId("compaction-kept")).toHaveTextContent("2");
    expect(first.getByTestId("compaction-duration")).toHaveTextContent("2.8 s");
    expect(first.getByTestId("compaction-summarizer-usage")).toHaveTextContent("7.3k in · 212 out");
    expect(first.getByText("gpt-5.4-mini")).toBeInTheDocument();
    const v1 = consoleViews[0]!;
    expect(first.getByTestId("compaction-estimate-freed")).toHaveTextContent(`≈ ${Math.max(0, v1.estimated_tokens_before - v1.estimated_tokens_after).toLocaleString("en-US")} freed`);
    const second = within(screen.getByRole("article", { name: /Compaction 2 of 2/ }));
    expect(second.getByText("Asked for")).toBeInTheDocument();
    expect(second.getByTestId("compaction-context-tokens")).toHaveTextContent("9,100");
  });

  it("expands and collapses the summary sent to the model, as text", async () => {
    backend();
    renderConsole(contextFor());
    const card = within(await screen.findByRole("article", { name: /Compaction 1 of 2/ }));
    const toggle = card.getByRole("button", { name: /Summary sent to the model/ });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(card.queryByTestId("compaction-summary")).toBeNull();
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    const summary = card.getByTestId("compaction-summary");
    expect(summary).toHaveTextContent(/^\[Summary of earlier work\].*FIRST-SUMMARY: the parser was fixed/);
    fireEvent.click(toggle);
    expect(card.queryByTestId("compaction-summary")).toBeNull();
  });

  it("scrolls the transcript to the divider from a card, and focuses the card the divider asks for", async () => {
    backend();
    const reveal = vi.fn();
    const { rerenderWith } = renderConsole(contextFor({ revealInTranscript: reveal }));
    const card = await screen.findByRole("article", { name: /Compaction 1 of 2/ });
    fireEvent.click(within(card).getByText("Reported token usage 8412 reached the compaction threshold 8000"));
    expect(reveal).toHaveBeenLastCalledWith(summary1.id);
    fireEvent.click(within(card).getByRole("button", { name: "Show compaction 1 in the transcript" }));
    expect(reveal).toHaveBeenCalledTimes(2);
    // Buttons inside the card do their own thing.
    fireEvent.click(within(card).getByRole("button", { name: /Summary sent/ }));
    expect(reveal).toHaveBeenCalledTimes(2);

    // The divider's "Inspect in console" sets the focused compaction, even from another tab.
    fireEvent.click(screen.getByRole("tab", { name: "Model view" }));
    expect(screen.queryByTestId("compaction-card")).toBeNull();
    rerenderWith(contextFor({ revealInTranscript: reveal, focusedCompaction: summary1.id }));
    const focused = await screen.findByRole("article", { name: /Compaction 1 of 2/ });
    expect(screen.getByRole("tab", { name: "Compactions" })).toHaveAttribute("aria-selected", "true");
    await waitFor(() => expect(document.activeElement).toBe(focused));
    expect(focused).toHaveClass("focused");
    expect(screen.getByRole("article", { name: /Compaction 2 of 2/ })).not.toHaveClass("focused");
  });

  it("charts the reported context per round with the compactions marked", async () => {
    backend();
    renderConsole(contextFor());
    const chart = await screen.findByTestId("context-chart");
    expect(within(chart).getByRole("img")).toHaveAccessibleName(
      "Context tokens over 4 rounds; peak 9.1k, threshold 8k, window 32k; 2 compactions.",
    );
    expect(charted.data).toEqual([
      [1, 2, 3, 4],
      [5200, 8412, 2212, 9100],
      [null, 8412, null, 9100],
      [8000, 8000, 8000, 8000],
      [32000, 32000, 32000, 32000],
    ]);
    expect(chart).toHaveTextContent("Threshold 8k");
    expect(chart).toHaveTextContent("Window 32k");
  });

  it("explains what will appear in a session without rounds or compactions", async () => {
    backend(consoleView({ records: [], context: [] }), [], consoleConsole("empty"));
    renderConsole(contextFor());
    expect(await screen.findByTestId("compactions-empty")).toHaveTextContent("No compactions yet.");
    expect(screen.getByTestId("context-chart-empty")).toHaveTextContent("No rounds yet.");
    expect(screen.getByTestId("compactions-count")).toHaveTextContent("0");
    expect(screen.getByTestId("compactions-reclaimed")).toHaveTextContent("–");
  });

  it("says so when the session file cannot be read", async () => {
    mockShell(() => {
      throw { kind: "not_found", message: "That session no longer exists." };
    });
    renderConsole(contextFor());
    expect(await screen.findByRole("alert")).toHaveTextContent("The session file could not be read: That session no longer exists.");
  });
});

describe("the before/after view", () => {
  it("shows the removed items beside the summary and the kept items", async () => {
    backend();
    renderConsole(contextFor());
    const card = within(await screen.findByRole("article", { name: /Compaction 1 of 2/ }));
    fireEvent.click(card.getByRole("button", { name: "Before / after" }));
    const dialog = screen.getByRole("dialog", { name: "Compaction 1: before and after" });
    const removed = within(dialog).getByRole("region", { name: "Removed: 3 items" });
    expect(within(removed).getAllByTestId("history-item").map((i) => [i.dataset.kind, i.dataset.status])).toEqual([
      ["tool", "removed"],
      ["output", "removed"],
      ["assistant", "removed"],
    ]);
    expect(removed).toHaveTextContent("REMOVED-ANSWER");
    const after = within(dialog).getByRole("region", { name: "After: 3 items" });
    expect(within(after).getAllByTestId("history-item").map((i) => [i.dataset.kind, i.dataset.status])).toEqual([
      ["system", "kept"],
      ["summary", "added"],
      ["user", "kept"],
    ]);
    expect(after).toHaveTextContent("[Summary of earlier work]");
    expect(after).not.toHaveTextContent("REMOVED-ANSWER");

    fireEvent.click(within(dialog).getByRole("button", { name: "Everything before" }));
    const before = within(dialog).getByRole("region", { name: "Before: 5 items" });
    expect(within(before).getAllByTestId("history-item").map((i) => i.dataset.status)).toEqual(["kept", "kept", "removed", "removed", "removed"]);
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});

describe("the model view", () => {
  it("shows what the model sees now: system, summary, kept messages, not what was removed", async () => {
    backend();
    renderConsole(contextFor());
    fireEvent.click(screen.getByRole("tab", { name: "Model view" }));
    const model = await screen.findByTestId("model-view");
    expect(within(model).getAllByTestId("model-item").map((i) => i.dataset.kind)).toEqual(["message", "compaction_summary", "message", "message"]);
    expect(within(model).getByRole("region", { name: "Instructions" })).toHaveTextContent("You are Strata.");
    expect(within(model).getByRole("region", { name: "Summary of earlier work" })).toHaveTextContent("SECOND-SUMMARY");
    const kept = within(model).getByRole("region", { name: "Kept messages" });
    expect(kept).toHaveTextContent("Fix the parser.");
    expect(kept).toHaveTextContent("Now add tests.");
    expect(model).not.toHaveTextContent("REMOVED-ANSWER");
    expect(model).toHaveTextContent("4 messages");
  });

  it("shows what a live turn's console updates change, without fetching the session again", async () => {
    const ipc = backend();
    const { actions } = renderConsole(contextFor());
    fireEvent.click(screen.getByRole("tab", { name: "Model view" }));
    await screen.findByTestId("model-view");
    const held = consoleConsole();
    const later = { id: "later", title: "Since the last compaction", hint: "Messages that joined the history after it.", items: [{ type: "message" as const, id: "i-new", role: "assistant" as const, content: "NEW-ITEM" }] };
    const s = eventStream();
    act(() =>
      actions.receive(CONSOLE_SESSION, [
        { envelope: s.debug({ kind: "usage_reported", turn_id: "t", round_id: "r", usage: { input_tokens: 10 }, threshold: 8000 }), updates: [], console: { records: held.records + 2, rows: [], chart: [], markers: [], model_view: [...held.model_view, { ...later, id: "later" }], gauge: held.gauge, undo: held.undo } },
      ]),
    );
    await waitFor(() => expect(screen.getByTestId("model-view")).toHaveTextContent("NEW-ITEM"));
    expect(screen.getByRole("region", { name: "Since the last compaction" })).toHaveTextContent("NEW-ITEM");
    expect(ipc.calls.map(([cmd]) => cmd)).toEqual(["open_console"]);
  });
});

describe("the rounds and events log", () => {
  it("filters by family and kind, searches, and opens a round's exact request", async () => {
    const ipc = backend();
    renderConsole(contextFor());
    fireEvent.click(screen.getByRole("tab", { name: "Rounds and events" }));
    const log = await screen.findByTestId("event-log");
    expect(within(log).getByTestId("log-count")).toHaveTextContent("25 entries · 4 model calls");

    fireEvent.click(within(log).getByRole("button", { name: "Debug" }));
    expect(within(log).getByTestId("log-count")).toHaveTextContent("Showing 11 of 25 entries");
    fireEvent.click(within(log).getByRole("button", { name: "Retries" }));
    expect(within(log).getAllByTestId("log-row").map((r) => r.dataset.kind)).toEqual(["retry"]);
    fireEvent.click(within(log).getByRole("button", { name: "All" }));

    fireEvent.change(within(log).getByRole("searchbox", { name: "Search the log" }), { target: { value: "apply_patch" } });
    expect(within(log).getAllByTestId("log-row").map((r) => r.textContent)).toEqual([expect.stringContaining("apply_patch denied")]);
    fireEvent.change(within(log).getByRole("searchbox", { name: "Search the log" }), { target: { value: "no such thing" } });
    expect(within(log).getByTestId("log-empty")).toHaveTextContent("No entry matches.");
    fireEvent.change(within(log).getByRole("searchbox", { name: "Search the log" }), { target: { value: "Round 3" } });

    fireEvent.click(within(log).getByRole("button", { name: "Show the exact request of round 3" }));
    const dialog = await screen.findByRole("dialog", { name: "Round 3: the exact request" });
    await within(dialog).findByTestId("round-request");
    expect(ipc.calls.find(([cmd, args]) => cmd === "round_requests" && args.limit === 1)?.[1]).toEqual({ session_id: CONSOLE_SESSION, offset: 2, limit: 1 });
    expect(within(dialog).getByRole("region", { name: "Instructions and input" })).toHaveTextContent("You are Strata.");
    expect(within(dialog).getByRole("region", { name: "Tools" })).toHaveTextContent("read_file");
    expect(dialog).toHaveTextContent("max output 8,192 tokens");
  });

  it("renders a bounded number of rows for 5,000 rounds", async () => {
    backend(consoleView(), [], manyRoundsConsole(5000));
    renderConsole(contextFor());
    fireEvent.click(screen.getByRole("tab", { name: "Rounds and events" }));
    const log = await screen.findByTestId("event-log");
    expect(within(log).getByTestId("log-count")).toHaveTextContent("10,001 entries · 5,000 model calls");
    const rows = within(log).getAllByTestId("log-row");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(40);
  });
});

describe("the tabs", () => {
  it("move with the arrow keys", async () => {
    backend();
    renderConsole(contextFor());
    const first = screen.getByRole("tab", { name: "Compactions" });
    first.focus();
    fireEvent.keyDown(first, { key: "ArrowRight" });
    expect(screen.getByRole("tab", { name: "Model view" })).toHaveAttribute("aria-selected", "true");
    expect(document.activeElement).toBe(screen.getByRole("tab", { name: "Model view" }));
    fireEvent.keyDown(document.activeElement as Element, { key: "ArrowLeft" });
    fireEvent.keyDown(document.activeElement as Element, { key: "ArrowLeft" });
    expect(screen.getByRole("tab", { name: "Rounds and events" })).toHaveAttribute("aria-selected", "true");
    expect(await screen.findByTestId("event-log")).toBeInTheDocument();
  });
});
