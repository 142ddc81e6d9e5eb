//! Sessions a front end opens live with its own launch options (the command
//! line's flags), and the operations both front ends run on a live session
//! through the same path: a turn, a compaction (the core's outcome, which
//! the desktop's commands turn into the contract's), stop and approval
//! answers. The desktop's commands in [`crate::manager`] call these too.

use std::path::PathBuf;
use std::sync::Arc;

use strata_core::Recovery;
use strata_core::agent::{CompactOutcome as CoreCompactOutcome, EventHandler, TurnReport};
use strata_protocol::{ApprovalDecision, ApprovalPolicy, ProfileSet, SessionId, SessionStarted};

use crate::App;
use crate::error::AppResult;
use crate::launch::{self, LaunchOptions, Launched};
use crate::manager::LiveSlot;
use crate::validate;

/// What opening a session live found, for the front end to announce.
#[derive(Clone, Debug)]
pub struct Opened {
    pub session_id: SessionId,
    /// The command line's first `--json` line.
    pub started: SessionStarted,
    /// Model, endpoint, workspace, policy and threshold, for a person.
    pub details: String,
    pub policy: ApprovalPolicy,
    /// Whether approvals wait for an answer.
    pub asks: bool,
    pub resumed: bool,
    pub switched: Option<ProfileSet>,
    /// The session predates recorded profiles.
    pub legacy: bool,
    /// The profile's kind and model, for the legacy notice.
    pub profile: String,
    /// What reopening repaired.
    pub recovery: Recovery,
}

impl Opened {
    fn of(launched: &Launched) -> Self {
        Self {
            session_id: launched.agent.id(),
            started: launched.started_line(),
            details: launched.details(),
            policy: launched.policy,
            asks: launched.agent.broker().is_interactive(),
            resumed: launched.resumed,
            switched: launched.switched.clone(),
            legacy: launched.legacy,
            profile: format!("{} · {}", launched.profile.kind, launched.profile.model),
            recovery: launched.agent.session().recovery().clone(),
        }
    }
}

impl App {
    /// A new session in `workspace` built with `options`, kept live.
    pub async fn start_live(
        self: &Arc<Self>,
        workspace: PathBuf,
        options: LaunchOptions,
    ) -> AppResult<Opened> {
        let _opening = self.live.opening.lock().await;
        let (opened, slot) = self
            .blocking(move |app| {
                let launched =
                    launch::start(&app.store, &app.paths, app.env(), &workspace, &options)?;
                Ok((Opened::of(&launched), LiveSlot::new(launched)))
            })
            .await?;
        self.insert_live(opened.session_id, Arc::new(slot));
        Ok(opened)
    }

    /// The session `id` resumed with `options` and kept live, in place of
    /// any idle one this app holds.
    pub async fn resume_live(
        self: &Arc<Self>,
        id: SessionId,
        options: LaunchOptions,
    ) -> AppResult<Opened> {
        let _opening = self.live.opening.lock().await;
        self.close_locked(id)?;
        let (opened, slot) = self
            .blocking(move |app| {
                let launched = launch::resume(&app.store, &app.paths, app.env(), id, &options)?;
                Ok((Opened::of(&launched), LiveSlot::new(launched)))
            })
            .await?;
        self.insert_live(id, Arc::new(slot));
        Ok(opened)
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
        validate::message(&text)?;
        let report = self
            .run_exclusive(id, sink, move |agent, cancel| {
                Box::pin(agent.run_turn(text, cancel))
            })
            .await?;
        tracing::info!(session = %id, outcome = ?report.outcome, rounds = report.rounds, "turn finished");
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
    pub fn answer(&self, id: SessionId, call_id: &str, decision: ApprovalDecision) -> bool {
        self.live(id)
            .is_some_and(|slot| slot.broker().answer(call_id, decision))
    }
}
