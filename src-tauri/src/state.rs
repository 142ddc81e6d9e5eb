//! The app's state: the session store, and the sessions this app holds open
//! for turns, each with its agent, approval broker and the cancellation
//! token of whatever runs in it now.
//!
//! A live session keeps its writer lock until it is closed (deleted, or its
//! settings changed), so another process cannot write it meanwhile.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use strata_core::agent::{AgentParts, ApprovalBroker, EventReceiver};
use strata_core::store::{ReadMode, SessionRead};
use strata_core::{
    Agent, CancellationToken, LiveSession, SessionApprovals, SessionStore, StrataPaths,
    ToolRegistry,
};
use strata_protocol::{SessionId, SessionListItem};
use strata_providers::config::{EnvLookup, load_and_resolve, resolve_profile};
use strata_providers::{ProfileFlags, StrataConfig, agent_config, agent_parts, tool_config};

use crate::errors::{CommandResult, ToCommandError, busy, task_failed};
use crate::settings::DesktopPrefs;
use crate::views::list_item_of_replay;

/// Reads an environment variable (the process environment in the app; tests
/// pass an empty one so a developer's keys never leak into them).
pub type EnvFn = fn(&str) -> Option<String>;

/// What Tauri manages: one per app.
pub struct AppState {
    paths: StrataPaths,
    store: SessionStore,
    env: EnvFn,
    live: Mutex<HashMap<SessionId, Arc<LiveSlot>>>,
    /// Serialises opening and closing sessions, so two commands never open
    /// the same session's writer at once.
    opening: tokio::sync::Mutex<()>,
}

/// A session open for turns.
pub struct LiveSlot {
    agent: Arc<tokio::sync::Mutex<LiveAgent>>,
    broker: ApprovalBroker,
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
}

/// An exclusive hold on a live session for one turn or compaction: the agent
/// is locked, and `stop_turn` reaches `cancel`. Dropping it releases both.
pub struct Running {
    pub slot: Arc<LiveSlot>,
    pub guard: tokio::sync::OwnedMutexGuard<LiveAgent>,
    pub cancel: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        // Cleared before the agent's lock is released (fields drop after
        // this), so a turn started right after cannot lose its token.
        *lock(&self.slot.cancel) = None;
    }
}

impl LiveSlot {
    fn new(agent: Agent, events: EventReceiver) -> Self {
        let broker = agent.broker().clone();
        let threshold = agent.threshold();
        let context_window = agent.config().context_window;
        Self {
            agent: Arc::new(tokio::sync::Mutex::new(LiveAgent { agent, events })),
            broker,
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

    pub fn broker(&self) -> &ApprovalBroker {
        &self.broker
    }
}

/// A std mutex whose data stays usable after a panicking holder: every value
/// kept under these locks is valid at any point.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl AppState {
    pub fn new(paths: StrataPaths, env: EnvFn) -> Self {
        Self {
            store: SessionStore::from_paths(&paths),
            paths,
            env,
            live: Mutex::new(HashMap::new()),
            opening: tokio::sync::Mutex::new(()),
        }
    }

    pub fn paths(&self) -> &StrataPaths {
        &self.paths
    }

    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    pub fn env(&self) -> EnvLookup<'_> {
        &self.env
    }

    /// The config file, or why it cannot be read.
    pub fn config(&self) -> CommandResult<StrataConfig> {
        StrataConfig::load(&self.paths.config_file()).map_err(ToCommandError::to_command_error)
    }

    pub fn prefs(&self) -> DesktopPrefs {
        DesktopPrefs::load(&self.paths.config)
    }

    /// Reads the session for viewing: corrupt lines are skipped and a torn
    /// tail ignored; nothing is written.
    pub fn browse(&self, id: SessionId) -> CommandResult<SessionRead> {
        self.store
            .open_reader(id, ReadMode::Browsing)
            .map_err(ToCommandError::to_command_error)
    }

    /// The live session, if this app holds it open.
    pub fn live(&self, id: SessionId) -> Option<Arc<LiveSlot>> {
        lock(&self.live).get(&id).cloned()
    }

    /// The compaction threshold and context window a session is shown with:
    /// its agent's when it is live, else those an agent on the active
    /// profile would use.
    pub fn limits_for(&self, id: SessionId) -> CommandResult<(u64, Option<u64>)> {
        if let Some(slot) = self.live(id) {
            return Ok((slot.threshold, slot.context_window));
        }
        let profile = resolve_profile(&self.config()?, &ProfileFlags::default(), self.env())
            .map_err(ToCommandError::to_command_error)?;
        // What an agent on it would use once the session goes live.
        let config = agent_config(&profile);
        Ok((config.effective_threshold(), config.context_window))
    }

    /// Creates a session in `workspace` on the active profile, committing its
    /// system prompt, and keeps it live.
    pub async fn create_session(
        self: &Arc<Self>,
        workspace: &Path,
    ) -> CommandResult<SessionListItem> {
        let _opening = self.opening.lock().await;
        let state = Arc::clone(self);
        let workspace = workspace.to_owned();
        let slot = tauri::async_runtime::spawn_blocking(move || {
            let (parts, events) = state.agent_parts(&workspace)?;
            let agent =
                Agent::start(&state.store, parts).map_err(ToCommandError::to_command_error)?;
            let id = agent.id();
            tracing::info!(session = %id, workspace = %workspace.display(), "session created");
            let item = list_item_of_replay(agent.session().state());
            Ok::<_, strata_protocol::CommandError>((id, item, LiveSlot::new(agent, events)))
        })
        .await
        .map_err(task_failed)??;
        let (id, item, slot) = slot;
        lock(&self.live).insert(id, Arc::new(slot));
        Ok(item)
    }

    /// The live session `id`, resumed from its file (on the active profile)
    /// if this app does not hold it yet.
    pub async fn ensure_live(self: &Arc<Self>, id: SessionId) -> CommandResult<Arc<LiveSlot>> {
        if let Some(slot) = self.live(id) {
            return Ok(slot);
        }
        let _opening = self.opening.lock().await;
        if let Some(slot) = self.live(id) {
            return Ok(slot);
        }
        let state = Arc::clone(self);
        let slot = tauri::async_runtime::spawn_blocking(move || {
            let session = state
                .store
                .open_writer(id)
                .map_err(ToCommandError::to_command_error)?;
            log_recovery(&session);
            let workspace = std::path::PathBuf::from(&session.meta().workspace);
            let (parts, events) = state.agent_parts(&workspace)?;
            let agent = Agent::resume(session, parts).map_err(ToCommandError::to_command_error)?;
            tracing::info!(session = %id, "session resumed");
            Ok::<_, strata_protocol::CommandError>(LiveSlot::new(agent, events))
        })
        .await
        .map_err(task_failed)??;
        let slot = Arc::new(slot);
        lock(&self.live).insert(id, Arc::clone(&slot));
        Ok(slot)
    }

    /// Takes the session for one turn or compaction; `busy` when something
    /// already runs in it.
    pub async fn start_running(self: &Arc<Self>, id: SessionId) -> CommandResult<Running> {
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
    pub fn finished(&self, id: SessionId, running: Running, failed: bool) {
        let stale = running.slot.stale.load(Ordering::Acquire);
        drop(running);
        if stale || failed {
            self.close_if_idle(id);
        }
    }

    /// Closes the live session (releasing its writer lock) unless something
    /// runs in it; `busy` when something does. Closing an unknown session is
    /// a no-op.
    pub async fn close(&self, id: SessionId) -> CommandResult<()> {
        let _opening = self.opening.lock().await;
        let mut live = lock(&self.live);
        if let Some(slot) = live.get(&id) {
            if slot.is_busy() {
                return Err(busy(
                    "A turn is running in this session; stop it or wait for it to finish first.",
                ));
            }
            live.remove(&id);
            tracing::info!(session = %id, "session closed");
        }
        Ok(())
    }

    /// Names the session (a `title_set` record). A live session is renamed
    /// through its agent, which stays live as it was (its approvals, broker
    /// and event numbering); refused while something runs in it.
    pub async fn rename(
        self: &Arc<Self>,
        id: SessionId,
        title: String,
    ) -> CommandResult<SessionListItem> {
        let _opening = self.opening.lock().await;
        let live = match self.live(id) {
            Some(slot) => Some(Arc::clone(&slot.agent).try_lock_owned().map_err(|_| {
                busy("A turn is running in this session; stop it or wait for it to finish first.")
            })?),
            None => None,
        };
        let state = Arc::clone(self);
        tauri::async_runtime::spawn_blocking(move || {
            let item = match live {
                Some(mut live) => {
                    live.agent
                        .set_title(title)
                        .map_err(ToCommandError::to_command_error)?;
                    list_item_of_replay(live.agent.session().state())
                }
                None => {
                    let mut session = state
                        .store
                        .open_writer(id)
                        .map_err(ToCommandError::to_command_error)?;
                    session
                        .set_title(title)
                        .and_then(|()| session.sync())
                        .map_err(ToCommandError::to_command_error)?;
                    list_item_of_replay(session.state())
                }
            };
            Ok(item)
        })
        .await
        .map_err(task_failed)?
    }

    fn close_if_idle(&self, id: SessionId) {
        let mut live = lock(&self.live);
        if live.get(&id).is_some_and(|slot| !slot.is_busy()) {
            live.remove(&id);
            tracing::info!(session = %id, "session closed to pick up new settings");
        }
    }

    /// After settings were saved: idle sessions close now, running ones
    /// when their turn ends, so every next turn uses the new settings.
    pub fn settings_changed(&self) {
        let mut live = lock(&self.live);
        live.retain(|_, slot| {
            slot.stale.store(true, Ordering::Release);
            slot.is_busy()
        });
    }

    /// The agent's parts for `workspace` on the active profile. Blocking: it
    /// may read the OS keychain.
    fn agent_parts(&self, workspace: &Path) -> CommandResult<(AgentParts, EventReceiver)> {
        let (_, resolved) = load_and_resolve(&self.paths, &ProfileFlags::default(), self.env())
            .map_err(ToCommandError::to_command_error)?;
        let tools = ToolRegistry::new(workspace, tool_config(&resolved, self.env()))
            .map_err(ToCommandError::to_command_error)?;
        let approvals = SessionApprovals::new(self.prefs().approval_policy);
        agent_parts(&resolved, tools, approvals, ApprovalBroker::interactive())
            .map_err(ToCommandError::to_command_error)
    }
}

fn log_recovery(session: &LiveSession) {
    let recovery = session.recovery();
    if !recovery.is_empty() {
        tracing::warn!(
            session = %session.id(),
            torn_tail = recovery.torn_tail.is_some(),
            aborted_calls = recovery.aborted_calls.len(),
            "the session needed repairs when it was reopened"
        );
    }
}
