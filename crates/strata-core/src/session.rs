//! A session open for writing: the live code path of the agent loop.
//!
//! [`LiveSession::append`] writes a record and then folds that same record
//! through [`Replay::fold`] (and so [`History::apply`]), the function a
//! resume replays the file with: the live history and the replayed one
//! cannot differ.

use std::collections::HashMap;
use std::path::Path;

use strata_protocol::{
    CompactionSummary, Cost, ItemId, PriceQuote, Record, RecordBody, ResponseItem, RoundId,
    SessionId, SessionMeta, SessionRepaired, TitleSet, TokenUsage, TokenUsageRecord, TornTailMoved,
};

use crate::error::{CoreError, Result};
use crate::history::{Applied, History};
use crate::store::{
    ReadMode, Replay, SessionWriter, TornTailRepair, original_items, parse_session,
};

/// The output recorded for a function call a previous run never answered.
pub const ABORTED_TOOL_OUTPUT: &str = "aborted: the session ended before this tool finished";

/// What opening a session for writing had to repair.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// The torn trailing line moved aside, if there was one.
    pub torn_tail: Option<TornTailRepair>,
    /// Call ids that got an [`ABORTED_TOOL_OUTPUT`], in history order.
    pub aborted_calls: Vec<String>,
}

impl Recovery {
    pub fn is_empty(&self) -> bool {
        self.torn_tail.is_none() && self.aborted_calls.is_empty()
    }

    /// The `session_repaired` record that says so.
    pub fn record(&self) -> SessionRepaired {
        SessionRepaired {
            torn_tail: self.torn_tail.as_ref().map(|torn| TornTailMoved {
                bytes: torn.bytes,
                // Its name: it is beside the session file.
                sidecar: torn
                    .sidecar
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            }),
            aborted_calls: self.aborted_calls.clone(),
        }
    }
}

/// A session this process holds the writer lock of. Dropping it releases the
/// lock; records are flushed as written and made durable by [`Self::sync`],
/// which `append` also calls at turn boundaries and after compactions.
#[derive(Debug)]
pub struct LiveSession {
    writer: SessionWriter,
    state: Replay,
    recovery: Recovery,
    /// Whether the last record written is a checkpoint (a second one right
    /// after it would repeat it).
    checkpointed: bool,
}

impl LiveSession {
    /// A just-created session whose session_meta `record` is written.
    pub(crate) fn started(writer: SessionWriter, meta: SessionMeta, record: &Record) -> Self {
        let mut state = Replay::new(meta);
        state.fold(record);
        Self {
            writer,
            state,
            recovery: Recovery::default(),
            checkpointed: false,
        }
    }

    /// A reopened session: its replayed `state`, plus an aborted output for
    /// every function call the replayed history left without one.
    pub(crate) fn resumed(
        writer: SessionWriter,
        state: Replay,
        torn_tail: Option<TornTailRepair>,
    ) -> Result<Self> {
        let mut session = Self {
            writer,
            state,
            recovery: Recovery {
                torn_tail,
                aborted_calls: Vec::new(),
            },
            checkpointed: false,
        };
        let pending = session.history().pending_call_ids();
        for call_id in &pending {
            session.commit_item(ResponseItem::function_call_output(
                call_id.as_str(),
                ABORTED_TOOL_OUTPUT,
            ))?;
        }
        session.recovery.aborted_calls = pending;
        if !session.recovery.is_empty() {
            // Said in the file itself, so every transcript shows it where
            // it happened.
            let repaired = session.recovery.record();
            session.append(RecordBody::SessionRepaired(repaired))?;
            session.sync()?;
        }
        Ok(session)
    }

    /// Writes the record (stamped now), then folds it into the history. A
    /// record that fails to write changes nothing. A compaction (base or
    /// layered) is followed by a checkpoint. Syncs after turn boundaries and
    /// compactions.
    pub fn append(&mut self, body: RecordBody) -> Result<Applied> {
        let applied = self.write(body)?;
        if matches!(applied, Applied::Compacted { .. }) {
            self.append_checkpoint()?;
        }
        Ok(applied)
    }

    /// Writes a `checkpoint` of the state as it is now (the model-visible
    /// history and what replay holds beside it) and syncs: resuming starts
    /// from the last one. Call it right after every record that replaces
    /// the history; [`Self::append`] already does after a compaction, and a
    /// second call with nothing written in between writes nothing.
    pub fn append_checkpoint(&mut self) -> Result<()> {
        if self.checkpointed {
            return Ok(());
        }
        let checkpoint = RecordBody::Checkpoint(Box::new(self.state.checkpoint()));
        self.write(checkpoint)?;
        self.sync()
    }

    fn write(&mut self, body: RecordBody) -> Result<Applied> {
        let record = Record::now(body);
        self.writer.append(&record)?;
        self.checkpointed = matches!(record.body, RecordBody::Checkpoint(_));
        let applied = self.state.fold(&record);
        let boundary = matches!(
            record.body,
            RecordBody::TurnStarted(_) | RecordBody::TurnFinished(_)
        ) || matches!(
            applied,
            Applied::Compacted { .. } | Applied::Evicted { .. } | Applied::Restored { .. }
        );
        if boundary {
            self.sync()?;
        }
        Ok(applied)
    }

    /// Writes a record copied from another session (a fork's parent) as it
    /// was, its time and version included, then folds it.
    pub(crate) fn append_copied(&mut self, record: &Record) -> Result<Applied> {
        self.writer.append(record)?;
        Ok(self.state.fold(record))
    }

    /// Commits an item to the history.
    pub fn commit_item(&mut self, item: ResponseItem) -> Result<Applied> {
        self.append(RecordBody::ResponseItem(item))
    }

    /// Records a round's usage; it becomes the history's last usage.
    pub fn record_usage(
        &mut self,
        usage: TokenUsage,
        round_id: Option<RoundId>,
        cost: Option<Cost>,
    ) -> Result<Applied> {
        self.append(RecordBody::TokenUsage(TokenUsageRecord {
            round_id,
            usage,
            cost,
            price: None,
        }))
    }

    /// Records a round's usage with its cost at `quote` and the rates
    /// themselves, so readers price it as it was billed.
    pub fn record_priced_usage(
        &mut self,
        usage: TokenUsage,
        round_id: Option<RoundId>,
        quote: Option<&PriceQuote>,
    ) -> Result<Applied> {
        self.append(RecordBody::TokenUsage(TokenUsageRecord {
            round_id,
            cost: quote.map(|quote| quote.cost(&usage)),
            price: quote.map(|quote| quote.price),
            usage,
        }))
    }

    /// Commits a compaction summary (which replaces the history) and syncs.
    pub fn commit_compaction(&mut self, summary: CompactionSummary) -> Result<Applied> {
        self.commit_item(ResponseItem::CompactionSummary(summary))
    }

    /// Renames the session; the last title_set wins.
    pub fn set_title(&mut self, title: impl Into<String>) -> Result<()> {
        self.append(RecordBody::TitleSet(TitleSet {
            title: title.into(),
        }))
        .map(|_| ())
    }

    /// Every item the file holds, as first written, by id: the originals of
    /// evicted outputs and of compacted spans. Reads the file back.
    pub fn original_items(&self) -> Result<HashMap<ItemId, ResponseItem>> {
        let bytes = self.writer.read_all()?;
        let read = parse_session(self.writer.path(), &bytes, ReadMode::Strict)?;
        Ok(original_items(&read.records))
    }

    /// Every record the file holds, read back (the recall tool's source:
    /// this session's own file, never a path from elsewhere).
    pub fn read_records(&self) -> Result<Vec<Record>> {
        let bytes = self.writer.read_all()?;
        Ok(parse_session(self.writer.path(), &bytes, ReadMode::Strict)?.records)
    }

    /// Reads the items of the undo point back from the file when the resume
    /// left it by reference (the checkpoint stores ids, not items).
    pub fn resolve_undo_point(&mut self) -> Result<()> {
        let unresolved = self
            .history()
            .undo_point()
            .is_some_and(|point| point.before().is_none());
        if !unresolved {
            return Ok(());
        }
        let records = self.read_records()?;
        self.state
            .resolve_undo_point(&records)
            .map_err(|missing| CoreError::CorruptRecord {
                path: self.path().to_owned(),
                line: 0,
                message: format!(
                    "the checkpoint's undo point names item {missing}, which no record before \
                     its compaction holds"
                ),
            })
    }

    /// Makes every record written so far durable.
    pub fn sync(&self) -> Result<()> {
        self.writer.sync()
    }

    pub fn id(&self) -> SessionId {
        self.state.meta().session_id
    }

    pub fn path(&self) -> &Path {
        self.writer.path()
    }

    pub fn meta(&self) -> &SessionMeta {
        self.state.meta()
    }

    /// The model-visible history and the last usage since the last compaction.
    pub fn history(&self) -> &History {
        self.state.history()
    }

    /// Title and counts, kept exactly as a replay of the file computes them.
    pub fn state(&self) -> &Replay {
        &self.state
    }

    pub fn title(&self) -> Option<String> {
        self.state.title()
    }

    /// What opening this session for writing repaired (empty for a new one).
    pub fn recovery(&self) -> &Recovery {
        &self.recovery
    }
}
