//! `strata run`, `strata resume` and `strata compact`: one turn (or one
//! compaction) through strata-app's `App`, as the desktop runs them, its
//! events shown as they arrive, Ctrl+C once to stop and twice to exit.

use std::future::Future;
use std::sync::{Arc, PoisonError};

use strata_app::App;
use strata_app::error::AppResult;
use strata_app::live::Opened;
use strata_core::CancellationToken;
use strata_core::agent::{CompactOutcome, EventHandler, TurnReport};
use strata_protocol::{
    ApprovalPolicy, CONTRACT_FORMAT_VERSION, CompactFinished, CompactResult, EventEnvelope,
    OutputKind, SessionId, TurnOutcome,
};

use crate::cli::{AgentFlags, ApprovalArg, CompactArgs, ResumeArgs, RunArgs};
use crate::error::CliError;
use crate::launch;
use crate::render::{Answer, Ui};
use crate::store::Context;
use crate::style::{BOLD, DIM, WARN, paint};
use crate::terminal::{self, Interrupts, Lines};
use crate::visible::visible_inline;

/// `strata run -p PROMPT [flags]`.
pub fn run(ctx: &Context, args: RunArgs) -> crate::error::Result<()> {
    let interactive = asks_on_terminal(&args.agent);
    with_sessions_closed(ctx, async move {
        let opened = launch::start(ctx, &args.agent, interactive).await?;
        one_turn(ctx, &opened, &args.agent, args.prompt, interactive).await
    })
}

/// `strata resume SESSION -p PROMPT [flags]`.
pub fn resume(ctx: &Context, args: ResumeArgs) -> crate::error::Result<()> {
    let interactive = asks_on_terminal(&args.agent);
    with_sessions_closed(ctx, async move {
        let opened = launch::resume(ctx, &args.session, &args.agent, interactive).await?;
        let asks = interactive && opened.policy == ApprovalPolicy::Ask;
        one_turn(ctx, &opened, &args.agent, args.prompt, asks).await
    })
}

/// Whether approvals may be asked on the terminal: a person is there and
/// no flag chose a policy other than `ask` (a resumed session without the
/// flag keeps its recorded one, which may be `ask`).
pub fn asks_on_terminal(flags: &AgentFlags) -> bool {
    flags.approval.is_none_or(|arg| arg == ApprovalArg::Ask) && terminal::is_interactive()
}

async fn one_turn(
    ctx: &Context,
    opened: &Opened,
    flags: &AgentFlags,
    prompt: String,
    interactive: bool,
) -> crate::error::Result<()> {
    let mut session = Terminal::new(ctx, opened, flags.json, interactive, true)?;
    let report = session.turn(prompt).await?;
    turn_result(&report)
}

/// `strata compact SESSION [--focus TEXT] [flags]`.
pub fn compact(ctx: &Context, args: CompactArgs) -> crate::error::Result<()> {
    if args.preview {
        return crate::preview::preview(ctx, &args);
    }
    if args.undo {
        return crate::items::undo(ctx, &args);
    }
    let json = args.agent.json;
    with_sessions_closed(ctx, async move {
        let opened = launch::resume(ctx, &args.session, &args.agent, false).await?;
        let mut session = Terminal::new(ctx, &opened, json, false, false)?;
        let (outcome, _) = session.compact(args.focus, args.up_to).await?;
        let id = session.id;
        compact_result(&mut *session.ui().await, id, &outcome, json)
    })
}

/// A session the app holds live, at work on a terminal: its events shown
/// by the [`Ui`], turns and compactions run through the same `App`
/// methods as the desktop's, Ctrl+C calling the same stop as its Stop
/// button. Made inside the runtime.
pub struct Terminal {
    app: Arc<App>,
    pub id: SessionId,
    /// The session's folder, where `/clear` starts the next one.
    pub workspace: String,
    ui: Arc<tokio::sync::Mutex<Ui>>,
    interrupts: Interrupts,
}

impl Terminal {
    /// Installs the Ctrl+C handler, reads typed lines when `lines` (for
    /// approvals and the REPL), and announces the session (see
    /// [`announce`]).
    pub fn new(
        ctx: &Context,
        opened: &Opened,
        json: bool,
        lines: bool,
        turns: bool,
    ) -> crate::error::Result<Self> {
        let interrupts = Interrupts::install(ctx.out);
        let lines = lines.then(Lines::spawn);
        let app = Arc::clone(&ctx.app);
        let id = opened.session_id;
        let answer = answer_in(&app, id);
        let mut ui = Ui::new(ctx.out, json, opened.asks, answer, lines);
        announce(&mut ui, opened, json, turns)?;
        Ok(Self {
            app,
            id,
            workspace: opened.started.workspace.clone(),
            ui: Arc::new(tokio::sync::Mutex::new(ui)),
            interrupts,
        })
    }

    /// Goes on in `opened` (`/clear`'s new session): approvals are answered
    /// there from now on, and it is announced as a new one is.
    pub async fn switch_to(&mut self, opened: &Opened, json: bool) -> crate::error::Result<()> {
        self.id = opened.session_id;
        self.workspace = opened.started.workspace.clone();
        let mut ui = self.ui.lock().await;
        ui.answer_with(answer_in(&self.app, self.id), opened.asks);
        announce(&mut ui, opened, json, true)
    }

    /// The terminal's view, between turns.
    pub async fn ui(&self) -> tokio::sync::MutexGuard<'_, Ui> {
        self.ui.lock().await
    }

    /// One turn of `prompt` (`App::run_turn`, as the desktop's `send_message`).
    pub async fn turn(&mut self, prompt: String) -> crate::error::Result<TurnReport> {
        let (app, id) = (Arc::clone(&self.app), self.id);
        self.interruptible(|sink| async move { app.run_turn(id, prompt, sink).await })
            .await
    }

    /// [`Self::turn`] whose user message also carries what its `@`
    /// mentions hold (`App::run_turn_with_mentions`, as the desktop's
    /// composer sends).
    pub async fn turn_with_mentions(&mut self, prompt: String) -> crate::error::Result<TurnReport> {
        let (app, id) = (Arc::clone(&self.app), self.id);
        self.interruptible(|sink| async move { app.run_turn_with_mentions(id, prompt, sink).await })
            .await
    }

    /// A manual compaction (`App::compact`, as the desktop's `compact_now`
    /// and `compact_up_to`).
    pub async fn compact(
        &mut self,
        focus: Option<String>,
        up_to: Option<String>,
    ) -> crate::error::Result<(CompactOutcome, u32)> {
        let (app, id) = (Arc::clone(&self.app), self.id);
        self.interruptible(|sink| async move { app.compact(id, focus, up_to, sink).await })
            .await
    }

    /// Runs `work` with a sink showing its events; Ctrl+C meanwhile stops
    /// it through `App::stop`. If the output fails (a closed pipe), the
    /// work is stopped the same way and still driven to its end, so the
    /// session is left as a cancellation leaves it, and the output error is
    /// returned.
    async fn interruptible<T, F>(
        &mut self,
        work: impl FnOnce(Shown) -> F,
    ) -> crate::error::Result<T>
    where
        F: Future<Output = AppResult<T>>,
    {
        let (app, id) = (Arc::clone(&self.app), self.id);
        let prompt = self.interrupts.begin(Box::new(move || {
            app.stop(id);
        }));
        let failed = Arc::new(std::sync::Mutex::new(None));
        let shown = Shown {
            ui: Arc::clone(&self.ui),
            app: Arc::clone(&self.app),
            id,
            prompt,
            failed: Arc::clone(&failed),
        };
        let result = work(shown).await;
        self.interrupts.end();
        let failure = failed.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(error) = failure {
            return Err(error.into());
        }
        self.ui().await.settle()?;
        Ok(result?)
    }
}

/// Answers approvals of session `id` through the app.
fn answer_in(app: &Arc<App>, id: SessionId) -> Answer {
    let answers = Arc::clone(app);
    Box::new(move |call_id: &str, decision| {
        answers
            .answer(id, call_id, decision)
            .map(|_| ())
            .map_err(|error| error.to_string())
    })
}

/// The session line: on standard error first, and as the first `--json`
/// line; `turns` adds what happens to approvals without a terminal.
fn announce(ui: &mut Ui, opened: &Opened, json: bool, turns: bool) -> crate::error::Result<()> {
    let verb = if opened.resumed {
        "resumed session"
    } else {
        "session"
    };
    ui.note(format!(
        "{} {}{}",
        paint(BOLD, verb),
        paint(BOLD, opened.session_id),
        paint(DIM, format!(" · {}", visible_inline(&opened.details)))
    ))?;
    // Each `[mcp_servers]` table that could not be read (the others start).
    for problem in &opened.mcp_problems {
        ui.note(format!(
            "{} {}",
            paint(WARN, "warning:"),
            visible_inline(problem)
        ))?;
    }
    if let Some(note) = &opened.instructions_changed {
        ui.note(paint(DIM, visible_inline(note)))?;
    }
    if turns && opened.policy == ApprovalPolicy::Ask && !opened.asks && !json {
        ui.note(paint(
            DIM,
            "no terminal to ask on: writes and shell commands will be refused (--approval auto runs them)",
        ))?;
    }
    if json {
        ui.json_line(&opened.started)?;
    }
    Ok(())
}

/// The terminal's event sink: shows events until the output fails, then
/// stops the work.
pub struct Shown {
    ui: Arc<tokio::sync::Mutex<Ui>>,
    app: Arc<App>,
    id: SessionId,
    /// Cancelled by Ctrl+C: an approval question stops waiting.
    prompt: CancellationToken,
    failed: Arc<std::sync::Mutex<Option<std::io::Error>>>,
}

impl EventHandler for Shown {
    async fn handle(&mut self, envelope: EventEnvelope) {
        if self
            .failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
        {
            return;
        }
        let shown = self.ui.lock().await.handle(&envelope, &self.prompt).await;
        if let Err(error) = shown {
            self.app.stop(self.id);
            self.prompt.cancel();
            *self.failed.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
        }
    }
}

/// Exit status of a finished turn: only a completed one succeeds.
pub fn turn_result(report: &TurnReport) -> crate::error::Result<()> {
    match report.outcome {
        TurnOutcome::Completed => Ok(()),
        TurnOutcome::Cancelled => Err(CliError::TurnCancelled),
        TurnOutcome::Failed => Err(match &report.deadline {
            Some(deadline) => CliError::TurnPastDeadline(deadline.clone()),
            None => CliError::TurnFailed(report.error.clone()),
        }),
        TurnOutcome::RoundLimit => Err(CliError::RoundLimit {
            rounds: report.rounds,
        }),
    }
}

/// Exit status of a compaction, with its one JSON line.
pub fn compact_result(
    ui: &mut Ui,
    session_id: SessionId,
    outcome: &CompactOutcome,
    json: bool,
) -> crate::error::Result<()> {
    if json {
        ui.json_line(&compact_finished(session_id, outcome))?;
    }
    match outcome {
        CompactOutcome::Compacted(_) => Ok(()),
        CompactOutcome::NothingToCompact { items } => {
            if !json {
                ui.note(format!(
                    "nothing to compact: all {items} items of the history would be kept"
                ))?;
            }
            Ok(())
        }
        CompactOutcome::SummaryFailed { attempts, message } => Err(CliError::SummaryFailed {
            attempts: *attempts,
            message: message.clone(),
        }),
        CompactOutcome::Refused { message, .. } => Err(CliError::CompactionRefused {
            message: message.clone(),
        }),
        CompactOutcome::Cancelled => Err(CliError::CompactionCancelled),
    }
}

/// The `compact_finished` line for `outcome`.
fn compact_finished(session_id: SessionId, outcome: &CompactOutcome) -> CompactFinished {
    let line = |outcome| CompactFinished {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::CompactFinished,
        session_id,
        outcome,
        summary_item_id: None,
        removed: None,
        kept: None,
        items: None,
        attempts: None,
        message: None,
        dropped: None,
    };
    match outcome {
        CompactOutcome::Compacted(summary) => CompactFinished {
            summary_item_id: Some(summary.id),
            removed: Some(summary.metadata.removed),
            kept: Some(summary.metadata.kept),
            ..line(CompactResult::Compacted)
        },
        CompactOutcome::NothingToCompact { items } => CompactFinished {
            items: Some(u32::try_from(*items).unwrap_or(u32::MAX)),
            ..line(CompactResult::NothingToCompact)
        },
        CompactOutcome::SummaryFailed { attempts, message } => CompactFinished {
            attempts: Some(*attempts),
            message: Some(message.clone()),
            ..line(CompactResult::SummaryFailed)
        },
        CompactOutcome::Refused { dropped, message } => CompactFinished {
            dropped: Some(dropped.clone()),
            message: Some(message.clone()),
            ..line(CompactResult::Refused)
        },
        CompactOutcome::Cancelled => line(CompactResult::Cancelled),
    }
}

/// Runs `session_work` (which opens sessions live) on a new runtime, then
/// closes those sessions and waits for their MCP servers to stop
/// gracefully, whatever the work's result: dropped with the runtime they
/// would be SIGKILLed instead.
pub fn with_sessions_closed<T>(
    ctx: &Context,
    session_work: impl std::future::Future<Output = crate::error::Result<T>>,
) -> crate::error::Result<T> {
    runtime()?.block_on(async {
        let result = session_work.await;
        ctx.app.shutdown().await;
        result
    })
}

pub fn runtime() -> crate::error::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(CliError::Runtime)
}
