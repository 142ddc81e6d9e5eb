// One typed wrapper per command of docs/desktop-commands.md. Names, requests and results come
// from the `Commands` map (ui/src/bindings/Commands.ts), generated from the Rust command list,
// so a misspelt name, a wrong request or a wrong result type fails `tsc`.
// Underneath, `call` and `callWithEvents` invoke a command by name and turn its rejection into
// a `CommandFailure` (the shell's structured errors).
import { Channel, invoke } from "@tauri-apps/api/core";
import type { CommandError } from "../bindings/CommandError";
import type { CommandErrorKind } from "../bindings/CommandErrorKind";
import { COMMAND_ERROR_KINDS, type Commands } from "../bindings/Commands";
import type { ApprovalDecision } from "../bindings/ApprovalDecision";
import type { ReasoningEffort } from "../bindings/ReasoningEffort";
import type { SandboxMode } from "../bindings/SandboxMode";
import type { SandboxNetwork } from "../bindings/SandboxNetwork";
import type { ApprovalPolicy } from "../bindings/ApprovalPolicy";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { DiffTarget } from "../bindings/DiffTarget";
import type { ExportFormat } from "../bindings/ExportFormat";
import type { ForkFiles } from "../bindings/ForkFiles";
import type { ForkPoint } from "../bindings/ForkPoint";
import type { LibraryChange } from "../bindings/LibraryChange";
import type { LiveBatch } from "../bindings/LiveBatch";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { SessionId } from "../bindings/SessionId";
import type { SessionListItem } from "../bindings/SessionListItem";
import type { ProviderDraft } from "../bindings/ProviderDraft";
import type { RestoreTarget } from "../bindings/RestoreTarget";
import type { SetApiKey } from "../bindings/SetApiKey";
import type { Settings } from "../bindings/Settings";
import type { AddRule } from "../bindings/AddRule";
import type { SaveWorkspaceNetwork } from "../bindings/SaveWorkspaceNetwork";
import type { AddMcpServer } from "../bindings/AddMcpServer";

/** A failed command, as thrown by every wrapper below. */
export class CommandFailure extends Error {
  readonly kind: CommandErrorKind;

  constructor(error: CommandError) {
    super(error.message);
    this.name = "CommandFailure";
    this.kind = error.kind;
  }
}

function isCommandError(value: unknown): value is CommandError {
  if (typeof value !== "object" || value === null) return false;
  const { kind, message } = value as Record<string, unknown>;
  return typeof message === "string" && COMMAND_ERROR_KINDS.includes(kind as CommandErrorKind);
}

/** Turns whatever `invoke` rejected with into a `CommandFailure`. */
export function toCommandFailure(error: unknown): CommandFailure {
  if (error instanceof CommandFailure) return error;
  if (isCommandError(error)) return new CommandFailure(error);
  const message =
    typeof error === "string"
      ? error
      : error instanceof Error
        ? error.message
        : "Something went wrong talking to Strata.";
  return new CommandFailure({ kind: "internal", message });
}

/** The commands whose events arrive on an `on_event` channel. */
export type CommandWithEvents = {
  [K in keyof Commands]: Commands[K] extends { events: unknown } ? K : never;
}[keyof Commands];

/** The commands that take their request alone. */
export type PlainCommand = Exclude<keyof Commands, CommandWithEvents>;

export type RequestOf<K extends keyof Commands> = Commands[K]["request"];
export type ResultOf<K extends keyof Commands> = Commands[K]["result"];
export type EventsOf<K extends CommandWithEvents> = Commands[K]["events"];

/**
 * The command log the end-to-end harness reads (tests/e2e/lib/harness.js `startCommandLog`): when
 * it has put an array here, every command's name is appended to it. Names only, never arguments.
 */
declare global {
  interface Window {
    __strataCommandLog?: string[];
  }
}

async function invokeCommand<T>(command: string, args: Record<string, unknown>): Promise<T> {
  if (typeof window !== "undefined") window.__strataCommandLog?.push(command);
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toCommandFailure(error);
  }
}

/** A command of the list (`Commands`, generated from Rust), its request as `request`, with the shell's structured errors. */
export function call<K extends PlainCommand>(command: K, request: RequestOf<K>): Promise<ResultOf<K>> {
  return invokeCommand(command, { request });
}

/** A command with events: its request, and the channel the events arrive on. */
export function callWithEvents<K extends CommandWithEvents>(
  command: K,
  request: RequestOf<K>,
  onEvent: Channel<EventsOf<K>>,
): Promise<ResultOf<K>> {
  return invokeCommand(command, { request, on_event: onEvent });
}

/**
 * Receives a turn's events, each with the transcript updates Rust made of it, in order: one
 * `LiveBatch` at a time (streamed text comes about a frame's worth at once).
 */
export type EventHandler = (events: LiveEvent[]) => void;

function channelFor(onEvent: EventHandler): Channel<LiveBatch> {
  return new Channel<LiveBatch>((batch) => onEvent(batch.events));
}

export const appInfo = () => call("app_info", {});

/**
 * Every session, newest first (one page of the whole list), with the library's notice when there
 * is one (its index was damaged and rebuilt, or cannot be written): said once, so shown when given.
 */
export const listSessions = async (query?: string): Promise<{ sessions: SessionListItem[]; notice?: string }> => {
  const page = await call("list_sessions", query ? { query } : {});
  return page.notice ? { sessions: page.sessions, notice: page.notice } : { sessions: page.sessions };
};

/** A session's snapshot, with its records from `from_record` on (all of them by default). */
export const openSession = (session_id: SessionId, from_record?: number) =>
  call("open_session", { session_id, ...(from_record !== undefined ? { from_record } : {}) });

/**
 * A session's snapshot without records (read from the file's tail): the conversation shows
 * `open_transcript` pages, and the console fetches the records it charts itself.
 */
export const openSessionState = (session_id: SessionId) => call("open_session", { session_id, without_records: true });

/**
 * A page of the conversation's transcript: the newest without `before`, else the page just before
 * that entry id; with `at_item` (a search hit's item) the entries from the one showing it to the
 * newest, that entry's id as the page's `target`.
 */
export const openTranscript = (session_id: SessionId, before?: string, limit?: number, at_item?: string) =>
  call("open_transcript", {
    session_id,
    ...(before !== undefined ? { before } : {}),
    ...(at_item !== undefined ? { at_item } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });

/** One tool call's whole output, for an expanded card. */
export const toolOutput = (session_id: SessionId, call_id: string) => call("tool_output", { session_id, call_id });

/** Full-text hits across every session's text, newest text first. */
export const searchSessions = (query: string, limit = 30) => call("search_sessions", { query, limit });

/**
 * `allow_broad_workspace` only after the person confirmed `/` or their home folder; `profile_id`
 * and `approval_policy` are the new-session sheet's choices (none: the active profile, the policy
 * as it is).
 */
export const createSession = (
  workspace: string,
  allow_broad_workspace = false,
  choice: { profile_id?: string; approval_policy?: ApprovalPolicy; sandbox?: SandboxMode; network?: SandboxNetwork } = {},
) =>
  call("create_session", { workspace, allow_broad_workspace, ...choice });

/** The folders the new-session sheet offers, and the session to reopen on start. */
export const recent = () => call("recent", {});

/** The session the window shows now: reopened on the next start. */
export const rememberOpen = (session_id: SessionId) => call("remember_open", { session_id });

export const sendMessage = (session_id: SessionId, text: string, onEvent: EventHandler) =>
  callWithEvents("send_message", { session_id, text }, channelFor(onEvent));

export const stopTurn = (session_id: SessionId) => call("stop_turn", { session_id });

export const answerApproval = (session_id: SessionId, call_id: string, decision: ApprovalDecision) =>
  call("answer_approval", { session_id, call_id, decision });

export const renameSession = (session_id: SessionId, title: string) => call("rename_session", { session_id, title });

export const deleteSession = (session_id: SessionId) => call("delete_session", { session_id });

/** The export's text; the UI writes it to the file the person chose (see `api/dialogs`). */
export const exportSession = (session_id: SessionId, format: ExportFormat) =>
  call("export_session", { session_id, format });

/**
 * From now on, every change to the session library (sessions created, appended to or deleted
 * by any process: this app, the `strata` CLI, another window) arrives at `onChange`.
 */
export const watchLibrary = (onChange: (change: LibraryChange) => void) =>
  callWithEvents("watch_library", {}, new Channel<LibraryChange>(onChange));

/** Moves the session to another saved profile from its next turn on. */
export const switchProfile = (session_id: SessionId, profile_id: string) =>
  call("switch_profile", { session_id, profile_id });

export const getSettings = () => call("get_settings", {});

/** The user's approval rules and, given a session's workspace, its `.strata/rules.toml`. */
export const listRules = (workspace: string | null) => call("list_rules", workspace ? { workspace } : {});

/** One rule added to (or removed from) the user's rules, or the workspace's when one is named; saved at once. */
export const addRule = (rule: AddRule) => call("add_rule", rule);
export const removeRule = (rule: AddRule) => call("remove_rule", rule);

/** The workspace's `.strata/network.toml`: its choice and domains, and whether they apply. */
export const getWorkspaceNetwork = (workspace: string) => call("get_workspace_network", { workspace });
/** Saves the workspace's network file as `strata rules network` does, so Strata trusts it. */
export const saveWorkspaceNetwork = (request: SaveWorkspaceNetwork) => call("save_workspace_network", request);

/** The MCP servers in config.toml, and the tables that cannot be read. */
export const listMcpServers = () => call("list_mcp_servers", {});
/** Adds a stdio server; its command line is split into words as a shell would, in Rust. */
export const addMcpServer = (server: AddMcpServer) => call("add_mcp_server", server);
export const removeMcpServer = (name: string) => call("remove_mcp_server", { name });
export const setMcpServerEnabled = (name: string, enabled: boolean) => call("set_mcp_server_enabled", { name, enabled });
/** Starts the server once and reports each phase, its tools and their token cost. */
export const testMcpServer = (name: string) => call("test_mcp_server", { name });
/** The last lines of the server's kept stderr, each run under a `=== ` line. */
export const mcpServerLog = (name: string, lines = 200) => call("mcp_server_log", { name, lines });

/** Saves the settings, storing the keys typed for its profiles (new ones too) with them: one Save. */
export const saveSettings = (settings: Settings, api_keys: SetApiKey[] = []) => call("save_settings", { settings, api_keys });

/** "Test connection": one small request to the draft's model; a failure comes back classified, not thrown. */
export const testConnection = (draft: ProviderDraft) => call("test_connection", { draft });

/** The models the draft's server lists (`offered: false` when it has no list). */
export const listModels = (draft: ProviderDraft) => call("list_models", { draft });

export const setApiKey = (profile_id: string, key: string) => call("set_api_key", { profile_id, key });
/** Keeps the debug console's chosen width for the next run. */
export const saveLayout = (console_width: number) => call("save_layout", { console_width });

/** The provider kinds with their labels and default models (from Rust's catalog). */
export const providerKinds = () => call("provider_kinds", {});

/** Every compaction with the history just before and after it (the core's replay). */
export const compactionViews = (session_id: SessionId) => call("compaction_views", { session_id });

/** The debug console folded in Rust: its log's newest page (or the rows before row `before`), chart, steps, model view and gauge. */
export const openConsole = (session_id: SessionId, before?: number, limit?: number) =>
  call("open_console", { session_id, ...(before !== undefined ? { before } : {}), ...(limit !== undefined ? { limit } : {}) });

/** A page of rounds, each with the exact request it sent. */
export const roundRequests = (session_id: SessionId, offset?: number, limit?: number) =>
  call("round_requests", {
    session_id,
    ...(offset !== undefined ? { offset } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });

/** The session's policy, threshold, circuit, and the gauge's figure (reported, or an estimate right after a compaction). */
export const compactionStatus = (session_id: SessionId) => call("compaction_status", { session_id });

/** The session compacts under `policy` from its next turn on (a `compaction_policy` record). */
export const setCompactionPolicy = (session_id: SessionId, policy: CompactionPolicy) =>
  call("set_compaction_policy", { session_id, policy });

/** What a compaction would do now: the preview of `strata compact --preview --json` (read-only, no model call). */
/** The slash commands a session in `workspace` offers: `/compact`, then its prompt files and the person's (read afresh). */
export const listSlashCommands = (workspace: string) => call("list_slash_commands", { workspace });
/** The paths of `workspace` that best match `query`, for the composer's `@` finder (walked afresh). */
export const findWorkspaceFiles = (workspace: string, query: string, limit?: number) =>
  call("find_workspace_files", { workspace, query, limit });

/** How hard the session's model thinks from its next round on. */
export const setReasoning = (session_id: SessionId, effort: ReasoningEffort) => call("set_reasoning", { session_id, effort });

export const previewCompaction = (session_id: SessionId) => call("preview_compaction", { session_id });

/** Validates a threshold (`80%`, `12000`, `left:20000`) and resolves it against a profile's window, in Rust. */
export const checkThreshold = (threshold: string, profile_id?: string) =>
  call("check_threshold", { threshold, ...(profile_id ? { profile_id } : {}) });

/**
 * Undoes the latest compaction: the history as it was just before it plus
 * everything since. Refused (a command error, nothing changed) when the
 * estimate of the result is at or over the threshold.
 */
export const undoCompaction = (session_id: SessionId) => call("undo_compaction", { session_id });

/** Every item the session ever recorded, with its id (`strata sessions show --json`). */
export const sessionItems = (session_id: SessionId) => call("session_items", { session_id });

/** Opens a link the person confirmed in the system browser; the shell checks it again (http, https, mailto only). */
export const openExternalLink = (url: string) => call("open_external_link", { url });

/** Pins (`pinned`) or unpins an item; refused when the pins would exceed half the threshold. */
export const pinItem = (session_id: SessionId, item: string, pinned: boolean) =>
  call("pin_item", { session_id, item, pinned });

/** Summarises everything before `item` and keeps everything from it on verbatim. */
export const compactUpTo = (session_id: SessionId, item: string, focus: string | undefined, onEvent: EventHandler) =>
  callWithEvents("compact_up_to", { session_id, item, ...(focus ? { focus } : {}) }, channelFor(onEvent));

/** A new session with the parent's history at `point`, nothing later; `files` (default: keep) returns the workspace to that point too. */
export const forkSession = (session_id: SessionId, point: ForkPoint, files: ForkFiles = "keep") =>
  call("fork_session", { session_id, point, ...(files === "keep" ? {} : { files }) });

/** What a fork at `point` with files would do (the files, refusals, the worktree's folder); writes nothing. */
export const previewFork = (session_id: SessionId, point: ForkPoint) => call("preview_fork", { session_id, point });

/** The session's file changes, by turn and call and over the whole session (the Changes view). */
export const listChanges = (session_id: SessionId) => call("list_changes", { session_id });

/** The diff of one change (`record`) or of one file over the session (`path`). */
export const changeDiff = (session_id: SessionId, target: DiffTarget) => call("change_diff", { session_id, target });

/** What restoring to `target` would do, or which files refuse it; writes nothing. */
export const previewRestore = (session_id: SessionId, target: RestoreTarget) => call("preview_restore", { session_id, target });

/** Restores the files to before `target` (refused, changing nothing, over the person's own edits). */
export const restoreFiles = (session_id: SessionId, target: RestoreTarget) => call("restore_files", { session_id, target });
