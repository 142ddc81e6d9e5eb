//! What the debug console's commands return (docs/desktop-commands.md):
//! each compaction with the history just before and just after it, and each
//! round's exact request, both rebuilt by the core's replay of the session
//! file. Fields are snake_case, like the rest of the contract.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::items::{CompactionSummary, ResponseItem};
use crate::model::ModelRequest;
use crate::records::RoundRecord;
use crate::usage::TokenUsage;

/// One compaction as replay saw it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct CompactionView {
    /// The summary item, with its metadata (trigger, reason, token count,
    /// threshold, removed/kept counts, summarizer model and usage, duration).
    pub summary: CompactionSummary,
    /// The summary exactly as providers send it to the model (a user-role
    /// message: the fixed preamble, then the summary).
    pub summary_model_text: String,
    /// The position of the summary's record in the file (0 = session_meta).
    pub record_index: u32,
    /// When the summary record was written.
    pub ts: DateTime<Utc>,
    /// The model-visible history just before the compaction.
    pub before: Vec<ResponseItem>,
    /// The model-visible history just after: leading system/developer
    /// messages, the summary, the kept user messages.
    pub after: Vec<ResponseItem>,
    /// Positions in `before` of the items the compaction dropped.
    pub removed_indices: Vec<u32>,
    /// Estimates of `before` and `after`: a layered compaction's own, else
    /// the session's model's estimator, the gauge's (uncalibrated); shown as
    /// estimates, decisions use reported usage.
    pub estimated_tokens_before: u64,
    pub estimated_tokens_after: u64,
    /// Context tokens (input + output) the first round after the compaction
    /// reported, when one has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_context_tokens: Option<u64>,
}

/// One model round: its record and the exact request it sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct RoundView {
    /// 1-based position among the session's rounds.
    pub number: u32,
    /// The position of the round's record in the file (0 = session_meta).
    pub record_index: u32,
    /// When the request was first sent.
    pub ts: DateTime<Utc>,
    pub round: RoundRecord,
    /// The request: the history replayed up to the round record plus the
    /// record's model, tools, tool choice and output limit.
    pub request: ModelRequest,
    /// The usage the round reported, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// `usage`'s context tokens (input + output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// The estimate of the request's input the agent made when it sent it
    /// (the round record's, through its calibrated estimator), so the
    /// console can show how far estimates drift from the input tokens the
    /// provider then reported; absent when the record carries none (`base`
    /// sessions, older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_input_tokens: Option<u64>,
    /// Whether the record's `input_items` equals the replayed history's
    /// length at that point.
    pub input_consistent: bool,
}

/// A window of a session's rounds, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct RoundPage {
    /// Rounds in the whole session.
    pub total: u32,
    /// The 0-based position of `rounds[0]` among them.
    pub offset: u32,
    pub rounds: Vec<RoundView>,
}
