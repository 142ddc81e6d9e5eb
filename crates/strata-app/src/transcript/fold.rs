//! The one conversion of a session into what the conversation shows: records
//! (an opened session) and live events (a running turn) go through the same
//! operations on a [`TranscriptFold`], which keeps the entries and, for live
//! events, the updates each event made.

mod events;
mod placement;
mod records;

pub(crate) use records::model_after;
pub use records::{from_read, recovery_notices};

use std::collections::HashMap;

use strata_core::store::SessionRead;
use strata_protocol::{
    AgentEvent, ApprovalDecision, ApprovalView, CompactionGuardRecord, CompactionProblem,
    CompactionSummary, DebugEvent, EventEnvelope, ForkOrigin, ItemId, MainlineEvent,
    OUTPUT_PREVIEW_CHARS, OutputPreview, ProfileChange, ProviderFailure, Record, RecordBody,
    RecoveryNotice, ResponseItem, Role, SessionRepaired, ToolEntry, ToolOutputsEvicted, ToolState,
    TranscriptEntry, TranscriptUpdate, TurnId, TurnOutcome, Unsaved,
};

use super::text::{fork_note, profile_line, recovery_text, undone_note};

/// What a failed summary shows, live or read back from its record.
fn summary_failed(attempts: u32, message: &str) -> String {
    format!("Compaction failed after {attempts} attempts: {message}")
}

/// The start of `output` and its length in characters.
pub fn preview(output: &str) -> OutputPreview {
    let chars = output.chars().count();
    let preview = if chars > OUTPUT_PREVIEW_CHARS {
        output.chars().take(OUTPUT_PREVIEW_CHARS).collect()
    } else {
        output.to_owned()
    };
    OutputPreview {
        preview,
        chars: u64::try_from(chars).unwrap_or(u64::MAX),
    }
}

/// A tool card's id: the same whether the call or its output came first.
pub fn tool_id(call_id: &str) -> String {
    format!("call:{call_id}")
}

pub fn compaction_id(summary_id: ItemId) -> String {
    format!("compaction:{summary_id}")
}

/// The entries so far and where things are among them.
#[derive(Default)]
pub struct TranscriptFold {
    entries: Vec<TranscriptEntry>,
    positions: HashMap<String, usize>,
    tools: HashMap<String, usize>,
    /// The entry each recorded item shows in (a call and its output share
    /// their card), for pins.
    items: HashMap<ItemId, usize>,
    unsettled_retries: Vec<usize>,
    streaming: Option<usize>,
    /// The thinking entry streaming now, until its reasoning is committed.
    thinking: Option<usize>,
    turn: Option<TurnId>,
    /// The model answers come from now: the session's, then each profile
    /// switch's and round's.
    model: Option<String>,
    /// Where the running turn's entries start.
    turn_start: usize,
    /// The updates made since the last [`Self::take_updates`].
    updates: Vec<TranscriptUpdate>,
    /// Ids of entries only live events make (errors, retries): unique per
    /// fold. Empty when folding records, which keep no updates.
    live_prefix: String,
    /// Folding from the middle of a file (a turn's start near its tail):
    /// records that reach back to an entry before that start mark the fold
    /// `unresolved`, and the caller reads further back.
    partial: bool,
    unresolved: bool,
}

/// A session's whole transcript, from its records in write order.
pub fn from_records(records: &[Record]) -> Vec<TranscriptEntry> {
    let mut fold = TranscriptFold::default();
    for (index, record) in records.iter().enumerate() {
        fold.apply_record(index, &record.body);
    }
    fold.entries
}

impl TranscriptFold {
    /// A fold for a turn's live events.
    pub fn live() -> Self {
        Self {
            live_prefix: format!("live:{}", ItemId::new()),
            ..Self::default()
        }
    }

    /// A fold of records starting at a turn's start in the middle of a
    /// file, where answers came from `model`.
    pub(crate) fn from_middle(model: String) -> Self {
        Self {
            partial: true,
            model: Some(model),
            ..Self::default()
        }
    }

    /// Whether a record of a [`Self::from_middle`] fold changed (or would
    /// have changed) an entry made before its start: its entries may then
    /// differ from the whole file's.
    pub(crate) fn unresolved(&self) -> bool {
        self.unresolved
    }

    pub(crate) fn into_entries(self) -> Vec<TranscriptEntry> {
        self.entries
    }

    /// A record about the card of `call_id` other than its call: in a fold
    /// from the middle the card must already be among the entries.
    fn card_expected(&mut self, call_id: &str) {
        if self.partial && !self.tools.contains_key(call_id) {
            self.unresolved = true;
        }
    }

    fn is_live(&self) -> bool {
        !self.live_prefix.is_empty()
    }

    pub fn entries(&self) -> &[TranscriptEntry] {
        &self.entries
    }

    /// The updates the events applied since the last call made.
    pub fn take_updates(&mut self) -> Vec<TranscriptUpdate> {
        std::mem::take(&mut self.updates)
    }

    fn push(&mut self, entry: TranscriptEntry) -> usize {
        if let Some(&index) = self.positions.get(entry.id()) {
            self.replace(index, entry);
            return index;
        }
        let index = self.entries.len();
        self.positions.insert(entry.id().to_owned(), index);
        if self.is_live() {
            self.updates.push(TranscriptUpdate::Append {
                entry: entry.clone(),
            });
        }
        self.entries.push(entry);
        index
    }

    fn replace(&mut self, index: usize, entry: TranscriptEntry) {
        let live = self.is_live();
        let Some(slot) = self.entries.get_mut(index) else {
            return;
        };
        let old = slot.id().to_owned();
        *slot = entry.clone();
        if old != entry.id() {
            self.positions.remove(&old);
            self.positions.insert(entry.id().to_owned(), index);
        }
        if live {
            self.updates
                .push(TranscriptUpdate::Replace { id: old, entry });
        }
    }

    /// A retry right after another (nothing came between them) takes the
    /// other's place under its id, so a run of retries is one line that
    /// counts up instead of a line per attempt.
    fn push_retry(&mut self, mut entry: TranscriptEntry) -> usize {
        let last = self.entries.len().checked_sub(1);
        match last.map(|index| (index, &self.entries[index])) {
            Some((index, TranscriptEntry::Retry { id: kept, .. })) => {
                let kept = kept.clone();
                if let TranscriptEntry::Retry { id, .. } = &mut entry {
                    *id = kept;
                }
                self.replace(index, entry);
                index
            }
            _ => self.push(entry),
        }
    }

    fn settle_retries(&mut self) {
        for index in std::mem::take(&mut self.unsettled_retries) {
            if let Some(TranscriptEntry::Retry { settled: false, .. }) = self.entries.get(index) {
                let mut entry = self.entries[index].clone();
                if let TranscriptEntry::Retry { settled, .. } = &mut entry {
                    *settled = true;
                }
                self.replace(index, entry);
            }
        }
    }

    /// Creates or changes the card of `call_id`.
    fn upsert_tool(&mut self, call_id: &str, change: impl FnOnce(&mut ToolEntry)) {
        let existing = self.tools.get(call_id).copied();
        let mut tool = match existing.and_then(|i| self.entries.get(i)) {
            Some(TranscriptEntry::Tool(tool)) => tool.clone(),
            _ => ToolEntry {
                id: tool_id(call_id),
                call_id: call_id.to_owned(),
                name: "tool".to_owned(),
                arguments: String::new(),
                output: None,
                status: ToolState::Finished,
                duration_ms: None,
                approval: None,
                turn_id: self.turn,
                item_id: None,
                pinned: false,
                capped: false,
                plan: None,
            },
        };
        change(&mut tool);
        // A call that did not run (or failed) set no plan the model saw.
        let ran = !matches!(
            tool.status,
            ToolState::Error
                | ToolState::Denied
                | ToolState::Cancelled
                | ToolState::Interrupted
                | ToolState::TimedOut
        );
        tool.plan = (ran && tool.name == strata_protocol::tool_names::UPDATE_PLAN)
            .then(|| strata_core::plan::parse_plan(&tool.arguments).ok())
            .flatten();
        match existing {
            Some(index) => self.replace(index, TranscriptEntry::Tool(tool)),
            None => {
                let index = self.push(TranscriptEntry::Tool(tool));
                self.tools.insert(call_id.to_owned(), index);
            }
        }
    }

    /// A compaction's divider (`kept`: the items a layered one kept). An
    /// eviction just before it (the last entry: nothing came between) was
    /// the same boundary's first step: the divider says both, and the
    /// eviction's own line goes.
    fn add_compaction(
        &mut self,
        summary: &CompactionSummary,
        state_sheet: Option<&str>,
        kept: &[ItemId],
    ) {
        let id = compaction_id(summary.id);
        let known = match self.positions.get(&id).and_then(|&i| self.entries.get(i)) {
            Some(TranscriptEntry::Compaction {
                state_sheet,
                undone,
                eviction,
                ..
            }) => Some((state_sheet.clone(), *undone, eviction.clone())),
            _ => None,
        };
        let (known_sheet, undone, eviction) = match known {
            Some(known) => known,
            None => (None, false, self.take_last_eviction()),
        };
        let state_sheet = state_sheet.map(str::to_owned).or(known_sheet);
        let known = self.positions.contains_key(&id);
        let entry = TranscriptEntry::Compaction {
            id,
            summary: summary.clone(),
            state_sheet,
            undone,
            eviction,
        };
        if known {
            self.push(entry);
        } else {
            self.place_divider(entry, kept);
        }
    }

    /// The eviction that is the last entry, removed; `None` when the last
    /// entry is something else.
    fn take_last_eviction(&mut self) -> Option<ToolOutputsEvicted> {
        let Some(TranscriptEntry::Eviction { eviction, .. }) = self.entries.last() else {
            // A fold from the middle with nothing yet: the whole file's last
            // entry may be an eviction.
            self.unresolved |= self.partial && self.entries.is_empty();
            return None;
        };
        let eviction = eviction.clone();
        self.remove_last();
        Some(eviction)
    }

    /// The divider of the compaction `summary_id` says it was undone.
    fn mark_undone(&mut self, summary_id: ItemId) {
        let Some(&index) = self.positions.get(&compaction_id(summary_id)) else {
            return;
        };
        if let Some(TranscriptEntry::Compaction { undone: false, .. }) = self.entries.get(index) {
            let mut entry = self.entries[index].clone();
            if let TranscriptEntry::Compaction { undone, .. } = &mut entry {
                *undone = true;
            }
            self.replace(index, entry);
        }
    }

    /// A committed history item (from a record or `message_committed`).
    fn add_item(&mut self, item: &ResponseItem) {
        let turn_id = self.turn;
        match item {
            ResponseItem::Message(message) => match message.role {
                Role::System | Role::Developer => {}
                Role::User => {
                    let index = self.push(TranscriptEntry::User {
                        id: message.id.to_string(),
                        text: message.content.clone(),
                        turn_id,
                        pinned: false,
                    });
                    self.items.insert(message.id, index);
                }
                Role::Assistant => {
                    let committed = TranscriptEntry::Assistant {
                        id: message.id.to_string(),
                        text: message.content.clone(),
                        streaming: false,
                        unsaved: None,
                        model: self.model.clone(),
                        turn_id,
                        pinned: false,
                    };
                    let index = match self.streaming.take() {
                        Some(index) => {
                            self.replace(index, committed);
                            index
                        }
                        None => self.push(committed),
                    };
                    self.items.insert(message.id, index);
                }
            },
            ResponseItem::FunctionCall(call) => {
                self.upsert_tool(&call.call_id, |tool| {
                    tool.name.clone_from(&call.name);
                    tool.arguments.clone_from(&call.arguments);
                });
                self.item_in_card(call.id, &call.call_id);
            }
            ResponseItem::FunctionCallOutput(output) => {
                self.card_expected(&output.call_id);
                self.upsert_tool(&output.call_id, |tool| {
                    tool.item_id = Some(output.id);
                    if matches!(
                        tool.status,
                        ToolState::Running | ToolState::AwaitingApproval
                    ) {
                        tool.status = ToolState::Finished;
                    }
                    if tool.output.is_none() {
                        tool.output = Some(preview(&output.output));
                    }
                });
                self.item_in_card(output.id, &output.call_id);
            }
            ResponseItem::CompactionSummary(summary) => self.add_compaction(summary, None, &[]),
            ResponseItem::Reasoning(reasoning) => {
                // Redacted or encrypted-only reasoning has nothing to read.
                let Some(text) = reasoning.readable_text() else {
                    return;
                };
                let committed = TranscriptEntry::Thinking {
                    id: reasoning.id.to_string(),
                    text,
                    streaming: false,
                    turn_id,
                };
                match self.thinking.take() {
                    Some(index) => self.replace(index, committed),
                    None => {
                        self.push(committed);
                    }
                }
            }
        }
    }

    fn start_turn(&mut self, turn_id: TurnId) {
        self.turn = Some(turn_id);
        self.turn_start = self.entries.len();
    }

    /// Whatever still streams or runs stops with the turn.
    fn finish_turn(&mut self, turn_id: TurnId, outcome: TurnOutcome, rounds: u32) {
        self.settle_retries();
        self.streaming = None;
        self.thinking = None;
        for index in self.turn_start..self.entries.len() {
            let mut entry = self.entries[index].clone();
            let changed = match &mut entry {
                // Thinking a stopped round never committed: shown, ended.
                TranscriptEntry::Thinking {
                    streaming: streaming @ true,
                    ..
                } => {
                    *streaming = false;
                    true
                }
                TranscriptEntry::Assistant {
                    streaming: streaming @ true,
                    unsaved,
                    ..
                } => {
                    *streaming = false;
                    *unsaved = match outcome {
                        TurnOutcome::Completed => None,
                        TurnOutcome::Cancelled => Some(Unsaved::Stopped),
                        TurnOutcome::Failed | TurnOutcome::RoundLimit => Some(Unsaved::Interrupted),
                    };
                    true
                }
                TranscriptEntry::Tool(tool)
                    if matches!(
                        tool.status,
                        ToolState::Running | ToolState::AwaitingApproval
                    ) =>
                {
                    tool.status = match outcome {
                        TurnOutcome::Cancelled => ToolState::Cancelled,
                        _ => ToolState::Interrupted,
                    };
                    true
                }
                _ => false,
            };
            if changed {
                self.replace(index, entry);
            }
        }
        self.push(TranscriptEntry::TurnEnd {
            id: format!("turn_end:{turn_id}"),
            outcome,
            rounds,
        });
        self.turn = None;
        self.turn_start = self.entries.len();
    }

    fn decide(&mut self, call_id: &str, tool_name: &str, decision: ApprovalDecision, live: bool) {
        self.card_expected(call_id);
        self.upsert_tool(call_id, |tool| {
            if tool.name == "tool" {
                tool_name.clone_into(&mut tool.name);
            }
            let asked = tool.approval.take();
            tool.approval = Some(ApprovalView {
                summary: asked
                    .as_ref()
                    .map(|a| a.summary.clone())
                    .unwrap_or_default(),
                detail: asked.map(|a| a.detail).unwrap_or_default(),
                // Answered: nothing is offered any more.
                proposed_rules: Vec::new(),
                decision: Some(decision),
            });
            if decision == ApprovalDecision::Deny {
                tool.status = ToolState::Denied;
            } else if live && tool.status == ToolState::AwaitingApproval {
                tool.status = ToolState::Running;
            }
        });
    }

    fn item_in_card(&mut self, item_id: ItemId, call_id: &str) {
        if let Some(&index) = self.tools.get(call_id) {
            self.items.insert(item_id, index);
        }
    }

    /// Marks the entry showing `item_id` pinned or not.
    fn pin(&mut self, item_id: ItemId, pinned: bool) {
        let Some(&index) = self.items.get(&item_id) else {
            // The item may be shown before a partial fold's start.
            self.unresolved |= self.partial;
            return;
        };
        let mut entry = self.entries[index].clone();
        match &mut entry {
            TranscriptEntry::User { pinned: flag, .. }
            | TranscriptEntry::Assistant { pinned: flag, .. }
            | TranscriptEntry::Tool(ToolEntry { pinned: flag, .. }) => *flag = pinned,
            _ => return,
        }
        self.replace(index, entry);
    }
}

/// "compaction undone: …" as a sentence: "Compaction undone: …".
fn sentence(line: &str) -> String {
    super::text::upper_first(line)
}
