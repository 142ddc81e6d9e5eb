import { describe, expect, it } from "vitest";
import { previewLibrary } from "../mock/library";
import { ALL_ROWS, chartColumns, chartOf, filterLog, summarySteps } from "./model";

// The console as Rust folded it for a real session of the demo model (ui/src/mock/library.json,
// written by crates/strata-app/tests/preview): the UI only maps and filters it.
const compacted = previewLibrary().sessions[1]!.console;

describe("the console's data, as the fold sent it", () => {
  it("charts each round's reported context against the gauge's threshold and window", () => {
    const data = chartOf(compacted);
    expect(data.points.map((p) => p.round)).toEqual(compacted.chart.map((_, i) => i + 1));
    expect(data.threshold).toBe(compacted.gauge.threshold);
    expect(data.context_window).toBe(compacted.gauge.context_window);
    expect(data.peak).toBe(Math.max(...compacted.chart.map((p) => p.context_tokens ?? 0)));
    const [xs, context, markers, threshold] = chartColumns(data);
    expect(xs).toHaveLength(data.points.length);
    expect(context.every((c) => c === null || c > 0)).toBe(true);
    expect(markers.filter((m) => m !== null)).toHaveLength(compacted.markers.length);
    expect(new Set(threshold)).toEqual(new Set([compacted.gauge.threshold]));
  });

  it("lists the summary steps in file order, numbered from 1", () => {
    expect(summarySteps(compacted.steps).map((s) => s.number)).toEqual([1]);
  });

  it("filters the log by family, kind and text without changing the rows", () => {
    expect(filterLog(compacted.rows, ALL_ROWS)).toEqual(compacted.rows);
    const debug = filterLog(compacted.rows, { family: "debug", kinds: [], query: "" });
    expect(debug.length).toBeGreaterThan(0);
    expect(debug.every((row) => row.family === "debug")).toBe(true);
    const rounds = filterLog(compacted.rows, { family: "all", kinds: ["round"], query: "" });
    expect(rounds.map((row) => row.round_number)).toEqual(compacted.chart.map((p) => p.round));
    expect(filterLog(compacted.rows, { family: "all", kinds: [], query: "no such text anywhere" })).toEqual([]);
  });
});
