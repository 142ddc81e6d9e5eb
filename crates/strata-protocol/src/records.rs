//! The session file: one JSON object per line, each a [`Record`].
//!
//! ```text
//! {"v":1,"ts":"2026-11-29T19:09:16.123Z","type":"response_item","payload":{...}}
//! ```
//!
//! Records of a type this version does not know (written by a newer Strata)
//! are kept as [`RecordBody::Unknown`]: they survive a round trip verbatim and
//! replay counts and ignores them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::checkpoint::Checkpoint;
use crate::context::{CompactionPolicyRecord, LayeredCompaction, ToolOutputsEvicted};
use crate::file_change::FileChange;
use crate::ids::{ItemId, RoundId, SessionId, TurnId};
use crate::imported::SessionImported;
use crate::instructions::InstructionsSet;
use crate::items::{CompactionTrigger, ResponseItem};
use crate::mcp_catalog::McpCatalog;
use crate::model::{ModelError, ToolChoice, ToolSpec};
use crate::pricing::{Cost, ModelPrice};
use crate::provider::ProfileSet;
use crate::reasoning::{ReasoningEffort, ReasoningSet};
use crate::recall::{CompactionRefused, CompactionUndone, ItemPin, SessionForked};
use crate::rules::{DecidedBy, RuleRef};
use crate::sandbox::SandboxSet;
use crate::usage::TokenUsage;

/// The newest record format this version writes: 2 added the recorded
/// profile (`profile_set`) and the layered context records
/// (`compaction_policy`, `tool_outputs_evicted`, `layered_compaction`); 3
/// added pins (`item_pin`), undo (`compaction_undone`), forks
/// (`session_forked`) and `checkpoint`; 4 added the rule check's refusals
/// (`compaction_refused`); 5 added the repairs of a reopened session
/// (`session_repaired`); 6 added the reasoning setting (`reasoning_set`); 7
/// added the sandbox mode (`sandbox_set`); 8 added the recorded file changes
/// (`file_change`); 9 added the MCP tool catalog (`mcp_catalog`); 10 added
/// the instructions re-read at a resume (`instructions_set`); 11 added the
/// lineage of a session continued from another tool's (`session_imported`).
pub const RECORD_FORMAT_VERSION: u32 = 11;

/// The format of the records the first version defined; they are still
/// written with it, so a session that uses none of the newer types is
/// exactly what the first version wrote.
pub const FIRST_RECORD_FORMAT_VERSION: u32 = 1;

/// One line of a session file.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Format version of the writer.
    pub v: u32,
    pub ts: DateTime<Utc>,
    pub body: RecordBody,
}

impl Record {
    /// A record stamped now with the format version its type needs.
    pub fn now(body: RecordBody) -> Self {
        Self {
            v: body.format_version(),
            ts: Utc::now(),
            body,
        }
    }
}

/// The TypeScript shape of a [`Record`] (named `SessionRecord` there, as
/// `Record` is a TypeScript built-in): the envelope's `v` and `ts` beside the
/// body's `type` and `payload`. It only exists to generate the bindings;
/// [`Record`]'s own serde implementation is the wire format.
#[derive(TS)]
#[ts(rename = "SessionRecord")]
#[allow(dead_code)]
pub(crate) struct SessionRecordTs {
    v: u32,
    ts: DateTime<Utc>,
    #[ts(flatten)]
    body: RecordBody,
}

/// What a record says. The variant name, in snake_case, is the record's `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum RecordBody {
    /// The first record of every session.
    SessionMeta(SessionMeta),
    /// An item committed to the model-visible history.
    ResponseItem(ResponseItem),
    /// A model round: with the history replayed up to this record it rebuilds
    /// the exact request.
    Round(RoundRecord),
    /// Usage the provider reported for a round.
    TokenUsage(TokenUsageRecord),
    TurnStarted(TurnStarted),
    TurnFinished(TurnFinished),
    Retry(RetryRecord),
    Error(ErrorRecord),
    ApprovalDecision(ApprovalDecisionRecord),
    /// A (re)naming of the session; the last one wins.
    TitleSet(TitleSet),
    /// The full text of a tool output whose history item was capped.
    FullToolOutput(FullToolOutput),
    /// The provider profile the session talks to from here on: written at
    /// creation and at every explicit switch; the last one wins.
    ProfileSet(ProfileSet),
    /// The session's compaction policy from here on.
    CompactionPolicy(CompactionPolicyRecord),
    /// Older tool outputs replaced by placeholders (layered policy).
    ToolOutputsEvicted(ToolOutputsEvicted),
    /// A summary with its state sheet (layered policy).
    LayeredCompaction(Box<LayeredCompaction>),
    /// What the layered policy's guards saw (a failed summary, the person
    /// re-enabling automatic compaction), so replay restores them.
    CompactionGuard(CompactionGuardRecord),
    /// The person pinned or unpinned an item.
    ItemPin(ItemPin),
    /// The latest compaction undone: the history before it plus what came after.
    CompactionUndone(CompactionUndone),
    /// This session is a fork; the records before this one are its parent's.
    SessionForked(SessionForked),
    /// The state a replay of every earlier record holds, written right after
    /// each record that replaces the history: resuming starts from the last.
    Checkpoint(Box<Checkpoint>),
    /// The rule check refused a layered compaction; nothing else changed.
    CompactionRefused(CompactionRefused),
    /// What reopening the session for writing repaired.
    SessionRepaired(SessionRepaired),
    /// The session's reasoning setting from here on; the last one wins.
    ReasoningSet(ReasoningSet),
    /// The session's sandbox mode from here on; the last one wins.
    SandboxSet(SandboxSet),
    /// A file in the workspace a tool or a restore changed.
    FileChange(FileChange),
    /// The MCP tools offered from here on, with their servers; the last one
    /// wins.
    McpCatalog(McpCatalog),
    /// The instruction files re-read and found changed.
    InstructionsSet(InstructionsSet),
    /// This session continues another tool's session.
    SessionImported(SessionImported),
    /// A record type from a newer version, kept verbatim.
    #[serde(skip)]
    Unknown(UnknownRecord),
}

impl RecordBody {
    /// Every record type this version understands.
    pub const KNOWN_TYPES: &'static [&'static str] = &[
        "session_meta",
        "response_item",
        "round",
        "token_usage",
        "turn_started",
        "turn_finished",
        "retry",
        "error",
        "approval_decision",
        "title_set",
        "full_tool_output",
        "profile_set",
        "compaction_policy",
        "tool_outputs_evicted",
        "layered_compaction",
        "compaction_guard",
        "item_pin",
        "compaction_undone",
        "session_forked",
        "checkpoint",
        "compaction_refused",
        "session_repaired",
        "reasoning_set",
        "sandbox_set",
        "file_change",
        "mcp_catalog",
        "instructions_set",
        "session_imported",
    ];

    /// The format version that introduced this record's type.
    pub fn format_version(&self) -> u32 {
        match self {
            RecordBody::ProfileSet(_)
            | RecordBody::CompactionPolicy(_)
            | RecordBody::ToolOutputsEvicted(_)
            | RecordBody::LayeredCompaction(_)
            | RecordBody::CompactionGuard(_) => 2,
            RecordBody::ItemPin(_)
            | RecordBody::CompactionUndone(_)
            | RecordBody::SessionForked(_)
            | RecordBody::Checkpoint(_) => 3,
            RecordBody::CompactionRefused(_) => 4,
            RecordBody::SessionRepaired(_) => 5,
            RecordBody::ReasoningSet(_) => 6,
            RecordBody::SandboxSet(_) => 7,
            RecordBody::FileChange(_) => 8,
            RecordBody::McpCatalog(_) => 9,
            RecordBody::InstructionsSet(_) => 10,
            RecordBody::SessionImported(_) => 11,
            RecordBody::SessionMeta(_)
            | RecordBody::ResponseItem(_)
            | RecordBody::Round(_)
            | RecordBody::TokenUsage(_)
            | RecordBody::TurnStarted(_)
            | RecordBody::TurnFinished(_)
            | RecordBody::Retry(_)
            | RecordBody::Error(_)
            | RecordBody::ApprovalDecision(_)
            | RecordBody::TitleSet(_)
            | RecordBody::FullToolOutput(_)
            | RecordBody::Unknown(_) => FIRST_RECORD_FORMAT_VERSION,
        }
    }

    /// The record's `type` on the wire.
    pub fn type_name(&self) -> &str {
        match self {
            RecordBody::SessionMeta(_) => "session_meta",
            RecordBody::ResponseItem(_) => "response_item",
            RecordBody::Round(_) => "round",
            RecordBody::TokenUsage(_) => "token_usage",
            RecordBody::TurnStarted(_) => "turn_started",
            RecordBody::TurnFinished(_) => "turn_finished",
            RecordBody::Retry(_) => "retry",
            RecordBody::Error(_) => "error",
            RecordBody::ApprovalDecision(_) => "approval_decision",
            RecordBody::TitleSet(_) => "title_set",
            RecordBody::FullToolOutput(_) => "full_tool_output",
            RecordBody::ProfileSet(_) => "profile_set",
            RecordBody::CompactionPolicy(_) => "compaction_policy",
            RecordBody::ToolOutputsEvicted(_) => "tool_outputs_evicted",
            RecordBody::LayeredCompaction(_) => "layered_compaction",
            RecordBody::CompactionGuard(_) => "compaction_guard",
            RecordBody::ItemPin(_) => "item_pin",
            RecordBody::CompactionUndone(_) => "compaction_undone",
            RecordBody::SessionForked(_) => "session_forked",
            RecordBody::Checkpoint(_) => "checkpoint",
            RecordBody::CompactionRefused(_) => "compaction_refused",
            RecordBody::SessionRepaired(_) => "session_repaired",
            RecordBody::ReasoningSet(_) => "reasoning_set",
            RecordBody::SandboxSet(_) => "sandbox_set",
            RecordBody::FileChange(_) => "file_change",
            RecordBody::McpCatalog(_) => "mcp_catalog",
            RecordBody::InstructionsSet(_) => "instructions_set",
            RecordBody::SessionImported(_) => "session_imported",
            RecordBody::Unknown(unknown) => &unknown.record_type,
        }
    }
}

/// `compaction_guard` record (layered policy). Replay derives the guards
/// from these and the compaction records alone: consecutive failed
/// summaries since the last summary or reset (three open the
/// auto-compaction circuit), and whether the history was left at 90% of the
/// threshold or more (not compacted again automatically until it grows).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CompactionGuardRecord {
    /// A layered summary failed after all its attempts; nothing else of the
    /// compaction was written.
    SummaryFailed {
        trigger: CompactionTrigger,
        attempts: u32,
        message: String,
        /// The estimate of the history after the failure, and the threshold
        /// it was compared with.
        estimated_tokens: u64,
        threshold: u64,
    },
    /// The rule check refused a layered summary (the `compaction_refused`
    /// record before this one keeps what it would have dropped). Counts
    /// toward the circuit as a failed summary does, and names the span, so
    /// the same compaction is not summarised (and paid for) again.
    SummaryRefused {
        trigger: CompactionTrigger,
        message: String,
        span: CompactionSpan,
        /// The estimate of the history after the refusal, and the threshold
        /// it was compared with.
        estimated_tokens: u64,
        threshold: u64,
    },
    /// The person re-enabled automatic compaction after the circuit opened.
    CircuitReset,
}

/// The items a layered summary would replace, named by the first and last
/// of them (ids sort by time) and their count: the same three figures mean
/// the same plan over the same history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactionSpan {
    pub first: ItemId,
    pub last: ItemId,
    pub items: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionMeta {
    pub session_id: SessionId,
    pub created_at: DateTime<Utc>,
    /// The folder the agent works in.
    pub workspace: String,
    pub provider_kind: String,
    pub model: String,
    pub strata_version: String,
}

/// `session_repaired` record: what reopening a session for writing found
/// and repaired, written right after the repairs, so every transcript (the
/// command line's and the app's) says so where it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionRepaired {
    /// The file ended in an unfinished line (a write a crash interrupted):
    /// its bytes were moved aside into a file next to the session's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub torn_tail: Option<TornTailMoved>,
    /// Function calls of an earlier run that never got their output; each
    /// got an aborted one (in history order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aborted_calls: Vec<String>,
}

/// A torn trailing line moved aside.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TornTailMoved {
    pub bytes: u64,
    /// The name of the file it was moved to, beside the session file.
    pub sidecar: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct RoundRecord {
    pub turn_id: TurnId,
    pub round_id: RoundId,
    pub provider_kind: String,
    pub model: String,
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// How many history items were sent; replay checks it against its own.
    pub input_items: u32,
    /// The agent's estimate of the request's input tokens when it sent it
    /// (its token estimator, calibrated against the last reported usage),
    /// so the console shows how far estimates drift from what the provider
    /// then reported. Absent in `base` sessions, which write today's
    /// records exactly, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_input_tokens: Option<u64>,
    /// The reasoning setting the request carried; absent when none was set
    /// and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reasoning: Option<ReasoningEffort>,
    /// The stable prefixes the request announced for caching (items before
    /// each index), so a resumed session marks the last one again and its
    /// first round reads the cache the previous round wrote. Absent in
    /// `base` sessions, when none was announced, and in older files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<u32>>", optional)]
    pub cache_anchors: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TokenUsageRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_id: Option<RoundId>,
    pub usage: TokenUsage,
    /// What the round cost at the price the session used then, with that
    /// price's date, so a later price-table change never rewrites history.
    /// Absent for a model without a price, and in files written before it
    /// existed (readers then price them at today's table, which says its
    /// date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<Cost>,
    /// The rates `cost` was computed at: what the console prices the cache a
    /// compaction gave up and saved by, so a profile's own price (which the
    /// built-in table does not know) is used there too. Absent where `cost`
    /// is, and in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub price: Option<ModelPrice>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TurnStarted {
    pub turn_id: TurnId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TurnOutcome {
    Completed,
    Cancelled,
    Failed,
    /// The turn stopped at the round limit with tool calls still coming.
    RoundLimit,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TurnFinished {
    pub turn_id: TurnId,
    pub outcome: TurnOutcome,
    pub rounds: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RetryRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_id: Option<RoundId>,
    pub attempt: u32,
    pub of: u32,
    pub delay_ms: u64,
    pub cause: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ErrorRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<TurnId>,
    pub message: String,
    /// The classified model error, when the failure came from the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_error: Option<ModelError>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    AllowOnce,
    AllowForSession,
    /// "Always allow": the rules the request proposed were saved to the
    /// workspace's rules file (and the call allowed); later matching
    /// commands run by those rules.
    AlwaysAllow,
    Deny,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApprovalDecisionRecord {
    pub call_id: String,
    pub tool: String,
    pub decision: ApprovalDecision,
    /// Who decided; absent (the person) in files written before rules.
    #[serde(default, skip_serializing_if = "DecidedBy::is_person")]
    #[ts(as = "Option<DecidedBy>", optional)]
    pub by: DecidedBy,
    /// The rules that made the decision (or made the call ask): every
    /// part's allow rule for a compound command, the deny rule that
    /// refused it. Empty when no rule applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<RuleRef>>", optional)]
    pub rules: Vec<RuleRef>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TitleSet {
    pub title: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FullToolOutput {
    pub call_id: String,
    /// The capped history item this is the full text of.
    pub item_id: ItemId,
    pub output: String,
}

/// A record of a type this version does not know.
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownRecord {
    pub record_type: String,
    pub payload: serde_json::Value,
}

mod wire;

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
