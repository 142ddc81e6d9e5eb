//! The command line's own `--json` objects (docs/cli-json.md): each
//! top-level object carries the contract's format version `v`
//! ([`CONTRACT_FORMAT_VERSION`](crate::CONTRACT_FORMAT_VERSION)) and a
//! `kind`; the command line also prints the contract's [`SessionPage`]
//! (`sessions list`) and the agent's event envelopes. Fields are snake_case,
//! as everywhere; unknown fields are refused when parsing, so a test notices
//! any drift between what is printed and these types.
//!
//! [`SessionPage`]: crate::SessionPage

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::context::{CompactionPolicy, CompactionPreview};
use crate::ids::{ItemId, SessionId};
use crate::items::{CompactionSummary, ResponseItem};
use crate::pricing::Cost;
use crate::provider::{ProfileSet, ProviderKind};
use crate::tools::ApprovalPolicy;
use crate::usage::TokenUsage;

/// What a line of the command line's `--json` output is, when it is not an
/// event envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum OutputKind {
    SessionStarted,
    SessionDeleted,
    CompactFinished,
    CompactPreview,
    Context,
    Compactions,
    /// `strata sessions show --json` (the contract's `session_items`).
    SessionItems,
    /// `strata pin|unpin --json` (`pin_item`).
    ItemPinned,
    /// `strata compact --undo --json` (`undo_compaction`).
    CompactionUndone,
    /// `strata fork --json` (`fork_session`).
    SessionForked,
    /// `strata fork --with-files … --dry-run --json` (`preview_fork`).
    ForkPreview,
    /// `strata eval compaction --json`.
    CompactionEval,
    /// `strata changes --json`.
    FileChanges,
    /// `strata restore --json`.
    Restore,
    /// `strata rules list|add|remove --json`.
    Rules,
    /// `strata mcp list|get|add|remove|enable|disable --json`.
    McpServers,
    /// `strata mcp test --json`.
    McpTest,
    /// `strata mcp import --json`.
    McpImport,
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

/// `strata context S --json`: the model-visible history after replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionContext {
    pub v: u32,
    /// Always `context`.
    pub kind: OutputKind,
    pub session_id: SessionId,
    /// The context size the provider last reported, when a round reported
    /// usage since the last compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// When a compaction step replaced the history since the last report:
    /// the estimate of the new history it recorded (the figure the app's
    /// gauge shows), an estimate, not a report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_tokens: Option<u64>,
    /// What the model is sent next, in order.
    pub items: Vec<ResponseItem>,
}

/// `strata compactions S --json`: every compaction of the session, oldest
/// first (base summaries and layered ones alike).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CompactionList {
    pub v: u32,
    /// Always `compactions`.
    pub kind: OutputKind,
    pub session_id: SessionId,
    pub compactions: Vec<CompactionEntry>,
}

/// One compaction: when its record was written, and its summary item as
/// the session file and the desktop's views hold it (`id`, `summary`,
/// `metadata`: trigger, reason, tokens, threshold, removed, kept,
/// summarizer, duration).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CompactionEntry {
    pub at: DateTime<Utc>,
    pub summary: CompactionSummary,
    /// The summary's start, on one line.
    pub summary_excerpt: String,
    /// What the summary call cost, when it had a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<CostOutput>,
}

/// A cost in the CLI's `--json` outputs: dollars as a number (converted
/// once from the exact integer), the exact pico-dollars, and the date of
/// the prices used (`config` for a profile's own price).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CostOutput {
    pub cost_usd: f64,
    pub cost_pico_usd: u64,
    pub price_as_of: String,
}

impl From<&crate::Cost> for CostOutput {
    fn from(cost: &crate::Cost) -> Self {
        CostOutput {
            cost_usd: cost.usd.as_dollars_f64(),
            cost_pico_usd: cost.usd.pico(),
            price_as_of: cost.price_as_of.clone(),
        }
    }
}

/// How a `strata compact` ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CompactResult {
    /// The summary replaced the history.
    Compacted,
    /// Compacting would remove nothing.
    NothingToCompact,
    /// No summary could be made; nothing was written.
    SummaryFailed,
    /// The rule check refused the summary (it would drop a rule); nothing
    /// was written.
    Refused,
    /// Stopped before a summary arrived; nothing was written.
    Cancelled,
}

/// The last line of `strata compact --json`. The optional fields belong to
/// one outcome each: `summary_item_id`, `removed`, `kept` to `compacted`;
/// `items` to `nothing_to_compact`; `attempts`, `message` to
/// `summary_failed`; `dropped`, `message` to `refused`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CompactFinished {
    pub v: u32,
    /// Always `compact_finished`.
    pub kind: OutputKind,
    pub session_id: SessionId,
    pub outcome: CompactResult,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_item_id: Option<ItemId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<u32>,
    /// The history's length, which compacting would keep whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What a refused summary would have dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<Vec<String>>,
}

/// `strata compact S --preview --json`: what a compaction would do now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CompactPreview {
    pub v: u32,
    /// Always `compact_preview`.
    pub kind: OutputKind,
    pub session_id: SessionId,
    pub preview: CompactionPreview,
}

/// `strata eval compaction --json`: a recorded long session compacted under
/// each policy by a real model, then asked the probe questions; each answer
/// scored by the planted facts it names. An opt-in measurement: nothing
/// asserts the scores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CompactionEval {
    pub v: u32,
    /// Always `compaction_eval`.
    pub kind: OutputKind,
    pub provider_kind: ProviderKind,
    pub model: String,
    /// The recorded session replayed (a copy of it; the original is embedded
    /// in the binary).
    pub fixture: EvalFixture,
    /// One entry per policy, `base` then `layered`.
    pub policies: Vec<PolicyEval>,
    /// Model requests made in all: summaries (with their retries) and probes.
    pub requests: u32,
    /// The usage the provider reported for them, summed (fields it never
    /// reported stay absent).
    pub usage: TokenUsage,
    /// What that usage cost at the profile's price (its own, else the
    /// built-in table's), with the price's date; absent when neither prices
    /// the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// The recorded session an evaluation replays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct EvalFixture {
    pub session_id: SessionId,
    /// `round` records: model requests the recorded session made.
    pub rounds: u32,
    /// Items in its history before the compaction.
    pub items: u32,
    /// An estimate of that history's tokens (the model's tokenizer where
    /// known, else characters ÷ 4).
    pub estimated_tokens: u64,
}

/// One policy's compaction and the answers after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct PolicyEval {
    pub policy: CompactionPolicy,
    pub outcome: CompactResult,
    /// Why the compaction did not happen, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Items in the compacted history, and an estimate of its tokens.
    pub history_items: u32,
    pub estimated_tokens: u64,
    pub probes: Vec<ProbeScore>,
    /// Required facts found, over all probes, and how many there are.
    pub score: u32,
    pub max_score: u32,
    /// Requests this policy made (the summary with its retries, the probes).
    pub requests: u32,
    pub usage: TokenUsage,
    /// What this policy's requests cost (see [`CompactionEval::cost`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// One probe question, the facts its answer must name, and what it named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct ProbeScore {
    /// `task`, `files_changed`, `failed`, `next_step`.
    pub probe: String,
    pub question: String,
    /// Each required text (matched ignoring case) and whether the answer
    /// holds it.
    pub required: Vec<String>,
    pub found: Vec<String>,
    /// The model's answer, verbatim (hostile text: escape it to show it).
    pub answer: String,
    /// The request's failure, when it failed (then `answer` is empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
}
