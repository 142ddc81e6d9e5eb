//! The model-visible history and the one function that folds records into it.
//!
//! The live loop and replay both hold their state in a [`History`] and change
//! it only through [`History::apply`], so "live equals replay" is one code path.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use strata_protocol::{ItemId, Record, RecordBody, ResponseItem, Role, TokenUsage};

use crate::compaction::{
    CompactionPlan, apply_compaction, apply_eviction, apply_layered_compaction,
};
pub use crate::undo_point::UndoPoint;

/// What the model sees, plus the last usage a round reported since the last
/// compaction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    items: Vec<ResponseItem>,
    last_usage: Option<TokenUsage>,
    /// How many items the history held when the last usage was reported:
    /// the items after it are what the pre-turn check estimates.
    items_at_last_usage: usize,
    /// Items the person pinned (`item_pin` records).
    pinned: BTreeSet<ItemId>,
    /// What the latest compaction replaced, for its undo.
    undo_point: Option<Arc<UndoPoint>>,
}

/// What applying one record did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// An item joined the history.
    Item,
    /// A compaction summary replaced the history.
    Compacted { removed: usize, kept: usize },
    /// Tool outputs were replaced by their placeholders.
    Evicted { outputs: usize },
    /// A round's usage became the last reported usage.
    Usage,
    /// A record replay does not fold into the history (turns, rounds, retries, ...).
    NotHistory,
    /// A pin was set or cleared.
    Pinned,
    /// An undo restored the history before the latest compaction.
    Restored { items: usize },
    /// The session's instructions were replaced (or added, or removed).
    Instructions,
    /// A record type this version does not know; counted and ignored.
    Unknown,
}

impl History {
    pub fn new() -> Self {
        Self::default()
    }

    /// A history holding these items and no reported usage.
    pub fn from_items(items: Vec<ResponseItem>) -> Self {
        Self {
            items,
            ..Self::default()
        }
    }

    /// Whether the person pinned this item.
    pub fn is_pinned(&self, id: ItemId) -> bool {
        self.pinned.contains(&id)
    }

    /// Every pinned item id (pins of items no longer in the history included).
    pub fn pinned(&self) -> &BTreeSet<ItemId> {
        &self.pinned
    }

    /// What undoing the latest compaction would start from; `None` when no
    /// compaction happened since the last undo.
    pub fn undo_point(&self) -> Option<&UndoPoint> {
        self.undo_point.as_deref()
    }

    fn remember_undo_point(&mut self, summary_item_id: ItemId, before: Vec<ResponseItem>) {
        self.undo_point = Some(Arc::new(UndoPoint::of(
            summary_item_id,
            before,
            self.items.len(),
        )));
    }

    /// Reads the undo point's items back from the session's `records` when
    /// a resume left it by reference ([`UndoPoint::resolve`]); the history
    /// itself does not change.
    pub fn resolve_undo_point(&mut self, records: &[Record]) -> Result<(), ItemId> {
        match self.undo_point.as_mut() {
            Some(point) if point.before().is_none() => Arc::make_mut(point).resolve(records),
            Some(_) | None => Ok(()),
        }
    }

    pub fn items(&self) -> &[ResponseItem] {
        &self.items
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The usage the last round reported, if any round reported since the last
    /// compaction.
    pub fn last_usage(&self) -> Option<&TokenUsage> {
        self.last_usage.as_ref()
    }

    /// How many items the history held when the last usage was reported
    /// (0 when none was).
    pub fn items_at_last_usage(&self) -> usize {
        self.items_at_last_usage
    }

    /// A history as a checkpoint stored it: its items, and the last usage
    /// with how many items the history held when it was reported.
    pub fn restored(items: Vec<ResponseItem>, last_usage: Option<(TokenUsage, usize)>) -> Self {
        let (last_usage, items_at_last_usage) = match last_usage {
            Some((usage, at)) => (Some(usage), at),
            None => (None, 0),
        };
        Self {
            items,
            last_usage,
            items_at_last_usage,
            ..Self::default()
        }
    }

    /// This history with the pins and undo point a checkpoint stored.
    pub fn with_recall_state(
        mut self,
        pinned: BTreeSet<ItemId>,
        undo_point: Option<UndoPoint>,
    ) -> Self {
        self.pinned = pinned;
        self.undo_point = undo_point.map(Arc::new);
        self
    }

    /// Forgets the last usage: it no longer describes the history.
    fn clear_usage(&mut self) {
        self.last_usage = None;
        self.items_at_last_usage = 0;
    }

    /// The items added since the last usage was reported (all of them when
    /// none was).
    pub fn items_since_last_usage(&self) -> &[ResponseItem] {
        match self.last_usage {
            Some(_) => &self.items[self.items_at_last_usage.min(self.items.len())..],
            None => &self.items,
        }
    }

    /// Folds one record in. Every change to a history goes through here.
    pub fn apply(&mut self, body: &RecordBody) -> Applied {
        match body {
            RecordBody::ResponseItem(ResponseItem::CompactionSummary(summary)) => {
                let plan = CompactionPlan::for_history(&self.items);
                let before = std::mem::take(&mut self.items);
                self.items = apply_compaction(&before, summary.clone());
                self.remember_undo_point(summary.id, before);
                self.clear_usage();
                Applied::Compacted {
                    removed: plan.removed(),
                    kept: plan.kept(),
                }
            }
            RecordBody::ResponseItem(item) => {
                self.items.push(item.clone());
                Applied::Item
            }
            RecordBody::TokenUsage(record) => {
                self.last_usage = Some(record.usage.clone());
                self.items_at_last_usage = self.items.len();
                Applied::Usage
            }
            // The stored placeholders replace the outputs by id; the figure
            // reported before no longer describes the history.
            RecordBody::ToolOutputsEvicted(eviction) => {
                let outputs = apply_eviction(&mut self.items, eviction);
                self.clear_usage();
                Applied::Evicted { outputs }
            }
            RecordBody::LayeredCompaction(compaction) => {
                let before = std::mem::take(&mut self.items);
                self.items = apply_layered_compaction(&before, compaction);
                let kept = compaction.leading.len() + compaction.kept.len();
                let removed = before.len().saturating_sub(kept);
                self.remember_undo_point(compaction.summary.id, before);
                self.clear_usage();
                Applied::Compacted { removed, kept }
            }
            // Where the instructions stand, so every compaction keeps
            // them as it keeps the first ones.
            RecordBody::InstructionsSet(set) => {
                set_instructions(&mut self.items, set.item.as_ref());
                self.clear_usage();
                Applied::Instructions
            }
            RecordBody::ItemPin(pin) => {
                if pin.pinned {
                    self.pinned.insert(pin.item_id);
                } else {
                    self.pinned.remove(&pin.item_id);
                }
                Applied::Pinned
            }
            // The stored ids, each found among the items before the
            // compaction or appended since: the record's result, applied.
            RecordBody::CompactionUndone(undone) => {
                let Some(point) = self.undo_point.take() else {
                    return Applied::NotHistory;
                };
                // Never without its items: an undo resolves them first, and
                // a tail read holding this record after a checkpoint that
                // keeps the point by reference replays the whole file.
                let mut by_id: HashMap<ItemId, ResponseItem> = point
                    .before()
                    .unwrap_or_default()
                    .iter()
                    .map(|item| (item.id(), item.clone()))
                    .collect();
                for item in self.items.iter().skip(point.len_after) {
                    by_id.insert(item.id(), item.clone());
                }
                self.items = undone
                    .restored
                    .iter()
                    .filter_map(|id| by_id.get(id).cloned())
                    .collect();
                self.clear_usage();
                Applied::Restored {
                    items: self.items.len(),
                }
            }
            RecordBody::Unknown(_) => Applied::Unknown,
            RecordBody::SessionMeta(_)
            | RecordBody::Round(_)
            | RecordBody::TurnStarted(_)
            | RecordBody::TurnFinished(_)
            | RecordBody::Retry(_)
            | RecordBody::Error(_)
            | RecordBody::ApprovalDecision(_)
            | RecordBody::TitleSet(_)
            | RecordBody::FullToolOutput(_)
            | RecordBody::ProfileSet(_)
            | RecordBody::CompactionPolicy(_)
            | RecordBody::CompactionGuard(_)
            | RecordBody::SessionForked(_)
            | RecordBody::SessionImported(_)
            | RecordBody::CompactionRefused(_)
            | RecordBody::SessionRepaired(_)
            | RecordBody::ReasoningSet(_)
            | RecordBody::SandboxSet(_)
            | RecordBody::FileChange(_)
            | RecordBody::McpCatalog(_)
            // A checkpoint repeats the history it follows; resuming starts
            // from it, and `verify` checks it, but it changes nothing.
            | RecordBody::Checkpoint(_) => Applied::NotHistory,
        }
    }

    /// Function calls that have no output yet, in history order. An output
    /// answers the oldest unanswered call with its `call_id`: providers and
    /// the demo model may reuse an id in a later round.
    pub fn pending_call_ids(&self) -> Vec<String> {
        let mut unanswered: Vec<(usize, &str)> = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            match item {
                ResponseItem::FunctionCall(call) => unanswered.push((index, &call.call_id)),
                ResponseItem::FunctionCallOutput(output) => {
                    if let Some(at) = unanswered.iter().position(|(_, id)| *id == output.call_id) {
                        unanswered.remove(at);
                    }
                }
                ResponseItem::Message(_)
                | ResponseItem::CompactionSummary(_)
                | ResponseItem::Reasoning(_) => {}
            }
        }
        unanswered
            .into_iter()
            .map(|(_, id)| id.to_owned())
            .collect()
    }
}

/// The text of the session's instructions: the developer message among the
/// leading items (after the system prompt), if there is one.
pub fn leading_instructions(items: &[ResponseItem]) -> Option<&str> {
    items
        .iter()
        .take_while(|item| is_leading(item))
        .find_map(|item| match item {
            ResponseItem::Message(message) if message.role == Role::Developer => {
                Some(message.content.as_str())
            }
            _ => None,
        })
}

fn is_leading(item: &ResponseItem) -> bool {
    item.is_message_with_role(Role::System) || item.is_message_with_role(Role::Developer)
}

/// Puts `item` where the instructions stand: in place of the leading
/// developer message, else right after the leading system messages; `None`
/// removes the leading developer message.
fn set_instructions(items: &mut Vec<ResponseItem>, item: Option<&ResponseItem>) {
    let leading = items.iter().take_while(|item| is_leading(item)).count();
    let current = items[..leading]
        .iter()
        .position(|item| item.is_message_with_role(Role::Developer));
    match (current, item) {
        (Some(index), Some(item)) => items[index] = item.clone(),
        (Some(index), None) => {
            items.remove(index);
        }
        (None, Some(item)) => items.insert(leading, item.clone()),
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use strata_protocol::{TokenUsageRecord, TurnId, TurnStarted, UnknownRecord};

    use super::*;
    use crate::compaction::test_support::summary_item;

    fn usage(input: u64) -> RecordBody {
        RecordBody::TokenUsage(TokenUsageRecord {
            round_id: None,
            cost: None,
            price: None,
            usage: TokenUsage {
                input_tokens: Some(input),
                ..TokenUsage::default()
            },
        })
    }

    #[test]
    fn items_are_pushed_in_order() {
        let mut history = History::new();
        let first = ResponseItem::user("one");
        let second = ResponseItem::assistant("two");
        assert_eq!(
            history.apply(&RecordBody::ResponseItem(first.clone())),
            Applied::Item
        );
        assert_eq!(
            history.apply(&RecordBody::ResponseItem(second.clone())),
            Applied::Item
        );
        assert_eq!(history.items(), &[first, second]);
    }

    #[test]
    fn usage_is_remembered_until_a_compaction_clears_it() {
        let mut history = History::new();
        history.apply(&RecordBody::ResponseItem(ResponseItem::system("sys")));
        history.apply(&RecordBody::ResponseItem(ResponseItem::user("hi")));
        history.apply(&RecordBody::ResponseItem(ResponseItem::assistant("hello")));
        assert_eq!(history.apply(&usage(100)), Applied::Usage);
        assert_eq!(
            history.last_usage().and_then(TokenUsage::context_tokens),
            Some(100)
        );
        let applied = history.apply(&RecordBody::ResponseItem(summary_item("digest")));
        assert_eq!(
            applied,
            Applied::Compacted {
                removed: 1,
                kept: 2
            }
        );
        assert_eq!(history.last_usage(), None);
        assert_eq!(history.len(), 3);
    }

    #[test]
    fn non_history_and_unknown_records_leave_the_history_alone() {
        let mut history = History::from_items(vec![ResponseItem::user("hi")]);
        let before = history.clone();
        let turn = RecordBody::TurnStarted(TurnStarted {
            turn_id: TurnId::new(),
        });
        assert_eq!(history.apply(&turn), Applied::NotHistory);
        let unknown = RecordBody::Unknown(UnknownRecord {
            record_type: "future".into(),
            payload: serde_json::Value::Null,
        });
        assert_eq!(history.apply(&unknown), Applied::Unknown);
        assert_eq!(history, before);
    }

    #[test]
    fn pending_call_ids_lists_calls_without_outputs() {
        let history = History::from_items(vec![
            ResponseItem::function_call("a", "read_file", "{}"),
            ResponseItem::function_call("b", "read_file", "{}"),
            ResponseItem::function_call_output("a", "ok"),
        ]);
        assert_eq!(history.pending_call_ids(), vec!["b".to_string()]);
    }

    #[test]
    fn a_reused_call_id_is_pending_until_its_own_output_arrives() {
        let history = History::from_items(vec![
            ResponseItem::function_call("call_0", "read_file", "{}"),
            ResponseItem::function_call_output("call_0", "first"),
            ResponseItem::function_call("call_0", "run_shell", "{}"),
        ]);
        assert_eq!(history.pending_call_ids(), vec!["call_0".to_string()]);
    }
}
