// An in-memory Strata backend for the browser preview (`npm run build:mock`,
// `npm run dev` with `?mock`). Never part of the production bundle.
import type { Channel } from "@tauri-apps/api/core";
import { mockIPC } from "@tauri-apps/api/mocks";
import type {
  AppInfo,
  ApprovalDecision,
  EventEnvelope,
  ProfileView,
  SessionView,
  Settings,
} from "../api/types";
import type { DebugEvent } from "../bindings/DebugEvent";
import type { ProviderKindInfo } from "../bindings/ProviderKindInfo";
import type { SessionPage } from "../bindings/SessionPage";
import type { MainlineEvent } from "../bindings/MainlineEvent";
import { fakeId, sampleSessions, stressSession, type MockSession } from "./fixtures";
import { compactionViews, replayHistory, roundRequests } from "./replay";

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

class MockBackend {
  sessions: MockSession[] = sampleSessions();
  settings: Settings;
  running = new Map<string, { cancelled: boolean; approvals: Map<string, (d: ApprovalDecision) => void> }>();

  constructor(params: URLSearchParams) {
    const demo = params.get("profile") === "demo";
    if (params.has("stress")) this.sessions.push(stressSession());
    this.settings = {
      profiles: [openaiProfile, demoProfile],
      active_profile: demo ? "demo" : "openai",
      approval_policy: "ask",
      theme: (params.get("theme") as Settings["theme"] | null) ?? "system",
    };
  }

  active(): ProfileView {
    return this.settings.profiles.find((p) => p.id === this.settings.active_profile) ?? demoProfile;
  }

  find(id: unknown): MockSession {
    const session = this.sessions.find((s) => s.summary.id === id);
    if (!session) throw { kind: "not_found", message: "That session no longer exists." };
    return session;
  }

  view(session: MockSession): SessionView {
    const profile = this.active();
    return {
      summary: session.summary,
      records: session.records,
      context: replayHistory(session.records),
      context_tokens: session.context_tokens,
      threshold: profile.compact_threshold,
      context_window: profile.context_window,
      live: this.running.has(session.summary.id),
      record_count: session.records.length,
    };
  }

  async handle(cmd: string, args: Record<string, unknown>): Promise<unknown> {
    switch (cmd) {
      case "app_info": {
        const info: AppInfo = { version: "0.1.0", strata_home: "/home/ana/.strata", active_profile: this.active(), is_demo: this.active().kind === "demo" };
        return info;
      }
      case "list_sessions": {
        const query = typeof args.query === "string" ? args.query.toLowerCase() : "";
        const sessions = this.sessions
          .map((s) => s.summary)
          .filter((s) => !query || `${s.title ?? ""} ${s.workspace}`.toLowerCase().includes(query));
        const page: SessionPage = { v: 1, sessions, total: sessions.length };
        return page;
      }
      case "open_session":
        return this.view(this.find(args.session_id));
      case "create_session": {
        // Like the shell: the root needs the person's confirmation.
        if (args.workspace === "/" && !args.allow_broad_workspace) {
          throw { kind: "broad_workspace", message: "The workspace / is the root of the filesystem." };
        }
        const id = fakeId();
        const now = new Date().toISOString();
        const session: MockSession = {
          summary: { id, workspace: String(args.workspace), provider_kind: this.active().kind, model: this.active().model, created_at: now, updated_at: now, item_count: 1, compaction_count: 0 },
          records: [],
        };
        this.sessions.unshift(session);
        return session.summary;
      }
      case "rename_session": {
        const session = this.find(args.session_id);
        session.summary = { ...session.summary, title: String(args.title) };
        return session.summary;
      }
      case "delete_session":
        this.sessions = this.sessions.filter((s) => s.summary.id !== args.session_id);
        return null;
      case "export_session":
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
        run.approvals.forEach((resolve) => resolve("deny"));
        return true;
      }
      case "answer_approval": {
        const run = this.running.get(String(args.session_id));
        const resolve = run?.approvals.get(String(args.call_id));
        if (!resolve) return false;
        resolve(args.decision as ApprovalDecision);
        return true;
      }
      case "send_message":
        return this.turn(this.find(args.session_id), String(args.text), args.on_event as Channel<EventEnvelope>);
      case "compaction_views":
        return compactionViews(this.find(args.session_id).records);
      case "round_requests": {
        const offset = typeof args.offset === "number" ? args.offset : 0;
        const limit = Math.min(200, typeof args.limit === "number" ? args.limit : 50);
        return roundRequests(this.find(args.session_id).records, offset, limit);
      }
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
        return { skipped: "Nothing to compact yet: the preview backend does not summarise.", history_items: 4 };
      case "plugin:dialog|open":
        return "/home/ana/projects/lighthouse";
      case "plugin:dialog|save": {
        const options = args.options as { defaultPath?: string } | undefined;
        return `/home/ana/Documents/${options?.defaultPath ?? "session.md"}`;
      }
      default:
        throw { kind: "internal", message: `The preview backend does not know ${cmd}.` };
    }
  }

  async turn(session: MockSession, text: string, channel: Channel<EventEnvelope>) {
    const sessionId = session.summary.id;
    const turnId = fakeId();
    const roundId = fakeId();
    const run = { cancelled: false, approvals: new Map<string, (d: ApprovalDecision) => void>() };
    this.running.set(sessionId, run);
    let seq = 0;
    const send = (family: "mainline" | "debug", event: MainlineEvent | DebugEvent) =>
      channel.onmessage({ v: 1, seq: seq++, session_id: sessionId, event: { family, event } as EventEnvelope["event"] });
    const finish = (outcome: "completed" | "cancelled", rounds: number) => {
      send("mainline", { kind: "turn_finished", turn_id: turnId, outcome, rounds });
      this.running.delete(sessionId);
      session.summary = { ...session.summary, updated_at: new Date().toISOString() };
      return { turnId, outcome, rounds };
    };
    send("mainline", { kind: "turn_started", turn_id: turnId, user_message: { type: "message", id: fakeId(), role: "user", content: text } });
    const reply = "Let me look at the workspace first, then I'll propose a change.";
    for (const word of reply.split(/(?<= )/)) {
      if (run.cancelled) return finish("cancelled", 1);
      await sleep(40);
      send("mainline", { kind: "text_delta", turn_id: turnId, round_id: roundId, delta: word });
    }
    send("mainline", { kind: "message_committed", turn_id: turnId, item: { type: "message", id: fakeId(), role: "assistant", content: reply } });
    const listCall = `call_${fakeId().slice(-6)}`;
    send("mainline", { kind: "tool_call_started", turn_id: turnId, call_id: listCall, name: "list_directory", arguments: '{"path":"."}' });
    await sleep(300);
    send("mainline", { kind: "tool_call_finished", turn_id: turnId, call_id: listCall, name: "list_directory", status: "success", output: "Cargo.toml\nREADME.md\nsrc/\ntests/", duration_ms: 12 });
    send("debug", { kind: "usage_reported", turn_id: turnId, round_id: roundId, usage: { input_tokens: 5120, output_tokens: 240 }, context_tokens: 5360, threshold: this.active().compact_threshold });
    const writeCall = `call_${fakeId().slice(-6)}`;
    const args = JSON.stringify({ path: "NOTES.md", content: "# Notes\n\n- Plan the change\n" });
    send("mainline", { kind: "tool_call_started", turn_id: turnId, call_id: writeCall, name: "write_file", arguments: args });
    send("mainline", {
      kind: "approval_requested",
      turn_id: turnId,
      call_id: writeCall,
      tool: "write_file",
      summary: "write_file NOTES.md",
      detail: "--- a/NOTES.md\n+++ b/NOTES.md\n@@ -0,0 +1,3 @@\n+# Notes\n+\n+- Plan the change\n",
    });
    const decision = await new Promise<ApprovalDecision>((resolve) => run.approvals.set(writeCall, resolve));
    run.approvals.delete(writeCall);
    send("mainline", { kind: "approval_resolved", turn_id: turnId, call_id: writeCall, decision });
    if (run.cancelled) return finish("cancelled", 2);
    const denied = decision === "deny";
    send("mainline", {
      kind: "tool_call_finished",
      turn_id: turnId,
      call_id: writeCall,
      name: "write_file",
      status: denied ? "denied" : "success",
      output: denied ? "The person denied this call." : "Wrote NOTES.md (3 lines)",
      duration_ms: denied ? 0 : 8,
    });
    send("debug", { kind: "retrying", turn_id: turnId, round_id: fakeId(), attempt: 1, of: 4, delay_ms: 2000, cause: "429 Too Many Requests: rate limited by the provider" });
    await sleep(2000);
    const closing = denied ? "Understood, I left `NOTES.md` alone." : "I wrote the plan to `NOTES.md`.";
    const round2 = fakeId();
    for (const word of closing.split(/(?<= )/)) {
      if (run.cancelled) return finish("cancelled", 2);
      await sleep(40);
      send("mainline", { kind: "text_delta", turn_id: turnId, round_id: round2, delta: word });
    }
    send("mainline", { kind: "message_committed", turn_id: turnId, item: { type: "message", id: fakeId(), role: "assistant", content: closing } });
    send("debug", { kind: "usage_reported", turn_id: turnId, round_id: round2, usage: { input_tokens: 5600, output_tokens: 120 }, context_tokens: 5720, threshold: this.active().compact_threshold });
    return finish("completed", 2);
  }
}

/** Routes every `invoke` to the in-memory backend. */
export function installMockBackend() {
  const backend = new MockBackend(new URLSearchParams(window.location.search));
  mockIPC((cmd, args) => backend.handle(cmd, (args ?? {}) as Record<string, unknown>));
}
