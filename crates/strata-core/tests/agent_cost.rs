//! What rounds and summaries cost is decided once, when they happen, at the
//! price the session was given, and written into the session file: a later
//! price change never changes what an old session says it cost.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;

use strata_core::ApprovalBroker;
use strata_protocol::{
    Cost, ModelPrice, PriceQuote, RecordBody, ResponseItem, TokenUsage, TurnOutcome, Usd,
};
use support::*;

fn quote() -> PriceQuote {
    PriceQuote {
        // $2 in, $0.20 cached, $8 out per million tokens.
        price: ModelPrice {
            input: 2_000_000,
            cached_input: Some(200_000),
            cache_write_5m: None,
            cache_write_1h: None,
            output: 8_000_000,
        },
        as_of: "2026-12-02".into(),
    }
}

fn recorded_costs(harness: &Harness, id: strata_protocol::SessionId) -> Vec<Option<Cost>> {
    of_type(&harness.records(id), "token_usage")
        .into_iter()
        .map(|body| match body {
            RecordBody::TokenUsage(record) => record.cost.clone(),
            other => panic!("not a usage record: {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn each_round_records_its_cost_at_the_sessions_price() {
    let mut harness = Harness::new();
    harness.config.price = Some(quote());
    let cached = TokenUsage {
        cached_input_tokens: Some(1_000),
        ..usage(1_500, 100)
    };
    harness.gateway.push_round(calls_round(
        vec![call("c1", "list_directory", json!({}))],
        Some(usage(1_000, 50)),
    ));
    harness
        .gateway
        .push_round(text_round("Empty.", Some(cached)));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let report = run_turn(&mut agent, "What is here?").await;
    assert_eq!(report.outcome, TurnOutcome::Completed);
    let id = agent.id();

    // 1000 × $2 + 50 × $8 per million = $0.0024; then 500 × $2 + 1000 ×
    // $0.20 + 100 × $8 per million = $0.002.
    let dated = |pico| {
        Some(Cost {
            usd: Usd(pico),
            price_as_of: "2026-12-02".into(),
        })
    };
    assert_eq!(
        recorded_costs(&harness, id),
        [dated(2_400_000_000), dated(2_000_000_000)]
    );
    // Each also carries the rates themselves, which readers price by.
    let rates: Vec<_> = of_type(&harness.records(id), "token_usage")
        .into_iter()
        .map(|body| match body {
            RecordBody::TokenUsage(record) => record.price,
            other => panic!("not a usage record: {other:?}"),
        })
        .collect();
    assert_eq!(rates, [Some(quote().price), Some(quote().price)]);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn without_a_price_rounds_record_tokens_and_no_cost() {
    let harness = Harness::new();
    harness
        .gateway
        .push_round(text_round("Hi.", Some(usage(1_000, 50))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Hello").await;
    assert_eq!(recorded_costs(&harness, agent.id()), [None]);
}

#[tokio::test]
async fn a_summary_made_by_the_sessions_model_records_what_it_cost() {
    let mut harness = Harness::new();
    harness.config.compact_threshold = 1_000;
    // The scripted summarizer answers as `summarizer-1`.
    harness.config.model = "summarizer-1".into();
    harness.config.price = Some(quote());
    harness.gateway.push_round(calls_round(
        vec![call("c1", "list_directory", json!({}))],
        Some(usage(1_100, 50)),
    ));
    harness
        .gateway
        .push_summary(summary_response("Listed the workspace."));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let report = run_turn(&mut agent, "What is here?").await;
    assert_eq!(report.compactions, 1);

    let summary = agent
        .history()
        .items()
        .iter()
        .find_map(|item| match item {
            ResponseItem::CompactionSummary(summary) => Some(summary.clone()),
            _ => None,
        })
        .expect("a summary");
    // The scripted summary reports 900 in, 60 out: $0.0018 + $0.00048.
    assert_eq!(
        summary.metadata.summarizer_cost,
        Some(Cost {
            usd: Usd(2_280_000_000),
            price_as_of: "2026-12-02".into(),
        })
    );
    harness.assert_reopens_to(agent);
}
