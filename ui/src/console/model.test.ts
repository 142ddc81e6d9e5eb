import { describe, expect, it } from "vitest";
import type { EventEnvelope, SessionRecord } from "../api/types";
import { consoleContext, consoleRecords, consoleViews, manyRoundRecords, summary2, system, user1, user2 } from "../test/consoleFixtures";
import { eventStream } from "../test/fixtures";
import { ceilingFits } from "./ContextChart";
import { ALL_ROWS, chartColumns, chartData, compactionStats, filterLog, logRows, modelViewGroups, reclaimedBy } from "./model";

describe("compactionStats", () => {
  it("counts compactions and sums what the next round's report shows was reclaimed", () => {
    const stats = compactionStats(consoleViews);
    expect(stats.count).toBe(2);
    // 8412 at the first trigger, 2212 reported by the next round; the second has no next round yet.
    expect(reclaimedBy(consoleViews[0]!)).toBe(6200);
    expect(reclaimedBy(consoleViews[1]!)).toBeNull();
    expect(stats.reclaimed).toBe(6200);
    expect(stats.unmeasured).toBe(1);
    expect(stats.last).toMatchObject({ summaryId: "i-summary-2", trigger: "manual", reason: "Compacted on request" });
  });

  it("is empty without compactions, and never counts a growth as negative reclaim", () => {
    expect(compactionStats([])).toEqual({ count: 0, reclaimed: 0, unmeasured: 0, last: null });
    const grew = { ...consoleViews[0]!, next_context_tokens: 9000 };
    expect(reclaimedBy(grew)).toBe(0);
  });
});

describe("chartData", () => {
  it("maps each round to its reported context tokens and places compactions after their round", () => {
    const data = chartData(consoleRecords, 8000, 32000);
    expect(data.points.map((p) => [p.round, p.context_tokens])).toEqual([
      [1, 5200],
      [2, 8412],
      [3, 2212], // a usage record without a round id belongs to the round last sent
      [4, 9100],
    ]);
    expect(data.points[0]).toMatchObject({ inputTokens: 5000, outputTokens: 200 });
    expect(data.markers).toEqual([
      { round: 2, summaryId: "i-summary-1", number: 1, context_tokens: 8412, trigger: "auto" },
      { round: 4, summaryId: "i-summary-2", number: 2, context_tokens: 9100, trigger: "manual" },
    ]);
    expect(data.peak).toBe(9100);
    expect([data.threshold, data.context_window]).toEqual([8000, 32000]);
  });

  it("gives the chart aligned columns: rounds, tokens, markers, threshold and window", () => {
    const [xs, tokens, markers, threshold, ceiling] = chartColumns(chartData(consoleRecords, 8000, null));
    expect(xs).toEqual([1, 2, 3, 4]);
    expect(tokens).toEqual([5200, 8412, 2212, 9100]);
    expect(markers).toEqual([null, 8412, null, 9100]);
    expect(threshold).toEqual([8000, 8000, 8000, 8000]);
    expect(ceiling).toEqual([null, null, null, null]);
  });

  it("draws the window ceiling on the scale only when it does not flatten the rounds", () => {
    expect(ceilingFits(chartData(consoleRecords, 8000, 20000))).toBe(true);
    expect(ceilingFits(chartData(consoleRecords, 8000, 400000))).toBe(false);
    expect(ceilingFits(chartData(consoleRecords, 8000, null))).toBe(false);
  });

  it("leaves gaps for rounds that reported nothing and handles 5,000 rounds", () => {
    const records = manyRoundRecords(5000);
    const data = chartData(records, 8000, null);
    expect(data.points).toHaveLength(5000);
    expect(data.points[4999]?.context_tokens).toBe(1000 + 4999 + 10);
    const noUsage = chartData(records.filter((r) => r.type !== "token_usage"), 8000, null);
    expect(noUsage.points.every((p) => p.context_tokens === null)).toBe(true);
    expect(noUsage.peak).toBe(0);
  });
});

describe("modelViewGroups", () => {
  it("groups the context into instructions, the summary, kept messages and later items", () => {
    const later = { type: "message" as const, id: "i-later", role: "assistant" as const, content: "later" };
    const groups = modelViewGroups([...consoleContext, later], consoleViews[1]!);
    expect(groups.map((g) => [g.id, g.items.map((i) => i.id)])).toEqual([
      ["instructions", [system.id]],
      ["summary", [summary2.id]],
      ["kept", [user1.id, user2.id]],
      ["later", ["i-later"]],
    ]);
  });

  it("shows one conversation before any compaction", () => {
    const groups = modelViewGroups([system, user1], null);
    expect(groups.map((g) => g.id)).toEqual(["instructions", "conversation"]);
    expect(modelViewGroups([], null)).toEqual([]);
  });
});

describe("the log", () => {
  const s = eventStream();
  const live: EventEnvelope[] = [
    s.debug({ kind: "compaction_ineffective", summary_item_id: "i-summary-2", estimated_tokens: 8800, threshold: 8000 }),
    s.debug({ kind: "usage_reported", turn_id: "t", round_id: "r", usage: {}, threshold: 8000 }),
    s.debug({ kind: "summary_failed", attempts: 4, message: "the summarizer timed out" }),
  ];
  const rows = logRows(consoleRecords, live);

  it("lists every record and the live debug events the file does not keep", () => {
    expect(rows).toHaveLength(consoleRecords.length + 2);
    expect(rows.filter((r) => r.kind === "round").map((r) => r.roundNumber)).toEqual([1, 2, 3, 4]);
    expect(rows.find((r) => r.kind === "retry")?.title).toBe("Retry 1 of 4 after 2 s");
    expect(rows.find((r) => r.kind === "usage")?.title).toBe("Usage: 5.2k context tokens");
    expect(rows.filter((r) => r.kind === "compaction").map((r) => r.summaryId)).toEqual(["i-summary-1", "i-summary-2", "i-summary-2"]);
    expect(rows[rows.length - 1]).toMatchObject({ kind: "error", family: "debug", record_index: null });
  });

  it("names each guard record: a failed summary, a refusal counted toward the circuit, a reset", () => {
    const at = consoleRecords[consoleRecords.length - 1]!.ts;
    const span = { first: "i-a", last: "i-b", items: 7 };
    const guards: SessionRecord[] = [
      { v: 2, ts: at, type: "compaction_guard", payload: { kind: "summary_failed", trigger: "auto", attempts: 1, message: "timed out", estimated_tokens: 900, threshold: 1000 } },
      { v: 2, ts: at, type: "compaction_guard", payload: { kind: "summary_refused", trigger: "pre_turn", message: "refused", span, estimated_tokens: 900, threshold: 1000 } },
      { v: 2, ts: at, type: "compaction_guard", payload: { kind: "circuit_reset" } },
    ];
    expect(logRows(guards, []).map((r) => [r.tone, r.title])).toEqual([
      ["bad", "Summary failed (between rounds)"],
      ["bad", "Refusal counted toward the circuit (pre-turn)"],
      ["neutral", "Automatic compaction resumed"],
    ]);
    expect(logRows(guards, [])[1]!.detail).toContain("7 items would have been summarised");
  });

  it("filters by family, by kind and by text", () => {
    expect(filterLog(rows, ALL_ROWS)).toHaveLength(rows.length);
    const debug = filterLog(rows, { ...ALL_ROWS, family: "debug" });
    expect(new Set(debug.map((r) => r.kind))).toEqual(new Set(["round", "usage", "retry", "compaction", "error"]));
    const mainline = filterLog(rows, { ...ALL_ROWS, family: "mainline" });
    expect(mainline.every((r) => r.family === "mainline")).toBe(true);
    expect(mainline.length + debug.length).toBe(rows.length);
    expect(filterLog(rows, { ...ALL_ROWS, kinds: ["approval", "error"] }).map((r) => r.title)).toEqual([
      "apply_patch denied",
      "Error: transient",
      "Summary failed after 4 attempts",
    ]);
    expect(filterLog(rows, { ...ALL_ROWS, query: "  TOO MANY " }).map((r) => r.kind)).toEqual(["retry"]);
    expect(filterLog(rows, { family: "mainline", kinds: ["retry"], query: "" })).toEqual([]);
  });
});
