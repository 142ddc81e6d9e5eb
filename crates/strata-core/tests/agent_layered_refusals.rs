//! Compactions the rule check refuses, in the live loop: each refusal
//! counts toward the auto-compaction circuit as a failed summary does, and
//! the same plan over the same history is not summarised (and paid for)
//! again. The refusals here come from a state sheet the person pasted as
//! their latest message: a summary would drop it, and the rule check keeps
//! the latest request verbatim.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "agent_layered/helpers.rs"]
mod helpers;
mod support;

use helpers::*;
use serde_json::json;
use strata_core::ApprovalBroker;
use strata_core::agent::CIRCUIT_BREAKER_FAILURES;
use strata_core::compaction::STATE_SHEET_PREFIX;
use strata_protocol::{CompactionGuardRecord, MainlineEvent, RecordBody, TurnOutcome};
use support::*;

fn pasted_sheet() -> String {
    format!("{STATE_SHEET_PREFIX} copied from a compaction card: keep going with the parser")
}

fn refusal_guards(harness: &Harness, agent: &strata_core::Agent) -> usize {
    harness
        .records(agent.id())
        .iter()
        .filter(|record| {
            matches!(
                record.body,
                RecordBody::CompactionGuard(CompactionGuardRecord::SummaryRefused { .. })
            )
        })
        .count()
}

#[tokio::test]
async fn refused_automatic_compactions_open_the_circuit_and_stop_paying_for_summaries() {
    let harness = layered(1_000);
    let rounds = CIRCUIT_BREAKER_FAILURES + 2;
    for n in 0..rounds {
        harness.gateway.push_round(calls_round(
            vec![call(&format!("c{n}"), "list_directory", json!({}))],
            Some(usage(5_000, 10)),
        ));
        harness
            .gateway
            .push_summary(summary_response("Listed the workspace."));
    }
    harness
        .gateway
        .push_round(text_round("Done.", Some(usage(5_000, 10))));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, pasted_sheet()).await;

    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert_eq!(report.compactions, 0);
    // Without the count, every round over the threshold paid for a summary.
    let paid = harness.gateway.summary_requests().len();
    assert_eq!(paid, CIRCUIT_BREAKER_FAILURES as usize);
    assert_eq!(refusal_guards(&harness, &agent), paid);
    assert!(agent.compaction_circuit_open());
    let opened: Vec<String> = events
        .mainline()
        .into_iter()
        .filter_map(|event| match event {
            MainlineEvent::CompactionCircuitOpen { message, .. } => Some(message),
            _ => None,
        })
        .collect();
    let [message] = &opened[..] else {
        panic!("expected the circuit to open once: {opened:?}")
    };
    assert!(message.contains("the latest user request"), "{message}");
    let id = agent.id();
    harness.assert_reopens_to(agent);
    let (agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert!(agent.compaction_circuit_open(), "open after a resume");
}

#[tokio::test]
async fn a_refused_plan_is_not_summarised_again_while_the_history_is_the_same() {
    let harness = layered(1_000);
    // No usage on the first round: only the second one's check runs.
    harness.gateway.push_round(calls_round(
        vec![call("c1", "list_directory", json!({}))],
        None,
    ));
    harness
        .gateway
        .push_round(text_round("I will keep going.", Some(usage(5_000, 10))));
    for _ in 0..3 {
        harness
            .gateway
            .push_summary(summary_response("The parser work goes on."));
    }
    harness
        .gateway
        .push_round(text_round("Next step done.", Some(usage(5_000, 10))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());

    // The round's check is refused: the summary would drop the pasted sheet.
    run_turn(&mut agent, pasted_sheet()).await;
    assert_eq!(harness.gateway.summary_requests().len(), 1);
    eprintln!(
        "{:#?}",
        harness
            .records(agent.id())
            .iter()
            .map(|r| serde_json::to_string(&r.body)
                .unwrap()
                .chars()
                .take(300)
                .collect::<String>())
            .collect::<Vec<_>>()
    );
    assert_eq!(refusal_guards(&harness, &agent), 1);

    // The next message's pre-turn check meets the very same plan: no call.
    // After its round the person's latest request is "next", and the
    // compaction goes through.
    let report = run_turn(&mut agent, "next").await;

    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert_eq!(report.compactions, 1);
    assert_eq!(harness.gateway.summary_requests().len(), 2);
    assert!(!agent.compaction_circuit_open());
    harness.assert_reopens_to(agent);
}
