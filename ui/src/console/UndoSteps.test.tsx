import { mockShell } from "../test/shell";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { ResponseItem, SessionRecord } from "../api/types";
import { App } from "../App";
import { type ConsoleScenario, consoleApp, consoleConsole, consoleRecords, consoleView, consoleViews, scenarioRecords, system, user1, user2 } from "../test/consoleFixtures";
import { CompactionList } from "./Compactions";
import { EvictionCard } from "./EvictionCard";
import { ItemView } from "./ItemView";

/** The console's steps and Undo as the Rust fold made them for `scenario`. */
function folded(scenario: ConsoleScenario) {
  const { steps, undo } = consoleConsole(scenario);
  return { steps, undo };
}

vi.mock("./UPlotChart", () => ({ UPlotChart: () => <div data-testid="uplot-stand-in" /> }));

const answer2 = consoleRecords.flatMap((r) => (r.type === "response_item" && r.payload.type === "message" && r.payload.content === "Adding tests next." ? [r.payload] : []))[0] as ResponseItem;
const summary1Before = consoleViews[1]?.before ?? [];

/** The fixture's session after an undo of compaction 2: its last record. */
const undoRecord = scenarioRecords("undone").at(-1) as Extract<SessionRecord, { type: "compaction_undone" }>;

function cards() {
  return screen.getAllByRole("article");
}

describe("Undo on the latest compaction card", () => {
  it("is offered on the latest card only, says what it restores, and shows a refusal in place", async () => {
    const onUndo = vi.fn().mockRejectedValueOnce({
      kind: "invalid_input",
      message: "undoing would bring the next request to about 9100 tokens (an estimate: the restored history and the tool specs), at or over the compaction threshold of 8000; nothing was changed",
    });
    render(<CompactionList {...folded("two_compactions")} focused={null} onReveal={() => {}} onUndo={onUndo} />);
    const [latest, first] = cards();
    expect(within(first!).queryByTestId("compaction-undo")).toBeNull();
    fireEvent.click(within(latest!).getByTestId("compaction-undo"));
    const confirm = within(latest!).getByTestId("undo-confirm");
    expect(confirm).toHaveTextContent("exactly as it was just before this compaction, plus everything added since");
    fireEvent.click(within(confirm).getByRole("button", { name: "Undo compaction" }));
    const alert = await within(latest!).findByRole("alert");
    expect(alert).toHaveTextContent("Not undone. undoing would bring the next request to about 9100 tokens");
    expect(onUndo).toHaveBeenCalledTimes(1);
    // Nothing changed: the card is still the latest and still offers Undo.
    expect(within(latest!).getByTestId("compaction-undo")).toBeEnabled();
    expect(screen.queryByTestId("undo-card")).toBeNull();
  });

  it("shows a recorded undo as its own step and offers no second undo", () => {
    render(<CompactionList {...folded("undone")} focused={null} onReveal={() => {}} onUndo={vi.fn()} />);
    const [undo, latest] = cards();
    expect(undo).toHaveAttribute("data-testid", "undo-card");
    expect(undo).toHaveTextContent("Compaction #2 undone");
    expect(within(undo!).getByTestId("undo-restored")).toHaveTextContent(String(summary1Before.length));
    expect(within(latest!).getByTestId("compaction-undone")).toHaveTextContent("Undone");
    expect(screen.queryByTestId("compaction-undo")).toBeNull();
    fireEvent.click(within(undo!).getByRole("button", { name: /restored items/ }));
    const ids = within(undo!).getByTestId("restored-list");
    expect(within(ids).getAllByTestId("item-id").map((chip) => chip.dataset.itemId)).toEqual(summary1Before.map((item) => item.id));
  });

  it("undoes through the app: a refusal changes nothing, a success reloads the model view and the cards", async () => {
    let undone = false;
    const calls: string[] = [];
    const view = () =>
      undone ? consoleView({ records: [...consoleRecords, undoRecord], context: [system, summary1Before[1]!, user1, user2, answer2], record_count: consoleRecords.length + 1 }) : consoleView();
    const answer = consoleApp({
      list_sessions: () => ({ v: 1, sessions: [view().summary], total: 1 }),
      open_session: view,
      open_console: () => consoleConsole(undone ? "undone" : "two_compactions"),
      undo_compaction: () => {
        if (calls.filter((c) => c === "undo_compaction").length === 1) {
          throw { kind: "invalid_input", message: "undoing would bring the next request to about 9100 tokens (an estimate); nothing was changed" };
        }
        undone = true;
        return { v: 1, session_id: view().summary.id, undone: undoRecord.payload };
      },
    });
    mockShell((cmd) => {
      calls.push(cmd);
      return answer(cmd);
    });
    render(<App />);
    fireEvent.click(await screen.findByRole("button", { name: /^Parser work/ }));
    const transcript = await screen.findByRole("log", { name: "Conversation" });
    const dividers = await within(transcript).findAllByRole("separator");
    fireEvent.click(within(dividers[1]!).getByRole("button", { name: "Inspect in console" }));
    const console = await screen.findByRole("complementary", { name: "Debug console" });
    const latest = await within(console).findByRole("article", { name: /Compaction 2 of 2/ });
    fireEvent.click(within(latest).getByTestId("compaction-undo"));
    fireEvent.click(within(latest).getByRole("button", { name: "Undo compaction" }));
    expect(await within(latest).findByRole("alert")).toHaveTextContent("nothing was changed");
    const opensBefore = calls.filter((c) => c === "open_session").length;
    expect(within(console).queryByTestId("undo-card")).toBeNull();

    fireEvent.click(within(latest).getByRole("button", { name: "Undo compaction" }));
    const undoCard = await within(console).findByTestId("undo-card");
    expect(undoCard).toHaveTextContent("Compaction #2 undone");
    expect(calls.filter((c) => c === "open_session").length).toBeGreaterThan(opensBefore);
    expect(within(console).queryByTestId("compaction-undo")).toBeNull();
    await waitFor(() => expect(screen.getAllByRole("status").some((toast) => /Compaction undone: the model sees 5 items again/.test(toast.textContent ?? ""))).toBe(true));
  }, 20_000);
});

describe("a refused compaction", () => {
  it("is a card saying what it would have dropped, newest first", () => {
    render(<CompactionList {...folded("refused")} focused={null} onReveal={() => {}} />);
    const [newest] = cards();
    expect(newest).toHaveAttribute("data-testid", "refused-card");
    expect(newest).toHaveTextContent("Compaction not committed");
    expect(within(newest!).getByTestId("refused-message")).toHaveTextContent("the compaction would drop a rule");
    expect(within(within(newest!).getByTestId("refused-dropped")).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "the pinned item i-user-1",
      "the latest user request",
    ]);
  });
});

describe("copyable item ids", () => {
  it("shows each item's id shortened and copies the whole id", async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText } });
    const item: ResponseItem = { type: "message", id: "0193a1b2-c3d4-7e5f-8a9b-00000000abcd", role: "user", content: "Pin me." };
    render(<ItemView item={item} />);
    const chip = screen.getByTestId("item-id");
    expect(within(chip).getByText("0193a1b2…abcd")).toHaveAttribute("title", item.id);
    fireEvent.click(within(chip).getByRole("button", { name: `Copy item id ${item.id}` }));
    expect(writeText).toHaveBeenCalledWith(item.id);
    expect(await within(chip).findByRole("button", { name: "Copied" })).toBeInTheDocument();
  });

  it("names the evicted item's id beside its placeholder", () => {
    render(
      <EvictionCard
        eviction={{
          trigger: "auto",
          context_tokens: 9000,
          threshold: 8000,
          low_water: 6000,
          estimated_before: 9000,
          estimated_after: 5000,
          evicted: [{ item_id: "0193a1b2-c3d4-7e5f-8a9b-0000000e0001", call_id: "c1", tool: "read_file", chars: 12000, placeholder: "[output evicted]" }],
        }}
        number={1}
        ts="2026-11-29T09:00:00.000Z"
        figures={{ before: { tokens: 9000, estimated: true }, after: { tokens: 5000, estimated: true }, freed: { tokens: 4000, estimated: true } }}
      />,
    );
    fireEvent.click(screen.getByRole("button", { name: /replaced output/ }));
    expect(screen.getByTestId("item-id").dataset.itemId).toBe("0193a1b2-c3d4-7e5f-8a9b-0000000e0001");
  });
});
