// An in-memory Strata backend for the browser preview (`npm run build:mock`,
// `npm run dev` with `?mock`), answering from sessions Rust recorded
// (`library.ts`). Never part of the production bundle.
import type { Channel } from "@tauri-apps/api/core";
import { mockIPC } from "@tauri-apps/api/mocks";
import type { AppInfo, ProfileView, SessionListItem, SessionView, Settings } from "../api/types";
import type { LiveBatch } from "../bindings/LiveBatch";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { CompactionStatus } from "../bindings/CompactionStatus";
import type { ItemPinned } from "../bindings/ItemPinned";
import type { ProviderKindInfo } from "../bindings/ProviderKindInfo";
import type { RoundPage } from "../bindings/RoundPage";
import type { SessionPage } from "../bindings/SessionPage";
import type { ToolOutputText } from "../bindings/ToolOutputText";
import type { TranscriptEntry } from "../bindings/TranscriptEntry";
import type { TranscriptPage } from "../bindings/TranscriptPage";
import type { TranscriptUpdate } from "../bindings/TranscriptUpdate";
import type { TurnReport } from "../bindings/TurnReport";
import type { ForkPoint } from "../bindings/ForkPoint";
import { forkSession, sessionItems, undoableCompaction, undoCompaction } from "./contextOps";
import { pinTarget, setPinned } from "../state/transcript";
import { previewLibrary, type PreviewSession } from "./library";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const demoProfile: ProfileView = {
  id: "demo",
  kind: "demo",
  label: "Offline demo",
  model: "strata-demo",
  has_key: false,
  context_window: 32_000,
  compact_threshold: 8_000,
};
const openaiProfile: ProfileView = {
  id: "openai",
  kind: "openai-responses",
  label: "OpenAI",
  model: "gpt-5.4",
  has_key: true,
  context_window: 400_000,
  compact_threshold: 8_000,
};

/** Entries per transcript page when the caller does not say (as in Rust). */
const TRANSCRIPT_PAGE = 200;

let counter = 0;
/** A UUID-shaped id; deterministic so screenshots are stable. */
function fakeId(): string {
  counter += 1;
  return `0193a1b2-c3d4-7e5f-8a9b-${counter.toString(16).padStart(12, "0")}`;
}

/** An entry's text, for the preview's rough token estimate (4 characters a token, as Rust's fallback). */
function textOf(entry: TranscriptEntry): string {
  if (entry.kind === "user" || entry.kind === "assistant") return entry.text;
  if (entry.kind === "tool") return entry.arguments + (entry.output?.preview ?? "");
  return "";
}

/** The recorded turn's events again, with ids of its own so a second replay adds entries rather than replacing. */
function renamed(event: LiveEvent, sessionId: string, suffix: string): LiveEvent {
  const rename = (id: string) => `${id}~${suffix}`;
  const entry = (e: TranscriptEntry): TranscriptEntry => ({ ...e, id: rename(e.id) }) as TranscriptEntry;
  return {
    envelope: { ...event.envelope, session_id: sessionId },
    updates: event.updates.map((u): TranscriptUpdate =>
      u.op === "append"
        ? { op: "append", entry: entry(u.entry) }
        : u.op === "replace"
          ? { op: "replace", id: rename(u.id), entry: entry(u.entry) }
          : u.op === "insert"
            ? { op: "insert", before: rename(u.before), entry: entry(u.entry) }
            : { ...u, id: rename(u.id) },
    ),
  };
}

class MockBackend {
  library = previewLibrary();
  sessions: PreviewSession[] = this.library.sessions;
  settings: Settings;
  running = new Map<string, { cancelled: boolean }>();
  policies = new Map<string, CompactionPolicy>();
  replays = 0;

  constructor(params: URLSearchParams) {
    const demo = params.get("profile") === "demo";
    this.settings = {
      profiles: [openaiProfile, demoProfile],
      active_profile: demo ? "demo" : "openai",
      approval_policy: "ask",
      theme: (params.get("theme") as Settings["theme"] | null) ?? "system",
      compaction_policy: "layered",
    };
  }

  active(): ProfileView {
    return this.settings.profiles.find((p) => p.id === this.settings.active_profile) ?? demoProfile;
  }

  find(id: unknown): PreviewSession {
    const session = this.sessions.find((s) => s.view.summary.id === id);
    if (!session) throw { kind: "not_found", message: "That session no longer exists." };
    return session;
  }

  /** `open_transcript`: the recorded entries, paged like Rust pages them. */
  transcript(session: PreviewSession, before: unknown, limit: unknown): TranscriptPage {
    const entries = session.transcript;
    const end = typeof before === "string" ? entries.findIndex((e) => e.id === before) : entries.length;
    if (end === -1) throw { kind: "not_found", message: "That part of the transcript is not in the session." };
    const start = Math.max(0, end - (typeof limit === "number" ? limit : TRANSCRIPT_PAGE));
    const page = entries.slice(start, end);
    return { v: 1, session_id: session.view.summary.id, entries: page, total: entries.length, start, ...(start > 0 && page[0] ? { older: page[0].id } : {}) };
  }

  /** `pin_item`: like Rust, refused when the pins would exceed half the threshold (an estimate). */
  pin(session: PreviewSession, item: string, pinned: boolean): ItemPinned {
    const entry = session.transcript.find((e) => pinTarget(e) === item);
    if (!entry) throw { kind: "not_found", message: `no item ${item} in this session` };
    if (pinned) {
      const tokens = session.transcript
        .filter((e) => e === entry || ("pinned" in e && e.pinned))
        .reduce((sum, e) => sum + Math.ceil(textOf(e).length / 4), 0);
      const threshold = this.active().compact_threshold;
      const limit = Math.floor(threshold / 2);
      if (tokens > limit) {
        throw {
          kind: "invalid_input",
          message: `pinning item ${item} would make the pinned items about ${tokens} tokens (an estimate), over half the compaction threshold (${limit} of ${threshold}); unpin something first`,
        };
      }
    }
    session.transcript = setPinned(session.transcript, item, pinned);
    return { v: 1, kind: "item_pinned", session_id: session.view.summary.id, item_id: item, pinned };
  }

  /** `tool_output`: the call's full output record, else its history item. */
  toolOutput(session: PreviewSession, callId: unknown): ToolOutputText {
    let output: string | undefined;
    for (const record of session.view.records) {
      if (record.type === "full_tool_output" && record.payload.call_id === callId) output = record.payload.output;
      if (output === undefined && record.type === "response_item" && record.payload.type === "function_call_output" && record.payload.call_id === callId) {
        output = record.payload.output;
      }
    }
    if (output === undefined) throw { kind: "not_found", message: "That tool call has no output in the session." };
    return { call_id: String(callId), output, chars: [...output].length };
  }

  async handle(cmd: string, args: Record<string, unknown>): Promise<unknown> {
    switch (cmd) {
      case "app_info": {
        const info: AppInfo = { version: "0.1.0", strata_home: "/home/ana/.strata", active_profile: this.active(), is_demo: this.active().kind === "demo" };
        return info;
      }
      // The preview has no session index: its search finds nothing.
      case "search_sessions":
        return { v: 1, query: String(args.query ?? ""), hits: [], total: 0, total_capped: false };
      case "list_sessions": {
        const query = typeof args.query === "string" ? args.query.toLowerCase() : "";
        const sessions = this.sessions
          .map((s) => s.view.summary)
          .filter((s) => !query || `${s.title ?? ""} ${s.workspace}`.toLowerCase().includes(query));
        const page: SessionPage = { v: 1, sessions, total: sessions.length };
        return page;
      }
      case "open_session": {
        const session = this.find(args.session_id);
        return { ...session.view, live: this.running.has(session.view.summary.id) };
      }
      case "open_transcript":
        return this.transcript(this.find(args.session_id), args.before, args.limit);
      case "tool_output":
        return this.toolOutput(this.find(args.session_id), args.call_id);
      case "create_session": {
        // Like the shell: the root needs the person's confirmation.
        if (args.workspace === "/" && !args.allow_broad_workspace) {
          throw { kind: "broad_workspace", message: "The workspace / is the root of the filesystem." };
        }
        const id = fakeId();
        const now = new Date().toISOString();
        const summary: SessionListItem = { id, workspace: String(args.workspace), provider_kind: this.active().kind, model: this.active().model, created_at: now, updated_at: now, item_count: 1, compaction_count: 0 };
        const view: SessionView = { summary, records: [], context: [], threshold: this.active().compact_threshold, context_window: this.active().context_window, live: true, record_count: 0 };
        this.sessions.unshift({ view, transcript: [], compaction_views: [], rounds: { total: 0, offset: 0, rounds: [] } });
        return summary;
      }
      case "rename_session": {
        const session = this.find(args.session_id);
        session.view.summary = { ...session.view.summary, title: String(args.title) };
        return session.view.summary;
      }
      case "delete_session":
        this.sessions = this.sessions.filter((s) => s.view.summary.id !== args.session_id);
        return null;
      case "export_session":
        return { session_id: args.session_id, format: args.format, text: "" };
      case "watch_library":
        // Nothing else writes the preview's sessions.
        return null;
      case "open_external_link":
        // The preview never opens anything; the dialog is what it shows.
        return null;
      case "get_settings":
        return this.settings;
      case "save_settings":
        this.settings = args.settings as Settings;
        return this.settings;
      case "set_api_key":
        this.settings = {
          ...this.settings,
          profiles: this.settings.profiles.map((p) => (p.id === args.profile_id ? { ...p, has_key: true } : p)),
        };
        return null;
      case "stop_turn": {
        const run = this.running.get(String(args.session_id));
        if (!run) return false;
        run.cancelled = true;
        return true;
      }
      case "answer_approval":
        return false;
      case "send_message":
        return this.turn(this.find(args.session_id), args.on_event as Channel<LiveBatch>);
      case "compaction_views":
        return this.find(args.session_id).compaction_views;
      case "round_requests": {
        const { rounds } = this.find(args.session_id);
        const offset = typeof args.offset === "number" ? args.offset : 0;
        const limit = Math.min(200, typeof args.limit === "number" ? args.limit : 50);
        const page: RoundPage = { total: rounds.total, offset: Math.min(offset, rounds.total), rounds: rounds.rounds.slice(offset, offset + limit) };
        return page;
      }
      case "compaction_status": {
        const session = this.find(args.session_id);
        const profile = this.active();
        const status: CompactionStatus = {
          policy: this.policies.get(session.view.summary.id) ?? "layered",
          threshold: profile.compact_threshold,
          context_window: profile.context_window,
          reported_tokens: session.view.context_tokens,
          circuit_open: false,
          undo_summary: undoableCompaction(session)?.summary.id ?? null,
        };
        return status;
      }
      case "set_compaction_policy":
        this.policies.set(String(args.session_id), args.policy as CompactionPolicy);
        return this.handle("compaction_status", args);
      case "preview_compaction":
        throw { kind: "internal", message: "The preview backend does not compute compaction previews; the app does, in Rust." };
      case "check_threshold":
        throw { kind: "internal", message: "The preview backend cannot check thresholds; the app does, in Rust." };
      case "provider_kinds": {
        const kinds: ProviderKindInfo[] = [
          { kind: "openai-responses", label: "OpenAI Responses", default_model: "gpt-5.4", default_base_url: "https://api.openai.com/v1" },
          { kind: "openai-chat", label: "OpenAI-compatible Chat Completions", default_model: "gpt-4.1-mini", default_base_url: "https://api.openai.com/v1" },
          { kind: "anthropic", label: "Anthropic Messages", default_model: "claude-sonnet-4-5", default_base_url: "https://api.anthropic.com/v1" },
          { kind: "demo", label: "Offline demo", default_model: "strata-demo" },
        ];
        return kinds;
      }
      case "compact_now":
      case "compact_up_to":
        return { skipped: "Nothing to compact yet: the preview backend does not summarise.", history_items: 4 };
      case "undo_compaction":
        return undoCompaction(this.find(args.session_id));
      case "session_items":
        return sessionItems(this.find(args.session_id));
      case "fork_session": {
        const { fork, view } = forkSession(this.find(args.session_id), args.point as ForkPoint, fakeId());
        this.sessions.unshift(fork);
        return view;
      }
      case "pin_item":
        return this.pin(this.find(args.session_id), String(args.item), args.pinned === true);
      case "pick_workspace":
        return "/home/ana/projects/lighthouse";
      case "plugin:fs|write_text_file":
        // The preview writes no files.
        return null;
      case "plugin:dialog|save": {
        const options = args.options as { defaultPath?: string } | undefined;
        return `/home/ana/Documents/${options?.defaultPath ?? "session.md"}`;
      }
      default:
        throw { kind: "internal", message: `The preview backend does not know ${cmd}.` };
    }
  }

  /** Replays the recorded turn, paced like a model streaming. */
  async turn(session: PreviewSession, channel: Channel<LiveBatch>): Promise<TurnReport> {
    const sessionId = session.view.summary.id;
    const run = { cancelled: false };
    this.running.set(sessionId, run);
    this.replays += 1;
    const suffix = String(this.replays);
    let report: TurnReport = { turn_id: fakeId(), outcome: "cancelled", rounds: 0 };
    for (const event of this.library.live_turn) {
      if (run.cancelled) break;
      await sleep(40);
      channel.onmessage({ events: [renamed(event, sessionId, suffix)] });
      const inner = event.envelope.event;
      if (inner.family === "mainline" && inner.event.kind === "turn_finished") {
        report = { turn_id: inner.event.turn_id, outcome: inner.event.outcome, rounds: inner.event.rounds };
      }
    }
    this.running.delete(sessionId);
    session.view.summary = { ...session.view.summary, updated_at: new Date().toISOString() };
    return report;
  }
}

/** Routes every `invoke` to the in-memory backend. */
export function installMockBackend() {
  const backend = new MockBackend(new URLSearchParams(window.location.search));
  mockIPC((cmd, args) => backend.handle(cmd, (args ?? {}) as Record<string, unknown>));
}
