//! The overall turn deadline: a turn still running when it passes (a stalled
//! model, a slow tool) is stopped like a cancellation and fails with one
//! error naming the deadline; the file reopens as it was and the session
//! goes on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use strata_core::agent::{Agent, DEFAULT_TURN_DEADLINE};
use strata_core::{AgentConfig, ApprovalBroker};
use strata_protocol::{
    ErrorRecord, MainlineEvent, RecordBody, SessionId, ToolCallStatus, TurnFinished, TurnOutcome,
};
use support::*;

const DEADLINE: Duration = Duration::from_millis(200);
const DEADLINE_MESSAGE: &str =
    "the turn passed its deadline of 200 ms and was stopped (network.turn_deadline_ms)";

fn harness_with_deadline() -> Harness {
    let mut harness = Harness::new();
    harness.config.turn_deadline = DEADLINE;
    harness
}

/// The turn failed with exactly one error, the deadline's, in the file and
/// as an event.
fn assert_failed_on_deadline(harness: &Harness, agent: &Agent, events: &mut Events) {
    let records = harness.records(agent.id());
    assert!(matches!(
        of_type(&records, "error")[..],
        [RecordBody::Error(ErrorRecord { message, model_error: None, .. })]
            if message == DEADLINE_MESSAGE
    ));
    assert!(matches!(
        of_type(&records, "turn_finished")[..],
        [RecordBody::TurnFinished(TurnFinished {
            outcome: TurnOutcome::Failed,
            ..
        })]
    ));
    let errors: Vec<String> = events
        .mainline()
        .into_iter()
        .filter_map(|event| match event {
            MainlineEvent::Error { message, .. } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(errors, [DEADLINE_MESSAGE]);
}

/// The session resumes, and its next turn completes within the deadline,
/// sending `sent` (the history so far and the new message).
async fn assert_resumes_and_completes(harness: &Harness, id: SessionId, sent: &[&str]) {
    harness
        .gateway
        .push_round(text_round("Fresh answer.", None));
    let (mut resumed, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    let report = within(run_turn(&mut resumed, "again")).await;
    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert_eq!(labels(&harness.gateway.last_request().input), sent);
    harness.assert_reopens_to(resumed);
}

#[test]
fn the_default_turn_deadline_is_two_hours() {
    assert_eq!(DEFAULT_TURN_DEADLINE, Duration::from_secs(7200));
    assert_eq!(
        AgentConfig::new("demo", "m").turn_deadline,
        DEFAULT_TURN_DEADLINE
    );
}

#[tokio::test]
async fn a_stalled_model_fails_the_turn_at_its_deadline_committing_nothing_half_streamed() {
    let harness = harness_with_deadline();
    harness
        .gateway
        .push_round(vec![delta("Hel"), delta("lo"), Step::Hang]);
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = within(run_turn(&mut agent, "go")).await;

    assert_eq!((report.outcome, report.rounds), (TurnOutcome::Failed, 1));
    assert_eq!(report.error, None);
    assert_eq!(report.deadline.as_deref(), Some(DEADLINE_MESSAGE));
    assert_eq!(labels(agent.history().items()), ["system", "user"]);
    assert_failed_on_deadline(&harness, &agent, &mut events);
    let id = agent.id();
    harness.assert_reopens_to(agent);

    assert_resumes_and_completes(&harness, id, &["system", "user", "user"]).await;
}

#[tokio::test]
async fn a_tool_still_running_at_the_deadline_gets_a_cancelled_output_and_the_session_resumes() {
    let harness = harness_with_deadline();
    harness.gateway.push_round(slow_shell_then_list_round());
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let started = std::time::Instant::now();
    let report = within(run_turn(&mut agent, "go")).await;

    assert_eq!(report.outcome, TurnOutcome::Failed);
    // The command was killed at the deadline, not waited for.
    assert!(started.elapsed() < Duration::from_secs(20));
    let items = agent.history().items();
    assert_eq!(
        labels(items),
        ["system", "user", "call", "call", "output", "output"]
    );
    let killed = output_of(items, "c1");
    assert!(killed.contains("were killed"), "{killed}");
    // The model is told the deadline stopped the calls, not the person.
    assert!(
        killed.ends_with("[The turn reached its time limit (network.turn_deadline_ms) and was stopped while this call ran.]"),
        "{killed}"
    );
    let skipped = output_of(items, "c2");
    assert!(
        skipped.contains("reached its time limit (network.turn_deadline_ms) and was stopped before this list_directory call ran"),
        "{skipped}"
    );
    assert!(!skipped.contains("user"), "{skipped}");
    assert!(agent.history().pending_call_ids().is_empty());
    let statuses: Vec<ToolCallStatus> = events
        .mainline()
        .into_iter()
        .filter_map(|event| match event {
            MainlineEvent::ToolCallFinished { status, .. } => Some(status),
            _ => None,
        })
        .collect();
    assert_eq!(
        statuses,
        [ToolCallStatus::Cancelled, ToolCallStatus::Cancelled]
    );
    assert_failed_on_deadline(&harness, &agent, &mut events);
    let id = agent.id();
    harness.assert_reopens_to(agent);

    assert_resumes_and_completes(
        &harness,
        id,
        &["system", "user", "call", "call", "output", "output", "user"],
    )
    .await;
}
