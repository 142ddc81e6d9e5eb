// The preview backend's stand-in for the core's replay (`Replay::fold`,
// `apply_compaction`, `compaction_views`, `round_requests`), so the browser
// preview can answer the console's commands. The app itself never replays:
// the real shell answers these commands from strata-core.
import type { CompactionView } from "../bindings/CompactionView";
import type { RoundPage } from "../bindings/RoundPage";
import type { ResponseItem, SessionRecord } from "../api/types";
import { contextTokensOf } from "../state/transcript";

const USER_BUDGET = 20_000;

/** `CompactionPlan::for_history` + `apply_compaction`. */
export function applyCompaction(history: ResponseItem[], summary: ResponseItem): ResponseItem[] {
  let lead = 0;
  while (lead < history.length) {
    const item = history[lead];
    if (!item || item.type !== "message" || (item.role !== "system" && item.role !== "developer")) break;
    lead += 1;
  }
  const users: ResponseItem[] = [];
  let spent = 0;
  for (let i = history.length - 1; i >= lead; i -= 1) {
    const item = history[i];
    if (!item || item.type !== "message" || item.role !== "user") continue;
    const chars = [...item.content].length;
    if (users.length && spent + chars > USER_BUDGET) break;
    spent += chars;
    users.unshift(item);
  }
  return [...history.slice(0, lead), summary, ...users];
}

export function fold(history: ResponseItem[], record: SessionRecord): ResponseItem[] {
  if (record.type !== "response_item") return history;
  if (record.payload.type === "compaction_summary") return applyCompaction(history, record.payload);
  return [...history, record.payload];
}

export function replayHistory(records: SessionRecord[]): ResponseItem[] {
  let history: ResponseItem[] = [];
  for (const record of records) history = fold(history, record);
  return history;
}

/** `estimate_tokens`: a token per four characters. */
export function estimateTokens(items: ResponseItem[]): number {
  let chars = 0;
  for (const item of items) {
    if (item.type === "message") chars += item.content.length;
    else if (item.type === "function_call") chars += item.name.length + item.arguments.length;
    else if (item.type === "function_call_output") chars += item.output.length;
    else if (item.type === "compaction_summary") chars += SUMMARY_PREFIX.length + item.summary.length;
    else chars += JSON.stringify(item.payload).length;
  }
  return Math.ceil(chars / 4);
}

export const SUMMARY_PREFIX =
  "[Summary of earlier work] The earlier part of this conversation was compacted; this summary replaces it:\n\n";

export function compactionViews(records: SessionRecord[]): CompactionView[] {
  let history: ResponseItem[] = [];
  const views: CompactionView[] = [];
  let awaiting: CompactionView | null = null;
  records.forEach((record, index) => {
    if (record.type === "response_item" && record.payload.type === "compaction_summary") {
      const before = history;
      history = fold(history, record);
      const after = history;
      const kept = new Set(after.map((item) => item.id));
      const view: CompactionView = {
        summary: record.payload,
        summary_model_text: SUMMARY_PREFIX + record.payload.summary,
        record_index: index,
        ts: record.ts,
        before,
        after,
        removed_indices: before.flatMap((item, i) => (kept.has(item.id) ? [] : [i])),
        estimated_tokens_before: estimateTokens(before),
        estimated_tokens_after: estimateTokens(after),
      };
      views.push(view);
      awaiting = view;
      return;
    }
    if (record.type === "token_usage" && awaiting) {
      awaiting.next_context_tokens = contextTokensOf(record.payload.usage);
      awaiting = null;
    }
    history = fold(history, record);
  });
  return views;
}

export function roundRequests(records: SessionRecord[], offset: number, limit: number): RoundPage {
  const usage = new Map<string, SessionRecord & { type: "token_usage" }>();
  let lastRound: string | null = null;
  let total = 0;
  for (const record of records) {
    if (record.type === "round") {
      lastRound = record.payload.round_id;
      total += 1;
    } else if (record.type === "token_usage") {
      const id = record.payload.round_id ?? lastRound;
      if (id && !usage.has(id)) usage.set(id, record);
    }
  }
  const end = Math.min(total, offset + limit);
  const rounds: RoundPage["rounds"] = [];
  let history: ResponseItem[] = [];
  let number = 0;
  records.forEach((record, index) => {
    if (number >= end) return;
    if (record.type === "round") {
      if (number >= offset) {
        const reported = usage.get(record.payload.round_id)?.payload.usage;
        rounds.push({
          number: number + 1,
          record_index: index,
          ts: record.ts,
          round: record.payload,
          request: {
            model: record.payload.model,
            input: history,
            tools: record.payload.tools,
            tool_choice: record.payload.tool_choice,
            max_output_tokens: record.payload.max_output_tokens,
          },
          usage: reported,
          context_tokens: reported ? contextTokensOf(reported) : null,
          input_consistent: record.payload.input_items === history.length,
        });
      }
      number += 1;
    }
    history = fold(history, record);
  });
  return { total, offset: Math.min(offset, total), rounds };
}
