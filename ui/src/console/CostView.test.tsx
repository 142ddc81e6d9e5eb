import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { ChartPoint } from "../bindings/ChartPoint";
import type { ConsoleView } from "../bindings/ConsoleView";
import { CacheChart } from "./CacheChart";
import { CostView, StepMoneyLine } from "./CostView";
import { formatUsd } from "./money";

const DOLLAR = 1_000_000_000_000;

function point(round: number, input: number, cached: number, extra: Partial<ChartPoint> = {}): ChartPoint {
  return { round, ts: "2026-12-02T10:00:00Z", input_tokens: input, cached_tokens: cached, context_tokens: input + 10, turn: 1, ...extra };
}

function view(chart: ChartPoint[], cost: ConsoleView["gauge"]["cost"]): ConsoleView {
  return {
    v: 1,
    session_id: "s1",
    records: 0,
    rows: [],
    rows_total: 0,
    chart,
    markers: [],
    steps: [],
    model_view: [],
    gauge: { estimated: false, threshold: 1000, policy: "layered", cost },
    undo: { kind: "refused", reason: "Nothing to undo" },
  };
}

describe("formatUsd", () => {
  it("rounds to the cent from a cent up and keeps micro-dollars below, as the CLI does", () => {
    expect(formatUsd(0)).toBe("$0");
    expect(formatUsd(1)).toBe("<$0.000001");
    expect(formatUsd(1_230_000_000)).toBe("$0.00123");
    expect(formatUsd(1_235_000_000_000)).toBe("$1.24");
    expect(formatUsd(1234 * DOLLAR)).toBe("$1234.00");
  });
});

describe("CacheChart", () => {
  it("draws one stacked bar per reported model call, marks each break, and says the cached share in words", () => {
    const points = [point(1, 1000, 0), point(2, 2000, 1000), point(3, 1500, 0, { cache_break: { index: 1, cause: "compaction" } }), point(4, 0, 0, { input_tokens: undefined })];
    render(<CacheChart points={points} />);
    const chart = screen.getByRole("img", { name: "Cached against uncached input per model call" });
    expect(chart).toBeInTheDocument();
    expect(screen.getAllByTestId("cache-bar")).toHaveLength(3);
    expect(screen.getAllByTestId("cache-break-mark")).toHaveLength(1);
    expect(screen.getByTestId("cache-chart")).toHaveTextContent("22% of their input (1,000 of 4,500 tokens) was read from the cache; the cache broke 1 time.");
  });

  it("says so when no call reported its input", () => {
    render(<CacheChart points={[]} />);
    expect(screen.getByTestId("cache-chart-none")).toBeInTheDocument();
  });
});

describe("CostView", () => {
  it("shows the session's total with its price date, each turn, and names why the cache broke", () => {
    const chart = [point(1, 1000, 0), point(2, 900, 0, { cache_break: { index: 2, item_id: "0193a1b2-c3d4-7e5f-8a9b-0000000d0005", cause: "eviction" }, turn: 2 })];
    const cost = {
      total: { usd: 2 * DOLLAR, price_as_of: "2026-12-02" },
      summaries: { usd: DOLLAR / 2, price_as_of: "2026-12-02" },
      unpriced_rounds: 0,
      turns: [
        { turn: 1, rounds: 1, cost: { usd: DOLLAR, price_as_of: "2026-12-02" } },
        { turn: 2, rounds: 1 },
      ],
      steps: [],
    };
    render(<CostView view={view(chart, cost)} />);
    expect(screen.getByTestId("session-cost")).toHaveTextContent("Session: $2.00 · at prices of 2026-12-02 · of which summaries $0.50");
    const rows = within(screen.getByTestId("turn-costs")).getAllByRole("row");
    expect(rows[1]).toHaveTextContent("11$1.00");
    expect(rows[2]).toHaveTextContent("21no price");
    expect(screen.getByTestId("cache-break")).toHaveTextContent("Model call 2: the request changed at item 3 000d0005, after an eviction of tool outputs");
  });

  it("says no price, never a guess, for a model without one", () => {
    render(<CostView view={view([point(1, 1000, 0)], { unpriced_rounds: 1, turns: [{ turn: 1, rounds: 1 }], steps: [] })} />);
    expect(screen.getByTestId("session-cost")).toHaveTextContent("Session: no price");
    expect(screen.getByTestId("unpriced")).toHaveTextContent("1 model call with no price (tokens only)");
  });
});

describe("StepMoneyLine", () => {
  it("weighs the summary call and the lost cache against what the compaction saved", () => {
    render(<StepMoneyLine money={{ record_index: 4, summary: DOLLAR / 100, cache_given_up: DOLLAR / 50, saved: DOLLAR / 10, rounds_after: 3, price_as_of: "2026-12-02" }} />);
    expect(screen.getByTestId("step-money")).toHaveTextContent("Cost $0.03 (summary $0.01 + cache given up $0.02) · saved $0.10 over 3 model calls · $0.07 ahead");
  });
});
