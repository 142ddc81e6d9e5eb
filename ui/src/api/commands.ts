// One typed wrapper per command of docs/desktop-commands.md. Each command's
// arguments are its request type from the Rust contract (ui/src/bindings,
// generated from strata-protocol), snake_case like every other field.
import { Channel } from "@tauri-apps/api/core";
import type { AnswerApproval } from "../bindings/AnswerApproval";
import type { AppInfo } from "../bindings/AppInfo";
import type { ApprovalDecision } from "../bindings/ApprovalDecision";
import type { CheckThreshold } from "../bindings/CheckThreshold";
import type { CompactNow } from "../bindings/CompactNow";
import type { CompactUpTo } from "../bindings/CompactUpTo";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { CompactionPreview } from "../bindings/CompactionPreview";
import type { CompactionStatus } from "../bindings/CompactionStatus";
import type { CompactOutcome } from "../bindings/CompactOutcome";
import type { CompactionUndoneView } from "../bindings/CompactionUndoneView";
import type { CompactionView } from "../bindings/CompactionView";
import type { CreateSession } from "../bindings/CreateSession";
import type { DeleteSession } from "../bindings/DeleteSession";
import type { ExportFormat } from "../bindings/ExportFormat";
import type { ExportSession } from "../bindings/ExportSession";
import type { ForkPoint } from "../bindings/ForkPoint";
import type { ForkSession } from "../bindings/ForkSession";
import type { GetCompactionStatus } from "../bindings/GetCompactionStatus";
import type { GetCompactionViews } from "../bindings/GetCompactionViews";
import type { GetRoundRequests } from "../bindings/GetRoundRequests";
import type { GetToolOutput } from "../bindings/GetToolOutput";
import type { ItemPinned } from "../bindings/ItemPinned";
import type { ListSessionItems } from "../bindings/ListSessionItems";
import type { LiveBatch } from "../bindings/LiveBatch";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { LibraryChange } from "../bindings/LibraryChange";
import type { ListSessions } from "../bindings/ListSessions";
import type { OpenSession } from "../bindings/OpenSession";
import type { OpenTranscript } from "../bindings/OpenTranscript";
import type { PinItem } from "../bindings/PinItem";
import type { PreviewCompaction } from "../bindings/PreviewCompaction";
import type { ProviderKindInfo } from "../bindings/ProviderKindInfo";
import type { RenameSession } from "../bindings/RenameSession";
import type { RoundPage } from "../bindings/RoundPage";
import type { SaveSettings } from "../bindings/SaveSettings";
import type { SearchResults } from "../bindings/SearchResults";
import type { SearchSessions } from "../bindings/SearchSessions";
import type { SendMessage } from "../bindings/SendMessage";
import type { SessionExport } from "../bindings/SessionExport";
import type { SessionForkView } from "../bindings/SessionForkView";
import type { SessionId } from "../bindings/SessionId";
import type { SessionItems } from "../bindings/SessionItems";
import type { SessionListItem } from "../bindings/SessionListItem";
import type { SessionPage } from "../bindings/SessionPage";
import type { SessionView } from "../bindings/SessionView";
import type { SetApiKey } from "../bindings/SetApiKey";
import type { SetCompactionPolicy } from "../bindings/SetCompactionPolicy";
import type { Settings } from "../bindings/Settings";
import type { StopTurn } from "../bindings/StopTurn";
import type { SwitchProfile } from "../bindings/SwitchProfile";
import type { ToolOutputText } from "../bindings/ToolOutputText";
import type { TranscriptPage } from "../bindings/TranscriptPage";
import type { ThresholdCheck } from "../bindings/ThresholdCheck";
import type { TurnReport } from "../bindings/TurnReport";
import type { UndoCompaction } from "../bindings/UndoCompaction";
import type { WatchLibrary } from "../bindings/WatchLibrary";
import { call } from "./ipc";

/**
 * Receives a turn's events, each with the transcript updates Rust made of it, in order: one
 * `LiveBatch` at a time (streamed text comes about a frame's worth at once).
 */
export type EventHandler = (events: LiveEvent[]) => void;

/** A request with the channel its events arrive on. */
type WithEvents<T> = T & { on_event: Channel<LiveBatch> };

function channelFor(onEvent: EventHandler): Channel<LiveBatch> {
  return new Channel<LiveBatch>((batch) => onEvent(batch.events));
}

export const appInfo = () => call<AppInfo>("app_info");

/**
 * Every session, newest first (one page of the whole list), with the library's notice when there
 * is one (its index was damaged and rebuilt, or cannot be written): said once, so shown when given.
 */
export const listSessions = async (query?: string): Promise<{ sessions: SessionListItem[]; notice?: string }> => {
  const request: ListSessions = query ? { query } : {};
  const page = await call<SessionPage>("list_sessions", request);
  return page.notice ? { sessions: page.sessions, notice: page.notice } : { sessions: page.sessions };
};

/** A session's snapshot, with its records from `from_record` on (all of them by default). */
export const openSession = (session_id: SessionId, from_record?: number) =>
  call<SessionView>("open_session", { session_id, ...(from_record !== undefined ? { from_record } : {}) } satisfies OpenSession);

/**
 * A page of the conversation's transcript: the newest without `before`, else the page just before
 * that entry id; with `at_item` (a search hit's item) the entries from the one showing it to the
 * newest, that entry's id as the page's `target`.
 */
export const openTranscript = (session_id: SessionId, before?: string, limit?: number, at_item?: string) =>
  call<TranscriptPage>("open_transcript", {
    session_id,
    ...(before !== undefined ? { before } : {}),
    ...(at_item !== undefined ? { at_item } : {}),
    ...(limit !== undefined ? { limit } : {}),
  } satisfies OpenTranscript);

/** One tool call's whole output, for an expanded card. */
export const toolOutput = (session_id: SessionId, call_id: string) =>
  call<ToolOutputText>("tool_output", { session_id, call_id } satisfies GetToolOutput);

/** Full-text hits across every session's text, newest text first. */
export const searchSessions = (query: string, limit = 30) =>
  call<SearchResults>("search_sessions", { query, limit } satisfies SearchSessions);

/** `allow_broad_workspace` only after the person confirmed `/` or their home folder. */
export const createSession = (workspace: string, allow_broad_workspace = false) =>
  call<SessionListItem>("create_session", { workspace, allow_broad_workspace } satisfies CreateSession);

export const sendMessage = (session_id: SessionId, text: string, onEvent: EventHandler) =>
  call<TurnReport>("send_message", {
    session_id,
    text,
    on_event: channelFor(onEvent),
  } satisfies WithEvents<SendMessage>);

export const stopTurn = (session_id: SessionId) =>
  call<boolean>("stop_turn", { session_id } satisfies StopTurn);

export const answerApproval = (session_id: SessionId, call_id: string, decision: ApprovalDecision) =>
  call<boolean>("answer_approval", { session_id, call_id, decision } satisfies AnswerApproval);

export const compactNow = (session_id: SessionId, focus: string | undefined, onEvent: EventHandler) =>
  call<CompactOutcome>("compact_now", {
    session_id,
    ...(focus ? { focus } : {}),
    on_event: channelFor(onEvent),
  } satisfies WithEvents<CompactNow>);

export const renameSession = (session_id: SessionId, title: string) =>
  call<SessionListItem>("rename_session", { session_id, title } satisfies RenameSession);

export const deleteSession = (session_id: SessionId) =>
  call<void>("delete_session", { session_id } satisfies DeleteSession);

/** The export's text; the UI writes it to the file the person chose (see `api/dialogs`). */
export const exportSession = (session_id: SessionId, format: ExportFormat) =>
  call<SessionExport>("export_session", { session_id, format } satisfies ExportSession);

/**
 * From now on, every change to the session library (sessions created, appended to or deleted
 * by any process: this app, the `strata` CLI, another window) arrives at `onChange`.
 */
export const watchLibrary = (onChange: (change: LibraryChange) => void) =>
  call<void>("watch_library", {
    on_event: new Channel<LibraryChange>(onChange),
  } satisfies WatchLibrary & { on_event: Channel<LibraryChange> });

/** Moves the session to another saved profile from its next turn on. */
export const switchProfile = (session_id: SessionId, profile_id: string) =>
  call<SessionListItem>("switch_profile", { session_id, profile_id } satisfies SwitchProfile);

export const getSettings = () => call<Settings>("get_settings");

export const saveSettings = (settings: Settings) =>
  call<Settings>("save_settings", { settings } satisfies SaveSettings);

export const setApiKey = (profile_id: string, key: string) =>
  call<void>("set_api_key", { profile_id, key } satisfies SetApiKey);

/** The provider kinds with their labels and default models (from Rust's catalog). */
export const providerKinds = () => call<ProviderKindInfo[]>("provider_kinds");

/** Every compaction with the history just before and after it (the core's replay). */
export const compactionViews = (session_id: SessionId) =>
  call<CompactionView[]>("compaction_views", { session_id } satisfies GetCompactionViews);

/** A page of rounds, each with the exact request it sent. */
export const roundRequests = (session_id: SessionId, offset?: number, limit?: number) =>
  call<RoundPage>("round_requests", {
    session_id,
    ...(offset !== undefined ? { offset } : {}),
    ...(limit !== undefined ? { limit } : {}),
  } satisfies GetRoundRequests);

/** The session's policy, threshold, circuit, and the gauge's figure (reported, or an estimate right after a compaction). */
export const compactionStatus = (session_id: SessionId) =>
  call<CompactionStatus>("compaction_status", { session_id } satisfies GetCompactionStatus);

/** The session compacts under `policy` from its next turn on (a `compaction_policy` record). */
export const setCompactionPolicy = (session_id: SessionId, policy: CompactionPolicy) =>
  call<CompactionStatus>("set_compaction_policy", { session_id, policy } satisfies SetCompactionPolicy);

/** What a compaction would do now: the preview of `strata compact --preview --json` (read-only, no model call). */
export const previewCompaction = (session_id: SessionId) =>
  call<CompactionPreview>("preview_compaction", { session_id } satisfies PreviewCompaction);

/** Validates a threshold (`80%`, `12000`, `left:20000`) and resolves it against a profile's window, in Rust. */
export const checkThreshold = (threshold: string, profile_id?: string) =>
  call<ThresholdCheck>("check_threshold", {
    threshold,
    ...(profile_id ? { profile_id } : {}),
  } satisfies CheckThreshold);

/**
 * Undoes the latest compaction: the history as it was just before it plus
 * everything since. Refused (a command error, nothing changed) when the
 * estimate of the result is at or over the threshold.
 */
export const undoCompaction = (session_id: SessionId) =>
  call<CompactionUndoneView>("undo_compaction", { session_id } satisfies UndoCompaction);

/** Every item the session ever recorded, with its id (`strata sessions show --json`). */
export const sessionItems = (session_id: SessionId) =>
  call<SessionItems>("session_items", { session_id } satisfies ListSessionItems);

/** Opens a link the person confirmed in the system browser; the shell checks it again (http, https, mailto only). */
export const openExternalLink = (url: string) => call<void>("open_external_link", { url });

/** Pins (`pinned`) or unpins an item; refused when the pins would exceed half the threshold. */
export const pinItem = (session_id: SessionId, item: string, pinned: boolean) =>
  call<ItemPinned>("pin_item", { session_id, item, pinned } satisfies PinItem);

/** Summarises everything before `item` and keeps everything from it on verbatim. */
export const compactUpTo = (session_id: SessionId, item: string, focus: string | undefined, onEvent: EventHandler) =>
  call<CompactOutcome>("compact_up_to", {
    session_id,
    item,
    ...(focus ? { focus } : {}),
    on_event: channelFor(onEvent),
  } satisfies WithEvents<CompactUpTo>);

/** A new session with the parent's history at `point`, nothing later (workspace files are not rewound). */
export const forkSession = (session_id: SessionId, point: ForkPoint) =>
  call<SessionForkView>("fork_session", { session_id, point } satisfies ForkSession);
