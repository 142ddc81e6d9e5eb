//! Issue 12's operations for both front ends: every item a session recorded
//! (with its id), pin and unpin, compact up to an item, undo the latest
//! compaction, and fork. The command line calls these `App` methods as the
//! desktop does, on the session it holds live.

use std::sync::Arc;

use strata_core::agent::EventHandler;
use strata_core::recall::recorded_items;
use strata_core::store::ReadMode;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CompactOutcome, CompactUpTo, CompactionUndoneView, ForkSession,
    ItemPinned, ListSessionItems, OutputKind, PinItem, SessionForkView, SessionItems,
    UndoCompaction,
};

use crate::App;
use crate::error::{AppError, CommandResult};
use crate::validate;

impl App {
    /// `session_items`.
    pub async fn session_items(
        self: &Arc<Self>,
        request: ListSessionItems,
    ) -> CommandResult<SessionItems> {
        self.blocking(move |app| {
            let read = app
                .store()
                .open_reader(request.session_id, ReadMode::Browsing)?;
            let replay = read.replay();
            Ok(SessionItems {
                v: CONTRACT_FORMAT_VERSION,
                kind: OutputKind::SessionItems,
                session_id: request.session_id,
                items: recorded_items(&read.records, replay.history()),
            })
        })
        .await
    }

    /// `pin_item`: through the session's live agent (resumed if needed);
    /// `busy` while a turn runs.
    pub async fn pin_item(self: &Arc<Self>, request: PinItem) -> CommandResult<ItemPinned> {
        let id = request.session_id;
        let query = validate::item_query(&request.item)?;
        let mut running = self.start_running(id).await?;
        let result = running.agent_mut().agent.pin(&query, request.pinned);
        self.finished(id, running, false);
        let pin = result.map_err(AppError::from)?;
        Ok(ItemPinned {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::ItemPinned,
            session_id: id,
            item_id: pin.item_id,
            pinned: pin.pinned,
        })
    }

    /// `undo_compaction`: through the session's live agent.
    pub async fn undo_compaction(
        self: &Arc<Self>,
        request: UndoCompaction,
    ) -> CommandResult<CompactionUndoneView> {
        let id = request.session_id;
        let mut running = self.start_running(id).await?;
        let result = running.agent_mut().agent.undo_compaction();
        self.finished(id, running, false);
        Ok(CompactionUndoneView {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::CompactionUndone,
            session_id: id,
            undone: result.map_err(AppError::from)?,
        })
    }

    /// `compact_up_to`: a partial compaction, its events to `sink`.
    pub async fn compact_up_to<H>(
        self: &Arc<Self>,
        request: CompactUpTo,
        sink: H,
    ) -> CommandResult<CompactOutcome>
    where
        H: EventHandler + Send + 'static,
    {
        Ok(self
            .compact_with(request.session_id, request.focus, Some(request.item), sink)
            .await?)
    }

    /// `fork_session`.
    pub async fn fork_session(
        self: &Arc<Self>,
        request: ForkSession,
    ) -> CommandResult<SessionForkView> {
        self.blocking(move |app| {
            let fork = app
                .store()
                .fork(request.session_id, request.point.clone())?;
            Ok(SessionForkView {
                v: CONTRACT_FORMAT_VERSION,
                kind: OutputKind::SessionForked,
                session_id: fork.id(),
                parent_session_id: request.session_id,
                point: request.point,
                history_items: u32::try_from(fork.history().len()).unwrap_or(u32::MAX),
            })
        })
        .await
    }
}
