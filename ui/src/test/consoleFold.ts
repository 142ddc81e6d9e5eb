// Test support only: the console view the Rust fold (crates/strata-app/src/console) makes,
// built here for the hand-written records of consoleFixtures.ts, so component tests can feed
// the console as the store does. The app never folds records; its data comes from Rust.
import type { EventEnvelope, ResponseItem, SessionRecord, TokenUsage } from "../api/types";
import type { CompactionGuardRecord } from "../bindings/CompactionGuardRecord";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { CompactionUndone } from "../bindings/CompactionUndone";
import type { CompactionView } from "../bindings/CompactionView";
import type { ConsoleStep } from "../bindings/ConsoleStep";
import type { ConsoleView } from "../bindings/ConsoleView";
import type { LayeredCompaction } from "../bindings/LayeredCompaction";
import type { LogRow as RustRow } from "../bindings/LogRow";
import type { ModelViewGroup } from "../bindings/ModelViewGroup";
import type { ToolOutputsEvicted } from "../bindings/ToolOutputsEvicted";
import type { UndoState } from "../bindings/UndoState";
import { describeItem, TRIGGER_LABEL, usageText, type LogFamily, type LogKind } from "../console/model";
import { formatDuration, formatTokens } from "../lib/format";
import { contextTokensOf } from "../state/transcript";

type LogTone = RustRow["tone"];
interface LogRow {
  key: string;
  record_index: number | null;
  ts: string | null;
  family: LogFamily;
  kind: LogKind;
  tone: LogTone;
  title: string;
  detail: string;
  roundNumber?: number;
  summaryId?: string;
}

interface ChartPoint { round: number; ts: string; context_tokens: number | null; inputTokens: number | null; outputTokens: number | null; cachedTokens: number | null }
interface ChartMarker { round: number; summaryId: string; number: number; context_tokens: number | null; trigger: string }
interface ChartData { points: ChartPoint[]; markers: ChartMarker[]; threshold: number | null; context_window: number | null; peak: number }

type CompactionStep =
  | { kind: "summary"; recordIndex: number; ts: string; view: CompactionView; layered: LayeredCompaction | null; policy: CompactionPolicy; number: number }
  | { kind: "eviction"; recordIndex: number; ts: string; eviction: ToolOutputsEvicted; policy: CompactionPolicy; number: number; nextContextTokens: number | null }
  | { kind: "undo"; recordIndex: number; ts: string; undone: CompactionUndone; undid: number | null }
  | { kind: "refused"; recordIndex: number; seq: number; dropped: string[]; message: string };

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

function oneLine(text: string, max = 160): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}



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
    case "session_repaired":
      return { ...base, family: "mainline", kind: "turn", tone: "warn", title: "Session repaired on reopening", detail: "" };
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

export function compactionSteps(records: SessionRecord[], views: CompactionView[], debugEvents: EventEnvelope[] = []): CompactionStep[] {
  const layeredById = new Map<string, LayeredCompaction>();
  // Sessions without a policy record replay as base.
  const policyAt: CompactionPolicy[] = [];
  let policy: CompactionPolicy = "base";
  const evictions: CompactionStep[] = [];
  const undos: Extract<CompactionStep, { kind: "undo" }>[] = [];
  let awaiting: Extract<CompactionStep, { kind: "eviction" }> | null = null;
  records.forEach((record, index) => {
    if (record.type === "compaction_policy") policy = record.payload.policy;
    policyAt[index] = policy;
    if (record.type === "layered_compaction") layeredById.set(record.payload.summary.id, record.payload);
    if (record.type === "tool_outputs_evicted") {
      awaiting = { kind: "eviction", recordIndex: index, ts: record.ts, eviction: record.payload, policy, number: evictions.length + 1, nextContextTokens: null };
      evictions.push(awaiting);
    }
    if (record.type === "compaction_undone") {
      undos.push({ kind: "undo", recordIndex: index, ts: record.ts, undone: record.payload, undid: null });
    }
    if (record.type === "token_usage" && awaiting) {
      const { input_tokens, output_tokens } = record.payload.usage;
      awaiting.nextContextTokens = input_tokens == null && output_tokens == null ? null : (input_tokens ?? 0) + (output_tokens ?? 0);
      awaiting = null;
    }
    if (record.type === "layered_compaction" || (record.type === "response_item" && record.payload.type === "compaction_summary")) awaiting = null;
  });
  const summaries: CompactionStep[] = views.map((view, i) => {
    const layered = layeredById.get(view.summary.id) ?? null;
    return {
      kind: "summary",
      recordIndex: view.record_index,
      ts: view.ts,
      view,
      layered,
      policy: layered ? "layered" : (policyAt[view.record_index] ?? "base"),
      number: i + 1,
    };
  });
  for (const undo of undos) {
    const at = views.findIndex((view) => view.summary.id === undo.undone.summary_item_id);
    undo.undid = at === -1 ? null : at + 1;
  }
  const refused: CompactionStep[] = [];
  for (const envelope of debugEvents) {
    if (envelope.event.family !== "debug" || envelope.event.event.kind !== "compaction_refused") continue;
    const { dropped, message } = envelope.event.event;
    refused.push({ kind: "refused", recordIndex: records.length, seq: envelope.seq, dropped, message });
  }
  return [...summaries, ...evictions, ...undos, ...refused].sort((a, b) => a.recordIndex - b.recordIndex);
}

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


const figures = (before: number, after: number, next: number | null | undefined) => ({
  before: { tokens: before, estimated: true },
  after: { tokens: after, estimated: true },
  freed: { tokens: Math.max(0, before - after), estimated: true },
  ...(next != null ? { next_reported: next } : {}),
});

/** What `open_console` answers for these records, views and live debug events. */
export function consoleOf(
  records: SessionRecord[],
  views: CompactionView[],
  context: ResponseItem[],
  gauge: { threshold: number; context_window?: number; tokens?: number; estimated?: boolean; policy?: CompactionPolicy } ,
  debugEvents: EventEnvelope[] = [],
): ConsoleView {
  const chart = chartData(records, gauge.threshold, gauge.context_window ?? null);
  const undone = new Set(records.flatMap((r) => (r.type === "compaction_undone" ? [r.payload.summary_item_id] : [])));
  const steps: ConsoleStep[] = compactionSteps(records, views, debugEvents).map((step): ConsoleStep => {
    switch (step.kind) {
      case "summary":
        return {
          kind: "summary",
          record_index: step.recordIndex,
          ts: step.ts,
          number: step.number,
          policy: step.policy,
          view: step.view,
          ...(step.layered ? { layered: step.layered } : {}),
          figures: figures(step.layered?.estimated_before ?? step.view.estimated_tokens_before, step.layered?.estimated_after ?? step.view.estimated_tokens_after, step.view.next_context_tokens),
          undone: undone.has(step.view.summary.id),
        };
      case "eviction":
        return { kind: "eviction", record_index: step.recordIndex, ts: step.ts, number: step.number, policy: step.policy, eviction: step.eviction, figures: figures(step.eviction.estimated_before, step.eviction.estimated_after, step.nextContextTokens) };
      case "undo":
        return { kind: "undo", record_index: step.recordIndex, ts: step.ts, undone: step.undone, ...(step.undid !== null ? { undid: step.undid } : {}) };
      case "refused":
        return { kind: "refused", record_index: step.recordIndex, seq: step.seq, dropped: step.dropped, message: step.message };
    }
  });
  const rows: RustRow[] = logRows(records, debugEvents).map((row, index) => ({
    index,
    ...(row.record_index !== null ? { record_index: row.record_index } : {}),
    ...(row.ts !== null ? { ts: row.ts } : {}),
    family: row.family,
    kind: row.kind,
    tone: row.tone,
    title: row.title,
    detail: row.detail,
    ...(row.roundNumber !== undefined ? { round_number: row.roundNumber } : {}),
    ...(row.summaryId !== undefined ? { summary_id: row.summaryId } : {}),
  }));
  const summaries = views.filter((v) => !undone.has(v.summary.id));
  const latest = views[views.length - 1];
  const undo: UndoState =
    latest && summaries.includes(latest) ? { kind: "available", summary_id: latest.summary.id } : { kind: "refused", reason: latest ? "The latest compaction was already undone; an older one cannot be." : "Nothing to undo: the session has no compaction." };
  return {
    v: 1,
    session_id: String(records[0]?.type === "session_meta" ? records[0].payload.session_id : ""),
    records: records.length,
    rows,
    rows_total: rows.length,
    chart: chart.points.map((p) => ({
      round: p.round,
      ts: p.ts,
      ...(p.context_tokens !== null ? { context_tokens: p.context_tokens } : {}),
      ...(p.inputTokens !== null ? { input_tokens: p.inputTokens } : {}),
      ...(p.outputTokens !== null ? { output_tokens: p.outputTokens } : {}),
      ...(p.cachedTokens !== null ? { cached_tokens: p.cachedTokens } : {}),
    })),
    markers: chart.markers.map((m) => ({ round: m.round, summary_id: m.summaryId, number: m.number, ...(m.context_tokens !== null ? { context_tokens: m.context_tokens } : {}), trigger: m.trigger as ConsoleView["markers"][number]["trigger"] })),
    steps,
    model_view: modelViewGroups(context, latest ?? null).map((g) => ({ id: g.id, title: g.title, hint: g.hint, items: g.items })),
    gauge: {
      ...(gauge.tokens !== undefined ? { tokens: gauge.tokens } : {}),
      estimated: gauge.estimated ?? false,
      threshold: gauge.threshold,
      ...(gauge.context_window !== undefined ? { context_window: gauge.context_window } : {}),
      policy: gauge.policy ?? "base",
    },
    undo,
  };
}
