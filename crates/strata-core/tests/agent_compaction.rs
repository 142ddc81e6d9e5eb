//! Compaction in the live loop: after a round whose reported usage crossed
//! the threshold, after an overflow, on request, and when the summary fails.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use std::sync::Arc;

use strata_core::agent::{CompactOutcome, MAX_SUMMARY_ATTEMPTS};
use strata_core::compaction::{
    Calibration, CharEstimator, Estimate, TokenEstimator, estimate_after_compaction,
};
use strata_core::tools::CancellationToken;
use strata_core::{ApprovalBroker, ReadMode};
use strata_protocol::{
    CompactionTrigger, DebugEvent, ModelError, RecordBody, ResponseItem, TurnOutcome,
};
use support::*;

fn harness_with_threshold(threshold: u64) -> Harness {
    let mut harness = Harness::new();
    harness.config.compact_threshold = threshold;
    harness
}

fn list_round(call_id: &str, usage: Option<strata_protocol::TokenUsage>) -> Vec<Step> {
    calls_round(vec![call(call_id, "list_directory", json!({}))], usage)
}

fn compacted(events: &mut Events) -> Vec<DebugEvent> {
    events
        .debug()
        .into_iter()
        .filter(|event| matches!(event, DebugEvent::HistoryCompacted { .. }))
        .collect()
}

#[tokio::test]
async fn compacts_history_once_reported_usage_crosses_the_threshold_and_the_next_round_sees_the_compacted_history()
 {
    let harness = harness_with_threshold(1_000);
    harness
        .gateway
        .push_round(list_round("c1", Some(usage(1_100, 50))));
    harness
        .gateway
        .push_summary(summary_response("Listed the workspace; it is empty."));
    harness
        .gateway
        .push_round(text_round("Nothing here.", None));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "What is here?").await;

    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert_eq!(report.compactions, 1);
    let requests = harness.gateway.requests();
    assert_eq!(labels(&requests[0].input), ["system", "user"]);
    // Without the compaction this would be system, user, call, output.
    assert_eq!(labels(&requests[1].input), ["system", "summary", "user"]);
    let summary_requests = harness.gateway.summary_requests();
    assert_eq!(summary_requests.len(), 1);
    // A one-off summary call is not one of the session's rounds.
    assert_eq!(summary_requests[0].session_id, None);
    let ResponseItem::Message(transcript) = &summary_requests[0].input[1] else {
        panic!("no transcript")
    };
    assert!(transcript.content.contains("function_call list_directory"));

    let compactions = compacted(&mut events);
    let [
        DebugEvent::HistoryCompacted {
            turn_id,
            summary,
            history_items,
        },
    ] = &compactions[..]
    else {
        panic!("expected one compaction, got {compactions:?}")
    };
    assert_eq!(*turn_id, Some(report.turn_id));
    assert_eq!(*history_items, 3);
    assert_eq!(summary.summary, "Listed the workspace; it is empty.");
    let meta = &summary.metadata;
    assert_eq!(meta.trigger, CompactionTrigger::Auto);
    assert_eq!(meta.context_tokens, Some(1_150));
    assert_eq!(meta.threshold, Some(1_000));
    assert_eq!((meta.removed, meta.kept), (2, 2));
    assert_eq!(meta.summarizer_model, "summarizer-1");
    assert_eq!(meta.summarizer_usage.as_deref(), Some(&usage(900, 60)));
    assert!(meta.reason.contains("1150"), "{}", meta.reason);
    assert_eq!(
        requests[1].input[1],
        ResponseItem::CompactionSummary(summary.clone())
    );
    assert!(
        !events
            .debug()
            .iter()
            .any(|event| matches!(event, DebugEvent::CompactionIneffective { .. }))
    );
    // The compaction cleared the last usage; the next round reported none.
    assert_eq!(agent.history().last_usage(), None);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn the_check_runs_after_the_last_round_so_the_next_turn_starts_compacted() {
    let harness = harness_with_threshold(1_000);
    harness
        .gateway
        .push_round(list_round("c1", Some(usage(200, 10))));
    harness
        .gateway
        .push_round(text_round("Empty.", Some(usage(1_500, 20))));
    harness
        .gateway
        .push_summary(summary_response("Turn one: empty workspace."));
    harness.gateway.push_round(text_round("Still empty.", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let first = run_turn(&mut agent, "What is here?").await;
    assert_eq!(
        (first.outcome, first.compactions),
        (TurnOutcome::Completed, 1)
    );
    assert_eq!(
        labels(agent.history().items()),
        ["system", "summary", "user"]
    );
    // The summary (and its checkpoint) was written inside the turn, before
    // it finished.
    let records = harness.records(agent.id());
    let types: Vec<&str> = records.iter().map(|r| r.body.type_name()).collect();
    let summary_at = records
        .iter()
        .position(|r| {
            matches!(
                &r.body,
                RecordBody::ResponseItem(ResponseItem::CompactionSummary(_))
            )
        })
        .unwrap();
    assert_eq!(types[summary_at + 1..], ["checkpoint", "turn_finished"]);

    run_turn(&mut agent, "And now?").await;
    let last = harness.gateway.last_request();
    assert_eq!(labels(&last.input), ["system", "summary", "user", "user"]);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn resuming_after_a_compaction_sends_the_compacted_history() {
    let harness = harness_with_threshold(1_000);
    harness
        .gateway
        .push_round(list_round("c1", Some(usage(2_000, 10))));
    harness.gateway.push_summary(summary_response("Listed it."));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "List it.").await;
    let held = agent.history().clone();
    let id = agent.id();
    drop(agent);

    let (mut resumed, mut events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert_eq!(resumed.history(), &held);
    assert_eq!(
        labels(held.items()),
        ["system", "summary", "user", "assistant"]
    );
    harness.gateway.push_round(text_round("Hello again.", None));
    run_turn(&mut resumed, "Again?").await;
    let last = harness.gateway.last_request();
    assert_eq!(&last.input[..4], held.items());
    assert_eq!(labels(&last.input[4..]), ["user"]);
    // A resumed agent numbers its own events from 0.
    assert_eq!(events.drain()[0].seq, 0);
    harness.assert_reopens_to(resumed);
}

#[tokio::test]
async fn an_overflowing_round_compacts_the_history_and_is_sent_again() {
    let harness = Harness::new();
    harness.gateway.push_round(list_round("c1", None));
    harness.gateway.push_round(vec![Step::Fail(overflow(
        "prompt is too long: 210000 tokens > 200000",
    ))]);
    harness
        .gateway
        .push_summary(summary_response("Listed the workspace."));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "List it.").await;

    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert_eq!((report.rounds, report.compactions), (3, 1));
    let requests = harness.gateway.requests();
    assert_eq!(
        labels(&requests[1].input),
        ["system", "user", "call", "output"]
    );
    assert_eq!(labels(&requests[2].input), ["system", "summary", "user"]);
    let compactions = compacted(&mut events);
    let [DebugEvent::HistoryCompacted { summary, .. }] = &compactions[..] else {
        panic!("expected one compaction")
    };
    assert_eq!(summary.metadata.trigger, CompactionTrigger::ContextOverflow);
    assert!(summary.metadata.reason.contains("210000 tokens > 200000"));
    assert_eq!(summary.metadata.context_tokens, None);
    let records = harness.records(agent.id());
    assert!(of_type(&records, "error").is_empty());
    assert_eq!(
        labels(agent.history().items()),
        ["system", "summary", "user", "assistant"]
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_second_overflow_of_the_same_round_fails_the_turn() {
    let harness = Harness::new();
    harness.gateway.push_round(list_round("c1", None));
    harness
        .gateway
        .push_round(vec![Step::Fail(overflow("too long"))]);
    harness.gateway.push_summary(summary_response("Listed."));
    harness
        .gateway
        .push_round(vec![Step::Fail(overflow("still too long"))]);
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "List it.").await;

    assert_eq!(report.outcome, TurnOutcome::Failed);
    // One error naming what the provider said and what was tried.
    let Some(ModelError::ContextOverflow { message }) = &report.error else {
        panic!("expected an overflow, got {:?}", report.error)
    };
    assert!(
        message.starts_with("still too long (Strata summarised 2 items"),
        "{message}"
    );
    assert!(
        message.contains("sent the round again, but it was still too long"),
        "{message}"
    );
    assert_eq!(report.rounds, 3);
    assert_eq!(harness.gateway.summary_requests().len(), 1);
    // The compaction itself stands; nothing of the failed rounds does.
    assert_eq!(
        labels(agent.history().items()),
        ["system", "summary", "user"]
    );
    let records = harness.records(agent.id());
    assert!(matches!(
        &of_type(&records, "error")[..],
        [RecordBody::Error(error)] if error.model_error == report.error
    ));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn an_overflow_with_nothing_to_compact_fails_at_once() {
    let harness = Harness::new();
    harness
        .gateway
        .push_round(vec![Step::Fail(overflow("huge message"))]);
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let report = run_turn(&mut agent, "x".repeat(10_000)).await;
    assert_eq!(report.outcome, TurnOutcome::Failed);
    let Some(ModelError::ContextOverflow { message }) = &report.error else {
        panic!("expected an overflow, got {:?}", report.error)
    };
    assert!(
        message.starts_with("huge message (Strata found nothing to compact"),
        "{message}"
    );
    assert!(harness.gateway.summary_requests().is_empty());
    assert_eq!(harness.gateway.requests().len(), 1);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_failing_summary_folds_the_oldest_items_out_then_gives_up_persisting_nothing() {
    let harness = harness_with_threshold(1_000);
    harness.gateway.push_round(calls_round(
        vec![
            call("c1", "list_directory", json!({})),
            call("c2", "list_directory", json!({"path": "."})),
            call("c3", "search_text", json!({"pattern": "x"})),
        ],
        Some(usage(5_000, 10)),
    ));
    for _ in 0..MAX_SUMMARY_ATTEMPTS {
        harness
            .gateway
            .push_summary(Err(overflow("summary input too long")));
    }
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "Look around.").await;

    assert_eq!(
        (report.outcome, report.compactions),
        (TurnOutcome::Completed, 0)
    );
    let prompts: Vec<String> = harness
        .gateway
        .summary_requests()
        .iter()
        .map(|request| match &request.input[1] {
            ResponseItem::Message(message) => message.content.clone(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    // Transcript entries are numbered "[n] ..." at the start of a line.
    let entries = |prompt: &str| {
        prompt
            .lines()
            .filter(|line| {
                line.strip_prefix('[')
                    .and_then(|rest| rest.split_once("] "))
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            })
            .count()
    };
    // 7 items after the system message: the oldest 3, then 2 more, then 1
    // more are folded out, a note standing in for them.
    let counts: Vec<usize> = prompts.iter().map(|p| entries(p)).collect();
    assert_eq!(counts, [8, 1 + 1 + 4, 1 + 1 + 2, 1 + 1 + 1]);
    assert!(!prompts[0].contains("not shown"));
    assert!(prompts[0].contains("Look around."));
    assert!(prompts[1].contains("(3 earlier items of this conversation are not shown"));
    assert!(!prompts[1].contains("Look around."));
    assert!(prompts[3].contains("(6 earlier items of this conversation are not shown"));
    assert!(events.debug().iter().any(|event| matches!(
        event,
        DebugEvent::SummaryFailed { attempts, message, .. }
            if *attempts == MAX_SUMMARY_ATTEMPTS && message.contains("summary input too long")
    )));
    assert!(compacted(&mut events).is_empty());
    let records = harness.records(agent.id());
    assert!(!records.iter().any(|r| matches!(
        &r.body,
        RecordBody::ResponseItem(ResponseItem::CompactionSummary(_))
    )));
    // The next round went on with the whole history.
    let last = harness.gateway.last_request();
    assert_eq!(last.input.len(), 8);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_summary_that_fits_after_folding_compacts_and_says_what_was_left_out() {
    let harness = harness_with_threshold(1_000);
    harness.gateway.push_round(calls_round(
        vec![
            call("c1", "list_directory", json!({})),
            call("c2", "list_directory", json!({})),
        ],
        Some(usage(5_000, 10)),
    ));
    harness.gateway.push_summary(Err(overflow("too long")));
    harness
        .gateway
        .push_summary(summary_response("Folded summary."));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    run_turn(&mut agent, "Look.").await;

    let compactions = compacted(&mut events);
    let [DebugEvent::HistoryCompacted { summary, .. }] = &compactions[..] else {
        panic!("expected one compaction")
    };
    assert_eq!(summary.summary, "Folded summary.");
    assert!(
        summary
            .metadata
            .reason
            .contains("the 2 oldest items were left out")
    );
    assert_eq!((summary.metadata.removed, summary.metadata.kept), (4, 2));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_summary_refused_for_credentials_is_not_retried() {
    let harness = harness_with_threshold(1_000);
    harness
        .gateway
        .push_round(list_round("c1", Some(usage(5_000, 10))));
    harness.gateway.push_summary(Err(ModelError::Auth {
        message: "invalid key".into(),
    }));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Look.").await;
    assert_eq!(harness.gateway.summary_requests().len(), 1);
    assert!(
        events
            .debug()
            .iter()
            .any(|event| matches!(event, DebugEvent::SummaryFailed { attempts: 1, .. }))
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn compact_now_compacts_on_request_with_a_focus_and_says_when_there_is_nothing_to_compact() {
    let harness = Harness::new();
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());
    assert_eq!(
        agent
            .compact_now(None, CancellationToken::new())
            .await
            .unwrap(),
        CompactOutcome::NothingToCompact { items: 1 }
    );
    harness
        .gateway
        .push_round(list_round("c1", Some(usage(300, 5))));
    harness
        .gateway
        .push_round(text_round("Empty.", Some(usage(400, 7))));
    run_turn(&mut agent, "Look.").await;
    harness
        .gateway
        .push_summary(summary_response("The parser work so far."));

    let outcome = agent
        .compact_now(Some(" the parser ".into()), CancellationToken::new())
        .await
        .unwrap();

    let CompactOutcome::Compacted(summary) = outcome else {
        panic!("not compacted: {outcome:?}")
    };
    assert_eq!(summary.metadata.trigger, CompactionTrigger::Manual);
    assert_eq!(summary.metadata.context_tokens, Some(407));
    assert_eq!(summary.metadata.threshold, Some(8_000));
    assert!(summary.metadata.reason.contains("the parser"));
    let ResponseItem::Message(prompt) = &harness.gateway.summary_requests()[0].input[1] else {
        panic!("no prompt")
    };
    assert!(prompt.content.contains("Focus the summary on: the parser"));
    assert!(events.debug().iter().any(|event| matches!(
        event,
        DebugEvent::HistoryCompacted { turn_id: None, summary: s, .. } if *s == summary
    )));
    assert_eq!(
        labels(agent.history().items()),
        ["system", "summary", "user"]
    );
    harness.assert_reopens_to(agent);
}

/// Counts words: an estimator unlike characters ÷ 4, so the test sees
/// which one made a figure.
#[derive(Debug)]
struct WordEstimator;

impl TokenEstimator for WordEstimator {
    fn name(&self) -> &str {
        "words"
    }

    fn count(&self, text: &str) -> u64 {
        text.split_whitespace().count() as u64 * 3
    }
}

/// The warning's figure is the one the gauge then shows, made by the
/// agent's estimator, and a reopened session's status computes the same.
#[tokio::test]
async fn a_compaction_that_leaves_the_history_over_the_threshold_warns_with_the_figure_a_reopen_shows()
 {
    let harness = harness_with_threshold(100);
    harness.gateway.push_round(text_round("Noted.", None));
    harness.gateway.push_summary(summary_response("Short."));
    let (agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let mut agent = agent.with_estimator(Arc::new(WordEstimator));
    run_turn(&mut agent, "y ".repeat(2_000)).await;

    // The person's message alone is over the threshold: compacting by hand
    // cannot bring the history under it.
    compact_by_hand(&mut agent).await;

    let debug = events.debug();
    let summary_id = debug
        .iter()
        .find_map(|event| match event {
            DebugEvent::HistoryCompacted { summary, .. } => Some(summary.id),
            _ => None,
        })
        .unwrap();
    let warned = debug
        .iter()
        .find_map(|event| match event {
            DebugEvent::CompactionIneffective {
                summary_item_id,
                estimated_tokens,
                threshold: 100,
            } if *summary_item_id == summary_id => Some(*estimated_tokens),
            _ => None,
        })
        .expect("the warning");
    let compacted = agent.history().items().to_vec();
    let words = Estimate::new(&WordEstimator, Calibration::default());
    assert_eq!(warned, words.items(&compacted));
    // Not a token per four characters, as the warning once counted.
    let quarters = Estimate::new(&CharEstimator, Calibration::default());
    assert_ne!(warned, quarters.items(&compacted));

    // Closed, right after that compaction: the same figure.
    let id = agent.id();
    drop(agent);
    let read = harness.store.open_reader(id, ReadMode::Strict).unwrap();
    let closed = estimate_after_compaction(&read.replay(), |items| words.items(items));
    assert_eq!(closed, Some(warned));
}
