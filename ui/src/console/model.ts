// Labels and filters the debug console shows. Every figure, row, step and
// group comes folded from Rust (strata-app's `console` module, through the
// app store's `console` slice); nothing here reads a record.
import type { CompactionTrigger } from "../bindings/CompactionTrigger";
import type { ConsoleStep } from "../bindings/ConsoleStep";
import type { ConsoleView } from "../bindings/ConsoleView";
import type { LogFamily } from "../bindings/LogFamily";
import type { LogKind } from "../bindings/LogKind";
import type { LogRow } from "../bindings/LogRow";
import type { ResponseItem, TokenUsage } from "../api/types";
import { formatTokens } from "../lib/format";

export type { LogFamily, LogKind, LogRow };

/** How each trigger is said on a badge. */
export const TRIGGER_LABEL: Record<CompactionTrigger, string> = {
  auto: "Automatic",
  manual: "Asked for",
  context_overflow: "After an overflow",
  pre_turn: "Before a message",
  model_switch: "After a model switch",
};

// -------------------------------------------------------------- the items

export type ItemTone = "system" | "summary" | "user" | "assistant" | "tool" | "output" | "reasoning";

/** How an item is labelled and coloured wherever the console lists history. */
export function describeItem(item: ResponseItem): { tone: ItemTone; label: string; text: string } {
  switch (item.type) {
    case "message":
      if (item.role === "system" || item.role === "developer") {
        return { tone: "system", label: item.role === "system" ? "System" : "Developer", text: item.content };
      }
      return item.role === "user"
        ? { tone: "user", label: "User", text: item.content }
        : { tone: "assistant", label: "Assistant", text: item.content };
    case "function_call":
      return { tone: "tool", label: `Tool call · ${item.name}`, text: item.arguments };
    case "function_call_output":
      return { tone: "output", label: "Tool output", text: item.output };
    case "compaction_summary":
      return { tone: "summary", label: "Summary", text: item.summary };
    case "reasoning":
      return { tone: "reasoning", label: `Reasoning · ${item.provider}`, text: "Opaque reasoning item, sent back to the provider verbatim." };
  }
}

// ---------------------------------------------------------------- the log

export const LOG_KINDS: { kind: LogKind; label: string; family: LogFamily }[] = [
  { kind: "round", label: "Rounds", family: "debug" },
  { kind: "usage", label: "Usage", family: "debug" },
  { kind: "compaction", label: "Compactions", family: "debug" },
  { kind: "retry", label: "Retries", family: "debug" },
  { kind: "error", label: "Errors", family: "mainline" },
  { kind: "approval", label: "Approvals", family: "mainline" },
  { kind: "tool", label: "Tools", family: "mainline" },
  { kind: "message", label: "Messages", family: "mainline" },
  { kind: "turn", label: "Turns", family: "mainline" },
  { kind: "title", label: "Titles", family: "mainline" },
];

export function usageText(usage: TokenUsage): string {
  const parts: string[] = [];
  if (usage.input_tokens != null) {
    parts.push(`${formatTokens(usage.input_tokens)} in${usage.cached_input_tokens ? ` (${formatTokens(usage.cached_input_tokens)} cached)` : ""}`);
  }
  if (usage.output_tokens != null) {
    parts.push(`${formatTokens(usage.output_tokens)} out${usage.reasoning_output_tokens ? ` (${formatTokens(usage.reasoning_output_tokens)} reasoning)` : ""}`);
  }
  if (usage.total_tokens != null) parts.push(`total ${formatTokens(usage.total_tokens)}`);
  return parts.join(" · ") || "no figures reported";
}

export interface LogFilter {
  family: LogFamily | "all";
  /** Kinds to show; empty shows every kind. */
  kinds: LogKind[];
  query: string;
}

export const ALL_ROWS: LogFilter = { family: "all", kinds: [], query: "" };

export function filterLog(rows: LogRow[], filter: LogFilter): LogRow[] {
  const needle = filter.query.trim().toLowerCase();
  const kinds = new Set(filter.kinds);
  return rows.filter(
    (row) =>
      (filter.family === "all" || row.family === filter.family) &&
      (kinds.size === 0 || kinds.has(row.kind)) &&
      (!needle || row.title.toLowerCase().includes(needle) || row.detail.toLowerCase().includes(needle)),
  );
}

// --------------------------------------------------------------- the chart

/** One round on the chart, its figures null when not reported. */
export interface ChartPoint {
  round: number;
  ts: string;
  context_tokens: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
}

export interface ChartMarker {
  round: number;
  summaryId: string;
  number: number;
  context_tokens: number | null;
}

export interface ChartData {
  points: ChartPoint[];
  markers: ChartMarker[];
  threshold: number | null;
  context_window: number | null;
  /** The largest reported context tokens, 0 without any. */
  peak: number;
}

/** The chart's data as the console fold made it, against the gauge's threshold and window. */
export function chartOf(view: ConsoleView): ChartData {
  const markers = view.markers.map((m) => ({ round: m.round, summaryId: m.summary_id, number: m.number, context_tokens: m.context_tokens ?? null }));
  return chartFrom(view.chart, markers, view.gauge.threshold || null, view.gauge.context_window ?? null);
}

/** The chart's data from its points and markers (Strata's console, or an imported session's). */
export function chartFrom(chart: ConsoleView["chart"], markers: ChartMarker[], threshold: number | null, context_window: number | null): ChartData {
  const points = chart.map((p) => ({
    round: p.round,
    ts: p.ts,
    context_tokens: p.context_tokens ?? null,
    inputTokens: p.input_tokens ?? null,
    outputTokens: p.output_tokens ?? null,
    cachedTokens: p.cached_tokens ?? null,
  }));
  const peak = points.reduce((max, p) => Math.max(max, p.context_tokens ?? 0), 0);
  return { points, markers, threshold, context_window, peak };
}

/**
 * The chart's columns: x (round), reported context tokens, compaction
 * markers (the triggering figure at the compaction's round, else null), the
 * threshold and the window ceiling (constant lines, null when unknown).
 */
export function chartColumns(data: ChartData): [number[], (number | null)[], (number | null)[], (number | null)[], (number | null)[]] {
  const xs = data.points.map((p) => p.round);
  const context = data.points.map((p) => p.context_tokens);
  const markerAt = new Map<number, number | null>();
  for (const marker of data.markers) markerAt.set(marker.round, marker.context_tokens);
  const markers = data.points.map((p) => (markerAt.has(p.round) ? (markerAt.get(p.round) ?? p.context_tokens) : null));
  const threshold = data.points.map(() => data.threshold);
  const ceiling = data.points.map(() => data.context_window);
  return [xs, context, markers, threshold, ceiling];
}

// ------------------------------------------------------------ the summaries

/** The summary steps, in file order. */
export function summarySteps(steps: ConsoleStep[]): SummaryStep[] {
  return steps.filter((step): step is SummaryStep => step.kind === "summary");
}

export type SummaryStep = Extract<ConsoleStep, { kind: "summary" }>;
