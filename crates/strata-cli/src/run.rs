//! `strata run`, `strata resume` and `strata compact`: one turn (or one
//! compaction) of an agent, its events shown as they arrive, Ctrl+C once to
//! cancel and twice to exit.

use std::future::Future;

use strata_app::catalog::WritingNote;
use strata_core::CancellationToken;
use strata_core::agent::{
    Agent, CompactOutcome, EventHandler, EventReceiver, TurnReport, forward_events,
};
use strata_protocol::{
    ApprovalPolicy, CONTRACT_FORMAT_VERSION, CompactFinished, CompactResult, EventEnvelope,
    OutputKind, SessionId, TurnOutcome,
};

use crate::cli::{AgentFlags, ApprovalArg, CompactArgs, ResumeArgs, RunArgs};
use crate::error::CliError;
use crate::launch::{self, Launched};
use crate::render::Ui;
use crate::store::Context;
use crate::style::{BOLD, DIM, paint};
use crate::terminal::{self, Interrupts, Lines};
use crate::visible::visible_inline;

/// `strata run -p PROMPT [flags]`.
pub fn run(ctx: &Context, args: RunArgs) -> crate::error::Result<()> {
    let interactive = asks_on_terminal(&args.agent);
    let launched = launch::start(ctx, &args.agent, interactive)?;
    let asks = interactive && launched.policy == ApprovalPolicy::Ask;
    one_turn(ctx, launched, &args.agent, args.prompt, asks)
}

/// `strata resume SESSION -p PROMPT [flags]`.
pub fn resume(ctx: &Context, args: ResumeArgs) -> crate::error::Result<()> {
    let interactive = asks_on_terminal(&args.agent);
    let launched = launch::resume(ctx, &args.session, &args.agent, interactive)?;
    let asks = interactive && launched.policy == ApprovalPolicy::Ask;
    one_turn(ctx, launched, &args.agent, args.prompt, asks)
}

/// Whether approvals may be asked on the terminal: a person is there and
/// no flag chose a policy other than `ask` (a resumed session without the
/// flag keeps its recorded one, which may be `ask`).
pub fn asks_on_terminal(flags: &AgentFlags) -> bool {
    flags.approval.is_none_or(|arg| arg == ApprovalArg::Ask) && terminal::is_interactive()
}

fn one_turn(
    ctx: &Context,
    launched: Launched,
    flags: &AgentFlags,
    prompt: String,
    interactive: bool,
) -> crate::error::Result<()> {
    runtime()?.block_on(async move {
        let mut driver = Driver::new(ctx, launched, flags.json, interactive, true)?;
        let report = driver
            .interruptible(|agent, cancel| agent.run_turn(prompt, cancel))
            .await?;
        turn_result(&report?)
    })
}

/// `strata compact SESSION [--focus TEXT] [flags]`.
pub fn compact(ctx: &Context, args: CompactArgs) -> crate::error::Result<()> {
    if args.preview {
        return crate::preview::preview(ctx, &args);
    }
    if args.undo {
        return crate::items::undo(ctx, &args);
    }
    let launched = launch::resume(ctx, &args.session, &args.agent, false)?;
    let json = args.agent.json;
    runtime()?.block_on(async move {
        let mut driver = Driver::new(ctx, launched, json, false, false)?;
        let outcome = match args.up_to {
            Some(item) => {
                let item = strata_app::validate::item_query(&item).map_err(CliError::from)?;
                driver
                    .interruptible(|agent, cancel| async move {
                        agent.compact_up_to(&item, args.focus, cancel).await
                    })
                    .await??
            }
            None => {
                driver
                    .interruptible(|agent, cancel| agent.compact_now(args.focus, cancel))
                    .await??
            }
        };
        let id = driver.agent.id();
        compact_result(&mut driver.ui, id, &outcome, json)
    })
}

/// A launched agent at work on a terminal: its events shown by `ui`, and
/// Ctrl+C cancelling what [`Self::interruptible`] runs. Made inside the
/// runtime.
pub struct Driver {
    pub agent: Agent,
    /// The index's mark that the session is open for writing; dropped after
    /// the agent, which closes the file.
    _note: WritingNote,
    events: EventReceiver,
    pub ui: Ui,
    interrupts: Interrupts,
}

impl Driver {
    /// Installs the Ctrl+C handler, reads typed lines when `lines` (for
    /// approvals and the REPL), and announces the session (see
    /// [`announce`]).
    pub fn new(
        ctx: &Context,
        launched: Launched,
        json: bool,
        lines: bool,
        turns: bool,
    ) -> crate::error::Result<Self> {
        let interrupts = Interrupts::install(ctx.out);
        let lines = lines.then(Lines::spawn);
        let mut ui = Ui::new(ctx.out, json, launched.agent.broker().clone(), lines);
        announce(&mut ui, &launched, json, turns)?;
        let Launched {
            agent,
            events,
            note,
            ..
        } = launched;
        Ok(Self {
            agent,
            _note: note,
            events,
            ui,
            interrupts,
        })
    }

    /// Runs the work `start` begins on the agent with a fresh cancellation
    /// token (Ctrl+C cancels it), showing the agent's events meanwhile.
    pub async fn interruptible<'a, T, F>(
        &'a mut self,
        start: impl FnOnce(&'a mut Agent, CancellationToken) -> F,
    ) -> crate::error::Result<T>
    where
        F: Future<Output = T>,
    {
        let Self {
            agent,
            events,
            ui,
            interrupts,
            ..
        } = self;
        let cancel = interrupts.begin();
        let result = drive(start(agent, cancel.clone()), events, ui, &cancel).await?;
        interrupts.end();
        Ok(result)
    }
}

/// The session line: on standard error first, and as the first `--json`
/// line; `turns` adds what happens to approvals without a terminal.
fn announce(ui: &mut Ui, launched: &Launched, json: bool, turns: bool) -> crate::error::Result<()> {
    let verb = if launched.resumed {
        "resumed session"
    } else {
        "session"
    };
    ui.note(format!(
        "{} {}{}",
        paint(BOLD, verb),
        paint(BOLD, launched.agent.id()),
        paint(DIM, format!(" · {}", visible_inline(&launched.details())))
    ))?;
    if turns
        && launched.policy == ApprovalPolicy::Ask
        && !launched.agent.broker().is_interactive()
        && !json
    {
        ui.note(paint(
            DIM,
            "no terminal to ask on: writes and shell commands will be refused (--approval auto runs them)",
        ))?;
    }
    if json {
        ui.json_line(&launched.started_line())?;
    }
    Ok(())
}

/// Runs `work` while showing the agent's events; the events still queued
/// when it finishes are shown too. If the output fails (a closed pipe),
/// the work is cancelled and still driven to its end, so the session is
/// left as a cancellation leaves it, and the output error is returned.
async fn drive<T>(
    work: impl Future<Output = T>,
    events: &mut EventReceiver,
    ui: &mut Ui,
    cancel: &CancellationToken,
) -> crate::error::Result<T> {
    let mut shown = Shown {
        ui,
        cancel,
        failed: None,
    };
    let result = forward_events(work, events, &mut shown).await;
    if let Some(error) = shown.failed {
        return Err(error.into());
    }
    ui.settle()?;
    Ok(result)
}

/// Shows events until the output fails, then cancels the work.
struct Shown<'a> {
    ui: &'a mut Ui,
    cancel: &'a CancellationToken,
    failed: Option<std::io::Error>,
}

impl EventHandler for Shown<'_> {
    async fn handle(&mut self, envelope: EventEnvelope) {
        if self.failed.is_none()
            && let Err(error) = self.ui.handle(&envelope, self.cancel).await
        {
            self.cancel.cancel();
            self.failed = Some(error);
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

pub fn runtime() -> crate::error::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(CliError::Runtime)
}
