#![allow(clippy::unwrap_used, clippy::expect_used)]

use chrono::Utc;
use proptest::prelude::*;
use strata_protocol::{
    CONFIG_PRICE_AS_OF, CompactionTrigger, ConsoleStep, EvictedOutput, ItemId, LogKind,
    ModelGroupId, ModelPrice, PriceQuote, Record, RecordBody, ResponseItem, RoundId, RoundRecord,
    SessionId, SessionMeta, TokenUsage, TokenUsageRecord, ToolOutputsEvicted, TurnId, UndoState,
    Usd,
};

use super::rows::tokens;
use super::{ConsoleFold, page};

fn meta() -> Record {
    Record::now(RecordBody::SessionMeta(SessionMeta {
        session_id: SessionId::new(),
        created_at: Utc::now(),
        workspace: "/tmp/w".into(),
        provider_kind: "demo".into(),
        model: "strata-demo".into(),
        strata_version: "0".into(),
    }))
}

fn round(id: RoundId) -> Record {
    Record::now(RecordBody::Round(RoundRecord {
        turn_id: TurnId::new(),
        round_id: id,
        provider_kind: "demo".into(),
        model: "strata-demo".into(),
        tools: Vec::new(),
        tool_choice: None,
        max_output_tokens: None,
        input_items: 3,
        estimated_input_tokens: None,
        reasoning: None,
        cache_anchors: Vec::new(),
    }))
}

fn usage(id: RoundId, input: u64, output: u64) -> Record {
    Record::now(RecordBody::TokenUsage(TokenUsageRecord {
        round_id: Some(id),
        cost: None,
        price: None,
        usage: TokenUsage {
            input_tokens: Some(input),
            output_tokens: Some(output),
            ..TokenUsage::default()
        },
    }))
}

fn eviction(before: u64, after: u64) -> Record {
    Record::now(RecordBody::ToolOutputsEvicted(ToolOutputsEvicted {
        trigger: CompactionTrigger::Auto,
        context_tokens: Some(before),
        threshold: 1_000,
        low_water: 500,
        estimated_before: before,
        estimated_after: after,
        evicted: vec![EvictedOutput {
            item_id: ItemId::new(),
            call_id: "c1".into(),
            tool: "read_file".into(),
            chars: 4_000,
            placeholder: "[evicted]".into(),
        }],
    }))
}

fn item(item: ResponseItem) -> Record {
    Record::now(RecordBody::ResponseItem(item))
}

#[test]
fn a_rounds_usage_fills_its_chart_point_and_the_gauge_reads_the_report() {
    let (a, b) = (RoundId::new(), RoundId::new());
    let records = [
        meta(),
        round(a),
        round(b),
        usage(a, 900, 100),
        usage(b, 1_100, 50),
    ];
    let fold = ConsoleFold::of_records(&records, 4_000, Some(8_000));
    let points: Vec<_> = fold
        .chart()
        .iter()
        .map(|p| (p.round, p.context_tokens))
        .collect();
    assert_eq!(points, [(1, Some(1_000)), (2, Some(1_150))]);
    let gauge = fold.gauge();
    assert_eq!(
        (gauge.tokens, gauge.estimated, gauge.threshold),
        (Some(1_150), false, 4_000)
    );
    let rounds: Vec<_> = fold.rows().iter().filter_map(|r| r.round_number).collect();
    assert_eq!(rounds, [1, 2]);
}

#[test]
fn an_eviction_is_one_step_whose_figures_are_its_own_estimates_and_marked_so() {
    let a = RoundId::new();
    let records = [
        meta(),
        round(a),
        usage(a, 2_000, 300),
        eviction(2_300, 1_400),
    ];
    let mut fold = ConsoleFold::of_records(&records, 2_000, None);
    let steps = fold.steps();
    let [ConsoleStep::Eviction { figures, .. }] = steps.as_slice() else {
        panic!("one eviction: {steps:?}")
    };
    assert_eq!(
        (
            figures.before.tokens,
            figures.after.tokens,
            figures.freed.tokens
        ),
        (2_300, 1_400, 900)
    );
    assert!(figures.before.estimated && figures.after.estimated && figures.freed.estimated);
    assert_eq!(figures.next_reported, None);
    // The gauge reads the estimate after it, not the report before.
    assert_eq!(
        (fold.gauge().tokens, fold.gauge().estimated),
        (Some(1_400), true)
    );
    let row = fold.rows().last().unwrap();
    assert_eq!(row.kind, LogKind::Compaction);
    assert!(
        row.detail.contains("≈ 2,300 → ≈ 1,400 tokens, ≈ 900 freed"),
        "{}",
        row.detail
    );
    // The next round's report is the step's, and the gauge's again.
    let b = RoundId::new();
    fold.apply_records([round(b), usage(b, 1_500, 20)]);
    let update = fold.take_update().expect("the records changed the console");
    let steps = update.steps.expect("the step's next report changed it");
    let [ConsoleStep::Eviction { figures, .. }] = steps.as_slice() else {
        panic!("{steps:?}")
    };
    assert_eq!(figures.next_reported, Some(1_520));
    assert_eq!(
        (update.gauge.tokens, update.gauge.estimated),
        (Some(1_520), false)
    );
}

#[test]
fn undo_is_refused_with_its_reason_before_any_compaction() {
    let fold = ConsoleFold::of_records(&[meta(), item(ResponseItem::user("hi"))], 1_000, None);
    match fold.undo() {
        UndoState::Refused { reason } => assert!(reason.contains("no compaction"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_model_view_groups_instructions_and_the_conversation_before_a_compaction() {
    let records = [
        meta(),
        item(ResponseItem::message(
            strata_protocol::Role::System,
            "rules",
        )),
        item(ResponseItem::user("hi")),
        item(ResponseItem::assistant("hello")),
    ];
    let fold = ConsoleFold::of_records(&records, 1_000, None);
    let groups: Vec<_> = fold
        .model_view()
        .iter()
        .map(|g| (g.id, g.items.len()))
        .collect();
    assert_eq!(
        groups,
        [
            (ModelGroupId::Instructions, 1),
            (ModelGroupId::Conversation, 2)
        ]
    );
}

#[test]
fn folding_records_one_at_a_time_gives_the_fold_of_all_of_them() {
    let (a, b) = (RoundId::new(), RoundId::new());
    let records = vec![
        meta(),
        item(ResponseItem::user("hi")),
        round(a),
        usage(a, 2_000, 300),
        eviction(2_300, 1_400),
        round(b),
        usage(b, 1_500, 20),
        item(ResponseItem::assistant("done")),
    ];
    let whole = ConsoleFold::of_records(&records, 2_000, None);
    let mut live = ConsoleFold::of_records(&records[..1], 2_000, None);
    let mut rows = live.rows().to_vec();
    for record in &records[1..] {
        live.apply_records([record.clone()]);
        if let Some(update) = live.take_update() {
            rows.extend(update.rows);
        }
    }
    assert_eq!(rows, whole.rows());
    assert_eq!(live.chart(), whole.chart());
    assert_eq!(live.steps(), whole.steps());
    assert_eq!(live.model_view(), whole.model_view());
    assert_eq!(live.gauge(), whole.gauge());
}

#[test]
fn a_page_is_the_newest_rows_or_those_before_a_cursor() {
    let records: Vec<Record> = std::iter::once(meta())
        .chain((0..9).map(|n| item(ResponseItem::user(format!("m{n}")))))
        .collect();
    let fold = ConsoleFold::of_records(&records, 1_000, None);
    let newest = page(fold.rows(), None, Some(4)).unwrap();
    assert_eq!(
        newest.iter().map(|r| r.index).collect::<Vec<_>>(),
        [6, 7, 8, 9]
    );
    let older = page(fold.rows(), Some(6), Some(4)).unwrap();
    assert_eq!(
        older.iter().map(|r| r.index).collect::<Vec<_>>(),
        [2, 3, 4, 5]
    );
    assert!(page(fold.rows(), None, Some(0)).is_err());
}

proptest! {
    #[test]
    fn an_exact_count_reads_back_as_itself(count in any::<u64>()) {
        let text = tokens(count);
        prop_assert_eq!(text.replace(',', "").parse::<u64>().unwrap(), count);
        prop_assert!(text.split(',').skip(1).all(|group| group.len() == 3));
    }

    #[test]
    fn an_eviction_frees_exactly_what_its_before_and_after_differ_by(
        before in 0u64..10_000_000, after in 0u64..10_000_000,
    ) {
        let fold = ConsoleFold::of_records(&[meta(), eviction(before, after)], 1, None);
        let steps = fold.steps();
        let Some(ConsoleStep::Eviction { figures, .. }) = steps.first() else {
            panic!("{steps:?}")
        };
        prop_assert_eq!(figures.freed.tokens, before.saturating_sub(after));
    }
}

fn priced_usage(id: RoundId, input: u64, cached: u64, quote: &PriceQuote) -> Record {
    let usage = TokenUsage {
        input_tokens: Some(input),
        cached_input_tokens: Some(cached),
        output_tokens: Some(10),
        ..TokenUsage::default()
    };
    Record::now(RecordBody::TokenUsage(TokenUsageRecord {
        round_id: Some(id),
        cost: Some(quote.cost(&usage)),
        price: Some(quote.price),
        usage,
    }))
}

#[test]
fn a_compactions_money_is_priced_at_the_rates_its_rounds_were_billed_at() {
    // A profile's own price for a model the built-in table does not know.
    let quote = PriceQuote {
        price: ModelPrice {
            input: 2_000_000,
            cached_input: Some(500_000),
            cache_write_5m: None,
            cache_write_1h: None,
            output: 8_000_000,
        },
        as_of: CONFIG_PRICE_AS_OF.into(),
    };
    let (a, b, c) = (RoundId::new(), RoundId::new(), RoundId::new());
    let records = [
        meta(),
        round(a),
        priced_usage(a, 2_000, 0, &quote),
        eviction(2_300, 1_400),
        round(b),
        priced_usage(b, 1_500, 300, &quote),
        round(c),
        priced_usage(c, 1_600, 1_500, &quote),
    ];
    let fold = ConsoleFold::of_records(&records, 2_000, None);
    let [money] = fold.gauge().cost.steps.as_slice() else {
        panic!("one priced step: {:?}", fold.gauge().cost.steps)
    };
    assert_eq!(money.price_as_of, CONFIG_PRICE_AS_OF);
    // The next round re-sent 1,500 of the 2,000 tokens and read 300 from
    // cache: 1,200 at the input rate less the cached rate.
    assert_eq!(money.cache_given_up, Usd(1_200 * (2_000_000 - 500_000)));
    // Each of the two rounds after no longer resent the 900 freed tokens.
    assert_eq!(money.saved, Usd(2 * 900 * 500_000));
    assert_eq!(money.rounds_after, 2);
}
