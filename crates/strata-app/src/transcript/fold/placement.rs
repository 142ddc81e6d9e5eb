//! Where a compaction's divider goes: before the items it kept verbatim at
//! the end of the conversation (a partial compaction's "from here on"), so
//! everything above the divider is what the summary replaced. Without such
//! a tail (the usual compaction at a round's end) it goes at the end.

use std::collections::HashSet;

use strata_protocol::{ItemId, TranscriptEntry, TranscriptUpdate};

use super::TranscriptFold;

impl TranscriptFold {
    /// Adds the divider `entry` before the kept tail, when `kept` has one
    /// among the entries so far; at the end otherwise.
    pub(super) fn place_divider(&mut self, entry: TranscriptEntry, kept: &[ItemId]) {
        match self.kept_tail_start(kept) {
            Some(index) => self.insert(index, entry),
            None => {
                self.push(entry);
            }
        }
    }

    /// The first entry of the longest run of item entries at the end whose
    /// items were all kept; notices in between do not break the run.
    fn kept_tail_start(&mut self, kept_ids: &[ItemId]) -> Option<usize> {
        let kept: HashSet<usize> = kept_ids
            .iter()
            .filter_map(|id| self.items.get(id).copied())
            .collect();
        let mut start = None;
        let mut broken = false;
        for (index, entry) in self.entries.iter().enumerate().rev() {
            let holds_items = matches!(
                entry,
                TranscriptEntry::User { .. }
                    | TranscriptEntry::Assistant { .. }
                    | TranscriptEntry::Tool(_)
            );
            if !holds_items {
                continue;
            }
            if !kept.contains(&index) {
                broken = true;
                break;
            }
            start = Some(index);
        }
        // The run reaches the start of a partial fold: in the whole file it
        // may go on into what came before.
        if self.partial && !broken && !kept_ids.is_empty() {
            self.unresolved = true;
        }
        start
    }

    /// Removes the last entry (nothing points past it).
    pub(super) fn remove_last(&mut self) {
        let Some(entry) = self.entries.pop() else {
            return;
        };
        let index = self.entries.len();
        self.positions.remove(entry.id());
        self.tools.retain(|_, at| *at != index);
        self.items.retain(|_, at| *at != index);
        self.unsettled_retries.retain(|at| *at != index);
        if self.streaming == Some(index) {
            self.streaming = None;
        }
        self.turn_start = self.turn_start.min(index);
        if self.is_live() {
            self.updates.push(TranscriptUpdate::Remove {
                id: entry.id().to_owned(),
            });
        }
    }

    /// Inserts `entry` at `index`, moving every later position one on.
    fn insert(&mut self, index: usize, entry: TranscriptEntry) {
        let Some(before) = self.entries.get(index).map(|e| e.id().to_owned()) else {
            self.push(entry);
            return;
        };
        let shift = |at: &mut usize| {
            if *at >= index {
                *at += 1;
            }
        };
        self.positions.values_mut().for_each(shift);
        self.tools.values_mut().for_each(shift);
        self.items.values_mut().for_each(shift);
        self.unsettled_retries.iter_mut().for_each(shift);
        if let Some(streaming) = self.streaming.as_mut() {
            shift(streaming);
        }
        if self.turn_start > index {
            self.turn_start += 1;
        }
        self.positions.insert(entry.id().to_owned(), index);
        if self.is_live() {
            self.updates.push(TranscriptUpdate::Insert {
                before,
                entry: entry.clone(),
            });
        }
        self.entries.insert(index, entry);
    }
}
