//! What the conversation shows: a session's records and a turn's live events
//! converted, by one function in strata-app, into typed transcript entries
//! with stable ids, and live events into updates of those entries. The UI
//! renders entries and applies updates; it never folds records itself.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::context::ToolOutputsEvicted;
use crate::desktop::ForkOrigin;
use crate::events::{EventEnvelope, ToolCallStatus};
use crate::failure::ProviderFailure;
use crate::ids::{ItemId, SessionId, TurnId};
use crate::items::{CompactionSummary, CompactionTrigger};
use crate::model::ModelError;
use crate::records::{ApprovalDecision, TurnOutcome};

/// Why a compaction did not happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CompactionProblem {
    /// Its summary request failed on every attempt.
    SummaryFailed,
    /// The rule check found the result would drop what must stay.
    Refused,
}

/// Where a tool call stands, as its card shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolState {
    Running,
    AwaitingApproval,
    /// Done, as read back from the file (its status was not recorded).
    Finished,
    Success,
    Error,
    Denied,
    Cancelled,
    TimedOut,
    /// The turn ended before the call finished.
    Interrupted,
}

impl From<ToolCallStatus> for ToolState {
    fn from(status: ToolCallStatus) -> Self {
        match status {
            ToolCallStatus::Success => ToolState::Success,
            ToolCallStatus::Error => ToolState::Error,
            ToolCallStatus::Denied => ToolState::Denied,
            ToolCallStatus::Cancelled => ToolState::Cancelled,
            ToolCallStatus::TimedOut => ToolState::TimedOut,
        }
    }
}

/// A tool call's approval: what was asked and, once answered, the answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApprovalView {
    pub summary: String,
    pub detail: String,
    /// The rules "always allow" would save, shown on its button before
    /// anything is saved; empty when it is not offered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub proposed_rules: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub decision: Option<ApprovalDecision>,
}

/// The start of a tool output and its full length; the whole text comes
/// from `tool_output` when the card is expanded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OutputPreview {
    /// At most [`OUTPUT_PREVIEW_CHARS`] characters.
    pub preview: String,
    /// Characters of the full output (the uncapped text when the file holds one).
    pub chars: u64,
}

/// Characters of a tool output an entry carries.
pub const OUTPUT_PREVIEW_CHARS: usize = 2_000;

/// Why a partial answer was not saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Unsaved {
    Stopped,
    Interrupted,
}

/// A tool call with its output, status and approval, as one card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ToolEntry {
    pub id: String,
    pub call_id: String,
    pub name: String,
    pub arguments: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub output: Option<OutputPreview>,
    pub status: ToolState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub approval: Option<ApprovalView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub turn_id: Option<TurnId>,
    /// The output's item id once it is recorded: what a pin names (pinning
    /// an output keeps its call with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub item_id: Option<ItemId>,
    /// Pinned: kept verbatim through every compaction.
    #[serde(default, skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub pinned: bool,
    /// The model saw a capped output; `output` previews the whole one the
    /// file keeps beside it.
    #[serde(default, skip_serializing_if = "is_false")]
    #[ts(as = "Option<bool>", optional)]
    pub capped: bool,
    /// For an `update_plan` call, the plan its arguments set (none when
    /// they set none: the call's output says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub plan: Option<crate::Plan>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// One thing the conversation shows. `id` is stable: the same file gives
/// the same ids, and a live update names the entry it changes by it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TranscriptEntry {
    /// `id` is the message's item id.
    User {
        id: String,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        turn_id: Option<TurnId>,
        /// Pinned: kept verbatim through every compaction.
        #[serde(default, skip_serializing_if = "is_false")]
        #[ts(as = "Option<bool>", optional)]
        pinned: bool,
    },
    /// `id` is the message's item id once committed (`stream:…` while it
    /// streams).
    Assistant {
        id: String,
        text: String,
        /// Still arriving.
        streaming: bool,
        /// Set on a partial answer whose turn ended before the model
        /// finished it: such a round commits nothing, the model will not see it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        unsaved: Option<Unsaved>,
        /// The model whose round wrote it, when known (read back: the last
        /// round's or profile's model; live: the round's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        model: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        turn_id: Option<TurnId>,
        /// Pinned: kept verbatim through every compaction.
        #[serde(default, skip_serializing_if = "is_false")]
        #[ts(as = "Option<bool>", optional)]
        pinned: bool,
    },
    /// What the model thought before the answer of its round (a reasoning
    /// summary, thinking text), shown folded above it. `id` is the
    /// reasoning item's id once committed (`thinking:…` while it streams).
    Thinking {
        id: String,
        text: String,
        /// Still arriving.
        streaming: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        turn_id: Option<TurnId>,
    },
    Tool(ToolEntry),
    /// A compaction's divider; a layered one carries its state sheet.
    Compaction {
        id: String,
        summary: CompactionSummary,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        state_sheet: Option<String>,
        /// The compaction was undone (`compaction_undone`): the model sees
        /// the history from before it again.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[ts(as = "Option<bool>", optional)]
        undone: bool,
        /// Older tool outputs replaced by placeholders at the same boundary,
        /// just before the summary (eviction did not free enough): one
        /// divider says both.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        eviction: Option<ToolOutputsEvicted>,
    },
    /// Older tool outputs replaced by placeholders.
    Eviction {
        id: String,
        eviction: ToolOutputsEvicted,
    },
    Error {
        id: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        model_error: Option<ModelError>,
        /// The model error as a person reads it: its kind, one sentence and
        /// the recoveries to offer (the raw text under Details).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        failure: Option<ProviderFailure>,
    },
    /// A compaction that did not happen: the conversation goes on, so it is a
    /// warning, not an error.
    CompactionProblem {
        id: String,
        problem: CompactionProblem,
        message: String,
        /// What asked for the compaction, when its record says (live
        /// events do not carry it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        trigger: Option<CompactionTrigger>,
    },
    Retry {
        id: String,
        attempt: u32,
        of: u32,
        delay_ms: u64,
        cause: String,
        /// The retry happened (a later event arrived); unsettled ones are waiting.
        /// Consecutive retries share one entry: each replaces the last.
        settled: bool,
    },
    /// A turn's end: how it ended and after how many model rounds (the
    /// desktop draws only the turns that did not complete).
    TurnEnd {
        id: String,
        outcome: TurnOutcome,
        rounds: u32,
    },
    /// A line of information: the profile a session switched to, an undo.
    /// (What a session was created on and its compaction policy are the
    /// session's facts, not lines of its conversation: the header's info and
    /// the console show them.)
    Notice {
        id: String,
        text: String,
    },
    /// Where a fork's copied records end: the parent it was copied from, to
    /// link to, and the sentence saying so (no ids in it).
    Fork {
        id: String,
        origin: ForkOrigin,
        text: String,
    },
    /// Something reading or reopening the session file found damaged, and
    /// what was done about it.
    Recovery {
        id: String,
        notice: RecoveryNotice,
        /// What it says, as one sentence (every front end's wording).
        text: String,
    },
}

/// What a [`TranscriptEntry::Recovery`] says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RecoveryNotice {
    /// Reopening for writing moved an unfinished last line (a write a crash
    /// interrupted) aside into a file beside the session's.
    TornTailMovedAside { bytes: u64 },
    /// Reading found an unfinished last line and left it out.
    TornTailIgnored { bytes: u64 },
    /// Tool calls of an earlier run never finished: each was recorded as
    /// aborted, so the model sees that they did not run to the end.
    AbortedCalls { calls: u32 },
    /// Reading skipped a line of the file that is not a record.
    SkippedRecord { line: u64, message: String },
}

impl TranscriptEntry {
    pub fn id(&self) -> &str {
        match self {
            TranscriptEntry::User { id, .. }
            | TranscriptEntry::Assistant { id, .. }
            | TranscriptEntry::Thinking { id, .. }
            | TranscriptEntry::Compaction { id, .. }
            | TranscriptEntry::Eviction { id, .. }
            | TranscriptEntry::Error { id, .. }
            | TranscriptEntry::CompactionProblem { id, .. }
            | TranscriptEntry::Retry { id, .. }
            | TranscriptEntry::TurnEnd { id, .. }
            | TranscriptEntry::Notice { id, .. }
            | TranscriptEntry::Fork { id, .. }
            | TranscriptEntry::Recovery { id, .. } => id,
            TranscriptEntry::Tool(tool) => &tool.id,
        }
    }
}

/// A change to the transcript a live event makes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum TranscriptUpdate {
    /// A new entry at the end (an entry with the same id is replaced in place).
    Append { entry: TranscriptEntry },
    /// The entry `id` becomes `entry` (whose id may differ: a streamed
    /// answer takes its committed item's id).
    Replace { id: String, entry: TranscriptEntry },
    /// Streamed text added to the assistant or thinking entry `id`.
    AppendText { id: String, delta: String },
    /// A new entry just before the entry `before` (at the end when that is
    /// not shown): a compaction's divider above the items it kept.
    Insert {
        before: String,
        entry: TranscriptEntry,
    },
    /// The entry `id` goes: an eviction whose compaction's divider, at the
    /// same boundary, now says it.
    Remove { id: String },
}

/// What a turn's event channel carries to the desktop: the agent's event,
/// for the debug console, and the transcript updates it makes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct LiveEvent {
    pub envelope: EventEnvelope,
    pub updates: Vec<TranscriptUpdate>,
    /// What the event changed in the debug console, when a console of the
    /// session is open (`open_console` folded it) and anything changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub console: Option<crate::ConsoleUpdate>,
}

/// What a turn's event channel carries: consecutive [`LiveEvent`]s in the
/// agent's order. Streamed text is held back for about a frame and sent
/// together, so a model streaming thousands of deltas a second costs the
/// webview one message a frame, not one a delta; any other event goes out
/// at once with the deltas before it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct LiveBatch {
    pub events: Vec<LiveEvent>,
}

/// A page of a session's transcript, oldest entry first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct TranscriptPage {
    /// [`crate::CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    pub session_id: SessionId,
    pub entries: Vec<TranscriptEntry>,
    /// Entries in the whole transcript, when the page was cut from a fold
    /// of the whole file; absent for a page folded from the file's tail,
    /// which does not read what lies before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub total: Option<u32>,
    /// The position of the first entry of this page in the whole
    /// transcript, known as `total` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub start: Option<u32>,
    /// The cursor of the next older page (`before` of `open_transcript`),
    /// when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub older: Option<String>,
    /// The entry showing `open_transcript`'s `at_item` (a message's own
    /// entry, the card of a tool call or output, a compaction's divider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub target: Option<String>,
    /// The plan the latest `update_plan` call of the folded records set:
    /// what the plan panel shows until a live card brings a newer one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub plan: Option<crate::Plan>,
}

/// A tool call's whole output, as the file holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ToolOutputText {
    pub call_id: String,
    pub output: String,
    pub chars: u64,
}
