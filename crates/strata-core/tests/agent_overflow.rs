//! Overflow recovery under the layered policy in the live loop: a round
//! the provider rejects as too long is shrunk (evict, then summarise with a
//! state sheet) and sent once more; recoveries per turn are bounded.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "agent_layered/helpers.rs"]
mod helpers;
mod support;

use helpers::*;
use strata_core::ApprovalBroker;
use strata_core::agent::MAX_OVERFLOW_RECOVERIES;
use strata_core::compaction::STATE_SHEET_PREFIX;
use strata_protocol::{CompactionTrigger, ModelError, RecordBody, ResponseItem, TurnOutcome};
use support::*;

const FILE: &str = "notes/ledger-7f3.txt";

fn overflow_round() -> Vec<Step> {
    vec![Step::Fail(overflow(
        "Your input exceeds the context window of this model.",
    ))]
}

fn sheet_names_the_file(items: &[ResponseItem]) -> bool {
    items.iter().any(|item| {
        matches!(item, ResponseItem::Message(m)
            if m.content.starts_with(STATE_SHEET_PREFIX) && m.content.contains(FILE))
    })
}

/// A layered session far under its threshold whose first turn read a file.
async fn read_the_ledger(harness: &Harness) -> strata_core::Agent {
    harness.write(FILE, "apples 3\npears 5\n");
    harness
        .gateway
        .push_round(read_round("c1", FILE, Some(usage(800, 20))));
    harness.gateway.push_round(text_round(
        "The ledger lists apples and pears.",
        Some(usage(900, 20)),
    ));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let report = run_turn(&mut agent, "What is in the ledger?").await;
    assert_eq!(report.outcome, TurnOutcome::Completed);
    agent
}

#[tokio::test]
async fn an_overflow_far_under_the_threshold_summarises_with_the_sheet_and_sends_the_round_again() {
    let harness = layered(60_000);
    let mut agent = read_the_ledger(&harness).await;
    harness.gateway.push_round(overflow_round());
    harness
        .gateway
        .push_summary(summary_response("Read the ledger: apples and pears."));
    harness.gateway.push_round(text_round("Going on.", None));

    let report = run_turn(&mut agent, "go on").await;

    assert_eq!(report.outcome, TurnOutcome::Completed, "{report:?}");
    assert_eq!(report.compactions, 1);
    let requests = harness.gateway.requests();
    let retried = requests.last().unwrap();
    assert!(sheet_names_the_file(&retried.input), "{:?}", retried.input);
    assert!(retried.input.len() < requests[requests.len() - 2].input.len());
    let records = harness.records(agent.id());
    let compactions: Vec<_> = of_type(&records, "layered_compaction");
    let [RecordBody::LayeredCompaction(compaction)] = &compactions[..] else {
        panic!("expected one layered compaction, got {compactions:?}")
    };
    let metadata = &compaction.summary.metadata;
    assert_eq!(metadata.trigger, CompactionTrigger::ContextOverflow);
    assert!(
        metadata.reason.contains("Your input exceeds"),
        "{}",
        metadata.reason
    );
    assert!(of_type(&records, "error").is_empty());
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_second_overflow_of_the_retried_round_fails_naming_the_summary_it_tried() {
    let harness = layered(60_000);
    let mut agent = read_the_ledger(&harness).await;
    harness.gateway.push_round(overflow_round());
    harness
        .gateway
        .push_summary(summary_response("Read the ledger."));
    harness.gateway.push_round(overflow_round());

    let report = run_turn(&mut agent, "go on").await;

    assert_eq!(report.outcome, TurnOutcome::Failed);
    let Some(ModelError::ContextOverflow { message }) = &report.error else {
        panic!("expected an overflow, got {:?}", report.error)
    };
    assert!(message.contains("summarised"), "{message}");
    assert!(message.contains("sent the round again"), "{message}");
    assert_eq!(harness.gateway.summary_requests().len(), 1);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn overflow_recoveries_in_one_turn_stop_at_their_limit() {
    let harness = layered(60_000);
    let mut agent = read_the_ledger(&harness).await;
    // Every recovered round runs a tool, then the next round overflows.
    for n in 0..MAX_OVERFLOW_RECOVERIES {
        harness.gateway.push_round(overflow_round());
        harness
            .gateway
            .push_summary(summary_response(&format!("Summary {n}.")));
        harness
            .gateway
            .push_round(read_round(&format!("r{n}"), FILE, None));
    }
    harness.gateway.push_round(overflow_round());

    let report = run_turn(&mut agent, "go on").await;

    assert_eq!(report.outcome, TurnOutcome::Failed);
    let Some(ModelError::ContextOverflow { message }) = &report.error else {
        panic!("expected an overflow, got {:?}", report.error)
    };
    assert!(
        message.contains(&format!(
            "already recovered from {MAX_OVERFLOW_RECOVERIES} overflows"
        )),
        "{message}"
    );
    assert_eq!(
        harness.gateway.summary_requests().len(),
        usize::try_from(MAX_OVERFLOW_RECOVERIES).unwrap()
    );
    assert_eq!(harness.gateway.unused(), (0, 0));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn an_overflow_that_eviction_alone_relieves_is_sent_again_without_a_summary() {
    let harness = layered(60_000);
    // Three large reads, then three small ones (the recent rounds), far
    // under the session's threshold.
    six_reads_reporting(&harness, 7_010);
    harness.gateway.push_round(overflow_round());
    harness
        .gateway
        .push_round(text_round("Read them all.", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "Read the six parts.").await;

    assert_eq!(report.outcome, TurnOutcome::Completed, "{report:?}");
    assert_eq!(report.compactions, 0);
    assert!(harness.gateway.summary_requests().is_empty());
    let records = harness.records(agent.id());
    let evictions = of_type(&records, "tool_outputs_evicted");
    let [RecordBody::ToolOutputsEvicted(eviction)] = &evictions[..] else {
        panic!("expected one eviction, got {evictions:?}")
    };
    assert_eq!(eviction.trigger, CompactionTrigger::ContextOverflow);
    assert_eq!(eviction.evicted.len(), 3);
    let requests = harness.gateway.requests();
    let retried = outputs(&requests.last().unwrap().input)
        .iter()
        .filter(|output| output.starts_with(strata_core::compaction::EVICTED_PREFIX))
        .count();
    assert_eq!(retried, 3);
    harness.assert_reopens_to(agent);
}
