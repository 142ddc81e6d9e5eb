// Folds a session's records (a reopened session) and its live events (a
// running turn) into one transcript, so the same components render both.
// Everything here is pure.
import type {
  ApprovalDecision,
  CompactionMetadata,
  DebugEvent,
  EventEnvelope,
  MainlineEvent,
  ModelError,
  ResponseItem,
  SessionRecord,
  TokenUsage,
  ToolCallStatus,
  TurnOutcome,
} from "../api/types";

export type ToolState = ToolCallStatus | "running" | "awaiting_approval" | "finished" | "interrupted";

export interface Approval {
  summary: string;
  detail: string;
  decision?: ApprovalDecision;
}

export type Entry =
  | { kind: "user"; key: string; text: string; turnId?: string }
  | {
      kind: "assistant";
      key: string;
      text: string;
      streaming: boolean;
      turnId?: string;
      /**
       * Set on a partial answer whose turn ended before the model finished it.
       * Such a round commits nothing: the text is not in the session file and
       * the model will not see it.
       */
      unsaved?: "stopped" | "interrupted";
    }
  | {
      kind: "tool";
      key: string;
      callId: string;
      name: string;
      arguments: string;
      output?: string;
      status: ToolState;
      durationMs?: number;
      approval?: Approval;
      turnId?: string;
    }
  | { kind: "compaction"; key: string; summaryId: string; summary: string; metadata: CompactionMetadata }
  | { kind: "error"; key: string; message: string; modelError?: ModelError }
  | { kind: "retry"; key: string; attempt: number; of: number; delayMs: number; cause: string; settled: boolean }
  | { kind: "turn_end"; key: string; outcome: TurnOutcome; rounds: number }
  | { kind: "notice"; key: string; text: string };

export interface Transcript {
  entries: Entry[];
  /** The turn running now, if any. */
  runningTurn: string | null;
  /** The last reported usage and its context tokens (input + output). */
  last_usage: TokenUsage | null;
  context_tokens: number | null;
  threshold: number | null;
  /** The last sequence number folded, to drop duplicates. */
  lastSeq: number;
  /** Debug events of the live stream, for the debug console. */
  debugEvents: EventEnvelope[];
}

export const emptyTranscript: Transcript = {
  entries: [],
  runningTurn: null,
  last_usage: null,
  context_tokens: null,
  threshold: null,
  lastSeq: -1,
  debugEvents: [],
};

/** `TokenUsage.context_tokens()` of the Rust side: input plus output. */
export function contextTokensOf(usage: TokenUsage): number | null {
  const input = usage.input_tokens ?? null;
  const output = usage.output_tokens ?? null;
  if (input === null && output === null) return null;
  return (input ?? 0) + (output ?? 0);
}

/** The DOM id of a compaction's divider, for links from the debug console. */
export function compactionAnchor(summaryId: string): string {
  return `compaction-${summaryId}`;
}

function findLastIndex(entries: Entry[], test: (entry: Entry) => boolean): number {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i];
    if (entry && test(entry)) return i;
  }
  return -1;
}

function replaceAt(entries: Entry[], index: number, entry: Entry): Entry[] {
  const next = entries.slice();
  next[index] = entry;
  return next;
}

function settleRetries(entries: Entry[]): Entry[] {
  return entries.some((e) => e.kind === "retry" && !e.settled)
    ? entries.map((e) => (e.kind === "retry" && !e.settled ? { ...e, settled: true } : e))
    : entries;
}

function upsertTool(
  entries: Entry[],
  callId: string,
  update: (existing: Extract<Entry, { kind: "tool" }> | undefined) => Extract<Entry, { kind: "tool" }>,
): Entry[] {
  const index = findLastIndex(entries, (e) => e.kind === "tool" && e.callId === callId);
  if (index === -1) return [...entries, update(undefined)];
  return replaceAt(entries, index, update(entries[index] as Extract<Entry, { kind: "tool" }>));
}

/** Adds a committed history item (from a record or a `message_committed`). */
export function addItem(entries: Entry[], item: ResponseItem, turnId?: string): Entry[] {
  if (entries.some((e) => e.key === item.id)) return entries;
  switch (item.type) {
    case "message": {
      if (item.role === "system" || item.role === "developer") return entries;
      if (item.role === "user") {
        return [...entries, { kind: "user", key: item.id, text: item.content, turnId }];
      }
      const streaming = findLastIndex(entries, (e) => e.kind === "assistant" && e.streaming);
      const committed: Entry = { kind: "assistant", key: item.id, text: item.content, streaming: false, turnId };
      return streaming === -1 ? [...entries, committed] : replaceAt(entries, streaming, committed);
    }
    case "function_call":
      return upsertTool(entries, item.call_id, (existing) => ({
        kind: "tool",
        key: existing?.key ?? item.id,
        callId: item.call_id,
        name: item.name,
        arguments: item.arguments,
        status: existing?.status ?? "finished",
        output: existing?.output,
        durationMs: existing?.durationMs,
        approval: existing?.approval,
        turnId: existing?.turnId ?? turnId,
      }));
    case "function_call_output":
      return upsertTool(entries, item.call_id, (existing) => ({
        kind: "tool",
        key: existing?.key ?? item.id,
        callId: item.call_id,
        name: existing?.name ?? "tool",
        arguments: existing?.arguments ?? "",
        status:
          existing?.status === "running" || existing?.status === "awaiting_approval" || !existing
            ? "finished"
            : existing.status,
        output: existing?.output ?? item.output,
        durationMs: existing?.durationMs,
        approval: existing?.approval,
        turnId: existing?.turnId ?? turnId,
      }));
    case "compaction_summary":
      return addCompaction(entries, item.id, item.summary, item.metadata);
    case "reasoning":
      return entries;
  }
}

function addCompaction(entries: Entry[], summaryId: string, summary: string, metadata: CompactionMetadata): Entry[] {
  if (entries.some((e) => e.kind === "compaction" && e.summaryId === summaryId)) return entries;
  return [...entries, { kind: "compaction", key: `compaction:${summaryId}`, summaryId, summary, metadata }];
}

function foldMainline(state: Transcript, event: MainlineEvent, seq: number): Transcript {
  const { entries } = state;
  switch (event.kind) {
    case "turn_started":
      return {
        ...state,
        runningTurn: event.turn_id,
        entries: addItem(entries, event.user_message, event.turn_id),
      };
    case "text_delta": {
      const base = settleRetries(entries);
      const last = base[base.length - 1];
      if (last && last.kind === "assistant" && last.streaming) {
        return { ...state, entries: replaceAt(base, base.length - 1, { ...last, text: last.text + event.delta }) };
      }
      return {
        ...state,
        entries: [
          ...base,
          { kind: "assistant", key: `stream:${event.round_id}:${seq}`, text: event.delta, streaming: true, turnId: event.turn_id },
        ],
      };
    }
    case "message_committed":
      return { ...state, entries: addItem(settleRetries(entries), event.item, event.turn_id) };
    case "tool_call_started":
      return {
        ...state,
        entries: upsertTool(settleRetries(entries), event.call_id, (existing) => ({
          kind: "tool",
          key: existing?.key ?? `call:${event.call_id}`,
          callId: event.call_id,
          name: event.name,
          arguments: event.arguments,
          status: existing?.status === "awaiting_approval" ? "awaiting_approval" : "running",
          approval: existing?.approval,
          turnId: event.turn_id,
        })),
      };
    case "tool_call_finished":
      return {
        ...state,
        entries: upsertTool(entries, event.call_id, (existing) => ({
          kind: "tool",
          key: existing?.key ?? `call:${event.call_id}`,
          callId: event.call_id,
          name: event.name,
          arguments: existing?.arguments ?? "",
          output: event.output,
          status: event.status,
          durationMs: event.duration_ms,
          approval: existing?.approval,
          turnId: event.turn_id,
        })),
      };
    case "approval_requested":
      return {
        ...state,
        entries: upsertTool(entries, event.call_id, (existing) => ({
          kind: "tool",
          key: existing?.key ?? `call:${event.call_id}`,
          callId: event.call_id,
          name: existing?.name ?? event.tool,
          arguments: existing?.arguments ?? "",
          output: existing?.output,
          status: "awaiting_approval",
          approval: { summary: event.summary, detail: event.detail },
          turnId: event.turn_id,
        })),
      };
    case "approval_resolved":
      return { ...state, entries: resolveApproval(entries, event.call_id, event.decision, true) };
    case "turn_finished":
      return {
        ...state,
        runningTurn: null,
        entries: finishTurn(entries, event.outcome, event.rounds, `turn_end:${event.turn_id}`),
      };
    case "error":
      return {
        ...state,
        entries: [
          ...settleRetries(entries),
          { kind: "error", key: `error:${seq}`, message: event.message, modelError: event.model_error ?? undefined },
        ],
      };
    case "compaction_circuit_open":
      return { ...state, entries: [...entries, { kind: "error", key: `error:${seq}`, message: event.message }] };
  }
}

function resolveApproval(entries: Entry[], callId: string, decision: ApprovalDecision, live: boolean): Entry[] {
  const index = findLastIndex(entries, (e) => e.kind === "tool" && e.callId === callId);
  if (index === -1) return entries;
  const tool = entries[index] as Extract<Entry, { kind: "tool" }>;
  const approval = { summary: tool.approval?.summary ?? "", detail: tool.approval?.detail ?? "", decision };
  const status: ToolState =
    decision === "deny" ? "denied" : live && tool.status === "awaiting_approval" ? "running" : tool.status;
  return replaceAt(entries, index, { ...tool, approval, status });
}

function finishTurn(entries: Entry[], outcome: TurnOutcome, rounds: number, key: string): Entry[] {
  // Whatever was still streaming or running stops with the turn.
  let next = settleRetries(entries).map((e): Entry => {
    if (e.kind === "assistant" && e.streaming) {
      return outcome === "completed"
        ? { ...e, streaming: false }
        : { ...e, streaming: false, unsaved: outcome === "cancelled" ? "stopped" : "interrupted" };
    }
    if (e.kind === "tool" && (e.status === "running" || e.status === "awaiting_approval")) {
      return { ...e, status: outcome === "cancelled" ? "cancelled" : "interrupted" };
    }
    return e;
  });
  if (outcome !== "completed" && !next.some((e) => e.key === key)) {
    next = [...next, { kind: "turn_end", key, outcome, rounds }];
  }
  return next;
}

function foldDebug(state: Transcript, event: DebugEvent, seq: number): Transcript {
  switch (event.kind) {
    case "usage_reported":
      return {
        ...state,
        last_usage: event.usage,
        context_tokens: event.context_tokens ?? contextTokensOf(event.usage),
        threshold: event.threshold,
      };
    case "retrying":
      return {
        ...state,
        entries: [
          ...settleRetries(state.entries),
          {
            kind: "retry",
            key: `retry:${seq}`,
            attempt: event.attempt,
            of: event.of,
            delayMs: event.delay_ms,
            cause: event.cause,
            settled: false,
          },
        ],
      };
    case "history_compacted":
      return {
        ...state,
        entries: addCompaction(state.entries, event.summary.id, event.summary.summary, event.summary.metadata),
      };
    case "summary_failed":
      return {
        ...state,
        entries: [
          ...state.entries,
          { kind: "error", key: `error:${seq}`, message: `Compaction failed after ${event.attempts} attempts: ${event.message}` },
        ],
      };
    case "round_started":
    case "compaction_ineffective":
    case "tool_outputs_evicted":
    case "layered_compacted":
      return state;
  }
}

/** Folds one live event. Events at or below the last folded `seq` are dropped. */
export function foldEvent(state: Transcript, envelope: EventEnvelope): Transcript {
  if (envelope.seq <= state.lastSeq) return state;
  const withSeq = { ...state, lastSeq: envelope.seq };
  const { event } = envelope;
  if (event.family === "mainline") return foldMainline(withSeq, event.event, envelope.seq);
  const folded = foldDebug(withSeq, event.event, envelope.seq);
  return { ...folded, debugEvents: [...folded.debugEvents, envelope] };
}

/** Builds the transcript of a session file, as `open_session` returns it. */
export function fromRecords(records: SessionRecord[], threshold: number | null = null): Transcript {
  let entries: Entry[] = [];
  let last_usage: TokenUsage | null = null;
  let turn: string | undefined;
  records.forEach((record, index) => {
    switch (record.type) {
      case "response_item":
        entries = addItem(entries, record.payload, turn);
        break;
      case "turn_started":
        turn = record.payload.turn_id;
        break;
      case "turn_finished":
        entries = finishTurn(entries, record.payload.outcome, record.payload.rounds, `turn_end:${record.payload.turn_id}`);
        turn = undefined;
        break;
      case "approval_decision":
        entries = upsertTool(entries, record.payload.call_id, (existing) => ({
          kind: "tool",
          key: existing?.key ?? `call:${record.payload.call_id}`,
          callId: record.payload.call_id,
          name: existing?.name ?? record.payload.tool,
          arguments: existing?.arguments ?? "",
          output: existing?.output,
          status: record.payload.decision === "deny" ? "denied" : (existing?.status ?? "finished"),
          approval: { summary: existing?.approval?.summary ?? "", detail: "", decision: record.payload.decision },
          turnId: existing?.turnId ?? turn,
        }));
        break;
      case "full_tool_output":
        entries = upsertTool(entries, record.payload.call_id, (existing) => ({
          kind: "tool",
          key: existing?.key ?? `call:${record.payload.call_id}`,
          callId: record.payload.call_id,
          name: existing?.name ?? "tool",
          arguments: existing?.arguments ?? "",
          status: existing?.status ?? "finished",
          durationMs: existing?.durationMs,
          approval: existing?.approval,
          output: record.payload.output,
          turnId: existing?.turnId ?? turn,
        }));
        break;
      case "token_usage":
        last_usage = record.payload.usage;
        break;
      case "error":
        entries = [
          ...entries,
          {
            kind: "error",
            key: `record:${index}`,
            message: record.payload.message,
            modelError: record.payload.model_error ?? undefined,
          },
        ];
        break;
      case "retry":
        entries = [
          ...entries,
          {
            kind: "retry",
            key: `record:${index}`,
            attempt: record.payload.attempt,
            of: record.payload.of,
            delayMs: record.payload.delay_ms,
            cause: record.payload.cause,
            settled: true,
          },
        ];
        break;
      case "profile_set": {
        const { change, provider_kind, model, base_url, profile } = record.payload;
        const verb = change === "created" ? "Created on" : "Switched to";
        const at = base_url ? ` at ${base_url}` : "";
        const name = profile ? ` (profile ${profile})` : "";
        entries = [...entries, { kind: "notice", key: `profile:${index}`, text: `${verb} ${provider_kind} · ${model}${at}${name}` }];
        break;
      }
      case "layered_compaction": {
        const { summary } = record.payload;
        entries = addCompaction(entries, summary.id, summary.summary, summary.metadata);
        break;
      }
      case "session_meta":
      case "round":
      case "title_set":
      case "compaction_policy":
      case "tool_outputs_evicted":
        break;
    }
  });
  const usage = last_usage as TokenUsage | null;
  return {
    ...emptyTranscript,
    entries,
    last_usage: usage,
    context_tokens: usage ? contextTokensOf(usage) : null,
    threshold,
  };
}

/** The last user message, for "edit and resend" and "retry". */
export function lastUserMessage(transcript: Transcript): string | null {
  const index = findLastIndex(transcript.entries, (e) => e.kind === "user");
  const entry = index === -1 ? undefined : transcript.entries[index];
  return entry && entry.kind === "user" ? entry.text : null;
}

/** Tool calls waiting for the person. */
export function pendingApprovals(transcript: Transcript): Extract<Entry, { kind: "tool" }>[] {
  return transcript.entries.filter(
    (e): e is Extract<Entry, { kind: "tool" }> => e.kind === "tool" && e.status === "awaiting_approval",
  );
}

/** An error the UI met itself (a command failed), shown in place. */
export function addLocalError(state: Transcript, message: string): Transcript {
  return {
    ...state,
    runningTurn: null,
    entries: [
      ...state.entries.map((e): Entry =>
        e.kind === "assistant" && e.streaming ? { ...e, streaming: false, unsaved: "interrupted" } : e,
      ),
      { kind: "error", key: `local-error:${state.entries.length}:${message.length}`, message },
    ],
  };
}

export type TranscriptAction =
  | { type: "load"; transcript: Transcript }
  | { type: "event"; envelope: EventEnvelope }
  | { type: "error"; message: string }
  | { type: "notice"; text: string };

export function transcriptReducer(state: Transcript, action: TranscriptAction): Transcript {
  switch (action.type) {
    case "load":
      return action.transcript;
    case "event":
      return foldEvent(state, action.envelope);
    case "error":
      return addLocalError(state, action.message);
    case "notice":
      return {
        ...state,
        entries: [...state.entries, { kind: "notice", key: `notice:${state.entries.length}`, text: action.text }],
      };
  }
}
