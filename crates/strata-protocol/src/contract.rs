//! The application's command contract, shared by the desktop shell's IPC
//! and the command line's `--json` output (docs/desktop-commands.md,
//! docs/cli-json.md): each operation is a request type naming its result
//! type through [`Command`](crate::Command) (the one list is
//! [`with_commands!`](crate::with_commands)); every operation fails with
//! [`CommandError`](crate::CommandError). Field names are snake_case
//! everywhere, as in the session file.
//!
//! Listing and opening return item ids and page, so a later index or
//! tail-reading backend changes what is behind them, not their shapes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::checkpoint::CheckpointDivergence;
use crate::context::CompactionPolicy;
use crate::desktop::{ExportFormat, SessionListItem, Settings};
use crate::ids::{ItemId, SessionId};
use crate::output::OutputKind;
use crate::provider::ProviderKind;
use crate::reasoning::ReasoningEffort;
use crate::recall::{CompactionUndone, RecordedItem};
use crate::records::ApprovalDecision;

/// The version of the contract's JSON shapes; every top-level object the
/// command line prints carries it as `v`.
pub const CONTRACT_FORMAT_VERSION: u32 = 1;

/// `session_items`: every item the session ever recorded, with its id, in
/// write order: what `strata sessions show --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListSessionItems {
    pub session_id: SessionId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionItems {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// Always `session_items`.
    pub kind: OutputKind,
    pub session_id: SessionId,
    pub items: Vec<RecordedItem>,
    /// What the session cost so far (rounds and summary calls), when
    /// anything in it had a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<crate::CostOutput>,
    /// Rounds that reported usage without a price: their tokens count, their
    /// cost is unknown.
    #[serde(default)]
    pub unpriced_rounds: u32,
}

/// `pin_item`: pins (`pinned`) or unpins `item` (an id or a unique prefix
/// of one). Refused outside the layered policy, for an item not in context,
/// and when the pins would exceed half the compaction threshold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PinItem {
    pub session_id: SessionId,
    pub item: String,
    pub pinned: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct ItemPinned {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// Always `item_pinned`.
    pub kind: OutputKind,
    pub session_id: SessionId,
    pub item_id: ItemId,
    pub pinned: bool,
}

/// `compact_up_to`: summarizes everything before `item` and keeps
/// everything from it on verbatim (a call never split from its output).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactUpTo {
    pub session_id: SessionId,
    pub item: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub focus: Option<String>,
}

/// `undo_compaction`: restores the history before the latest compaction
/// plus everything appended since, when the next request's estimate (that
/// history and the tool specs every request carries) is under the
/// threshold (otherwise refused, changing nothing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UndoCompaction {
    pub session_id: SessionId,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CompactionUndoneView {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// Always `compaction_undone`.
    pub kind: OutputKind,
    pub session_id: SessionId,
    pub undone: CompactionUndone,
}

/// `app_info`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetAppInfo {}

/// `list_sessions`: newest first; `query` filters by title, first user
/// message and workspace, ignoring case.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListSessions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub query: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub offset: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub limit: Option<u32>,
}

/// A page of the session list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionPage {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    pub sessions: Vec<SessionListItem>,
    /// Sessions matching the query in all.
    pub total: u32,
    /// Where the next page starts, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u32>,
    /// What the person should hear about the library, once: its index was
    /// damaged and rebuilt from the session files (the damaged file kept),
    /// or cannot be written, so the files are read instead (slower).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub notice: Option<String>,
}

/// `open_session`: a read-only snapshot from record `from_record` on
/// (default 0: the whole file), or with no records at all when
/// `without_records` (the replayed state alone, read from the file's tail).
/// `at_item` names the item the transcript opens scrolled to (a search
/// hit's `item_id`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenSession {
    pub session_id: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub from_record: Option<u32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub without_records: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub at_item: Option<ItemId>,
}

/// `search_sessions`: the text of every session (messages, tool calls and
/// outputs, summaries) searched for `query` as literal text, case ignored,
/// newest text first (the order the library's index took it in), one page
/// of hits. Filters narrow it to one
/// workspace (exact folder), one model, and sessions updated in
/// `[updated_from, updated_until)`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SearchSessions {
    pub query: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub workspace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub updated_from: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub updated_until: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub offset: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub limit: Option<u32>,
}

/// A page of search hits (`strata sessions search --json` prints one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SearchResults {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    pub query: String,
    pub hits: Vec<SearchHit>,
    /// Hits in all pages, counted up to 1,000 (or to the end of the page
    /// asked for, when that is further).
    pub total: u32,
    /// More hits match than `total` counts: shown as "1,000+".
    #[serde(default)]
    pub total_capped: bool,
    /// Where the next page starts, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u32>,
}

/// What kind of text a hit is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SearchHitKind {
    User,
    Assistant,
    ToolCall,
    ToolOutput,
    Summary,
}

/// One match: where it is and the text around it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SearchHit {
    pub session_id: SessionId,
    pub session_title: Option<String>,
    /// The item the text is in: `open_session`'s `at_item`.
    pub item_id: Option<ItemId>,
    pub kind: SearchHitKind,
    /// Plain text around the match (an ellipsis where it was cut). Session
    /// text: show it as text, never as markup.
    pub snippet: String,
    /// Where the match is in `snippet`, in characters (Unicode scalar
    /// values, not bytes or UTF-16 units).
    pub matches: Vec<TextRange>,
    /// The session's last update.
    pub updated_at: DateTime<Utc>,
}

/// A half-open range `[start, end)` of characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct TextRange {
    pub start: u32,
    pub end: u32,
}

/// `create_session`: a new session in `workspace` (an absolute folder) on
/// the saved profile `profile_id` (none: the active profile). A workspace
/// of `/` or the home folder is refused (`broad_workspace`) unless
/// `allow_broad_workspace` says the person confirmed it. `approval_policy`,
/// when given, becomes the desktop's approval policy (it applies to every
/// session the app runs) before the session starts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CreateSession {
    pub workspace: String,
    #[serde(default)]
    pub allow_broad_workspace: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_policy: Option<crate::tools::ApprovalPolicy>,
    /// The sandbox its shell commands run in (recorded in the session);
    /// none: the settings' sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sandbox: Option<crate::sandbox::SandboxMode>,
    /// What its sandboxed commands reach (recorded in the session); none:
    /// the workspace's `.strata/network.toml`, else the settings'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub network: Option<crate::sandbox::SandboxNetwork>,
}

/// `send_message`: the composer's `text`, as typed: one turn of it, or a
/// compaction when it reads `/compact [focus]`; the events arrive on the
/// caller's event sink (a Tauri channel, the terminal).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SendMessage {
    pub session_id: SessionId,
    pub text: String,
}

/// `stop_turn`: cancels what runs in the session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StopTurn {
    pub session_id: SessionId,
}

/// `answer_approval`: answers a waiting approval.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AnswerApproval {
    pub session_id: SessionId,
    pub call_id: String,
    pub decision: ApprovalDecision,
}

/// `compact_now`: compacts the history now, stressing `focus`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactNow {
    pub session_id: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub focus: Option<String>,
}

/// `rename_session`: a `title_set` record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RenameSession {
    pub session_id: SessionId,
    pub title: String,
}

/// `delete_session`: removes the file; refused while a turn runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DeleteSession {
    pub session_id: SessionId,
}

/// `export_session`: the session as Markdown or JSON lines. The desktop
/// writes the text through the fs plugin to the path the person chose in
/// the save dialog, the only path the webview may write; the application
/// itself writes nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExportSession {
    pub session_id: SessionId,
    pub format: ExportFormat,
}

/// A session's export.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionExport {
    pub session_id: SessionId,
    pub format: ExportFormat,
    pub text: String,
}

/// `switch_profile`: the session talks to the settings' profile
/// `profile_id` from its next turn on (a `profile_set` record).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SwitchProfile {
    pub session_id: SessionId,
    pub profile_id: String,
}

/// `get_settings`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetSettings {}

/// `save_settings`: validates everything; invalid input saves nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveSettings {
    pub settings: Settings,
    /// Keys typed for profiles of `settings` (new ones included), stored
    /// with the save: a new profile needs one Save, not a save and then a
    /// key. Keys never come back.
    #[serde(default)]
    pub api_keys: Vec<SetApiKey>,
}

/// `set_api_key`: stores a saved profile's key in the key store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetApiKey {
    pub profile_id: String,
    pub key: String,
}

/// `save_layout`: the window layout the desktop app keeps between runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveLayout {
    /// The debug console's chosen width in pixels (the UI holds it to
    /// what the window leaves).
    pub console_width: u32,
}

/// `provider_kinds`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListProviderKinds {}

/// A provider kind as the settings screen offers it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProviderKindInfo {
    pub kind: ProviderKind,
    pub label: String,
    /// The model a new profile of this kind starts with.
    pub default_model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_base_url: Option<String>,
}

/// `compaction_views`: every compaction with the history around it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetCompactionViews {
    pub session_id: SessionId,
}

/// `round_requests`: a page of rounds (`offset` from 0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetRoundRequests {
    pub session_id: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub offset: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub limit: Option<u32>,
}

/// `open_transcript`: a page of the session's transcript (what the
/// conversation shows), newest page first: without `before` the last
/// `limit` entries, with it the `limit` entries just before the entry of
/// that id (a page's `older` cursor); with `at_item` (a search hit's item)
/// the entries from the one showing that item to the newest, at least
/// `limit` of them, and that entry's id as the page's `target`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenTranscript {
    pub session_id: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub at_item: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub limit: Option<u32>,
}

/// `tool_output`: the whole output of the tool call `call_id` (entries
/// carry only its start), fetched when its card is expanded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetToolOutput {
    pub session_id: SessionId,
    pub call_id: String,
}

/// `watch_library`: from now on, the session library's changes arrive on
/// the caller's event sink (the window's channel) as [`LibraryChange`]s:
/// sessions created, appended to or deleted by any process, this one, the
/// command line or another window alike. A later call from the same window
/// replaces its sink.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WatchLibrary {}

/// `compaction_status`: the session's policy, threshold, circuit and the
/// figure the gauge shows (reported, or an estimate right after a compaction).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetCompactionStatus {
    pub session_id: SessionId,
}

/// `set_compaction_policy`: the session compacts under `policy` from its
/// next turn on (a `compaction_policy` record, keeping its recorded
/// threshold); refused while a turn runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetCompactionPolicy {
    pub session_id: SessionId,
    pub policy: CompactionPolicy,
}

/// `set_reasoning`: how hard the session's model thinks from its next
/// round on (a `reasoning_set` record when it changes); refused while a
/// turn runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetReasoning {
    pub session_id: SessionId,
    pub effort: ReasoningEffort,
}

/// `preview_compaction`: what a compaction would do now, the same preview
/// as `strata compact --preview --json`: read-only, no model call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PreviewCompaction {
    pub session_id: SessionId,
}

/// `check_threshold`: validates a threshold in one of its three forms
/// (`80%`, `12000`, `left:20000`) and resolves it against the window of the
/// settings' profile `profile_id` (default: the active one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CheckThreshold {
    pub threshold: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub profile_id: Option<String>,
}

/// What changed in the sessions folder over one short quiet period (the
/// watcher debounces bursts of writes, e.g. a streaming turn's records).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct LibraryChange {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// The current rows of sessions that appeared or changed, newest first.
    pub updated: Vec<SessionListItem>,
    /// Sessions whose files are gone.
    pub removed: Vec<SessionId>,
    /// Of the `updated` sessions this app has shown, those whose files
    /// changed outside it (not by its own writes) since it last read them:
    /// what the window shows of them is out of date.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_outside: Vec<SessionId>,
}

/// `strata sessions verify --json`: the whole file replayed from its first
/// record, every checkpoint checked against it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionVerification {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    pub session_id: SessionId,
    /// Records replayed, the session_meta included.
    pub records: u64,
    pub checkpoints: u64,
    /// Every checkpoint that disagrees with the replay, first difference
    /// each; empty when the file is consistent.
    pub divergences: Vec<CheckpointDivergence>,
}
