use std::collections::HashSet;

use proptest::prelude::*;
use strata_protocol::{ResponseItem, Role};

use super::{ContinuePoint, DroppedItems, continue_history, cut_len};
use crate::error::ImportError;
use crate::model::{
    ClippedText, ImportWarnings, ImportedCompaction, ImportedItem, ImportedSession, ItemKind,
    ReasoningText, TEXT_CAP_BYTES, Tool,
};

fn item(line: u64, kind: ItemKind) -> ImportedItem {
    ImportedItem {
        line,
        at: None,
        sidechain: false,
        kind,
    }
}

fn user(text: &str) -> ItemKind {
    ItemKind::User {
        text: text.to_owned(),
    }
}

fn assistant(text: &str) -> ItemKind {
    ItemKind::Assistant {
        text: text.to_owned(),
    }
}

fn call(id: &str) -> ItemKind {
    ItemKind::ToolCall {
        call_id: id.to_owned(),
        name: "shell".to_owned(),
        arguments: ClippedText::new(&format!("{{\"cmd\":\"{id}\"}}")),
    }
}

fn output(id: &str) -> ItemKind {
    ItemKind::ToolOutput {
        call_id: id.to_owned(),
        output: ClippedText::new(&format!("out {id}")),
        is_error: None,
    }
}

fn session(kinds: Vec<ItemKind>, compactions_at: &[usize]) -> ImportedSession {
    ImportedSession {
        source: Tool::Codex,
        tool_version: None,
        id: None,
        title: None,
        workspace: None,
        models: vec![],
        started_at: None,
        updated_at: None,
        items: kinds
            .into_iter()
            .enumerate()
            .map(|(index, kind)| item(index as u64 + 1, kind))
            .collect(),
        rounds: vec![],
        compactions: compactions_at
            .iter()
            .map(|&at| ImportedCompaction::boundary(100, None, at))
            .collect(),
        warnings: ImportWarnings::default(),
    }
}

fn texts(items: &[ResponseItem]) -> Vec<String> {
    items
        .iter()
        .map(|item| match item {
            ResponseItem::Message(message) => {
                format!("{}:{}", message.role.as_str(), message.content)
            }
            ResponseItem::FunctionCall(call) => format!("call:{}", call.call_id),
            ResponseItem::FunctionCallOutput(output) => {
                format!("output:{}:{}", output.call_id, output.output)
            }
            other => format!("unexpected:{other:?}"),
        })
        .collect()
}

#[test]
fn the_whole_session_keeps_text_and_paired_tool_calls_in_order() {
    let session = session(
        vec![user("fix it"), call("a"), output("a"), assistant("done")],
        &[],
    );
    let history = continue_history(&session, ContinuePoint::End).unwrap();
    assert_eq!(
        texts(&history.items),
        ["user:fix it", "call:a", "output:a:out a", "assistant:done"]
    );
    assert_eq!(history.source_items, 4);
    assert!(history.dropped.is_empty());
}

#[test]
fn a_cut_between_a_call_and_its_output_drops_the_call() {
    let session = session(vec![user("go"), call("a"), output("a")], &[]);
    let history = continue_history(&session, ContinuePoint::ThroughItem(1)).unwrap();
    assert_eq!(texts(&history.items), ["user:go"]);
    assert_eq!(history.dropped.unanswered_calls, 1);
}

#[test]
fn an_output_without_its_call_and_a_repeated_call_id_are_dropped() {
    let session = session(
        vec![output("x"), call("a"), call("a"), output("a"), output("a")],
        &[],
    );
    let history = continue_history(&session, ContinuePoint::End).unwrap();
    assert_eq!(texts(&history.items), ["call:a", "output:a:out a"]);
    assert_eq!(history.dropped.orphan_outputs, 2);
    assert_eq!(history.dropped.unanswered_calls, 1);
}

#[test]
fn reasoning_encrypted_or_readable_and_subagent_items_are_dropped_and_counted() {
    let mut session = session(
        vec![
            user("hi"),
            ItemKind::Reasoning {
                reasoning: ReasoningText::Encrypted,
            },
            ItemKind::Reasoning {
                reasoning: ReasoningText::Summary("thinking".to_owned()),
            },
            assistant("subagent says"),
            assistant("hello"),
        ],
        &[],
    );
    session.items[3].sidechain = true;
    let history = continue_history(&session, ContinuePoint::End).unwrap();
    assert_eq!(texts(&history.items), ["user:hi", "assistant:hello"]);
    assert_eq!(
        history.dropped,
        DroppedItems {
            reasoning: 2,
            sidechain: 1,
            ..DroppedItems::default()
        }
    );
}

#[test]
fn before_a_compaction_takes_the_original_items_that_precede_it() {
    let session = session(
        vec![
            user("one"),
            assistant("two"),
            user("three"),
            assistant("four"),
        ],
        &[1, 3],
    );
    let history = continue_history(&session, ContinuePoint::BeforeCompaction(1)).unwrap();
    assert_eq!(
        texts(&history.items),
        ["user:one", "assistant:two", "user:three"]
    );
    let first = continue_history(&session, ContinuePoint::BeforeCompaction(0)).unwrap();
    assert_eq!(texts(&first.items), ["user:one"]);
}

#[test]
fn a_point_past_the_end_is_an_error_naming_it() {
    let session = session(vec![user("one")], &[]);
    assert!(matches!(
        continue_history(&session, ContinuePoint::ThroughItem(1)),
        Err(ImportError::NoSuchItem { index: 1, items: 1 })
    ));
    assert!(matches!(
        cut_len(&session, ContinuePoint::BeforeCompaction(0)),
        Err(ImportError::NoSuchCompaction {
            index: 0,
            compactions: 0
        })
    ));
}

#[test]
fn a_clipped_tool_output_is_carried_over_as_its_start_and_counted() {
    let long = "y".repeat(TEXT_CAP_BYTES + 10);
    let session = session(
        vec![
            call("a"),
            ItemKind::ToolOutput {
                call_id: "a".to_owned(),
                output: ClippedText::new(&long),
                is_error: Some(false),
            },
        ],
        &[],
    );
    let history = continue_history(&session, ContinuePoint::End).unwrap();
    assert_eq!(history.items.len(), 2);
    assert_eq!(history.dropped.clipped, 1);
}

#[test]
fn hostile_text_is_carried_as_plain_data_unchanged() {
    let hostile = "\u{1b}]0;pwned\u{7}<script>alert(1)</script>";
    let session = session(vec![user(hostile)], &[]);
    let history = continue_history(&session, ContinuePoint::End).unwrap();
    assert_eq!(texts(&history.items), [format!("user:{hostile}")]);
}

fn any_kind() -> impl Strategy<Value = ItemKind> {
    let id = prop::sample::select(vec!["a", "b", "c", "d"]);
    prop_oneof![
        Just(user("u")),
        Just(assistant("t")),
        Just(ItemKind::Reasoning {
            reasoning: ReasoningText::Encrypted
        }),
        id.clone().prop_map(call),
        id.prop_map(output),
    ]
}

proptest! {
    #[test]
    fn calls_and_outputs_stay_paired_and_nothing_after_the_cut_appears(
        kinds in prop::collection::vec((any_kind(), any::<bool>()), 0..40),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut session = session(kinds.iter().map(|(kind, _)| kind.clone()).collect(), &[]);
        for (item, (_, sidechain)) in session.items.iter_mut().zip(&kinds) {
            item.sidechain = *sidechain;
        }
        // Tag every text with its position, so anything from after the cut shows.
        for (index, item) in session.items.iter_mut().enumerate() {
            match &mut item.kind {
                ItemKind::User { text } | ItemKind::Assistant { text } => *text = format!("#{index}"),
                ItemKind::ToolOutput { output, .. } => *output = ClippedText::new(&format!("#{index}")),
                _ => {}
            }
        }
        let point = if session.items.is_empty() {
            ContinuePoint::End
        } else {
            ContinuePoint::ThroughItem(cut.index(session.items.len()))
        };
        let len = cut_len(&session, point).unwrap();
        let history = continue_history(&session, point).unwrap();
        prop_assert!(history.items.len() <= len);

        let mut open: HashSet<String> = HashSet::new();
        let mut closed: HashSet<String> = HashSet::new();
        for item in &history.items {
            let tag = match item {
                ResponseItem::Message(message) => {
                    prop_assert!(matches!(message.role, Role::User | Role::Assistant));
                    Some(message.content.clone())
                }
                ResponseItem::FunctionCall(call) => {
                    prop_assert!(!open.contains(&call.call_id) && !closed.contains(&call.call_id));
                    open.insert(call.call_id.clone());
                    None
                }
                ResponseItem::FunctionCallOutput(output) => {
                    prop_assert!(open.remove(&output.call_id), "output before its call");
                    closed.insert(output.call_id.clone());
                    Some(output.output.clone())
                }
                other => {
                    prop_assert!(false, "unexpected item {:?}", other);
                    None
                }
            };
            if let Some(tag) = tag {
                let index: usize = tag[1..].parse().unwrap();
                prop_assert!(index < len, "item {} is after the cut {}", index, len);
                prop_assert!(!session.items[index].sidechain);
            }
        }
        prop_assert!(open.is_empty(), "calls without outputs: {:?}", open);
    }
}
