//! Issue 12's records: pins, the undo of a compaction and a fork's lineage,
//! plus the shapes the command contract returns for them. Each record stores
//! what was decided, so replay applies the stored result.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::{ItemId, SessionId};
use crate::items::CompactionTrigger;
use crate::usage::TokenUsage;

/// `item_pin` record: the person pinned (or unpinned) an item. Pinned items
/// survive every eviction and layered compaction verbatim (a pinned tool
/// output keeps its call with it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ItemPin {
    pub item_id: ItemId,
    /// `true` pins, `false` unpins.
    pub pinned: bool,
}

/// `compaction_undone` record: the history as it was just before the latest
/// compaction, plus everything appended since. `restored` is the resulting
/// history, by id, in order; replay rebuilds it from the items it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactionUndone {
    /// The summary item of the compaction undone.
    pub summary_item_id: ItemId,
    pub restored: Vec<ItemId>,
    /// Estimated tokens of the restored history (an estimate).
    pub estimated_tokens: u64,
    pub threshold: u64,
}

/// `compaction_refused` record: the rule check refused a layered
/// compaction (its summary was made, and paid for, but not committed)
/// because the result would have dropped what `dropped` names. It changes
/// nothing in the history; it keeps the refusal, and the summary call, in
/// the audit trail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactionRefused {
    pub trigger: CompactionTrigger,
    /// What the result would have dropped, one entry each.
    pub dropped: Vec<String>,
    pub message: String,
    /// What the refused summary's request cost, as the provider reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarizer_usage: Option<TokenUsage>,
}

/// Where a fork starts in its parent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ForkPoint {
    /// Right after this item (a function call's fork point includes its
    /// output, so no call is left unanswered).
    AtItem { item_id: ItemId },
    /// Just before compaction `number` (1-based, as `strata compactions`
    /// numbers them), with the original items, not the summary.
    BeforeCompaction { number: u32 },
}

/// `session_forked` record: written right after the copy of the parent's
/// records a fork's file begins with. It does not change the history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionForked {
    pub parent_session_id: SessionId,
    /// How many of the parent's records (session_meta included) were copied.
    pub parent_records: u32,
    pub point: ForkPoint,
}

/// One item ever recorded in a session, for `strata sessions show --json`
/// and the console's copyable ids.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RecordedItem {
    pub id: ItemId,
    /// `message`, `function_call`, `function_call_output`,
    /// `compaction_summary`, `reasoning` or `state_sheet`.
    pub kind: String,
    /// A message's role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Whether the model sees it now (verbatim, or as an eviction placeholder).
    pub in_context: bool,
    /// Whether it is in context only as an eviction placeholder.
    pub evicted: bool,
    pub pinned: bool,
    /// The first line, cut short, for a person to recognise it.
    pub preview: String,
}
