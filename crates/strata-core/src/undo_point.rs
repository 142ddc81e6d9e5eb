//! What undoing the latest compaction starts from: the history just before
//! it. Every item of that history is in a record before the compaction (a
//! `response_item`, a layered summary or sheet message, an eviction's
//! placeholder), so a checkpoint stores only the ids and which outputs were
//! evicted; after a resume the items are read back from the file when an
//! undo needs them.

use std::collections::{HashMap, HashSet};

use strata_protocol::{
    CheckpointUndoPoint, CheckpointUndoRef, ItemId, Record, RecordBody, ResponseItem,
};

use crate::compaction::EVICTED_PREFIX;

/// The history just before the latest compaction (by reference, and its
/// items when known), and how long the history was right after it: items
/// past that length were appended since.
#[derive(Clone, Debug)]
pub struct UndoPoint {
    pub summary_item_id: ItemId,
    /// The ids of the history just before the compaction, in order.
    pub before_ids: Vec<ItemId>,
    /// Of those, the tool outputs the model saw as a placeholder.
    pub evicted: Vec<ItemId>,
    pub len_after: usize,
    /// The items themselves: known when this process folded the compaction,
    /// else (after a resume from a checkpoint) read back by [`Self::resolve`].
    before: Option<Vec<ResponseItem>>,
}

/// Two undo points are the same when they refer to the same items: whether
/// the items were read back yet is not part of the state (live and resumed
/// sessions compare equal).
impl PartialEq for UndoPoint {
    fn eq(&self, other: &Self) -> bool {
        self.summary_item_id == other.summary_item_id
            && self.before_ids == other.before_ids
            && self.evicted == other.evicted
            && self.len_after == other.len_after
    }
}

impl UndoPoint {
    /// The point of a compaction that replaced `before`.
    pub fn of(summary_item_id: ItemId, before: Vec<ResponseItem>, len_after: usize) -> Self {
        let evicted = before
            .iter()
            .filter_map(|item| match item {
                ResponseItem::FunctionCallOutput(output)
                    if output.output.starts_with(EVICTED_PREFIX) =>
                {
                    Some(output.id)
                }
                _ => None,
            })
            .collect();
        Self {
            summary_item_id,
            before_ids: before.iter().map(ResponseItem::id).collect(),
            evicted,
            len_after,
            before: Some(before),
        }
    }

    /// The point a checkpoint stored: by reference, or whole (checkpoints
    /// written before references).
    pub fn from_checkpoint(
        by_ref: Option<&CheckpointUndoRef>,
        whole: Option<&CheckpointUndoPoint>,
    ) -> Option<Self> {
        match (by_ref, whole) {
            (Some(point), _) => Some(Self {
                summary_item_id: point.summary_item_id,
                before_ids: point.before.clone(),
                evicted: point.evicted.clone(),
                len_after: usize::try_from(point.len_after).unwrap_or(usize::MAX),
                before: None,
            }),
            (None, Some(point)) => Some(Self::of(
                point.summary_item_id,
                point.before.clone(),
                usize::try_from(point.len_after).unwrap_or(usize::MAX),
            )),
            (None, None) => None,
        }
    }

    /// The point as a checkpoint stores it.
    pub fn to_checkpoint(&self) -> CheckpointUndoRef {
        CheckpointUndoRef {
            summary_item_id: self.summary_item_id,
            before: self.before_ids.clone(),
            evicted: self.evicted.clone(),
            len_after: u64::try_from(self.len_after).unwrap_or(u64::MAX),
        }
    }

    /// The items before the compaction, when known (see [`Self::resolve`]).
    pub fn before(&self) -> Option<&[ResponseItem]> {
        self.before.as_deref()
    }

    /// The history an undo would restore: the items before the compaction,
    /// then everything appended since; `None` until the items are known.
    pub fn restored(&self, current: &[ResponseItem]) -> Option<Vec<ResponseItem>> {
        let mut items = self.before.clone()?;
        items.extend(current.iter().skip(self.len_after).cloned());
        Some(items)
    }

    /// Reads the items back from the session's `records` (those before the
    /// compaction are enough). Fails, naming the first id, when an item is
    /// not there: the file does not hold what its checkpoint says.
    pub fn resolve(&mut self, records: &[Record]) -> Result<(), ItemId> {
        if self.before.is_some() {
            return Ok(());
        }
        let mut found: HashMap<ItemId, ResponseItem> = HashMap::new();
        let mut placeholders: HashMap<ItemId, &str> = HashMap::new();
        let mut keep = |item: &ResponseItem| {
            found.entry(item.id()).or_insert_with(|| item.clone());
        };
        for record in records {
            match &record.body {
                RecordBody::ResponseItem(item) if item.id() == self.summary_item_id => break,
                RecordBody::ResponseItem(item) => keep(item),
                RecordBody::LayeredCompaction(layered)
                    if layered.summary.id == self.summary_item_id =>
                {
                    break;
                }
                RecordBody::LayeredCompaction(layered) => {
                    keep(&ResponseItem::CompactionSummary(layered.summary.clone()));
                    keep(&ResponseItem::Message(layered.sheet_message.clone()));
                }
                // The last eviction naming an output before the compaction
                // is the placeholder the model saw.
                RecordBody::ToolOutputsEvicted(eviction) => {
                    for output in &eviction.evicted {
                        placeholders.insert(output.item_id, &output.placeholder);
                    }
                }
                _ => {}
            }
        }
        let evicted: HashSet<ItemId> = self.evicted.iter().copied().collect();
        let mut before = Vec::with_capacity(self.before_ids.len());
        for id in &self.before_ids {
            let mut item = found.get(id).cloned().ok_or(*id)?;
            // An output that merely starts like a placeholder was never
            // evicted: no eviction names it, and its original is the item.
            if let ResponseItem::FunctionCallOutput(output) = &mut item
                && evicted.contains(id)
                && let Some(placeholder) = placeholders.get(id)
            {
                output.output = (*placeholder).to_owned();
            }
            before.push(item);
        }
        self.before = Some(before);
        Ok(())
    }
}
