//! Turns: start one, stop it, answer its approvals, compact now. A turn runs
//! on its own task; every event of both families reaches the UI through the
//! turn's channel, in the agent's order.

use std::future::Future;

use strata_core::EventReceiver;
use strata_core::agent::{CompactOutcome as CoreCompactOutcome, EventHandler, forward_events};
use strata_protocol::{
    ApprovalDecision, CommandErrorKind, CompactOutcome, EventEnvelope, TurnReport,
};
use tauri::State;
use tauri::ipc::Channel;

use super::{Shared, parse_id};
use crate::errors::{CommandResult, ToCommandError, invalid_input, task_failed};

/// Runs one turn of `text`, resuming the session if this app does not hold
/// it open yet.
#[tauri::command]
pub async fn send_message(
    state: State<'_, Shared>,
    session_id: String,
    text: String,
    on_event: Channel<EventEnvelope>,
) -> CommandResult<TurnReport> {
    let id = parse_id(&session_id)?;
    run_turn(state.inner(), id, text, on_event).await
}

/// [`send_message`] without Tauri's argument plumbing.
pub async fn run_turn(
    state: &Shared,
    id: strata_protocol::SessionId,
    text: String,
    on_event: Channel<EventEnvelope>,
) -> CommandResult<TurnReport> {
    if text.trim().is_empty() {
        return Err(invalid_input("The message is empty."));
    }
    let mut running = state.start_running(id).await?;
    let cancel = running.cancel.clone();
    let state = Shared::clone(state);
    tauri::async_runtime::spawn(async move {
        let live = &mut *running.guard;
        let result = forward(live.agent.run_turn(text, cancel), &mut live.events, &on_event).await;
        let failed = result.is_err();
        state.finished(id, running, failed);
        let report = result.map_err(ToCommandError::to_command_error)?;
        tracing::info!(session = %id, outcome = ?report.outcome, rounds = report.rounds, "turn finished");
        Ok(TurnReport {
            turn_id: report.turn_id,
            outcome: report.outcome,
            rounds: report.rounds,
        })
    })
    .await
    .map_err(task_failed)?
}

/// Cancels what runs in the session; `false` when nothing does.
#[tauri::command]
pub fn stop_turn(state: State<'_, Shared>, session_id: String) -> CommandResult<bool> {
    let id = parse_id(&session_id)?;
    Ok(state.live(id).is_some_and(|slot| slot.cancel()))
}

/// Answers a waiting approval; `false` when none waits for `call_id`.
#[tauri::command]
pub fn answer_approval(
    state: State<'_, Shared>,
    session_id: String,
    call_id: String,
    decision: ApprovalDecision,
) -> CommandResult<bool> {
    let id = parse_id(&session_id)?;
    Ok(state
        .live(id)
        .is_some_and(|slot| slot.broker().answer(&call_id, decision)))
}

/// Compacts the session's history now (`/compact [focus]`).
#[tauri::command]
pub async fn compact_now(
    state: State<'_, Shared>,
    session_id: String,
    focus: Option<String>,
    on_event: Channel<EventEnvelope>,
) -> CommandResult<CompactOutcome> {
    let id = parse_id(&session_id)?;
    run_compaction(state.inner(), id, focus, on_event).await
}

/// [`compact_now`] without Tauri's argument plumbing.
pub async fn run_compaction(
    state: &Shared,
    id: strata_protocol::SessionId,
    focus: Option<String>,
    on_event: Channel<EventEnvelope>,
) -> CommandResult<CompactOutcome> {
    let mut running = state.start_running(id).await?;
    let cancel = running.cancel.clone();
    let state = Shared::clone(state);
    tauri::async_runtime::spawn(async move {
        let live = &mut *running.guard;
        let result = forward(
            live.agent.compact_now(focus, cancel),
            &mut live.events,
            &on_event,
        )
        .await;
        let history_items = u32::try_from(live.agent.history().len()).unwrap_or(u32::MAX);
        state.finished(id, running, result.is_err());
        let outcome = result.map_err(ToCommandError::to_command_error)?;
        tracing::info!(session = %id, compacted = matches!(outcome, CoreCompactOutcome::Compacted(_)), history_items, "manual compaction finished");
        compact_outcome(outcome, history_items)
    })
    .await
    .map_err(task_failed)?
}

fn compact_outcome(
    outcome: CoreCompactOutcome,
    history_items: u32,
) -> CommandResult<CompactOutcome> {
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
        CoreCompactOutcome::SummaryFailed { attempts, message } => Err(strata_protocol::CommandError::new(
            CommandErrorKind::Provider,
            format!("No summary could be made ({attempts} attempts): {message}"),
        )),
    }
}

/// Drives `work` while sending each event it emits to `channel`, then the
/// events still queued when it finished, so the command returns only after
/// the UI was sent every event, in order.
async fn forward<F: Future>(
    work: F,
    events: &mut EventReceiver,
    channel: &Channel<EventEnvelope>,
) -> F::Output {
    forward_events(work, events, &mut ToChannel(channel)).await
}

struct ToChannel<'a>(&'a Channel<EventEnvelope>);

impl EventHandler for ToChannel<'_> {
    async fn handle(&mut self, envelope: EventEnvelope) {
        // A window that went away must not stop the turn: the session file
        // still records everything.
        if let Err(error) = self.0.send(envelope) {
            tracing::debug!(%error, "the UI stopped listening to a turn's events");
        }
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
        .unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::Provider);
        assert!(error.message.contains("4 attempts"), "{error:?}");
        let stopped = compact_outcome(CoreCompactOutcome::Cancelled, 3).unwrap();
        assert_eq!(stopped.summary, None);
        assert_eq!(stopped.history_items, 3);
        assert!(stopped.skipped.is_some());
    }
}
