// Every compaction step of a session in file order, for the console's cards:
// each summary (the core's compaction view, with its layered record when it
// has one: the state sheet and the loss audit computed in Rust) and each
// tool-output eviction, each undo, and each refusal the live stream reported.
// Nothing is recomputed here; records are matched by id and position.
import type { EventEnvelope, SessionRecord } from "../api/types";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { CompactionUndone } from "../bindings/CompactionUndone";
import type { CompactionView } from "../bindings/CompactionView";
import type { LayeredCompaction } from "../bindings/LayeredCompaction";
import type { ToolOutputsEvicted } from "../bindings/ToolOutputsEvicted";

export type CompactionStep =
  | {
      kind: "summary";
      recordIndex: number;
      ts: string;
      view: CompactionView;
      /** The layered record (state sheet, loss audit, estimates), if it was one. */
      layered: LayeredCompaction | null;
      policy: CompactionPolicy;
      /** 1-based among summaries. */
      number: number;
    }
  | {
      kind: "eviction";
      recordIndex: number;
      ts: string;
      eviction: ToolOutputsEvicted;
      policy: CompactionPolicy;
      /** 1-based among evictions. */
      number: number;
      /** Context tokens the next round reported, when one has. */
      nextContextTokens: number | null;
    }
  | {
      kind: "undo";
      recordIndex: number;
      ts: string;
      undone: CompactionUndone;
      /** The 1-based number of the summary it undid, when that summary is known. */
      undid: number | null;
    }
  | {
      /** A compaction the rule check refused (live only: nothing was written). */
      kind: "refused";
      /** After every record: it happened in this run of the app. */
      recordIndex: number;
      seq: number;
      dropped: string[];
      message: string;
    };

export type SummaryStep = Extract<CompactionStep, { kind: "summary" }>;

/**
 * `records` are the whole file's (record 0 first); `debugEvents` the live
 * stream's, for refusals, which leave no record.
 */
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

/** The summaries a later `compaction_undone` record undid, by summary id. */
export function undoneSummaries(steps: CompactionStep[]): Set<string> {
  return new Set(steps.flatMap((step) => (step.kind === "undo" ? [step.undone.summary_item_id] : [])));
}

/**
 * The summary an Undo applies to: the latest one, unless it was undone
 * already (the core refuses a second undo of it, and undoes nothing older).
 */
export function undoableSummary(steps: CompactionStep[]): string | null {
  const summaries = steps.filter((step): step is SummaryStep => step.kind === "summary");
  const latest = summaries[summaries.length - 1];
  if (!latest) return null;
  return undoneSummaries(steps).has(latest.view.summary.id) ? null : latest.view.summary.id;
}

/** Exact counts on the cards, where 8,015 and 8,000 must not both read "8k". */
export function exactTokens(count: number): string {
  return count.toLocaleString("en-US");
}

/** How far an estimate was from what the provider then reported, as a signed share of the report (none without both). */
export function drift(estimate: number | null | undefined, reported: number | null | undefined): { tokens: number; percent: number } | null {
  if (estimate == null || reported == null || reported <= 0) return null;
  return { tokens: reported - estimate, percent: Math.round(((reported - estimate) / reported) * 100) };
}

export function formatDrift(d: { tokens: number; percent: number }): string {
  const sign = d.tokens > 0 ? "+" : d.tokens < 0 ? "−" : "±";
  return `${sign}${Math.abs(d.percent)}%`;
}

export const POLICY_LABEL: Record<CompactionPolicy, string> = {
  off: "Off",
  base: "Base",
  layered: "Layered",
};

export const POLICY_HINT: Record<CompactionPolicy, string> = {
  off: "Never compacts by itself; an overflow stops the turn and suggests /compact.",
  base: "One summary by the model at the threshold (the original design).",
  layered: "At its threshold (a third of the window by default) evicts old tool outputs (no model call); only if that is not enough, summarises with a state sheet that keeps every path, command and rule.",
};
