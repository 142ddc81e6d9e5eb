//! Sessions a front end opens live with its own launch options (the command
//! line's flags). What both front ends then run on a live session (a turn,
//! a compaction, stop, approval answers) is in [`crate::manager`].

use std::path::PathBuf;
use std::sync::Arc;

use strata_core::Recovery;
use strata_protocol::{ApprovalPolicy, ProfileSet, SessionId, SessionStarted};

use crate::App;
use crate::error::AppResult;
use crate::launch::{self, LaunchOptions, Launched};
use crate::manager::LiveSlot;

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
    /// `[mcp_servers]` tables that could not be read (each names its
    /// server; the others start).
    pub mcp_problems: Vec<String>,
    /// What a resume found changed in the instruction files, in words.
    pub instructions_changed: Option<String>,
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
            mcp_problems: launched
                .mcp_problems
                .iter()
                .map(ToString::to_string)
                .collect(),
            instructions_changed: launched
                .agent
                .instructions_changed()
                .map(crate::transcript::text::instructions_note),
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
}
