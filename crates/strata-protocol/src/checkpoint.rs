//! The `checkpoint` record: the state a replay of the file has reached,
//! written right after every record that replaces the history (a base or
//! layered compaction; an undo, a partial compaction, the start of a fork).
//! Resuming reads the file backwards to the last checkpoint and replays
//! only what follows it; `strata sessions verify` replays the whole file and
//! checks every checkpoint against it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::context::{CompactionPolicyRecord, StateSheet};
use crate::ids::ItemId;
use crate::imported::SessionImported;
use crate::items::ResponseItem;
use crate::mcp_catalog::McpCatalog;
use crate::provider::ProfileSet;
use crate::reasoning::ReasoningEffort;
use crate::recall::SessionForked;
use crate::records::CompactionSpan;
use crate::sandbox::{SandboxMode, SandboxNetwork};
use crate::usage::TokenUsage;

/// What a replay of every record before this one holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct Checkpoint {
    /// The model-visible history, item for item.
    pub history: Vec<ResponseItem>,
    /// The last usage reported since the history was last replaced (none
    /// right after a compaction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_usage: Option<CheckpointUsage>,
    /// Everything else replay carries beside the history.
    pub state: CheckpointState,
}

/// A usage and how many items the history held when it was reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CheckpointUsage {
    pub usage: TokenUsage,
    pub items: u64,
}

/// The title, profile, policy and counts of a replay. Counts are of the
/// records before the checkpoint (the checkpoint itself excluded).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct CheckpointState {
    /// Records folded, session_meta included.
    pub records: u64,
    /// `response_item` records folded (summaries included).
    pub response_items: u64,
    pub compactions: u64,
    pub evictions: u64,
    pub unknown_records: u64,
    pub inconsistent_rounds: u64,
    /// The last non-blank `title_set`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explicit_title: Option<String>,
    /// The first user message, shortened to a title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_title: Option<String>,
    /// The last `profile_set`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileSet>,
    /// The last `compaction_policy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<CompactionPolicyRecord>,
    /// The last `reasoning_set`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningEffort>,
    /// The last `sandbox_set`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
    /// The last `sandbox_set`'s network (off when it named none).
    #[serde(default, skip_serializing_if = "SandboxNetwork::is_off")]
    #[ts(as = "Option<SandboxNetwork>", optional)]
    pub sandbox_network: SandboxNetwork,
    /// The last `sandbox_set`'s allowed domains.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub sandbox_allow_domains: Vec<String>,
    /// The last `mcp_catalog`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_catalog: Option<McpCatalog>,
    /// The model of the last `round`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_round_model: Option<String>,
    /// The last stable prefix the last `round` announced for caching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_cache_anchor: Option<u32>,
    /// A `profile_set` switching the session to another profile came after
    /// the last `round`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub switched_since_round: bool,
    /// The sheet of the last layered compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_state_sheet: Option<StateSheet>,
    /// The layered guards: summaries that failed in a row since the last
    /// summary or circuit reset.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub summary_failures_in_a_row: u32,
    /// The message of the last of those failed summaries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_summary_failure: Option<String>,
    /// The layered guards: the last item of the history a compaction left
    /// at the ineffective level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ineffective_at: Option<ItemId>,
    /// The layered guards: the span of the last summary the rule check
    /// refused, until a compaction or circuit reset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused_span: Option<CompactionSpan>,
    /// `compaction_undone` records folded.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub undos: u64,
    /// The items the person pinned (`item_pin`), in id order; pins of items
    /// no longer in the history included.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<ItemId>,
    /// What undoing the latest compaction would start from, by reference
    /// to the records before it; absent when no compaction happened since
    /// the last undo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_ref: Option<CheckpointUndoRef>,
    /// The same, item for item, as checkpoints written before `undo_ref`
    /// stored it: still read, no longer written (it made the checkpoint
    /// after a compaction several times the size of the history).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_point: Option<CheckpointUndoPoint>,
    /// The parent, when the session is a fork (its `session_forked`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<SessionForked>,
    /// The other tool's session this one continues (its `session_imported`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub imported_from: Option<SessionImported>,
    /// The estimate the last eviction, layered compaction or undo recorded
    /// of the history it left, while no round has reported since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_tokens: Option<u64>,
}

/// The history just before the latest compaction, by reference: every item
/// is in a record before the compaction, so the checkpoint stores ids and
/// which outputs were evicted, and an undo reads the items back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CheckpointUndoRef {
    /// The summary item of that compaction.
    pub summary_item_id: ItemId,
    /// The ids of the history just before it, in order: each the
    /// `response_item` first written with that id, or the summary or sheet
    /// message of a `layered_compaction`.
    pub before: Vec<ItemId>,
    /// Of those, the tool outputs the model saw as their placeholder (the
    /// last `tool_outputs_evicted` naming them before the compaction).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evicted: Vec<ItemId>,
    /// How long the history was right after it: items past that length were
    /// appended since.
    pub len_after: u64,
}

/// The history just before the latest compaction, item for item, as
/// checkpoints written before [`CheckpointUndoRef`] stored it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct CheckpointUndoPoint {
    /// The summary item of that compaction.
    pub summary_item_id: ItemId,
    /// The history just before it, item for item.
    pub before: Vec<ResponseItem>,
    /// How long the history was right after it: items past that length were
    /// appended since.
    pub len_after: u64,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

fn is_zero_u64(count: &u64) -> bool {
    *count == 0
}

/// A checkpoint that disagrees with the replay of the records before it
/// (`strata sessions verify`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct CheckpointDivergence {
    /// Which checkpoint of the file, counting from 1.
    pub checkpoint: u32,
    /// The checkpoint's line in the file, counting from 1.
    pub line: u64,
    /// What differs first: `history`, `last_usage`, or `state.<field>`.
    pub field: String,
    /// For `history`: the index of the first item that differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<u64>,
    /// That item (or usage) as the replay has it: kind and id; absent when
    /// the replay has none there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed: Option<String>,
    /// The same as the checkpoint stores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<String>,
}
