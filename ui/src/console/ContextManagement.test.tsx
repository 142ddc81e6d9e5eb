import { mockShell } from "../test/shell";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { EventEnvelope, SessionRecord } from "../api/types";
import type { DebugEvent } from "../bindings/DebugEvent";
import { CircuitBanner } from "../components/CircuitBanner";
import { ContextGauge, ESTIMATE_HINT } from "../components/ContextGauge";
import { CONSOLE_SESSION, consoleRecords, consoleViews, roundPage } from "../test/consoleFixtures";
import { eviction, layered, layeredView, preview, status } from "../test/layeredFixtures";
import { CompactionCard, CompactionList } from "./Compactions";
import { ContextControls, IneffectiveWarnings } from "./ContextControls";
import { DriftTable } from "./DriftTable";
import { EvictionCard } from "./EvictionCard";
import { PreviewDialog } from "./PreviewDialog";
import { compactionSteps, drift, formatDrift } from "./steps";
import { gaugeReading, type SessionCompaction } from "./useCompactionStatus";

const debug = (seq: number, event: DebugEvent): EventEnvelope => ({ v: 1, seq, session_id: CONSOLE_SESSION, event: { family: "debug", event } });

describe("compaction steps", () => {
  it("puts evictions and summaries in file order, with the policy in force and the layered record", () => {
    const records: SessionRecord[] = [
      ...consoleRecords.slice(0, 2),
      { v: 2, ts: "2026-11-29T09:00:02.000Z", type: "compaction_policy", payload: { policy: "layered" } },
      ...consoleRecords.slice(2, 10),
      { v: 2, ts: "2026-11-29T09:00:10.000Z", type: "tool_outputs_evicted", payload: eviction },
      { v: 2, ts: "2026-11-29T09:00:11.000Z", type: "token_usage", payload: { usage: { input_tokens: 4_000, output_tokens: 20 } } },
      ...consoleRecords.slice(10),
    ] as SessionRecord[];
    const views = consoleViews.map((view) => ({ ...view, record_index: view.record_index + 3 }));
    const withLayered = [...records, { v: 2, ts: "2026-11-29T09:01:00.000Z", type: "layered_compaction", payload: layered() } as SessionRecord];
    const steps = compactionSteps(withLayered, views);
    expect(steps.map((s) => s.kind)).toEqual(["eviction", "summary", "summary"]);
    const [first, second, third] = steps;
    expect(first?.kind === "eviction" && first.nextContextTokens).toBe(4_020);
    expect(second?.kind === "summary" && second.layered).toBeNull();
    expect(second?.kind === "summary" && second.policy).toBe("layered");
    expect(third?.kind === "summary" && third.layered?.summary.id).toBe("i-summary-2");
  });

  it("treats a session without a policy record as base", () => {
    expect(compactionSteps(consoleRecords, consoleViews).map((s) => (s.kind === "summary" ? s.policy : null))).toEqual(["base", "base"]);
  });

  it("signs the drift of an estimate against the report", () => {
    expect(formatDrift(drift(900, 1_000)!)).toBe("+10%");
    expect(formatDrift(drift(1_100, 1_000)!)).toBe("−10%");
    expect(drift(1_000, null)).toBeNull();
  });
});

describe("the honest gauge", () => {
  it("shows the estimate after an eviction or a layered summary, then the next report", () => {
    const usage = debug(1, { kind: "usage_reported", turn_id: "t", round_id: "r", usage: { input_tokens: 8_400 }, context_tokens: 8_412, threshold: 8_000 });
    const evicted = debug(2, { kind: "tool_outputs_evicted", eviction, history_items: 9 });
    expect(gaugeReading([usage], status, null)).toEqual({ tokens: 8_412, estimated: false });
    expect(gaugeReading([usage, evicted], status, null)).toEqual({ tokens: 3_900, estimated: true });
    const summarised = debug(3, { kind: "layered_compacted", compaction: layered() });
    expect(gaugeReading([usage, evicted, summarised], status, null)).toEqual({ tokens: 2_100, estimated: true });
    const next = debug(4, { kind: "usage_reported", turn_id: "t", round_id: "r2", usage: { input_tokens: 2_400 }, context_tokens: 2_430, threshold: 8_000 });
    expect(gaugeReading([usage, evicted, summarised, next], status, null)).toEqual({ tokens: 2_430, estimated: false });
  });

  it("never falls back to the pre-compaction report after a base summary", () => {
    const usage = debug(1, { kind: "usage_reported", turn_id: "t", round_id: "r", usage: { input_tokens: 8_400 }, context_tokens: 8_412, threshold: 8_000 });
    const compacted = debug(2, { kind: "history_compacted", summary: consoleViews[0]!.summary, history_items: 4 });
    expect(gaugeReading([usage, compacted], { ...status, reported_tokens: undefined }, 8_412)).toEqual({ tokens: null, estimated: true });
    expect(gaugeReading([usage, compacted], { ...status, reported_tokens: undefined, estimated_tokens: 1_900 }, 8_412)).toEqual({ tokens: 1_900, estimated: true });
  });

  it("reads the status when the live stream says nothing", () => {
    expect(gaugeReading([], { ...status, reported_tokens: undefined, estimated_tokens: 2_000 }, 9_000)).toEqual({ tokens: 2_000, estimated: true });
    expect(gaugeReading([], null, 9_000)).toEqual({ tokens: 9_000, estimated: false });
  });

  it("labels an estimate on the footer gauge for people and screen readers", () => {
    render(<ContextGauge context_tokens={2_100} threshold={8_000} context_window={32_000} estimated />);
    const meter = screen.getByRole("meter", { name: "Context tokens" });
    expect(meter).toHaveAttribute("aria-valuetext", expect.stringContaining("estimated after a compaction"));
    // Marked by "≈" and its tooltip, not a loud badge.
    expect(screen.getByTestId("context-gauge")).toHaveTextContent(/^Context≈ 2\.1k \/ 8k compact/);
    expect(screen.getByTitle(ESTIMATE_HINT)).toHaveTextContent("≈");
    expect(screen.queryByText("estimated")).toBeNull();
  });
});

describe("EvictionCard", () => {
  it("shows the outputs evicted and the tokens freed, and lists the placeholders from the keyboard", async () => {
    const user = userEvent.setup();
    render(<EvictionCard eviction={eviction} number={1} ts="2026-11-29T09:00:10.000Z" nextContextTokens={4_020} />);
    const card = screen.getByRole("article", { name: /Tool-output eviction 1/ });
    expect(within(card).getByTestId("eviction-count")).toHaveTextContent("2");
    expect(within(card).getByTestId("eviction-freed")).toHaveTextContent("4,450");
    expect(within(card).getByTestId("eviction-drift")).toHaveTextContent("drift +3%");
    const toggle = within(card).getByRole("button", { name: "The 2 evicted outputs" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    toggle.focus();
    await user.keyboard("{Enter}");
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByTestId("evicted-list")).toHaveTextContent("run_shell cargo test");
  });
});

describe("a layered summary card", () => {
  it("shows trigger, policy, drift and a clean loss audit, and opens the state sheet by keyboard", async () => {
    const user = userEvent.setup();
    render(<CompactionCard view={layeredView} number={2} of={2} focused={false} onReveal={() => {}} layered={layered()} policy="layered" />);
    expect(screen.getByTestId("compaction-trigger")).toHaveTextContent("Manual");
    expect(screen.getByTestId("compaction-policy")).toHaveTextContent("Layered");
    expect(screen.getByTestId("compaction-drift")).toHaveTextContent("next round reported 2,430 · drift +14%");
    expect(screen.getByTestId("loss-audit")).toHaveTextContent("every path, command and error of the removed span is in the summary or the state sheet");
    const toggle = screen.getByRole("button", { name: "State sheet" });
    toggle.focus();
    await user.keyboard(" ");
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByTestId("sheet-files")).toHaveTextContent("src/parser.rs · edited");
    expect(screen.getByTestId("sheet-commands")).toHaveTextContent("cargo test · exit 0");
    expect(screen.getByTestId("sheet-next-step")).toHaveTextContent("Next: add a test for empty input.");
  });

  it("names what the loss audit found lost", () => {
    render(
      <CompactionCard
        view={layeredView}
        number={2}
        of={2}
        focused={false}
        onReveal={() => {}}
        layered={layered({ loss_audit: { paths: [], commands: [], errors: ["run_shell make: exit 2"] } })}
        policy="layered"
      />,
    );
    const audit = screen.getByRole("group", { name: "Loss audit" });
    expect(audit).toHaveTextContent("1 fact of the removed span");
    expect(within(audit).getByTestId("loss-errors")).toHaveTextContent("run_shell make: exit 2");
  });

  it("says how the trigger is named for each kind of step", () => {
    const views = (["auto", "pre_turn", "context_overflow", "model_switch"] as const).map((trigger, i) => ({
      ...consoleViews[0]!,
      summary: { ...consoleViews[0]!.summary, id: `s-${i}`, metadata: { ...consoleViews[0]!.summary.metadata, trigger } },
    }));
    render(<CompactionList steps={compactionSteps([], views)} focused={null} onReveal={() => {}} />);
    expect(screen.getAllByTestId("compaction-trigger").map((el) => el.textContent)).toEqual(["Model switch", "Overflow recovery", "Pre-turn", "Between rounds"]);
  });
});

function compactionState(overrides: Partial<SessionCompaction> = {}): SessionCompaction {
  return { sessionId: CONSOLE_SESSION, status, reading: { tokens: 2_100, estimated: true }, setPolicy: vi.fn(async () => {}), ...overrides };
}

describe("ContextControls", () => {
  it("changes the session's policy from a named radio group and labels the estimate", async () => {
    const user = userEvent.setup();
    const compaction = compactionState();
    render(<ContextControls compaction={compaction} running={false} />);
    const group = screen.getByRole("radiogroup", { name: "Compaction policy for this session" });
    expect(within(group).getByRole("radio", { name: "Layered" })).toBeChecked();
    await user.click(within(group).getByRole("radio", { name: "Off" }));
    expect(compaction.setPolicy).toHaveBeenCalledWith("off");
    expect(screen.getByTestId("context-reading")).toHaveTextContent("≈ 2,100 tokens estimated until the next round reports · compacts at 25.6k (80%)");
  });

  it("shows why a policy change was refused", async () => {
    const user = userEvent.setup();
    const compaction = compactionState({ setPolicy: vi.fn(async () => Promise.reject({ kind: "busy", message: "A turn is running in this session." })) });
    render(<ContextControls compaction={compaction} running={false} />);
    await user.click(screen.getByRole("radio", { name: "Base" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("A turn is running in this session.");
  });

  it("shows an open circuit with its reason and a Retry, held while a turn runs", async () => {
    const user = userEvent.setup();
    const onRetry = vi.fn();
    const open = { ...status, circuit_open: true, circuit_reason: "the compaction was refused: it would have dropped <b>the latest user request</b>" };
    const { rerender } = render(<ContextControls compaction={compactionState({ status: open })} running={false} onRetry={onRetry} />);
    const circuit = screen.getByTestId("console-circuit");
    expect(circuit).toHaveTextContent("Automatic compaction is paused after three compactions in a row whose summary failed or was refused.");
    expect(circuit).toHaveTextContent("Last reason: the compaction was refused: it would have dropped <b>the latest user request</b>");
    expect(circuit.querySelector("b")).toBeNull();
    await user.click(within(circuit).getByRole("button", { name: "Retry compaction" }));
    expect(onRetry).toHaveBeenCalledOnce();
    rerender(<ContextControls compaction={compactionState({ status: open })} running onRetry={onRetry} />);
    expect(within(screen.getByTestId("console-circuit")).getByRole("button", { name: "Retry compaction" })).toBeDisabled();
    rerender(<ContextControls compaction={compactionState()} running={false} onRetry={onRetry} />);
    expect(screen.queryByTestId("console-circuit")).toBeNull();
  });

  it("holds the policy while a turn runs", () => {
    render(<ContextControls compaction={compactionState()} running />);
    expect(screen.getByRole("radio", { name: "Off" })).toBeDisabled();
  });

  it("opens the preview from the Preview button", async () => {
    const user = userEvent.setup();
    mockShell((cmd) => {
      if (cmd === "preview_compaction") return preview;
      throw { kind: "internal", message: `unexpected ${cmd}` };
    });
    render(<ContextControls compaction={compactionState()} running={false} />);
    await user.click(screen.getByRole("button", { name: "Preview compaction" }));
    expect(await screen.findByRole("dialog", { name: "Compaction preview" })).toBeInTheDocument();
  });
});

describe("PreviewDialog", () => {
  it("shows what would be evicted, summarised and kept, the sheet and the cached tokens given up, and closes on Escape", async () => {
    const user = userEvent.setup();
    const calls: string[] = [];
    mockShell((cmd, args) => {
      calls.push(`${cmd}:${(args as { session_id: string }).session_id}`);
      if (cmd === "preview_compaction") return preview;
      throw { kind: "internal", message: `unexpected ${cmd}` };
    });
    const onClose = vi.fn();
    render(<PreviewDialog sessionId={CONSOLE_SESSION} onClose={onClose} />);
    const dialog = await screen.findByRole("dialog", { name: "Compaction preview" });
    await waitFor(() => expect(within(dialog).getByTestId("preview-before")).toHaveTextContent("8,350"));
    expect(calls).toEqual([`preview_compaction:${CONSOLE_SESSION}`]);
    expect(within(dialog).getByTestId("preview-after")).toHaveTextContent("3,900");
    expect(within(dialog).getByTestId("preview-cached")).toHaveTextContent("6,144");
    expect(within(dialog).getByTestId("preview-evicted-count")).toHaveTextContent("2 tool outputs, about 4,450 tokens freed.");
    expect(within(dialog).getByTestId("preview-summary")).toHaveTextContent("Eviction alone brings the context under the threshold, so no summary would follow. A summary would replace 3 items and keep 3 verbatim.");
    expect(within(dialog).getByTestId("sheet-files")).toHaveTextContent("tests/parser.rs · written");
    await user.keyboard("{Escape}");
    expect(onClose).toHaveBeenCalled();
  });

  it("says why when there is no preview", async () => {
    mockShell(() => {
      throw { kind: "not_found", message: "That session no longer exists." };
    });
    render(<PreviewDialog sessionId={CONSOLE_SESSION} onClose={() => {}} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("No preview: That session no longer exists.");
  });
});

describe("warnings and the circuit breaker", () => {
  it("lists each compaction_ineffective warning of the live stream", () => {
    render(<IneffectiveWarnings debugEvents={[debug(5, { kind: "compaction_ineffective", summary_item_id: "i-summary-2", estimated_tokens: 7_500, threshold: 8_000 })]} />);
    expect(screen.getByRole("list", { name: "Compaction warnings" })).toHaveTextContent("about 7,500 tokens remain (estimate) against a threshold of 8,000");
  });

  it("offers Retry in an alert banner, from the keyboard", async () => {
    const user = userEvent.setup();
    const onRetry = vi.fn();
    render(<CircuitBanner onRetry={onRetry} busy={false} />);
    expect(screen.getByRole("alert")).toHaveTextContent("Automatic compaction is paused.");
    screen.getByRole("button", { name: "Retry compaction" }).focus();
    await user.keyboard("{Enter}");
    expect(onRetry).toHaveBeenCalledOnce();
  });

  it("names the last failure, as text", () => {
    render(<CircuitBanner onRetry={() => {}} busy={false} reason={"503 <b>overloaded</b>"} />);
    expect(screen.getByTestId("circuit-reason")).toHaveTextContent("Last error: 503 <b>overloaded</b>");
    expect(screen.getByRole("alert").querySelector("b")).toBeNull();
  });
});

describe("DriftTable", () => {
  it("shows each round's estimated input against the reported input", async () => {
    mockShell((cmd, args) => {
      if (cmd !== "round_requests") throw { kind: "internal", message: `unexpected ${cmd}` };
      const { limit } = args as { offset: number; limit: number };
      return limit === 0 ? { ...roundPage(4), rounds: [] } : roundPage(4);
    });
    render(<DriftTable sessionId={CONSOLE_SESSION} revision="1" />);
    const table = await screen.findByRole("table", { name: /Estimate drift/ });
    const row = within(table).getAllByTestId("drift-row")[0]!;
    expect(within(row).getAllByRole("cell").map((cell) => cell.textContent)).toEqual(["≈ 2,100", "1,900", "−11%"]);
  });

  it("makes up no estimate for rounds that recorded none (base sessions, older files)", async () => {
    const page = roundPage(2);
    const bare = { ...page, rounds: page.rounds.map(({ estimated_input_tokens: _, ...round }) => round) };
    mockShell((cmd, args) => {
      if (cmd !== "round_requests") throw { kind: "internal", message: `unexpected ${cmd}` };
      const { limit } = args as { offset: number; limit: number };
      return limit === 0 ? { ...bare, rounds: [] } : bare;
    });
    render(<DriftTable sessionId={CONSOLE_SESSION} revision="1" />);
    expect(await screen.findByTestId("drift-none")).toHaveTextContent("recorded no estimate");
    expect(screen.queryByRole("table")).toBeNull();
  });
});
