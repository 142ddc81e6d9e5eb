// A small session with two compactions, as the shell returns it: its records
// (open_session), the model-visible context and the compaction views the
// core's replay produces for it (written out by hand here).
import type { CompactionMetadata, ResponseItem, SessionRecord, SessionView, TokenUsage } from "../api/types";
import type { CompactionView } from "../bindings/CompactionView";
import type { ConsoleView } from "../bindings/ConsoleView";
import type { EventEnvelope } from "../bindings/EventEnvelope";
import { consoleOf } from "./consoleFold";
import type { RoundPage } from "../bindings/RoundPage";
import type { TranscriptEntry } from "../bindings/TranscriptEntry";
import type { TranscriptPage } from "../bindings/TranscriptPage";

export const CONSOLE_SESSION = "0193a1b2-c3d4-7e5f-8a9b-0000000c0501";
const TURN_1 = "0193a1b2-c3d4-7e5f-8a9b-0000000c0a01";
const TURN_2 = "0193a1b2-c3d4-7e5f-8a9b-0000000c0a02";
const round = (n: number) => `0193a1b2-c3d4-7e5f-8a9b-0000000c0b0${n}`;
const PREFIX = "[Summary of earlier work] The earlier part of this conversation was compacted; this summary replaces it:\n\n";

export const system: ResponseItem = { type: "message", id: "i-system", role: "system", content: "You are Strata." };
export const user1: ResponseItem = { type: "message", id: "i-user-1", role: "user", content: "Fix the parser." };
const call1: ResponseItem = { type: "function_call", id: "i-call-1", call_id: "c1", name: "read_file", arguments: '{"path":"src/parser.rs"}' };
const output1: ResponseItem = { type: "function_call_output", id: "i-out-1", call_id: "c1", output: "fn parse() {}" };
export const answer1: ResponseItem = { type: "message", id: "i-answer-1", role: "assistant", content: "REMOVED-ANSWER: the parser is fixed." };
export const user2: ResponseItem = { type: "message", id: "i-user-2", role: "user", content: "Now add tests." };
const answer2: ResponseItem = { type: "message", id: "i-answer-2", role: "assistant", content: "Adding tests next." };

function metadata(overrides: Partial<CompactionMetadata>): CompactionMetadata {
  return {
    trigger: "auto",
    reason: "Reported token usage 8412 reached the compaction threshold 8000",
    context_tokens: 8412,
    threshold: 8000,
    removed: 3,
    kept: 2,
    summarizer_model: "gpt-5.4-mini",
    summarizer_usage: { input_tokens: 7305, output_tokens: 212 },
    duration_ms: 2840,
    ...overrides,
  };
}

export const summary1 = {
  type: "compaction_summary" as const,
  id: "i-summary-1",
  summary: "FIRST-SUMMARY: the parser was fixed in src/parser.rs.",
  metadata: metadata({}),
};
export const summary2 = {
  type: "compaction_summary" as const,
  id: "i-summary-2",
  summary: "SECOND-SUMMARY: tests are being added.",
  metadata: metadata({
    trigger: "manual",
    reason: "Compacted on request",
    context_tokens: 9100,
    removed: 2,
    kept: 3,
    summarizer_usage: { input_tokens: 8000, output_tokens: 150 },
    duration_ms: 1200,
  }),
};

const usage = (input: number, output: number): TokenUsage => ({ input_tokens: input, output_tokens: output });
let clock = Date.parse("2026-11-29T09:00:00.000Z");
const at = () => {
  clock += 1000;
  return new Date(clock).toISOString();
};
const rec = (body: Omit<SessionRecord, "v" | "ts">): SessionRecord => ({ v: 1, ts: at(), ...body }) as SessionRecord;
const roundRecord = (n: number, turn: string, inputItems: number) =>
  rec({
    type: "round",
    payload: { turn_id: turn, round_id: round(n), provider_kind: "openai-responses", model: "gpt-5.4", tools: [], tool_choice: { type: "auto" }, max_output_tokens: 8192, input_items: inputItems },
  });

export const consoleRecords: SessionRecord[] = [
  rec({ type: "session_meta", payload: { session_id: CONSOLE_SESSION, created_at: new Date(clock).toISOString(), workspace: "/w", provider_kind: "openai-responses", model: "gpt-5.4", strata_version: "0.1.0" } }),
  rec({ type: "response_item", payload: system }),
  rec({ type: "turn_started", payload: { turn_id: TURN_1 } }),
  rec({ type: "response_item", payload: user1 }),
  roundRecord(1, TURN_1, 2),
  rec({ type: "response_item", payload: call1 }),
  rec({ type: "token_usage", payload: { round_id: round(1), usage: usage(5000, 200) } }),
  rec({ type: "response_item", payload: output1 }),
  roundRecord(2, TURN_1, 4),
  rec({ type: "response_item", payload: answer1 }),
  rec({ type: "token_usage", payload: { round_id: round(2), usage: usage(8300, 112) } }),
  rec({ type: "response_item", payload: summary1 }),
  rec({ type: "turn_finished", payload: { turn_id: TURN_1, outcome: "completed", rounds: 2 } }),
  rec({ type: "turn_started", payload: { turn_id: TURN_2 } }),
  rec({ type: "response_item", payload: user2 }),
  roundRecord(3, TURN_2, 4),
  rec({ type: "retry", payload: { round_id: round(3), attempt: 1, of: 4, delay_ms: 2000, cause: "429 Too Many Requests" } }),
  rec({ type: "response_item", payload: answer2 }),
  rec({ type: "token_usage", payload: { usage: usage(1900, 312) } }),
  roundRecord(4, TURN_2, 5),
  rec({ type: "token_usage", payload: { round_id: round(4), usage: usage(9000, 100) } }),
  rec({ type: "response_item", payload: summary2 }),
  rec({ type: "approval_decision", payload: { call_id: "c9", tool: "apply_patch", decision: "deny" } }),
  rec({ type: "error", payload: { turn_id: TURN_2, message: "the round failed after 4 attempts", model_error: { kind: "transient", message: "503" } } }),
  rec({ type: "turn_finished", payload: { turn_id: TURN_2, outcome: "failed", rounds: 2 } }),
];

export const consoleViews: CompactionView[] = [
  {
    summary: summary1,
    summary_model_text: PREFIX + summary1.summary,
    record_index: 11,
    ts: consoleRecords[11]?.ts ?? "",
    before: [system, user1, call1, output1, answer1],
    after: [system, summary1, user1],
    removed_indices: [2, 3, 4],
    estimated_tokens_before: 30,
    estimated_tokens_after: 28,
    next_context_tokens: 2212,
  },
  {
    summary: summary2,
    summary_model_text: PREFIX + summary2.summary,
    record_index: 21,
    ts: consoleRecords[21]?.ts ?? "",
    before: [system, summary1, user1, user2, answer2],
    after: [system, summary2, user1, user2],
    removed_indices: [1, 4],
    estimated_tokens_before: 40,
    estimated_tokens_after: 26,
  },
];

export const consoleContext: ResponseItem[] = [system, summary2, user1, user2];

export function consoleView(overrides: Partial<SessionView> = {}): SessionView {
  return {
    summary: {
      id: CONSOLE_SESSION,
      title: "Parser work",
      workspace: "/w",
      provider_kind: "openai-responses",
      model: "gpt-5.4",
      created_at: consoleRecords[0]?.ts ?? "",
      updated_at: consoleRecords[consoleRecords.length - 1]?.ts ?? "",
      item_count: 8,
      compaction_count: 2,
    },
    records: consoleRecords,
    context: consoleContext,
    threshold: 8000,
    context_window: 32000,
    live: false,
    held_elsewhere: false,
    record_count: consoleRecords.length,
    ...overrides,
  };
}

/**
 * What `open_console` answers for a session view (its records, context, threshold) and the live
 * debug events: by default this fixture's session.
 */
export function consoleConsole(view: SessionView = consoleView(), views: CompactionView[] = consoleViews, debugEvents: EventEnvelope[] = []): ConsoleView {
  const reported = view.context_tokens ?? undefined;
  return consoleOf(view.records, views, view.context, { threshold: view.threshold, context_window: view.context_window ?? undefined, tokens: reported }, debugEvents);
}

/** Rounds of `count`, for paging and virtualisation. */
export function manyRoundRecords(count: number): SessionRecord[] {
  const records: SessionRecord[] = [consoleRecords[0] as SessionRecord];
  for (let i = 0; i < count; i += 1) {
    const id = `round-${i}`;
    records.push({ v: 1, ts: "2026-11-29T09:00:00.000Z", type: "round", payload: { turn_id: TURN_1, round_id: id, provider_kind: "demo", model: "m", tools: [], input_items: 1 } });
    records.push({ v: 1, ts: "2026-11-29T09:00:00.000Z", type: "token_usage", payload: { round_id: id, usage: usage(1000 + i, 10) } });
  }
  return records;
}

export function roundPage(number: number): RoundPage {
  return {
    total: 4,
    offset: number - 1,
    rounds: [
      {
        number,
        record_index: 15,
        ts: consoleRecords[15]?.ts ?? "",
        estimated_input_tokens: 2_100,
        round: { turn_id: TURN_2, round_id: round(number), provider_kind: "openai-responses", model: "gpt-5.4", tools: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }], tool_choice: { type: "auto" }, max_output_tokens: 8192, input_items: 4, estimated_input_tokens: 2_100 },
        request: {
          model: "gpt-5.4",
          input: [system, summary1, user1, user2],
          tools: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }],
          tool_choice: { type: "auto" },
          max_output_tokens: 8192,
        },
        usage: usage(1900, 312),
        context_tokens: 2212,
        input_consistent: true,
      },
    ],
  };
}

/** What `open_transcript` answers for `consoleRecords` (ids as Rust names them). */
export const consoleTranscript: TranscriptEntry[] = [
  { kind: "user", id: user1.id, text: "Fix the parser.", turn_id: TURN_1 },
  { kind: "tool", id: "call:c1", call_id: "c1", name: "read_file", arguments: '{"path":"src/parser.rs"}', output: { preview: "fn parse() {}", chars: 13 }, status: "finished", turn_id: TURN_1 },
  { kind: "assistant", id: answer1.id, text: "REMOVED-ANSWER: the parser is fixed.", streaming: false, turn_id: TURN_1 },
  { kind: "compaction", id: `compaction:${summary1.id}`, summary: summary1 },
  { kind: "user", id: user2.id, text: "Now add tests.", turn_id: TURN_2 },
  { kind: "retry", id: "record:16", attempt: 1, of: 4, delay_ms: 2000, cause: "429 Too Many Requests", settled: true },
  { kind: "assistant", id: answer2.id, text: "Adding tests next.", streaming: false, turn_id: TURN_2 },
  { kind: "compaction", id: `compaction:${summary2.id}`, summary: summary2 },
  { kind: "tool", id: "call:c9", call_id: "c9", name: "apply_patch", arguments: "", status: "denied", approval: { summary: "", detail: "", decision: "deny" }, turn_id: TURN_2 },
  { kind: "error", id: "record:23", message: "the round failed after 4 attempts", model_error: { kind: "transient", message: "503" } },
  { kind: "turn_end", id: `turn_end:${TURN_2}`, outcome: "failed", rounds: 2 },
];

/** `open_transcript`'s page holding all of `consoleTranscript`. */
export function consoleTranscriptPage(): TranscriptPage {
  return { v: 1, session_id: CONSOLE_SESSION, entries: consoleTranscript, total: consoleTranscript.length, start: 0 };
}

const demoProfile = { id: "demo", kind: "demo", label: "Offline demo", model: "strata-demo", has_key: false, context_window: 32000, compact_threshold: 8000 };

/**
 * The shell's answers for the app showing this session (for `mockShell`);
 * `overrides` answer other commands, or these differently.
 */
export function consoleApp(overrides: Record<string, () => unknown> = {}) {
  return (cmd: string): unknown => {
    const answer = overrides[cmd];
    if (answer) return answer();
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: demoProfile, is_demo: true };
      case "get_settings":
        return { profiles: [demoProfile], active_profile: "demo", approval_policy: "ask", theme: "light" };
      case "list_sessions":
        return { v: 1, sessions: [consoleView().summary], total: 1 };
      case "open_session":
        return consoleView();
      case "compaction_views":
        return consoleViews;
      case "open_console":
        return consoleConsole();
      case "open_transcript":
        return consoleTranscriptPage();
      case "watch_library":
        return null;
      default:
        throw { kind: "internal", message: `unexpected ${cmd}` };
    }
  };
}
