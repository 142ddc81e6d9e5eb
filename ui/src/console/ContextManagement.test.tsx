import { mockShell } from "../test/shell";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { EventEnvelope } from "../api/types";
import type { DebugEvent } from "../bindings/DebugEvent";
import { CircuitBanner } from "../components/CircuitBanner";
import { ContextGauge, ESTIMATE_HINT } from "../components/ContextGauge";
import { CONSOLE_SESSION, consoleConsole } from "../test/consoleFixtures";
import { eviction, layered, layeredView, preview, status } from "../test/layeredFixtures";
import { CompactionCard, CompactionList } from "./Compactions";
import { ContextControls, IneffectiveWarnings } from "./ContextControls";
import { DriftTable } from "./DriftTable";
import { EvictionCard } from "./EvictionCard";
import { PreviewDialog } from "./PreviewDialog";
import { drift, formatDrift } from "./steps";
import type { SessionCompaction } from "./useCompactionStatus";
import type { GaugeReading } from "../bindings/GaugeReading";
import type { StepFigures } from "../bindings/StepFigures";

const debug = (seq: number, event: DebugEvent): EventEnvelope => ({ v: 1, seq, session_id: CONSOLE_SESSION, event: { family: "debug", event } });

/** A step's figures as the console fold computes them: one estimator, marked ≈. */
const figures = (before: number, after: number, next_reported?: number): StepFigures => ({
  before: { tokens: before, estimated: true },
  after: { tokens: after, estimated: true },
  freed: { tokens: before - after, estimated: true },
  ...(next_reported !== undefined ? { next_reported } : {}),
});

describe("the figures of a step", () => {
  it("signs how far an estimate was off the report", () => {
    expect(formatDrift(drift(900, 1_000)!)).toBe("+10%");
    expect(formatDrift(drift(1_100, 1_000)!)).toBe("−10%");
    expect(drift(1_000, null)).toBeNull();
  });
});

describe("the honest gauge", () => {
  it("labels an estimate on the footer gauge for people and screen readers, in the app's own tooltip", async () => {
    const user = userEvent.setup();
    render(<ContextGauge context_tokens={2_100} threshold={8_000} context_window={32_000} estimated />);
    const meter = screen.getByRole("meter", { name: "Context tokens" });
    expect(meter).toHaveAttribute("aria-valuetext", expect.stringContaining("estimated after a compaction"));
    // Marked by "≈" and its tooltip, not a loud badge.
    const gauge = screen.getByTestId("context-gauge");
    expect(gauge).toHaveTextContent(/^Context≈ 2\.1k \/ 8k compact/);
    expect(screen.queryByText("estimated")).toBeNull();
    // No native title anywhere in it (it would stay up over a dialog or menu opened next).
    expect(gauge.querySelectorAll("[title]")).toHaveLength(0);
    expect(gauge).not.toHaveAttribute("title");
    expect(gauge.dataset.tooltip).toBe(`${ESTIMATE_HINT}: about 2.1k tokens in context, compacts at 8k, window 32k`);
    await user.tab();
    const tooltip = await screen.findByRole("tooltip");
    expect(tooltip).toHaveTextContent(ESTIMATE_HINT);
    expect(gauge).toHaveAttribute("aria-describedby", tooltip.id);
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("tooltip")).toBeNull();
  });
});

describe("EvictionCard", () => {
  it("shows the outputs evicted and the tokens freed, and lists the placeholders from the keyboard", async () => {
    const user = userEvent.setup();
    render(<EvictionCard eviction={eviction} number={1} ts="2026-11-29T09:00:10.000Z" figures={figures(eviction.estimated_before, eviction.estimated_after, 4_020)} />);
    const card = screen.getByRole("article", { name: /Tool-output eviction 1/ });
    expect(within(card).getByTestId("eviction-count")).toHaveTextContent("2");
    expect(within(card).getByTestId("eviction-freed")).toHaveTextContent("≈ 4,450");
    expect(within(card).getByTestId("eviction-estimate-next")).toHaveTextContent("the next model call reported 4,020 (the estimate was off by +3%)");
    const toggle = within(card).getByRole("button", { name: "The 2 replaced outputs" });
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
    const l = layered();
    render(<CompactionCard view={layeredView} number={2} of={2} focused={false} onReveal={() => {}} layered={l} policy="layered" figures={figures(l.estimated_before, l.estimated_after, 2_430)} />);
    expect(screen.getByTestId("compaction-trigger")).toHaveTextContent("Asked for");
    expect(screen.getByTestId("compaction-policy")).toHaveTextContent("Layered");
    expect(screen.getByTestId("compaction-estimate-next")).toHaveTextContent("the next model call reported 2,430 (the estimate was off by +14%)");
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
        figures={figures(3_000, 2_100)}
      />,
    );
    const audit = screen.getByRole("group", { name: "Loss audit" });
    expect(audit).toHaveTextContent("1 fact of the removed span");
    expect(within(audit).getByTestId("loss-errors")).toHaveTextContent("run_shell make: exit 2");
  });

  it("says how the trigger is named for each kind of step", () => {
    // The Rust fold's first summary step, once per trigger (the list shows the newest first).
    const { steps: folded, undo } = consoleConsole();
    const first = folded.find((step) => step.kind === "summary" && step.number === 1);
    if (first?.kind !== "summary") throw new Error("the fixture has a first summary");
    const steps = (["auto", "pre_turn", "context_overflow", "model_switch"] as const)
      .map((trigger, i) => ({
        ...first,
        number: i + 1,
        view: { ...first.view, summary: { ...first.view.summary, id: `s-${i}`, metadata: { ...first.view.summary.metadata, trigger } } },
      }));
    render(<CompactionList steps={steps} undo={undo} focused={null} onReveal={() => {}} />);
    expect(screen.getAllByTestId("compaction-trigger").map((el) => el.textContent)).toEqual(["After a model switch", "After an overflow", "Before a message", "Automatic"]);
  });
});

/** The fold's reading for the fixture's status, after a compaction (an estimate). */
const gauge: GaugeReading = { tokens: 2_100, estimated: true, threshold: status.threshold, context_window: 32_000, policy: status.policy, threshold_setting: "80%", cost: { unpriced_rounds: 0, turns: [], steps: [] } };

function compactionState(overrides: Partial<SessionCompaction> = {}): SessionCompaction {
  return { sessionId: CONSOLE_SESSION, gauge, undo: null, setPolicy: vi.fn(async () => {}), ...overrides };
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
    expect(screen.getByTestId("context-reading")).toHaveTextContent("≈ 2,100 tokens estimate until the next model call reports · compacts at 25.6k (80%)");
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
    const open = { ...gauge, circuit_reason: "the compaction was refused: it would have dropped <b>the latest user request</b>" };
    const { rerender } = render(<ContextControls compaction={compactionState({ gauge: open })} running={false} onRetry={onRetry} />);
    const circuit = screen.getByTestId("console-circuit");
    expect(circuit).toHaveTextContent("Automatic compaction is paused after three compactions in a row whose summary failed or was refused.");
    expect(circuit).toHaveTextContent("Last reason: the compaction was refused: it would have dropped <b>the latest user request</b>");
    expect(circuit.querySelector("b")).toBeNull();
    await user.click(within(circuit).getByRole("button", { name: "Retry compaction" }));
    expect(onRetry).toHaveBeenCalledOnce();
    rerender(<ContextControls compaction={compactionState({ gauge: open })} running onRetry={onRetry} />);
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
  const point = (round: number, estimated: number | undefined, input: number) => ({ round, turn: 1, ts: "2026-11-29T09:00:00.000Z", input_tokens: input, context_tokens: input + 10, ...(estimated !== undefined ? { estimated_input_tokens: estimated } : {}) });

  it("folds away by default and shows each model call's estimated input against the reported input", async () => {
    const user = userEvent.setup();
    render(<DriftTable points={[point(1, 2_100, 1_900)]} />);
    expect(screen.queryByRole("table")).toBeNull();
    await user.click(screen.getByRole("button", { name: /How far the estimates were off/ }));
    const table = screen.getByRole("table", { name: /How far the estimates were off/ });
    const row = within(table).getAllByTestId("drift-row")[0]!;
    expect(within(row).getAllByRole("cell").map((cell) => cell.textContent)).toEqual(["≈ 2,100", "1,900", "−11%"]);
  });

  it("makes up no estimate for rounds that recorded none (base sessions, older files)", () => {
    render(<DriftTable points={[point(1, undefined, 1_900), point(2, undefined, 2_000)]} />);
    expect(screen.getByTestId("drift-none")).toHaveTextContent("recorded no estimate");
    expect(screen.queryByRole("table")).toBeNull();
  });
});
