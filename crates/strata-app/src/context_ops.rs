//! Issue 12's operations for both front ends: every item a session recorded
//! (with its id), pin and unpin, compact up to an item, undo the latest
//! compaction, and fork. The functions over an agent or a store are what the
//! command line calls; the `App` methods are the desktop's, on its live
//! sessions.

use std::sync::Arc;

use strata_core::SessionStore;
use strata_core::agent::{Agent, EventHandler};
use strata_core::recall::recorded_items;
use strata_core::store::ReadMode;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CompactOutcome, CompactUpTo, CompactionUndoneView, ForkSession,
    ItemPinned, ListSessionItems, OutputKind, PinItem, SessionForkView, SessionItems,
    UndoCompaction,
};

use crate::App;
use crate::error::{AppResult, CommandResult};
use crate::validate;

/// `session_items`: every item ever recorded, with whether the model sees
/// it now and whether it is pinned.
pub fn session_items(store: &SessionStore, request: &ListSessionItems) -> AppResult<SessionItems> {
    let read = store.open_reader(request.session_id, ReadMode::Browsing)?;
    let replay = read.replay();
    Ok(SessionItems {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::SessionItems,
        session_id: request.session_id,
        items: recorded_items(&read.records, replay.history()),
    })
}

/// `pin_item` on an agent holding the session.
pub fn pin_item(agent: &mut Agent, request: &PinItem) -> AppResult<ItemPinned> {
    let query = validate::item_query(&request.item)?;
    let pin = agent.pin(&query, request.pinned)?;
    Ok(ItemPinned {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::ItemPinned,
        session_id: agent.id(),
        item_id: pin.item_id,
        pinned: pin.pinned,
    })
}

/// `undo_compaction` on an agent holding the session.
pub fn undo_compaction(agent: &mut Agent) -> AppResult<CompactionUndoneView> {
    let undone = agent.undo_compaction()?;
    Ok(CompactionUndoneView {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::CompactionUndone,
        session_id: agent.id(),
        undone,
    })
}

/// `fork_session`: a new session from the parent's records up to the point.
pub fn fork_session(store: &SessionStore, request: &ForkSession) -> AppResult<SessionForkView> {
    let fork = store.fork(request.session_id, request.point.clone())?;
    Ok(SessionForkView {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::SessionForked,
        session_id: fork.id(),
        parent_session_id: request.session_id,
        point: request.point.clone(),
        history_items: u32::try_from(fork.history().len()).unwrap_or(u32::MAX),
    })
}

impl App {
    /// `session_items`.
    pub async fn session_items(
        self: &Arc<Self>,
        request: ListSessionItems,
    ) -> CommandResult<SessionItems> {
        self.blocking(move |app| session_items(app.store(), &request))
            .await
    }

    /// `pin_item`: through the session's live agent (resumed if needed);
    /// `busy` while a turn runs.
    pub async fn pin_item(self: &Arc<Self>, request: PinItem) -> CommandResult<ItemPinned> {
        let id = request.session_id;
        let mut running = self.start_running(id).await?;
        let result = pin_item(&mut running.agent_mut().agent, &request);
        self.finished(id, running, false);
        Ok(result?)
    }

    /// `undo_compaction`: through the session's live agent.
    pub async fn undo_compaction(
        self: &Arc<Self>,
        request: UndoCompaction,
    ) -> CommandResult<CompactionUndoneView> {
        let id = request.session_id;
        let mut running = self.start_running(id).await?;
        let result = undo_compaction(&mut running.agent_mut().agent);
        self.finished(id, running, false);
        Ok(result?)
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
        let query = validate::item_query(&request.item)?;
        Ok(self
            .compact_with(request.session_id, request.focus, Some(query), sink)
            .await?)
    }

    /// `fork_session`.
    pub async fn fork_session(
        self: &Arc<Self>,
        request: ForkSession,
    ) -> CommandResult<SessionForkView> {
        self.blocking(move |app| fork_session(app.store(), &request))
            .await
    }
}
