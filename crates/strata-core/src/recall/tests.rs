use strata_protocol::{
    CompactionTrigger, EvictedOutput, FullToolOutput, ItemPin, ToolOutputsEvicted,
};

use super::*;
use crate::compaction::test_support::summary_item;

fn records(bodies: Vec<RecordBody>) -> (Vec<Record>, History) {
    let mut history = History::new();
    let records: Vec<Record> = bodies.into_iter().map(Record::now).collect();
    for record in &records {
        history.apply(&record.body);
    }
    (records, history)
}

fn item(item: &ResponseItem) -> RecordBody {
    RecordBody::ResponseItem(item.clone())
}

#[test]
fn a_unique_prefix_resolves_and_a_shared_one_is_a_clear_error() {
    let a: ItemId = "01a22695-3409-70c6-a6a3-a4506513270e".parse().unwrap();
    let b: ItemId = "01a22695-a4e1-7951-9d9d-c9f81818e811".parse().unwrap();
    assert_eq!(resolve_item([a, b], "01a22695-34").unwrap(), a);
    assert_eq!(resolve_item([a, b], "01A22695-A4").unwrap(), b);
    let error = resolve_item([a, b], "01a22695").unwrap_err();
    assert!(matches!(error, CoreError::AmbiguousItem { count: 2, .. }));
    assert!(error.to_string().contains("give more of the id"));
    assert!(matches!(
        resolve_item([a, b], "ff"),
        Err(CoreError::ItemNotFound { .. })
    ));
    assert!(resolve_item([a, b], "  ").is_err());
}

#[test]
fn recall_returns_the_full_original_of_an_evicted_output_by_id() {
    let call = ResponseItem::function_call("c1", "read_file", r#"{"path":"src/tax.rs"}"#);
    let output = ResponseItem::function_call_output("c1", "capped");
    let output_id = output.id();
    let (records, history) = records(vec![
        item(&ResponseItem::user("Fix tax.")),
        item(&call),
        item(&output),
        RecordBody::FullToolOutput(FullToolOutput {
            call_id: "c1".into(),
            item_id: output_id,
            output: "fn tax() { /* the whole file */ }".into(),
        }),
        RecordBody::ToolOutputsEvicted(ToolOutputsEvicted {
            trigger: CompactionTrigger::Auto,
            context_tokens: None,
            threshold: 100,
            low_water: 50,
            estimated_before: 90,
            estimated_after: 40,
            evicted: vec![EvictedOutput {
                item_id: output_id,
                call_id: "c1".into(),
                tool: "read_file".into(),
                chars: 6,
                placeholder: format!("{EVICTED_PREFIX}: item {output_id}]"),
            }],
        }),
    ]);
    let text = recall(
        &records,
        &history,
        &format!(r#"{{"id":"{}"}}"#, &output_id.to_string()[..30]),
    );
    assert!(text.contains("the whole file"), "{text}");
    assert!(text.contains("read_file"), "{text}");
    let items = recorded_items(&records, &history);
    let evicted = items.iter().find(|i| i.id == output_id).unwrap();
    assert!(evicted.in_context && evicted.evicted);
}

#[test]
fn search_finds_only_removed_items_and_names_their_ids() {
    let old = ResponseItem::assistant("We decided on integer cents for money.");
    let kept = ResponseItem::user("integer cents are in context");
    let (records, history) = records(vec![
        item(&ResponseItem::system("sys")),
        item(&ResponseItem::user("go")),
        item(&old),
        item(&kept),
        item(&summary_item("lossy")),
    ]);
    let text = recall(&records, &history, r#"{"query":"INTEGER CENTS"}"#);
    assert!(text.contains(&old.id().to_string()), "{text}");
    assert!(!text.contains(&kept.id().to_string()), "{text}");
    let regex = recall(
        &records,
        &history,
        r#"{"query":"integer\\s+c.nts","regex":true}"#,
    );
    assert!(regex.contains(&old.id().to_string()), "{regex}");
    let nothing = recall(&records, &history, r#"{"query":"vendor/"}"#);
    assert!(nothing.starts_with("recall: nothing removed"), "{nothing}");
}

#[test]
fn bad_arguments_and_oversized_patterns_are_answered_not_run() {
    let (records, history) = records(vec![item(&ResponseItem::user("hi"))]);
    for arguments in [
        "{}",
        r#"{"id":"a","query":"b"}"#,
        r#"{"path":"/etc/passwd"}"#,
        "not json",
    ] {
        assert!(recall(&records, &history, arguments).starts_with("recall:"));
    }
    let long = format!(
        r#"{{"query":"{}"}}"#,
        "a".repeat(RECALL_MAX_QUERY_CHARS + 1)
    );
    assert!(recall(&records, &history, &long).contains("longer than"));
    let huge = r#"{"query":"(\\w{500}){500}","regex":true}"#;
    assert!(recall(&records, &history, huge).contains("not usable"));
}

#[test]
fn recorded_items_list_every_item_with_pins() {
    let user = ResponseItem::user("pin me");
    let (records, history) = records(vec![
        item(&user),
        RecordBody::ItemPin(ItemPin {
            item_id: user.id(),
            pinned: true,
        }),
    ]);
    let items = recorded_items(&records, &history);
    assert_eq!(items.len(), 1);
    assert!(items[0].pinned && items[0].in_context && !items[0].evicted);
    assert_eq!(items[0].role.as_deref(), Some("user"));
}
