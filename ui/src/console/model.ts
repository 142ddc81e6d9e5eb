// Pure mappings from what the shell returns (the session's records, the
// core's compaction views) to what the debug console shows. Nothing here
// replays history: the model-visible history, the before/after of each
// compaction and each round's request come from the core.
import type { CompactionView } from "../bindings/CompactionView";
import type { CompactionTrigger } from "../bindings/CompactionTrigger";
import type { CompactionGuardRecord } from "../bindings/CompactionGuardRecord";
import type { EventEnvelope, ResponseItem, SessionRecord, TokenUsage } from "../api/types";
import { formatDuration, formatTokens } from "../lib/format";
import { contextTokensOf } from "../state/transcript";

// ---------------------------------------------------------------- the tile

export interface CompactionStats {
  count: number;
  /**
   * Tokens reclaimed, measured by the provider: for each compaction whose next
   * round has reported, the context tokens that triggered it minus the context
   * tokens that next round reported. Compactions without both figures add
   * nothing and are counted in `unmeasured`.
   */
  reclaimed: number;
  unmeasured: number;
  last: { ts: string; reason: string; trigger: CompactionTrigger; summaryId: string } | null;
}

export function reclaimedBy(view: CompactionView): number | null {
  const before = view.summary.metadata.context_tokens ?? null;
  const after = view.next_context_tokens ?? null;
  if (before === null || after === null) return null;
  return Math.max(0, before - after);
}

export function compactionStats(views: CompactionView[]): CompactionStats {
  let reclaimed = 0;
  let unmeasured = 0;
  for (const view of views) {
    const saved = reclaimedBy(view);
    if (saved === null) unmeasured += 1;
    else reclaimed += saved;
  }
  const lastView = views[views.length - 1];
  return {
    count: views.length,
    reclaimed,
    unmeasured,
    last: lastView
      ? {
          ts: lastView.ts,
          reason: lastView.summary.metadata.reason,
          trigger: lastView.summary.metadata.trigger,
          summaryId: lastView.summary.id,
        }
      : null,
  };
}

export const TRIGGER_LABEL: Record<CompactionTrigger, string> = {
  auto: "Between rounds",
  manual: "Manual",
  context_overflow: "Overflow recovery",
  pre_turn: "Pre-turn",
  model_switch: "Model switch",
};

// --------------------------------------------------------------- the chart

export interface ChartPoint {
  /** 1-based round number, the chart's x. */
  round: number;
  ts: string;
  context_tokens: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
}

export interface ChartMarker {
  /** The round whose usage led to the compaction (0 before any round). */
  round: number;
  summaryId: string;
  /** 1-based compaction number. */
  number: number;
  context_tokens: number | null;
  trigger: CompactionTrigger;
}

export interface ChartData {
  points: ChartPoint[];
  markers: ChartMarker[];
  threshold: number | null;
  context_window: number | null;
  /** The largest reported context tokens, 0 without any. */
  peak: number;
}

/**
 * Reported context tokens (input + output, the figure the threshold is
 * compared with) per round over the whole session, and where each compaction
 * happened: after the last round sent before its summary record.
 */
export function chartData(records: SessionRecord[], threshold: number | null, context_window: number | null): ChartData {
  const points: ChartPoint[] = [];
  const markers: ChartMarker[] = [];
  const byRoundId = new Map<string, ChartPoint>();
  let lastPoint: ChartPoint | undefined;
  let peak = 0;
  const setUsage = (point: ChartPoint, usage: TokenUsage) => {
    point.context_tokens = contextTokensOf(usage);
    point.inputTokens = usage.input_tokens ?? null;
    point.outputTokens = usage.output_tokens ?? null;
    point.cachedTokens = usage.cached_input_tokens ?? null;
    if (point.context_tokens !== null) peak = Math.max(peak, point.context_tokens);
  };
  for (const record of records) {
    if (record.type === "round") {
      const point: ChartPoint = {
        round: points.length + 1,
        ts: record.ts,
        context_tokens: null,
        inputTokens: null,
        outputTokens: null,
        cachedTokens: null,
      };
      points.push(point);
      byRoundId.set(record.payload.round_id, point);
      lastPoint = point;
    } else if (record.type === "token_usage") {
      const id = record.payload.round_id ?? null;
      const point = id !== null ? byRoundId.get(id) : lastPoint;
      if (point && point.context_tokens === null) setUsage(point, record.payload.usage);
    } else if (record.type === "response_item" && record.payload.type === "compaction_summary") {
      const { metadata, id } = record.payload;
      markers.push({
        round: lastPoint?.round ?? 0,
        summaryId: id,
        number: markers.length + 1,
        context_tokens: metadata.context_tokens ?? lastPoint?.context_tokens ?? null,
        trigger: metadata.trigger,
      });
    }
  }
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

export interface ModelViewGroup {
  id: "instructions" | "summary" | "kept" | "later" | "conversation";
  title: string;
  hint: string;
  items: ResponseItem[];
}

/**
 * The history the model sees now, in order, grouped for reading: the leading
 * system/developer messages, the last summary, the messages that compaction
 * kept, and what joined after it. Without a compaction: instructions and the
 * conversation.
 */
export function modelViewGroups(context: ResponseItem[], lastCompaction: CompactionView | null): ModelViewGroup[] {
  let lead = 0;
  while (lead < context.length) {
    const item = context[lead];
    if (!item || item.type !== "message" || (item.role !== "system" && item.role !== "developer")) break;
    lead += 1;
  }
  const instructions = context.slice(0, lead);
  const rest = context.slice(lead);
  const groups: ModelViewGroup[] = [];
  if (instructions.length) {
    groups.push({ id: "instructions", title: "Instructions", hint: "The leading system messages, kept by every compaction.", items: instructions });
  }
  const summaryAt = rest.findIndex((item) => item.type === "compaction_summary");
  if (summaryAt === -1) {
    // With a compaction behind it and no summary in view, the last one was undone.
    const hint = lastCompaction ? "Every item since the session started: the last compaction was undone." : "Every item since the session started; nothing has been compacted yet.";
    if (rest.length) groups.push({ id: "conversation", title: "Conversation", hint, items: rest });
    return groups;
  }
  const keptIds = new Set((lastCompaction?.after ?? []).map((item) => item.id));
  const afterSummary = rest.slice(summaryAt + 1);
  let keptCount = 0;
  while (keptCount < afterSummary.length && keptIds.has(afterSummary[keptCount]?.id ?? "")) keptCount += 1;
  groups.push({
    id: "summary",
    title: "Summary of earlier work",
    hint: "Sent as a user message in place of everything the last compaction removed.",
    items: rest.slice(0, summaryAt + 1),
  });
  if (keptCount) {
    groups.push({ id: "kept", title: "Kept messages", hint: "The recent user messages the last compaction kept.", items: afterSummary.slice(0, keptCount) });
  }
  if (afterSummary.length > keptCount) {
    groups.push({ id: "later", title: "Since the last compaction", hint: "Items that joined the history after it.", items: afterSummary.slice(keptCount) });
  }
  return groups;
}

// ---------------------------------------------------------------- the log

export type LogFamily = "mainline" | "debug";
export type LogKind = "turn" | "message" | "tool" | "approval" | "round" | "usage" | "retry" | "compaction" | "error" | "title";
export type LogTone = "neutral" | "ok" | "warn" | "bad" | "accent";

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

export interface LogRow {
  key: string;
  /** The record's position in the file; null for a live event not written to it. */
  record_index: number | null;
  ts: string | null;
  family: LogFamily;
  kind: LogKind;
  tone: LogTone;
  title: string;
  detail: string;
  /** For a round: its 1-based number, to fetch its exact request. */
  roundNumber?: number;
  /** For a compaction: the summary item's id. */
  summaryId?: string;
}

function oneLine(text: string, max = 160): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function usageText(usage: TokenUsage): string {
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

export { usageText };

function recordRow(record: SessionRecord, index: number, roundNumber: () => number): LogRow | null {
  const base = { key: `record:${index}`, record_index: index, ts: record.ts };
  switch (record.type) {
    case "session_meta":
      return { ...base, family: "mainline", kind: "turn", tone: "neutral", title: "Session started", detail: `${record.payload.model} (${record.payload.provider_kind}) in ${record.payload.workspace}` };
    case "turn_started":
      return { ...base, family: "mainline", kind: "turn", tone: "neutral", title: "Turn started", detail: record.payload.turn_id };
    case "turn_finished": {
      const { outcome, rounds } = record.payload;
      const tone: LogTone = outcome === "completed" ? "ok" : outcome === "failed" ? "bad" : "warn";
      return { ...base, family: "mainline", kind: "turn", tone, title: `Turn ${outcome.replace("_", " ")}`, detail: `${rounds} round${rounds === 1 ? "" : "s"}` };
    }
    case "round": {
      const number = roundNumber();
      const { model, input_items, tools } = record.payload;
      return {
        ...base,
        family: "debug",
        kind: "round",
        tone: "accent",
        title: `Round ${number} sent`,
        detail: `${model} · ${input_items} input item${input_items === 1 ? "" : "s"} · ${tools.length} tool${tools.length === 1 ? "" : "s"}`,
        roundNumber: number,
      };
    }
    case "token_usage": {
      const tokens = contextTokensOf(record.payload.usage);
      return {
        ...base,
        family: "debug",
        kind: "usage",
        tone: "neutral",
        title: tokens === null ? "Usage reported" : `Usage: ${formatTokens(tokens)} context tokens`,
        detail: usageText(record.payload.usage),
      };
    }
    case "retry": {
      const { attempt, of, delay_ms, cause } = record.payload;
      return { ...base, family: "debug", kind: "retry", tone: "warn", title: `Retry ${attempt} of ${of} after ${formatDuration(delay_ms)}`, detail: cause };
    }
    case "error":
      return {
        ...base,
        family: "mainline",
        kind: "error",
        tone: "bad",
        title: record.payload.model_error ? `Error: ${record.payload.model_error.kind.replace(/_/g, " ")}` : "Error",
        detail: record.payload.message,
      };
    case "approval_decision": {
      const { tool, decision } = record.payload;
      const label = decision === "allow_once" ? "allowed once" : decision === "allow_for_session" ? "allowed for the session" : "denied";
      return { ...base, family: "mainline", kind: "approval", tone: decision === "deny" ? "bad" : "ok", title: `${tool} ${label}`, detail: record.payload.call_id };
    }
    case "title_set":
      return { ...base, family: "mainline", kind: "title", tone: "neutral", title: "Renamed", detail: record.payload.title || "(title cleared)" };
    case "profile_set": {
      const { change, provider_kind, model, base_url, profile } = record.payload;
      const where = `${provider_kind} · ${model}${base_url ? ` at ${base_url}` : ""}${profile ? ` (profile ${profile})` : ""}`;
      return { ...base, family: "mainline", kind: "turn", tone: change === "switched" ? "warn" : "neutral", title: change === "switched" ? "Profile switched" : "Profile recorded", detail: where };
    }
    case "checkpoint": {
      const { history, state } = record.payload;
      return { ...base, family: "debug", kind: "compaction", tone: "neutral", title: "Checkpoint", detail: `${history.length} item${history.length === 1 ? "" : "s"} the model sees, after ${state.records} records (resuming starts here)` };
    }
    case "item_pin": {
      const { item_id, pinned } = record.payload;
      return { ...base, family: "mainline", kind: "compaction", tone: "neutral", title: pinned ? "Item pinned" : "Item unpinned", detail: `${item_id} ${pinned ? "survives every eviction and compaction verbatim" : "may be evicted or summarized again"}` };
    }
    case "compaction_undone": {
      const { summary_item_id, restored, estimated_tokens, threshold } = record.payload;
      return { ...base, family: "mainline", kind: "compaction", tone: "warn", title: "Compaction undone", detail: `${restored.length} item${restored.length === 1 ? "" : "s"} restored, about ${formatTokens(estimated_tokens)} tokens (estimate) against a threshold of ${formatTokens(threshold)}; the compaction of ${summary_item_id} no longer applies` };
    }
    case "session_forked": {
      const { parent_session_id, parent_records, point } = record.payload;
      const at = point.kind === "at_item" ? `after item ${point.item_id}` : `before compaction ${point.number}`;
      return { ...base, family: "mainline", kind: "turn", tone: "neutral", title: "Forked", detail: `from ${parent_session_id} ${at} (${parent_records} records copied)` };
    }
    case "compaction_policy":
      return { ...base, family: "debug", kind: "compaction", tone: "neutral", title: `Compaction policy: ${record.payload.policy}`, detail: record.payload.threshold ? `threshold ${record.payload.threshold}` : "threshold from the model" };
    case "tool_outputs_evicted": {
      const { evicted, estimated_before, estimated_after } = record.payload;
      return { ...base, family: "debug", kind: "compaction", tone: "accent", title: `${evicted.length} tool output${evicted.length === 1 ? "" : "s"} evicted`, detail: `about ${formatTokens(estimated_before)} → ${formatTokens(estimated_after)} tokens (estimates), no model call` };
    }
    case "layered_compaction": {
      const { summary, state_sheet, loss_audit, estimated_after } = record.payload;
      const m = summary.metadata;
      return {
        ...base,
        family: "debug",
        kind: "compaction",
        tone: "accent",
        title: `History compacted with a state sheet (${TRIGGER_LABEL[m.trigger].toLowerCase()})`,
        detail: `${m.removed} removed, ${m.kept} kept · about ${formatTokens(estimated_after)} tokens after (estimate) · sheet: ${state_sheet.files.length} files, ${state_sheet.commands.length} commands · lost paths ${loss_audit.paths.length}, commands ${loss_audit.commands.length} · ${m.reason}`,
        summaryId: summary.id,
      };
    }
    case "compaction_refused": {
      const { trigger, dropped } = record.payload;
      return { ...base, family: "debug", kind: "compaction", tone: "bad", title: `Compaction refused by the rule check (${TRIGGER_LABEL[trigger].toLowerCase()})`, detail: `nothing was committed: it would have dropped ${dropped.join("; ")}` };
    }
    case "compaction_guard":
      return guardRow(record.payload, base);
    case "session_repaired": {
      const { torn_tail } = record.payload;
      const calls = record.payload.aborted_calls?.length ?? 0;
      const parts = [torn_tail ? `an unfinished last line (${torn_tail.bytes} bytes) moved aside` : null, calls ? `${calls} unfinished tool call${calls === 1 ? "" : "s"} recorded as aborted` : null];
      return { ...base, family: "mainline", kind: "turn", tone: "warn", title: "Session repaired when reopened", detail: parts.filter(Boolean).join("; ") };
    }
    case "full_tool_output":
      return { ...base, family: "mainline", kind: "tool", tone: "neutral", title: "Full tool output kept", detail: `${record.payload.output.length.toLocaleString()} characters for ${record.payload.call_id}` };
    case "response_item": {
      const item = record.payload;
      if (item.type === "compaction_summary") {
        const m = item.metadata;
        const tokens = m.context_tokens != null ? ` at ${formatTokens(m.context_tokens)} tokens` : "";
        return {
          ...base,
          family: "debug",
          kind: "compaction",
          tone: "accent",
          title: `History compacted${tokens}`,
          detail: `${m.removed} removed, ${m.kept} kept · ${m.reason}`,
          summaryId: item.id,
        };
      }
      const { label, text } = describeItem(item);
      const kind: LogKind = item.type === "message" ? "message" : "tool";
      return { ...base, family: "mainline", kind, tone: "neutral", title: label, detail: oneLine(text, 4000) };
    }
  }
}

/** The log row of a `compaction_guard` record. */
function guardRow(guard: CompactionGuardRecord, base: Pick<LogRow, "key" | "record_index" | "ts">): LogRow {
  switch (guard.kind) {
    case "summary_failed":
      return { ...base, family: "debug", kind: "compaction", tone: "bad", title: `Summary failed (${TRIGGER_LABEL[guard.trigger].toLowerCase()})`, detail: `${guard.attempts} attempt${guard.attempts === 1 ? "" : "s"}: ${guard.message}` };
    case "summary_refused":
      return {
        ...base,
        family: "debug",
        kind: "compaction",
        tone: "bad",
        title: `Refusal counted toward the circuit (${TRIGGER_LABEL[guard.trigger].toLowerCase()})`,
        detail: `${guard.span.items} item${guard.span.items === 1 ? "" : "s"} would have been summarised; the same compaction is not tried again until the history changes`,
      };
    case "circuit_reset":
      return { ...base, family: "mainline", kind: "compaction", tone: "neutral", title: "Automatic compaction resumed", detail: "the person reset the circuit" };
  }
}

function eventRow(envelope: EventEnvelope): LogRow | null {
  if (envelope.event.family !== "debug") return null;
  const event = envelope.event.event;
  const base = { key: `event:${envelope.seq}`, record_index: null, ts: null, family: "debug" as const };
  switch (event.kind) {
    case "compaction_ineffective":
      return {
        ...base,
        kind: "compaction",
        tone: "warn",
        title: "Compaction did not bring the history under the threshold",
        detail: `About ${formatTokens(event.estimated_tokens)} tokens remain (estimate) against a threshold of ${formatTokens(event.threshold)}; the next round may compact again or overflow.`,
        summaryId: event.summary_item_id,
      };
    case "summary_failed":
      return { ...base, kind: "error", tone: "bad", title: `Summary failed after ${event.attempts} attempts`, detail: event.message };
    case "compaction_refused":
      return {
        ...base,
        kind: "compaction",
        tone: "bad",
        title: "Compaction refused by the rule check",
        detail: event.dropped.length ? `${event.message} · would have dropped: ${event.dropped.join("; ")}` : event.message,
      };
    default:
      // Everything else the stream says is also written to the file, and
      // the console reads the file.
      return null;
  }
}

/** Every record as a log row, then the live debug events the file does not keep. */
export function logRows(records: SessionRecord[], debugEvents: EventEnvelope[]): LogRow[] {
  let rounds = 0;
  const next = () => {
    rounds += 1;
    return rounds;
  };
  const rows: LogRow[] = [];
  records.forEach((record, index) => {
    const row = recordRow(record, index, next);
    if (row) rows.push(row);
  });
  for (const envelope of debugEvents) {
    const row = eventRow(envelope);
    if (row) rows.push(row);
  }
  return rows;
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
