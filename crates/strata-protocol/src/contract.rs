//! The application's command contract, shared by the desktop shell's IPC
//! and the command line's `--json` output (docs/desktop-commands.md,
//! docs/cli-json.md): each operation is a request type naming its result
//! type through [`Command`]; every operation fails with
//! [`CommandError`](crate::CommandError). Field names are snake_case
//! everywhere, as in the session file.
//!
//! Listing and opening return item ids and page, so a later index or
//! tail-reading backend changes what is behind them, not their shapes.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::desktop::{
    AppInfo, CompactOutcome, ExportFormat, SessionListItem, SessionView, Settings, TurnReport,
};
use crate::ids::{ItemId, SessionId};
use crate::inspect::{CompactionView, RoundPage};
use crate::provider::{ProfileSet, ProviderKind};
use crate::recall::{CompactionUndone, ForkPoint, RecordedItem};
use crate::records::ApprovalDecision;
use crate::tools::ApprovalPolicy;
use crate::transcript::{ToolOutputText, TranscriptPage};

/// The version of the contract's JSON shapes; every top-level object the
/// command line prints carries it as `v`.
pub const CONTRACT_FORMAT_VERSION: u32 = 1;

/// An operation of the contract: its request type names what it returns.
pub trait Command {
    /// The command's name over IPC.
    const NAME: &'static str;
    type Output;
}

macro_rules! commands {
    ($($request:ident => $name:literal -> $output:ty;)*) => {
        $(impl Command for $request {
            const NAME: &'static str = $name;
            type Output = $output;
        })*
        /// Every command's IPC name, in contract order.
        pub const COMMAND_NAMES: &[&str] = &[$($name),*];
    };
}

commands! {
    GetAppInfo => "app_info" -> AppInfo;
    ListSessions => "list_sessions" -> SessionPage;
    OpenSession => "open_session" -> SessionView;
    CreateSession => "create_session" -> SessionListItem;
    SendMessage => "send_message" -> TurnReport;
    StopTurn => "stop_turn" -> bool;
    AnswerApproval => "answer_approval" -> bool;
    CompactNow => "compact_now" -> CompactOutcome;
    RenameSession => "rename_session" -> SessionListItem;
    DeleteSession => "delete_session" -> ();
    ExportSession => "export_session" -> ();
    SwitchProfile => "switch_profile" -> SessionListItem;
    GetSettings => "get_settings" -> Settings;
    SaveSettings => "save_settings" -> Settings;
    SetApiKey => "set_api_key" -> ();
    ListProviderKinds => "provider_kinds" -> Vec<ProviderKindInfo>;
    GetCompactionViews => "compaction_views" -> Vec<CompactionView>;
    GetRoundRequests => "round_requests" -> RoundPage;
    OpenTranscript => "open_transcript" -> TranscriptPage;
    GetToolOutput => "tool_output" -> ToolOutputText;
    ListSessionItems => "session_items" -> SessionItems;
    PinItem => "pin_item" -> ItemPinned;
    CompactUpTo => "compact_up_to" -> CompactOutcome;
    UndoCompaction => "undo_compaction" -> CompactionUndoneView;
    ForkSession => "fork_session" -> SessionForkView;
}

/// `session_items`: every item the session ever recorded, with its id, in
/// write order: what `strata sessions show --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListSessionItems {
    pub session_id: SessionId,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionItems {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    pub session_id: SessionId,
    pub items: Vec<RecordedItem>,
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
/// plus everything appended since, when its estimate is under the threshold
/// (otherwise refused, changing nothing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UndoCompaction {
    pub session_id: SessionId,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CompactionUndoneView {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    pub session_id: SessionId,
    pub undone: CompactionUndone,
}

/// `fork_session`: a new session whose history is the parent's at `point`
/// (originals, not a summary), nothing later. Workspace files are not
/// rewound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ForkSession {
    pub session_id: SessionId,
    pub point: ForkPoint,
}

/// What `strata fork --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionForkView {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// The new session.
    pub session_id: SessionId,
    pub parent_session_id: SessionId,
    pub point: ForkPoint,
    /// Items in the new session's model-visible history.
    pub history_items: u32,
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
}

/// `open_session`: a read-only snapshot from record `from_record` on
/// (default 0: the whole file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenSession {
    pub session_id: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub from_record: Option<u32>,
}

/// `create_session`: a new session in `workspace` (an absolute folder) on
/// the active profile. A workspace of `/` or the home folder is refused
/// (`broad_workspace`) unless `allow_broad_workspace` says the person
/// confirmed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CreateSession {
    pub workspace: String,
    #[serde(default)]
    pub allow_broad_workspace: bool,
}

/// `send_message`: one turn of `text`; the events arrive on the caller's
/// event sink (a Tauri channel, the terminal).
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

/// `export_session`: writes Markdown or JSON lines to `path` (absolute).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ExportSession {
    pub session_id: SessionId,
    pub format: ExportFormat,
    pub path: String,
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
}

/// `set_api_key`: stores a saved profile's key in the key store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetApiKey {
    pub profile_id: String,
    pub key: String,
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
/// that id (a page's `older` cursor).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenTranscript {
    pub session_id: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub before: Option<String>,
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

/// What a line of the command line's `--json` output is, when it is not an
/// event envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum OutputKind {
    SessionStarted,
    SessionDeleted,
    CompactFinished,
}

/// The first line of `strata run|resume|compact|chat --json`: which session,
/// where, and on which profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionStarted {
    /// [`CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// Always `session_started`.
    pub kind: OutputKind,
    pub session_id: SessionId,
    pub resumed: bool,
    pub workspace: String,
    pub provider_kind: ProviderKind,
    pub model: String,
    pub model_label: String,
    /// The endpoint, without userinfo or query; none for the demo model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The config profile it came from, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// The switch this resume recorded, when the person chose another profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switched: Option<ProfileSet>,
    /// The session predates recorded profiles and resumed on the provider
    /// kind and model of its `session_meta`.
    pub legacy_profile: bool,
    pub approval: ApprovalPolicy,
    pub compact_threshold: u64,
    /// The session file.
    pub path: String,
}

/// `strata sessions delete --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionDeleted {
    pub v: u32,
    /// Always `session_deleted`.
    pub kind: OutputKind,
    pub session_id: SessionId,
}
