use strata_protocol::{CompactionPolicy, SessionMeta};

use super::*;
use crate::compaction::test_support::summary_item;
use crate::compaction::{Calibration, CharEstimator};

fn estimate() -> Estimate<'static> {
    Estimate::new(&CharEstimator, Calibration::default())
}

fn fold(bodies: &[RecordBody]) -> History {
    let mut history = History::new();
    for body in bodies {
        history.apply(body);
    }
    history
}

fn item(item: &ResponseItem) -> RecordBody {
    RecordBody::ResponseItem(item.clone())
}

#[test]
fn a_pin_is_refused_outside_the_context_over_half_the_threshold_and_under_base() {
    let small = ResponseItem::user("keep this rule");
    let big = ResponseItem::assistant("x".repeat(4_000));
    let history = fold(&[item(&small), item(&big)]);
    let pin = decide_pin(&history, small.id(), true, estimate(), 1_000).unwrap();
    assert!(pin.pinned);
    let error = decide_pin(&history, big.id(), true, estimate(), 1_000).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("over half the compaction threshold"),
        "{error}"
    );
    let gone = decide_pin(&history, ItemId::new(), true, estimate(), 1_000).unwrap_err();
    assert!(
        gone.to_string().contains("not in what the model sees"),
        "{gone}"
    );
    assert!(decide_pin(&history, small.id(), false, estimate(), 1_000).is_err());
    assert!(pins_allowed(CompactionPolicy::Base).is_err());
    assert!(pins_allowed(CompactionPolicy::Layered).is_ok());
}

#[test]
fn a_pinned_output_counts_with_its_call() {
    let call = ResponseItem::function_call("c", "read_file", "y".repeat(2_000));
    let output = ResponseItem::function_call_output("c", "short");
    let history = fold(&[item(&call), item(&output)]);
    // The output alone is tiny; with its call it is over half of 600.
    let error = decide_pin(&history, output.id(), true, estimate(), 600).unwrap_err();
    assert!(matches!(error, CoreError::ContextRefused { .. }));
}

#[test]
fn undo_counts_what_every_request_carries_besides_the_history() {
    let bodies = vec![
        item(&ResponseItem::system("sys")),
        item(&ResponseItem::user("do it")),
        item(&summary_item("summary")),
    ];
    let history = fold(&bodies);
    let items_only = decide_undo(&history, estimate(), 0, u64::MAX)
        .unwrap()
        .estimated_tokens;
    let threshold = items_only + 10;
    // The restored items alone fit; with the tool specs every request
    // carries they reach the threshold, so the undo is refused.
    assert!(decide_undo(&history, estimate(), 9, threshold).is_ok());
    let refusal = decide_undo(&history, estimate(), 10, threshold).unwrap_err();
    assert!(
        refusal
            .to_string()
            .contains(&format!("about {threshold} tokens")),
        "{refusal}"
    );
    // The record keeps the restored history's estimate, as a compaction's
    // record keeps its result's: the figure the gauge shows until a report.
    let undone = decide_undo(&history, estimate(), 9, threshold).unwrap();
    assert_eq!(undone.estimated_tokens, items_only);
}

#[test]
fn undo_restores_the_history_before_the_compaction_plus_what_came_after() {
    let system = ResponseItem::system("sys");
    let user = ResponseItem::user("do it");
    let work = ResponseItem::assistant("worked on it");
    let mut bodies = vec![item(&system), item(&user), item(&work)];
    bodies.push(item(&summary_item("summary")));
    let later = ResponseItem::user("and then?");
    bodies.push(item(&later));
    let mut history = fold(&bodies);
    let undo = decide_undo(&history, estimate(), 0, 10_000).unwrap();
    assert_eq!(
        undo.restored,
        vec![system.id(), user.id(), work.id(), later.id()]
    );
    assert!(
        decide_undo(&history, estimate(), 0, 3).is_err(),
        "over the threshold"
    );
    history.apply(&RecordBody::CompactionUndone(undo));
    let ids: Vec<ItemId> = history.items().iter().map(ResponseItem::id).collect();
    assert_eq!(ids, vec![system.id(), user.id(), work.id(), later.id()]);
    assert!(
        decide_undo(&history, estimate(), 0, 10_000).is_err(),
        "undone once"
    );
}

#[test]
fn a_fork_cut_keeps_a_call_with_its_output_and_stops_before_a_compaction() {
    let meta = SessionMeta {
        session_id: strata_protocol::SessionId::new(),
        created_at: chrono::Utc::now(),
        workspace: "/w".into(),
        provider_kind: "demo".into(),
        model: "m".into(),
        strata_version: "0".into(),
    };
    let call = ResponseItem::function_call("c", "read_file", "{}");
    let output = ResponseItem::function_call_output("c", "ok");
    let bodies = vec![
        RecordBody::SessionMeta(meta),
        item(&ResponseItem::user("go")),
        item(&call),
        item(&output),
        item(&summary_item("s")),
        item(&ResponseItem::user("later")),
    ];
    let records: Vec<Record> = bodies.into_iter().map(Record::now).collect();
    assert_eq!(
        fork_cut(&records, &ForkPoint::AtItem { item_id: call.id() }).unwrap(),
        4
    );
    assert_eq!(
        fork_cut(&records, &ForkPoint::BeforeCompaction { number: 1 }).unwrap(),
        4
    );
    assert!(fork_cut(&records, &ForkPoint::BeforeCompaction { number: 2 }).is_err());
    assert!(fork_cut(&records, &ForkPoint::BeforeCompaction { number: 0 }).is_err());
}
