//! The session manager: the sessions this app holds open for turns, each
//! with its agent, approval broker and the cancellation token of whatever
//! runs in it now; turns and compactions on them (the one path both front
//! ends run, [`App::run_turn`] and [`App::compact`], through
//! `run_exclusive`); Stop and approvals routed to them.
//!
//! A live session keeps its writer lock until it is closed (deleted, its
//! settings or profile changed), so another process cannot write it
//! meanwhile.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use strata_core::agent::{
    ApprovalBroker, CompactOutcome as CoreCompactOutcome, EventHandler, EventReceiver, TurnReport,
    forward_events,
};
use strata_core::{Agent, CancellationToken};
use strata_protocol::{ApprovalDecision, CommandErrorKind, CompactOutcome, SessionId};

use crate::App;
use crate::catalog::WritingNote;
use crate::error::{AppResult, busy, task_failed};
use crate::launch::{self, LaunchOptions};
use crate::validate;

/// What a turn or compaction on a session's agent runs: a future borrowing
/// the agent.
type AgentWork<'a, T> = Pin<Box<dyn Future<Output = strata_core::Result<T>> + Send + 'a>>;

/// A session open for turns.
pub struct LiveSlot {
    agent: Arc<tokio::sync::Mutex<LiveAgent>>,
    broker: ApprovalBroker,
    /// The session's workspace, where "always allow" saves its rules.
    workspace: std::path::PathBuf,
    /// Set while a turn or a compaction runs.
    cancel: Mutex<Option<CancellationToken>>,
    /// The compaction threshold and window its agent uses.
    pub threshold: u64,
    pub context_window: Option<u64>,
    /// Settings changed while it ran: close it once it is idle, so the next
    /// turn resumes with the new settings.
    stale: AtomicBool,
}

/// An agent and the receiving end of its event stream.
pub struct LiveAgent {
    pub agent: Agent,
    pub events: EventReceiver,
    /// The index's mark that the session is open for writing (dropped
    /// after the agent, which closes the file).
    pub note: WritingNote,
    /// The run's MCP servers, stopped when the live session is dropped.
    pub mcp: Option<crate::mcp::McpServers>,
}

/// An exclusive hold on a live session for one turn or compaction: the agent
/// is locked, and `stop_turn` reaches `cancel`. Dropping it releases both.
pub struct Running {
    slot: Arc<LiveSlot>,
    guard: tokio::sync::OwnedMutexGuard<LiveAgent>,
    cancel: CancellationToken,
}

impl Running {
    /// The agent held, with its event stream.
    pub fn agent_mut(&mut self) -> &mut LiveAgent {
        &mut self.guard
    }

    /// The token `stop_turn` cancels.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Cleared before the agent's lock is released (fields drop after
        // this), so a turn started right after cannot lose its token.
        *lock(&self.slot.cancel) = None;
    }
}

impl LiveSlot {
    pub(crate) fn new(launched: launch::Launched) -> Self {
        let launch::Launched {
            agent,
            events,
            note,
            mcp,
            ..
        } = launched;
        let broker = agent.broker().clone();
        let workspace = agent.workspace().to_owned();
        let threshold = agent.threshold();
        let context_window = agent.config().context_window;
        Self {
            agent: Arc::new(tokio::sync::Mutex::new(LiveAgent {
                agent,
                events,
                note,
                mcp,
            })),
            broker,
            workspace,
            cancel: Mutex::new(None),
            threshold,
            context_window,
            stale: AtomicBool::new(false),
        }
    }

    /// Whether a turn or a compaction runs in it now.
    pub fn is_busy(&self) -> bool {
        self.agent.try_lock().is_err()
    }

    /// Cancels what runs; `false` when nothing does.
    pub fn cancel(&self) -> bool {
        match lock(&self.cancel).as_ref() {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// The session's workspace.
    pub fn workspace(&self) -> &std::path::Path {
        &self.workspace
    }

    pub fn broker(&self) -> &ApprovalBroker {
        &self.broker
    }
}

/// A std mutex whose data stays usable after a panicking holder: every value
/// kept under these locks is valid at any point.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The sessions open for turns, by id.
#[derive(Default)]
pub(crate) struct LiveSessions {
    slots: Mutex<HashMap<SessionId, Arc<LiveSlot>>>,
    /// Serialises opening and closing sessions, so two commands never open
    /// the same session's writer at once.
    pub(crate) opening: tokio::sync::Mutex<()>,
}

const TURN_RUNNING: &str =
    "A turn is running in this session; stop it or wait for it to finish first.";

impl App {
    /// The live session, if this app holds it open.
    pub fn live(&self, id: SessionId) -> Option<Arc<LiveSlot>> {
        lock(&self.live.slots).get(&id).cloned()
    }

    pub(crate) fn insert_live(&self, id: SessionId, slot: Arc<LiveSlot>) {
        lock(&self.live.slots).insert(id, slot);
    }

    /// How agents of this app are launched: the desktop's approval policy,
    /// approvals waiting for the UI.
    pub(crate) fn launch_options(&self) -> LaunchOptions {
        LaunchOptions::new(Some(self.prefs().approval_policy), true)
    }

    /// The live session `id`, resumed from its file on its recorded profile
    /// if this app does not hold it yet.
    pub async fn ensure_live(self: &Arc<Self>, id: SessionId) -> AppResult<Arc<LiveSlot>> {
        if let Some(slot) = self.live(id) {
            return Ok(slot);
        }
        let _opening = self.live.opening.lock().await;
        if let Some(slot) = self.live(id) {
            return Ok(slot);
        }
        let slot = self
            .blocking(move |app| {
                // Before the writer opens: resuming may itself append (an
                // aborted call's output, a profile switch).
                app.check_not_stale(id)?;
                let launched =
                    launch::resume(&app.store, &app.paths, app.env(), id, &app.launch_options())?;
                Ok(LiveSlot::new(launched))
            })
            .await?;
        let slot = Arc::new(slot);
        self.insert_live(id, Arc::clone(&slot));
        Ok(slot)
    }

    /// Takes the session for one turn or compaction; `busy` when something
    /// already runs in it.
    pub async fn start_running(self: &Arc<Self>, id: SessionId) -> AppResult<Running> {
        let slot = self.ensure_live(id).await?;
        let guard = Arc::clone(&slot.agent).try_lock_owned().map_err(|_| {
            busy("A turn is already running in this session; stop it or wait for it to finish.")
        })?;
        let cancel = CancellationToken::new();
        *lock(&slot.cancel) = Some(cancel.clone());
        Ok(Running {
            slot,
            guard,
            cancel,
        })
    }

    /// Called when a turn or compaction ended: closes a session whose
    /// settings changed meanwhile, or whose file can no longer be trusted
    /// (`failed`), so the next turn reopens (and repairs) it.
    pub(crate) fn finished(&self, id: SessionId, running: Running, failed: bool) {
        let stale = running.slot.stale.load(Ordering::Acquire);
        drop(running);
        if stale || failed {
            let mut live = lock(&self.live.slots);
            if live.get(&id).is_some_and(|slot| !slot.is_busy()) {
                live.remove(&id);
                drop(live);
                self.mark_own_write(id);
                tracing::info!(session = %id, "session closed to pick up new settings");
            }
        }
    }

    /// Closes the live session (releasing its writer lock) unless something
    /// runs in it; `busy` when something does. Closing an unknown session is
    /// a no-op.
    pub async fn close(&self, id: SessionId) -> AppResult<()> {
        let _opening = self.live.opening.lock().await;
        self.close_locked(id)
    }

    /// [`Self::close`] with `opening` already held.
    pub(crate) fn close_locked(&self, id: SessionId) -> AppResult<()> {
        let mut live = lock(&self.live.slots);
        if let Some(slot) = live.get(&id) {
            if slot.is_busy() {
                return Err(busy(TURN_RUNNING));
            }
            live.remove(&id);
            drop(live);
            self.mark_own_write(id);
            tracing::info!(session = %id, "session closed");
        }
        Ok(())
    }

    /// Before the front end exits: closes every live session that is idle
    /// and waits until their MCP servers have stopped (stdin closed, then
    /// SIGTERM, then SIGKILL). A session still busy keeps its servers; they
    /// are SIGKILLed when it is dropped.
    pub async fn shutdown(&self) {
        {
            let _opening = self.live.opening.lock().await;
            self.close_idle(false);
        }
        crate::mcp::servers_stopped().await;
    }

    /// A live session's agent for a change between turns; `busy` while
    /// something runs in it.
    pub(crate) fn idle_agent(
        &self,
        id: SessionId,
    ) -> AppResult<Option<tokio::sync::OwnedMutexGuard<LiveAgent>>> {
        match self.live(id) {
            Some(slot) => Ok(Some(
                Arc::clone(&slot.agent)
                    .try_lock_owned()
                    .map_err(|_| busy(TURN_RUNNING))?,
            )),
            None => Ok(None),
        }
    }

    /// After settings were saved: idle sessions close now, running ones
    /// when their turn ends, so every next turn uses the new settings.
    pub fn settings_changed(&self) {
        self.close_idle(true);
    }

    /// Closes every idle live session; the busy ones are marked `stale`
    /// (closed when their turn ends) when `stale_busy`.
    fn close_idle(&self, stale_busy: bool) {
        let mut closed = Vec::new();
        lock(&self.live.slots).retain(|id, slot| {
            if stale_busy {
                slot.stale.store(true, Ordering::Release);
            }
            let keep = slot.is_busy();
            if !keep {
                closed.push(*id);
            }
            keep
        });
        for id in closed {
            self.mark_own_write(id);
        }
    }

    /// One turn of `text` on the live session, every event to `sink`: what
    /// `send_message` runs, with the core's whole report.
    pub async fn run_turn<H>(
        self: &Arc<Self>,
        id: SessionId,
        text: String,
        sink: H,
    ) -> AppResult<TurnReport>
    where
        H: EventHandler + Send + 'static,
    {
        self.run_turn_as(id, text, sink, false).await
    }

    /// One turn of `text`; with `attach_mentions`, its user message also
    /// carries what its `@` mentions hold (`ToolRegistry::attach_mentions`,
    /// read as the session's tools read), and the record keeps that message.
    /// The typed text is checked as any message is.
    pub(crate) async fn run_turn_as<H>(
        self: &Arc<Self>,
        id: SessionId,
        text: String,
        sink: H,
        attach_mentions: bool,
    ) -> AppResult<TurnReport>
    where
        H: EventHandler + Send + 'static,
    {
        validate::message(&text)?;
        let report = self
            .run_exclusive(id, sink, move |agent, cancel| {
                let text = if attach_mentions {
                    agent.tools().attach_mentions(&text)
                } else {
                    text
                };
                Box::pin(agent.run_turn(text, cancel))
            })
            .await?;
        tracing::info!(session = %id, outcome = ?report.outcome, rounds = report.rounds, attach_mentions, "turn finished");
        Ok(report)
    }

    /// A manual compaction, whole (`up_to` none) or of everything before
    /// the item `up_to` names, its events to `sink`: the core's outcome and
    /// the history's length after it.
    pub async fn compact<H>(
        self: &Arc<Self>,
        id: SessionId,
        focus: Option<String>,
        up_to: Option<String>,
        sink: H,
    ) -> AppResult<(CoreCompactOutcome, u32)>
    where
        H: EventHandler + Send + 'static,
    {
        let up_to = up_to.as_deref().map(validate::item_query).transpose()?;
        let partial = up_to.is_some();
        let (outcome, history_items) = self
            .run_exclusive(id, sink, move |agent, cancel| {
                Box::pin(async move {
                    let outcome = match &up_to {
                        Some(item) => agent.compact_up_to(item, focus, cancel).await?,
                        None => agent.compact_now(focus, cancel).await?,
                    };
                    let history_items = u32::try_from(agent.history().len()).unwrap_or(u32::MAX);
                    Ok((outcome, history_items))
                })
            })
            .await?;
        tracing::info!(session = %id, partial, compacted = matches!(outcome, CoreCompactOutcome::Compacted(_)), history_items, "manual compaction finished");
        Ok((outcome, history_items))
    }

    /// Cancels what runs in the session (the desktop's Stop, the command
    /// line's Ctrl+C); `false` when nothing does.
    pub fn stop(&self, id: SessionId) -> bool {
        self.live(id).is_some_and(|slot| slot.cancel())
    }

    /// Answers the approval `call_id` waits for; `false` when none does.
    /// "Always allow" first saves the rules the request proposed (never
    /// rules a front end names) to the session's workspace rules; when that
    /// fails nothing is answered.
    pub fn answer(
        &self,
        id: SessionId,
        call_id: &str,
        decision: ApprovalDecision,
    ) -> AppResult<bool> {
        let Some(slot) = self.live(id) else {
            return Ok(false);
        };
        if decision == ApprovalDecision::AlwaysAllow {
            let Some(proposed) = slot.broker().proposed_rules(call_id) else {
                return Ok(false);
            };
            let saved = crate::rules::save_always_allow(self.paths(), &slot.workspace, &proposed)?;
            tracing::info!(session = %id, rules = proposed.patterns.len(), file = %saved.display(), "always allow saved");
        }
        Ok(slot.broker().answer(call_id, decision))
    }

    /// Runs `work` on the session's agent as its one turn or compaction:
    /// resumes the session if this app does not hold it open yet, hands
    /// every event to `sink` in order before returning, and afterwards
    /// closes the session if its settings changed meanwhile or `work`
    /// failed. The work runs in its own task, so it finishes (and its
    /// records are written) even if the caller stops waiting.
    pub(crate) async fn run_exclusive<H, T, W>(
        self: &Arc<Self>,
        id: SessionId,
        mut sink: H,
        work: W,
    ) -> AppResult<T>
    where
        H: EventHandler + Send + 'static,
        T: Send + 'static,
        W: for<'a> FnOnce(&'a mut Agent, CancellationToken) -> AgentWork<'a, T> + Send + 'static,
    {
        let mut running = self.start_running(id).await?;
        let cancel = running.cancel.clone();
        let app = Arc::clone(self);
        let result = tokio::spawn(async move {
            let live = &mut *running.guard;
            let result =
                forward_events(work(&mut live.agent, cancel), &mut live.events, &mut sink).await;
            app.finished(id, running, result.is_err());
            result
        })
        .await
        .map_err(task_failed)?;
        Ok(result?)
    }

    /// A manual compaction, whole (`up_to` none) or partial (everything
    /// before the item `up_to` names), its events to `sink`, in the
    /// contract's shape.
    pub(crate) async fn compact_with<H>(
        self: &Arc<Self>,
        id: SessionId,
        focus: Option<String>,
        up_to: Option<String>,
        sink: H,
    ) -> AppResult<CompactOutcome>
    where
        H: EventHandler + Send + 'static,
    {
        let (outcome, history_items) = self.compact(id, focus, up_to, sink).await?;
        compact_outcome(outcome, history_items)
    }
}

/// The contract's view of a core compaction outcome.
pub fn compact_outcome(
    outcome: CoreCompactOutcome,
    history_items: u32,
) -> AppResult<CompactOutcome> {
    let skipped = |reason: String| CompactOutcome {
        summary: None,
        skipped: Some(reason),
        history_items,
    };
    match outcome {
        CoreCompactOutcome::Compacted(summary) => Ok(CompactOutcome {
            summary: Some(summary),
            skipped: None,
            history_items,
        }),
        CoreCompactOutcome::NothingToCompact { .. } => Ok(skipped(
            "Nothing to compact yet: the history holds only the opening messages and your requests."
                .to_owned(),
        )),
        CoreCompactOutcome::Cancelled => Ok(skipped("The compaction was stopped.".to_owned())),
        CoreCompactOutcome::SummaryFailed { attempts, message } => {
            Err(strata_protocol::CommandError::new(
                CommandErrorKind::Provider,
                format!("No summary could be made ({attempts} attempts): {message}"),
            )
            .into())
        }
        // The rule check refused it: nothing changed, and the message says
        // what it would have dropped.
        CoreCompactOutcome::Refused { message, .. } => Ok(skipped(message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_summary_is_a_provider_error_and_a_cancel_is_not() {
        let error = compact_outcome(
            CoreCompactOutcome::SummaryFailed {
                attempts: 4,
                message: "rate limited".into(),
            },
            3,
        )
        .map_err(strata_protocol::CommandError::from)
        .unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::Provider);
        assert!(error.message.contains("4 attempts"), "{error:?}");
        let stopped = compact_outcome(CoreCompactOutcome::Cancelled, 3).unwrap();
        assert_eq!(stopped.summary, None);
        assert_eq!(stopped.history_items, 3);
        assert!(stopped.skipped.is_some());
    }
}
