//! Cancelling a turn mid-stream, mid-tool and during an approval wait: the
//! history stays consistent and the file reopens without repairs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use strata_core::agent::Agent;
use strata_core::tools::{CancellationToken, SessionApprovals};
use strata_core::{ApprovalBroker, TurnReport};
use strata_protocol::{
    AgentEvent, ApprovalPolicy, MainlineEvent, RecordBody, ToolCallStatus, TurnFinished,
    TurnOutcome,
};
use support::*;

/// Runs a turn and cancels it as soon as an event matches `when`.
async fn turn_cancelled_at(
    agent: &mut Agent,
    events: &mut Events,
    when: impl Fn(&MainlineEvent) -> bool,
) -> TurnReport {
    let cancel = CancellationToken::new();
    let (report, ()) = within(async {
        tokio::join!(agent.run_turn("go", cancel.clone()), async {
            loop {
                if let AgentEvent::Mainline(event) = &events.next().await.event
                    && when(event)
                {
                    cancel.cancel();
                    break;
                }
            }
        })
    })
    .await;
    report.unwrap()
}

fn statuses(events: &mut Events) -> Vec<(String, ToolCallStatus)> {
    events
        .mainline()
        .into_iter()
        .filter_map(|event| match event {
            MainlineEvent::ToolCallFinished {
                call_id, status, ..
            } => Some((call_id, status)),
            _ => None,
        })
        .collect()
}

fn assert_finished_cancelled(harness: &Harness, agent: &Agent, events: &mut Events) {
    let records = harness.records(agent.id());
    assert!(matches!(
        of_type(&records, "turn_finished")[..],
        [RecordBody::TurnFinished(TurnFinished {
            outcome: TurnOutcome::Cancelled,
            ..
        })]
    ));
    assert!(matches!(
        events.mainline().last(),
        Some(MainlineEvent::TurnFinished {
            outcome: TurnOutcome::Cancelled,
            ..
        })
    ));
}

#[tokio::test]
async fn cancelling_mid_stream_commits_nothing_of_the_round() {
    let harness = Harness::new();
    harness
        .gateway
        .push_round(vec![delta("Hel"), delta("lo"), Step::Hang]);
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = turn_cancelled_at(&mut agent, &mut events, |event| {
        matches!(event, MainlineEvent::TextDelta { .. })
    })
    .await;

    assert_eq!(report.outcome, TurnOutcome::Cancelled);
    assert_eq!(report.rounds, 1);
    assert_eq!(labels(agent.history().items()), ["system", "user"]);
    let records = harness.records(agent.id());
    assert!(of_type(&records, "token_usage").is_empty());
    assert!(of_type(&records, "error").is_empty());
    assert_finished_cancelled(&harness, &agent, &mut events);
    assert!(!events.mainline().iter().any(|event| matches!(
        event,
        MainlineEvent::MessageCommitted { .. } | MainlineEvent::Error { .. }
    )));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn cancelling_mid_tool_gives_it_and_the_remaining_calls_cancelled_outputs() {
    let harness = Harness::new();
    harness.gateway.push_round(slow_shell_then_list_round());
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let started = std::time::Instant::now();
    let report = turn_cancelled_at(
        &mut agent,
        &mut events,
        |event| matches!(event, MainlineEvent::ToolCallStarted { call_id, .. } if call_id == "c1"),
    )
    .await;

    assert_eq!(report.outcome, TurnOutcome::Cancelled);
    // The command was killed, not waited for.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let items = agent.history().items();
    assert_eq!(
        labels(items),
        ["system", "user", "call", "call", "output", "output"]
    );
    let c1 = output_of(items, "c1");
    // Killed while running, not refused before it started.
    assert!(c1.contains("were killed"), "{c1}");
    assert!(
        c1.ends_with("[The user cancelled the turn while this call ran.]"),
        "{c1}"
    );
    assert!(
        output_of(items, "c2").contains("cancelled the turn before this list_directory call ran")
    );
    assert_eq!(
        statuses(&mut events),
        [
            ("c1".to_owned(), ToolCallStatus::Cancelled),
            ("c2".to_owned(), ToolCallStatus::Cancelled)
        ]
    );
    assert_eq!(harness.gateway.requests().len(), 1);
    assert!(agent.history().pending_call_ids().is_empty());
    assert_finished_cancelled(&harness, &agent, &mut events);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn cancelling_an_approval_wait_cancels_the_calls_without_a_decision() {
    let harness = Harness::new();
    harness.gateway.push_round(calls_round(
        vec![
            call("c1", "write_file", json!({"path": "a.txt", "content": "x"})),
            call("c2", "write_file", json!({"path": "b.txt", "content": "y"})),
        ],
        None,
    ));
    let (mut agent, mut events) = harness.start(
        SessionApprovals::new(ApprovalPolicy::Ask),
        ApprovalBroker::interactive(),
    );

    let report = turn_cancelled_at(&mut agent, &mut events, |event| {
        matches!(event, MainlineEvent::ApprovalRequested { .. })
    })
    .await;

    assert_eq!(report.outcome, TurnOutcome::Cancelled);
    let items = agent.history().items();
    assert!(output_of(items, "c1").contains("while this write_file call waited for approval"));
    assert!(output_of(items, "c2").contains("before this write_file call ran"));
    assert!(!harness.workspace.path().join("a.txt").exists());
    assert!(!harness.workspace.path().join("b.txt").exists());
    assert!(agent.broker().pending_call_ids().is_empty());
    let records = harness.records(agent.id());
    assert!(of_type(&records, "approval_decision").is_empty());
    // Only the first call was ever put to the person.
    let asked = events
        .mainline()
        .iter()
        .filter(|event| matches!(event, MainlineEvent::ApprovalRequested { .. }))
        .count();
    assert_eq!(asked, 1);
    assert_finished_cancelled(&harness, &agent, &mut events);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_turn_cancelled_before_it_starts_sends_nothing() {
    let harness = Harness::new();
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let cancel = CancellationToken::new();
    cancel.cancel();
    let report = agent.run_turn("never mind", cancel).await.unwrap();
    assert_eq!((report.outcome, report.rounds), (TurnOutcome::Cancelled, 0));
    assert!(harness.gateway.requests().is_empty());
    assert_eq!(labels(agent.history().items()), ["system", "user"]);
    assert_finished_cancelled(&harness, &agent, &mut events);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_cancelled_turn_leaves_a_session_the_next_turn_continues() {
    let harness = Harness::new();
    harness
        .gateway
        .push_round(vec![delta("partial"), Step::Hang]);
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());
    turn_cancelled_at(&mut agent, &mut events, |event| {
        matches!(event, MainlineEvent::TextDelta { .. })
    })
    .await;
    harness
        .gateway
        .push_round(text_round("Fresh answer.", None));
    let report = run_turn(&mut agent, "again").await;
    assert_eq!(report.outcome, TurnOutcome::Completed);
    let last = harness.gateway.last_request();
    assert_eq!(labels(&last.input), ["system", "user", "user"]);
    harness.assert_reopens_to(agent);
}
