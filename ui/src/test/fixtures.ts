import type { EventEnvelope, ResponseItem } from "../api/types";
import type { DebugEvent } from "../bindings/DebugEvent";
import type { MainlineEvent } from "../bindings/MainlineEvent";

export const SESSION = "0193a1b2-c3d4-7e5f-8a9b-00000000aaaa";
export const TURN = "0193a1b2-c3d4-7e5f-8a9b-00000000bbbb";
export const ROUND = "0193a1b2-c3d4-7e5f-8a9b-00000000cccc";

/** Builds envelopes with increasing sequence numbers. */
export function eventStream() {
  let seq = 0;
  return {
    mainline: (event: MainlineEvent): EventEnvelope => ({
      v: 1,
      seq: seq++,
      session_id: SESSION,
      event: { family: "mainline", event },
    }),
    debug: (event: DebugEvent): EventEnvelope => ({
      v: 1,
      seq: seq++,
      session_id: SESSION,
      event: { family: "debug", event },
    }),
  };
}

export function userItem(content: string, id = "item-user"): ResponseItem {
  return { type: "message", id, role: "user", content };
}

export function assistantItem(content: string, id = "item-assistant"): ResponseItem {
  return { type: "message", id, role: "assistant", content };
}

/** A session as the shell answers for it: its list row, snapshot and transcript (what Rust's conversion gives). */
/** Settings with the offline demo profile only, for the App tests. */
export const demoSettings: import("../api/types").Settings = {
  profiles: [{ id: "demo", kind: "demo", label: "Offline demo", model: "strata-demo", has_key: false, context_window: 32000, compact_threshold: 8000 }],
  active_profile: "demo",
  approval_policy: "ask",
  theme: "system",
  compaction_policy: "layered",
  sandbox: "off",
  sandbox_network: "off",
  sandbox_allow_domains: [],
};

export interface ShellSession {
  summary: import("../api/types").SessionListItem;
  context_tokens?: number;
  transcript: import("../bindings/TranscriptEntry").TranscriptEntry[];
}

/** Two sessions for the App tests. */
export function shellSessions(): ShellSession[] {
  const row = (id: string, title: string, workspace: string) => ({
    id,
    title,
    workspace,
    provider_kind: "demo",
    model: "strata-demo",
    created_at: "2026-11-29T10:00:00Z",
    updated_at: "2026-11-29T11:00:00Z",
    item_count: 4,
    compaction_count: 0,
  });
  return [
    {
      summary: row("0193a1b2-c3d4-7e5f-8a9b-000000000a01", "Streaming JSON parser for ingest", "/home/ana/ingest"),
      context_tokens: 2930,
      transcript: [
        { kind: "user", id: "i-u1", text: "Make the JSON parser stream." },
        { kind: "assistant", id: "i-a1", text: "The parser now streams.", streaming: false },
      ],
    },
    {
      summary: row("0193a1b2-c3d4-7e5f-8a9b-000000000a02", "Flaky orders_e2e test", "/home/ana/orders"),
      transcript: [{ kind: "user", id: "i-u2", text: "Why does orders_e2e fail sometimes?" }],
    },
  ];
}

/** A session's snapshot for `open_session`; `held_elsewhere` when another process holds it. */
export function shellView(session: ShellSession, live = false, held_elsewhere = false): import("../api/types").SessionView {
  return { summary: session.summary, records: [], context: [], threshold: 8000, context_window: 32000, context_tokens: session.context_tokens, live, held_elsewhere, record_count: 0 };
}

/** `open_transcript`'s answer holding a session's whole transcript. */
export function shellPage(session: ShellSession): import("../bindings/TranscriptPage").TranscriptPage {
  return { v: 1, session_id: session.summary.id, entries: session.transcript, total: session.transcript.length, start: 0 };
}
