// An in-memory Strata backend for the browser preview (`npm run build:mock`,
// `npm run dev` with `?mock`), answering from sessions Rust recorded
// (`library.ts`). Never part of the production bundle.
import type { ImportSettings } from "../bindings/ImportSettings";
import type { Channel } from "@tauri-apps/api/core";
import { mockIPC } from "@tauri-apps/api/mocks";
import type { ProfileView, SessionListItem, SessionView, Settings } from "../api/types";
import type { LiveBatch } from "../bindings/LiveBatch";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { Commands } from "../bindings/Commands";
import type { CommandError } from "../bindings/CommandError";
import type { CompactOutcome } from "../bindings/CompactOutcome";
import type { CompactionUndoneView } from "../bindings/CompactionUndoneView";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { CommandWithEvents, EventsOf, RequestOf, ResultOf } from "../api/commands";
import type { CompactionStatus } from "../bindings/CompactionStatus";
import type { ForkPoint } from "../bindings/ForkPoint";
import type { ItemPinned } from "../bindings/ItemPinned";
import type { SessionForkView } from "../bindings/SessionForkView";
import type { RuleRef } from "../bindings/RuleRef";
import type { RulesListing } from "../bindings/RulesListing";
import type { ToolOutputText } from "../bindings/ToolOutputText";
import type { TranscriptEntry } from "../bindings/TranscriptEntry";
import type { TranscriptPage } from "../bindings/TranscriptPage";
import type { TranscriptUpdate } from "../bindings/TranscriptUpdate";
import type { TurnReport } from "../bindings/TurnReport";
import { emptyConsoleView } from "../state/console";
import { pinTarget, setPinned } from "../state/transcript";
import { MockMcpServers } from "./mcp";
import { MockWorkspaceNetworks } from "./network";
import { previewLibrary, type PreviewSession } from "./library";

/** What the preview's compactions answer. */
const NOT_SUMMARISED: CompactOutcome = { skipped: "Nothing to compact yet: the preview backend does not summarise.", history_items: 4 };

/** The answer to one command: its request, and for a command with events their channel. */
type MockCommands = {
  [K in keyof Commands]: (
    request: RequestOf<K>,
    onEvent: K extends CommandWithEvents ? Channel<EventsOf<K>> : undefined,
  ) => ResultOf<K> | Promise<ResultOf<K>>;
};

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

export class MockBackend {
  library = previewLibrary();
  sessions: PreviewSession[] = this.library.sessions;
  settings: Settings;
  running = new Map<string, { cancelled: boolean }>();
  policies = new Map<string, CompactionPolicy>();
  /** The other agents' sessions choice (`import_settings`): already answered, nothing shown. */
  imports: ImportSettings = { asked: true, tools: [], extra_paths: [] };
  /** How Rust refused a second undo, by session, once the recorded undo was taken. */
  undoRefusals = new Map<string, CommandError>();
  replays = 0;
  mcp = new MockMcpServers();
  networks = new MockWorkspaceNetworks();
  /** The preview's approval rules (one workspace: the open session's). */
  rules: RuleRef[] = [{ source: "user", kind: "command", list: "allow", pattern: "git status*" }];

  constructor(params: URLSearchParams) {
    const demo = params.get("profile") === "demo";
    this.settings = {
      profiles: [openaiProfile, demoProfile],
      active_profile: demo ? "demo" : "openai",
      approval_policy: "ask",
      theme: (params.get("theme") as Settings["theme"] | null) ?? "system",
      compaction_policy: "layered",
      sandbox: "workspace-write",
      sandbox_network: "off",
      sandbox_allow_domains: [],
    };
  }

  /** As the app stores a rule: an MCP allow rule written by name is bound to its server's fingerprint. */
  storedRulePattern(kind: RuleRef["kind"], list: RuleRef["list"], pattern: string): string {
    if (kind !== "mcp" || list !== "allow" || pattern.includes("@")) return pattern;
    const name = pattern.split("/")[0];
    const server = this.mcp.listing().servers.find((s) => s.name === name);
    if (!server) throw { kind: "invalid_input", message: `No MCP server named "${name}" is configured: an MCP allow rule is bound to a configured server's launch command.` };
    return `${pattern}@${server.fingerprint}`;
  }

  /** `list_rules`: the user's rules, and the workspace's when one is named. */
  rulesListing(workspace: string | null | undefined): RulesListing {
    return { v: 1, kind: "rules", rules: this.rules.filter((r) => r.source === "user" || (workspace && r.source === "workspace")) };
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

  /** `tool_output`: what Rust answered for the call when the session was recorded. */
  toolOutput(session: PreviewSession, callId: unknown): ToolOutputText {
    const output = typeof callId === "string" ? session.tool_outputs[callId] : undefined;
    if (!output) throw { kind: "not_found", message: "That tool call has no output in the session." };
    return output;
  }

  /** `undo_compaction`: Rust's recorded answer, the session as it was after it; then Rust's refusal. */
  undo(session: PreviewSession): CompactionUndoneView {
    const { undo } = session;
    if (!undo) throw this.undoRefusals.get(session.view.summary.id) ?? { kind: "invalid_input", message: "There is no compaction to undo." };
    this.sessions = this.sessions.map((s) => (s === session ? undo.after : s));
    this.undoRefusals.set(session.view.summary.id, undo.refusal);
    return undo.answer;
  }

  /** `fork_session`: Rust's recorded fork at that point (the preview forks nowhere else). */
  fork(parent: PreviewSession, point: ForkPoint): SessionForkView {
    const recorded = parent.forks?.find((f) => JSON.stringify(f.point) === JSON.stringify(point));
    if (!recorded) {
      throw { kind: "invalid_input", message: "The preview backend forks only where its recording did: before a compaction, or after the first item. The app forks anywhere." };
    }
    if (!this.sessions.some((s) => s.view.summary.id === recorded.answer.session_id)) this.sessions.unshift(recorded.fork);
    return recorded.answer;
  }

  /** One answer per command of the list: `tsc` fails on a missing, misspelt or mistyped one. */
  commands(): MockCommands {
    return {
      app_info: () => ({ version: "0.1.0", strata_home: "/home/ana/.strata", active_profile: this.active(), is_demo: this.active().kind === "demo" }),
      // The preview has no session index: its search finds nothing.
      search_sessions: (request) => ({ v: 1, query: request.query, hits: [], total: 0, total_capped: false }),
      list_sessions: (request) => {
        const query = request.query?.toLowerCase() ?? "";
        const sessions = this.sessions
          .map((s) => s.view.summary)
          .filter((s) => !query || `${s.title ?? ""} ${s.workspace}`.toLowerCase().includes(query));
        return { v: 1, sessions, total: sessions.length };
      },
      open_session: (request) => {
        const session = this.find(request.session_id);
        return { ...session.view, live: this.running.has(session.view.summary.id) };
      },
      open_transcript: (request) => this.transcript(this.find(request.session_id), request.before, request.limit),
      tool_output: (request) => this.toolOutput(this.find(request.session_id), request.call_id),
      create_session: (request) => {
        // Like the shell: the root needs the person's confirmation.
        if (request.workspace === "/" && !request.allow_broad_workspace) {
          throw { kind: "broad_workspace", message: "The workspace / is the root of the filesystem." };
        }
        const id = fakeId();
        const now = new Date().toISOString();
        const summary: SessionListItem = { id, workspace: request.workspace, provider_kind: this.active().kind, model: this.active().model, created_at: now, updated_at: now, item_count: 1, compaction_count: 0 };
        const view: SessionView = { summary, records: [], context: [], threshold: this.active().compact_threshold, context_window: this.active().context_window, live: true, held_elsewhere: false, record_count: 0 };
        const console = emptyConsoleView(id, this.active().compact_threshold, this.active().context_window ?? undefined);
        this.sessions.unshift({ view, transcript: [], compaction_views: [], rounds: { total: 0, offset: 0, rounds: [] }, console, items: { v: 1, kind: "session_items", session_id: id, items: [], unpriced_rounds: 0 }, tool_outputs: {} });
        return summary;
      },
      rename_session: (request) => {
        const session = this.find(request.session_id);
        session.view.summary = { ...session.view.summary, title: request.title };
        return session.view.summary;
      },
      delete_session: (request) => {
        this.sessions = this.sessions.filter((s) => s.view.summary.id !== request.session_id);
      },
      export_session: (request) => ({ session_id: request.session_id, format: request.format, text: "" }),
      // Nothing else writes the preview's sessions.
      watch_library: () => {},
      // The preview never opens anything; the dialog is what it shows.
      open_external_link: () => {},
      get_settings: () => this.settings,
      save_settings: (request) => {
        const keyed = new Set(request.api_keys.map((k) => k.profile_id));
        this.settings = { ...request.settings, profiles: request.settings.profiles.map((p) => (keyed.has(p.id) ? { ...p, has_key: true } : p)) };
        return this.settings;
      },
      test_connection: (request) => ({
        endpoint: request.draft.base_url ?? "the provider's default endpoint",
        model: request.draft.model,
        duration_ms: 0,
        failure: {
          kind: "unreachable",
          sentence: "The preview backend makes no requests; the app tests connections, in Rust.",
          recoveries: [],
          details: "preview backend",
        },
      }),
      list_models: () => ({ offered: false, models: [] }),
      // The preview keeps rules in memory: the app keeps them in config.toml and .strata/rules.toml.
      list_rules: (request) => this.rulesListing(request.workspace),
      get_workspace_network: (request) => this.networks.view(request.workspace),
      save_workspace_network: (request) => this.networks.save(request),
      list_mcp_servers: () => this.mcp.listing(),
      add_mcp_server: (request) => this.mcp.add(request),
      remove_mcp_server: (request) => this.mcp.remove(request.name),
      set_mcp_server_enabled: (request) => this.mcp.setEnabled(request.name, request.enabled),
      test_mcp_server: (request) => this.mcp.test(request.name),
      mcp_server_log: (request) => ({ name: this.mcp.named(request.name).name, lines: [] }),
      add_rule: (request) => {
        const source = request.workspace ? "workspace" : "user";
        const pattern = this.storedRulePattern(request.kind, request.list, request.pattern.trim());
        if (!this.rules.some((r) => r.source === source && r.kind === request.kind && r.list === request.list && r.pattern === pattern)) {
          this.rules.push({ source, kind: request.kind, list: request.list, pattern });
        }
        return this.rulesListing(request.workspace);
      },
      remove_rule: (request) => {
        const source = request.workspace ? "workspace" : "user";
        this.rules = this.rules.filter((r) => !(r.source === source && r.kind === request.kind && r.list === request.list && r.pattern === request.pattern.trim()));
        return this.rulesListing(request.workspace);
      },
      set_api_key: (request) => {
        this.settings = {
          ...this.settings,
          profiles: this.settings.profiles.map((p) => (p.id === request.profile_id ? { ...p, has_key: true } : p)),
        };
      },
      // The preview keeps nothing between runs.
      save_layout: () => {},
      stop_turn: (request) => {
        const run = this.running.get(request.session_id);
        if (!run) return false;
        run.cancelled = true;
        return true;
      },
      answer_approval: () => false,
      // The app reads `/compact [focus]` from the text (Rust's ComposerInput); the preview only
      // tells the two apart, and does not summarise.
      send_message: async (request, onEvent) =>
        request.text.trim().startsWith("/compact")
          ? { kind: "compaction", ...NOT_SUMMARISED }
          : { kind: "turn", ...(await this.turn(this.find(request.session_id), onEvent)) },
      switch_profile: () => {
        throw { kind: "internal", message: "The preview backend does not switch profiles; the app does, in Rust." };
      },
      compaction_views: (request) => this.find(request.session_id).compaction_views,
      open_console: (request) => {
        const { console } = this.find(request.session_id);
        const end = Math.min(request.before ?? console.rows.length, console.rows.length);
        const limit = request.limit ?? 200;
        return { ...console, rows: console.rows.slice(Math.max(0, end - limit), end) };
      },
      round_requests: (request) => {
        const { rounds } = this.find(request.session_id);
        const offset = request.offset ?? 0;
        const limit = Math.min(200, request.limit ?? 50);
        return { total: rounds.total, offset: Math.min(offset, rounds.total), rounds: rounds.rounds.slice(offset, offset + limit) };
      },
      compaction_status: (request) => this.status(request.session_id),
      set_reasoning: (request) => request.effort,
      // The preview reads no folders: one prompt file of each kind shows what the palette offers.
      list_slash_commands: () => ({
        commands: [
          { name: "compact", description: "Compact the history now; the text after it guides the summary", argument_hint: "[focus]", source: "built_in" },
          { name: "review", description: "Review a part of the code for bugs", argument_hint: "<part>", source: "workspace", file: ".strata/commands/review.md" },
          { name: "standup", description: "Write my standup from today's work", source: "user", file: "~/.config/strata/commands/standup.md" },
        ],
        problems: [],
      }),
      // The preview reads no folders: a few paths, filtered by the query's letters in order.
      find_workspace_files: (request) => {
        const paths = ["src/", "src/main.rs", "src/parser.rs", "docs/", "docs/notes.md", "README.md"];
        const letters = request.query.toLowerCase().split("");
        const matches = paths.filter((path) => {
          let at = 0;
          for (const letter of letters) {
            at = path.toLowerCase().indexOf(letter, at);
            if (at < 0) return false;
            at += 1;
          }
          return true;
        });
        return {
          files: matches.slice(0, request.limit ?? 50).map((path) => ({ path, is_dir: path.endsWith("/") })),
          walk_cut: false,
        };
      },
      set_compaction_policy: (request) => {
        this.policies.set(request.session_id, request.policy);
        return this.status(request.session_id);
      },
      preview_compaction: () => {
        throw { kind: "internal", message: "The preview backend does not compute compaction previews; the app does, in Rust." };
      },
      check_threshold: () => {
        throw { kind: "internal", message: "The preview backend cannot check thresholds; the app does, in Rust." };
      },
      // The preview's sessions changed no files (their records hold no file_change).
      list_changes: (request) => ({ v: 1, session_id: request.session_id, groups: [], files: [] }),
      change_diff: () => {
        throw { kind: "not_found", message: "The preview backend records no file changes." };
      },
      preview_restore: (request) => ({ v: 1, kind: "restore", session_id: request.session_id, dry_run: true, restored: true, files: [], refused: [] }),
      restore_files: (request) => ({ v: 1, kind: "restore", session_id: request.session_id, dry_run: false, restored: true, files: [], refused: [] }),
      provider_kinds: () => [
        { kind: "openai-responses", label: "OpenAI Responses", default_model: "gpt-5.4", default_base_url: "https://api.openai.com/v1" },
        { kind: "openai-chat", label: "OpenAI-compatible Chat Completions", default_model: "gpt-4.1-mini", default_base_url: "https://api.openai.com/v1" },
        { kind: "anthropic", label: "Anthropic Messages", default_model: "claude-sonnet-4-5", default_base_url: "https://api.anthropic.com/v1" },
        { kind: "demo", label: "Offline demo", default_model: "strata-demo" },
      ],
      compact_now: () => NOT_SUMMARISED,
      compact_up_to: () => NOT_SUMMARISED,
      undo_compaction: (request) => this.undo(this.find(request.session_id)),
      session_items: (request) => this.find(request.session_id).items,
      fork_session: (request) => this.fork(this.find(request.session_id), request.point),
      // The preview's folders are no git repositories and its sessions changed no files.
      preview_fork: (request) => ({
        v: 1,
        kind: "fork_preview",
        session_id: request.session_id,
        point: request.point,
        workspace: this.find(request.session_id).view.summary.workspace,
        worktree_unavailable: "the workspace is not in a git repository",
        files: [],
        refused: [],
      }),
      pin_item: (request) => this.pin(this.find(request.session_id), request.item, request.pinned),
      pick_workspace: () => "/home/ana/projects/lighthouse",
      // The preview holds no other agents' sessions, and has nothing to ask about them.
      list_imported: () => ({ v: 1, sessions: [], unreadable: [] }),
      open_imported: () => {
        throw { kind: "not_found", message: "The preview backend holds no other agents' sessions." };
      },
      search_imported: () => ({ v: 1, hits: [] }),
      hide_imported: () => undefined,
      import_sessions: () => {
        throw { kind: "internal", message: "The preview backend cannot read files; the app does, in Rust." };
      },
      import_settings: () => ({ settings: this.imports, found: { codex: 0, claude_code: 0, copilot_cli: 0 } }),
      save_import_settings: (request) => {
        this.imports = request.settings;
        return { settings: this.imports, found: { codex: 0, claude_code: 0, copilot_cli: 0 } };
      },
      pick_import_paths: () => [],
      recent: () => ({ workspaces: [...new Set(this.sessions.map((s) => s.view.summary.workspace))] }),
      remember_open: () => undefined,
    };
  }

  /** `compaction_status`: the active profile's threshold and the session's policy. */
  status(sessionId: string): CompactionStatus {
    const session = this.find(sessionId);
    const profile = this.active();
    return {
      policy: this.policies.get(session.view.summary.id) ?? "layered",
      threshold: profile.compact_threshold,
      context_window: profile.context_window,
      reported_tokens: session.view.context_tokens,
      circuit_open: false,
      undo_summary: session.undo ? (session.compaction_views[session.compaction_views.length - 1]?.summary.id ?? null) : null,
    };
  }

  /** The plugins' commands the UI calls (the save dialog, writing an export). */
  plugin(cmd: string, args: Record<string, unknown>): unknown {
    switch (cmd) {
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

/** Routes every `invoke` to the in-memory backend: a command of the list to its answer, with its request and channel. */
export function installMockBackend() {
  const backend = new MockBackend(new URLSearchParams(window.location.search));
  const commands = backend.commands();
  mockIPC(async (cmd, raw) => {
    const args = (raw ?? {}) as Record<string, unknown>;
    if (!(cmd in commands)) return backend.plugin(cmd, args);
    const answer = commands[cmd as keyof Commands] as (request: unknown, onEvent: unknown) => unknown;
    return answer(args.request, args.on_event);
  });
}
