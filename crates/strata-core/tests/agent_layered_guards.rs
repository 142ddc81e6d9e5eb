//! The layered policy's guards in the live loop: the circuit breaker after
//! failed summaries, and sessions killed before their policy record.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "agent_layered/helpers.rs"]
mod helpers;
mod support;

use helpers::*;
use strata_core::agent::CIRCUIT_BREAKER_FAILURES;
use strata_core::tools::CancellationToken;
use strata_core::{ApprovalBroker, CompactOutcome};
use strata_protocol::{CompactionPolicy, MainlineEvent, ModelError, RecordBody};
use support::*;

fn long_answer_round() -> Vec<Step> {
    text_round(&"long answer ".repeat(300), Some(usage(100, 10)))
}

/// Scripts as many failing summaries as open the circuit.
fn push_failing_summaries(harness: &Harness) {
    for _ in 0..CIRCUIT_BREAKER_FAILURES {
        harness.gateway.push_summary(Err(ModelError::Auth {
            message: "bad key".into(),
        }));
    }
}

/// Asks for as many manual compactions as open the circuit.
async fn fail_compactions(agent: &mut strata_core::Agent) {
    for _ in 0..CIRCUIT_BREAKER_FAILURES {
        agent
            .compact_now(None, CancellationToken::new())
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn three_failed_compactions_in_a_row_open_the_circuit_until_a_manual_compaction_succeeds() {
    let harness = layered(1_000);
    harness.gateway.push_round(long_answer_round());
    push_failing_summaries(&harness);
    harness
        .gateway
        .push_round(text_round(&"more ".repeat(300), Some(usage(5_000, 10))));
    harness
        .gateway
        .push_summary(summary_response("A long answer."));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Explain.").await;

    for attempt in 1..=CIRCUIT_BREAKER_FAILURES {
        let outcome = agent
            .compact_now(None, CancellationToken::new())
            .await
            .unwrap();
        assert!(
            matches!(outcome, CompactOutcome::SummaryFailed { .. }),
            "{outcome:?}"
        );
        assert_eq!(
            agent.compaction_circuit_open(),
            attempt == CIRCUIT_BREAKER_FAILURES
        );
    }
    let opened: Vec<MainlineEvent> = events
        .mainline()
        .into_iter()
        .filter(|event| matches!(event, MainlineEvent::CompactionCircuitOpen { .. }))
        .collect();
    assert_eq!(opened.len(), 1, "{opened:?}");

    // Over the threshold, but the circuit is open: no summary is attempted.
    run_turn(&mut agent, "Go on.").await;
    assert_eq!(harness.gateway.summary_requests().len(), 3);

    compact_by_hand(&mut agent).await;
    assert!(!agent.compaction_circuit_open());
    harness.assert_reopens_to(agent);
}

fn header_only_session(harness: &Harness) -> strata_protocol::SessionId {
    harness
        .store
        .create(harness.workspace.path(), "scripted", "model-1")
        .unwrap()
        .id()
}

/// A kill right after a new session's header line, before its policy
/// record, leaves a file with no records: resumed with no policy given, it
/// takes the policy a new session gets (layered), not the `base` of
/// sessions from before policies existed.
#[test]
fn a_session_killed_before_its_policy_record_resumes_on_the_default_policy() {
    let mut harness = layered(100_000);
    let id = header_only_session(&harness);
    // Only the header: what a kill right after it leaves.
    assert!(
        harness
            .records(id)
            .iter()
            .all(|record| matches!(record.body, RecordBody::SessionMeta(_)))
    );
    harness.config.compaction = None;
    let (agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert_eq!(agent.policy(), CompactionPolicy::Layered);
    drop(agent);
    assert!(harness.records(id).iter().any(|record| matches!(
        &record.body,
        RecordBody::CompactionPolicy(record) if record.policy == CompactionPolicy::Layered
    )));
}

/// The same file resumed with `base` given stays base and writes today's
/// records exactly: no policy record.
#[test]
fn a_session_killed_before_its_preamble_resumes_on_base_when_base_is_given() {
    let harness = Harness::new();
    let id = header_only_session(&harness);
    let (agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert_eq!(agent.policy(), CompactionPolicy::Base);
    drop(agent);
    assert!(
        harness
            .records(id)
            .iter()
            .all(|record| !matches!(record.body, RecordBody::CompactionPolicy(_)))
    );
}

/// A session that read a file of about 2,000 tokens under a large
/// threshold, then moved to another profile: same model name, smaller
/// window.
#[tokio::test]
async fn an_open_circuit_survives_a_resume_until_a_manual_compaction_succeeds_or_the_person_resets_it()
 {
    let harness = layered(1_000);
    harness.gateway.push_round(long_answer_round());
    push_failing_summaries(&harness);
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Explain.").await;
    fail_compactions(&mut agent).await;
    assert!(agent.compaction_circuit_open());
    let id = agent.id();
    harness.assert_reopens_to(agent);

    // Resumed: still open. A round over the threshold attempts no summary.
    let (mut agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert!(agent.compaction_circuit_open(), "open after the resume");
    harness
        .gateway
        .push_round(text_round(&"more ".repeat(300), Some(usage(5_000, 10))));
    run_turn(&mut agent, "Go on.").await;
    assert_eq!(harness.gateway.summary_requests().len(), 3);
    assert!(agent.compaction_circuit_open());
    drop(agent);

    // The person resets it: closed, and closed after another resume.
    let (mut agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    agent.reset_compaction_circuit().unwrap();
    assert!(!agent.compaction_circuit_open());
    drop(agent);
    let (mut agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert!(!agent.compaction_circuit_open(), "the reset was recorded");

    // Three more failures open it again; a manual compaction that succeeds
    // closes it, for good.
    push_failing_summaries(&harness);
    fail_compactions(&mut agent).await;
    assert!(agent.compaction_circuit_open());
    harness
        .gateway
        .push_summary(summary_response("A long answer."));
    compact_by_hand(&mut agent).await;
    drop(agent);
    let (agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert!(!agent.compaction_circuit_open());
    let guards = harness
        .records(id)
        .iter()
        .filter(|r| matches!(r.body, RecordBody::CompactionGuard(_)))
        .count();
    assert_eq!(guards, 2 * CIRCUIT_BREAKER_FAILURES as usize + 1);
    harness.assert_reopens_to(agent);
}
