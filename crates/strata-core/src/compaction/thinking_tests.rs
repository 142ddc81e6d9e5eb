//! Thinking survives every history operation: over random sessions, a tool
//! call that stays in the history keeps the reasoning of the round that
//! made it (Anthropic refuses a tool result whose turn lost its thinking
//! block; the Responses API a call whose reasoning item went missing).

use std::collections::HashSet;

use proptest::prelude::*;
use strata_protocol::{ItemId, ReasoningItem, ResponseItem};

use super::test_support::summary;
use super::{apply_compaction, pinned_with_partners, plan_layered_with};

/// One round: whether it thought, whether it wrote text, how many calls.
#[derive(Clone, Debug)]
struct Round {
    thinks: bool,
    text: bool,
    calls: usize,
}

fn rounds() -> impl Strategy<Value = Vec<(Round, bool)>> {
    // Each round, and whether a person's message follows it.
    prop::collection::vec(
        ((any::<bool>(), any::<bool>(), 0usize..3), any::<bool>()).prop_map(
            |((thinks, text, calls), person)| {
                (
                    Round {
                        thinks,
                        text,
                        calls,
                    },
                    person,
                )
            },
        ),
        1..12,
    )
}

fn thinking(n: usize) -> ResponseItem {
    ResponseItem::Reasoning(ReasoningItem {
        id: ItemId::new(),
        provider: "anthropic".into(),
        payload: serde_json::json!({"type": "thinking", "thinking": format!("step {n}"), "signature": "sig"}),
    })
}

/// A session's history, and for each call id the ids of its round's
/// reasoning items.
fn history(rounds: &[(Round, bool)]) -> (Vec<ResponseItem>, Vec<(String, Vec<ItemId>)>) {
    let mut items = vec![
        ResponseItem::system("You are Strata."),
        ResponseItem::user("Fix the parser."),
    ];
    let mut owners = Vec::new();
    for (n, (round, person)) in rounds.iter().enumerate() {
        let mut thoughts = Vec::new();
        if round.thinks {
            let item = thinking(n);
            thoughts.push(item.id());
            items.push(item);
        }
        if round.text {
            items.push(ResponseItem::assistant(format!("Round {n}.")));
        }
        let calls: Vec<String> = (0..round.calls).map(|c| format!("call_{n}_{c}")).collect();
        for call in &calls {
            items.push(ResponseItem::function_call(call, "read_file", "{}"));
            owners.push((call.clone(), thoughts.clone()));
        }
        for call in &calls {
            items.push(ResponseItem::function_call_output(call, "output"));
        }
        if *person {
            items.push(ResponseItem::user(format!("Now part {n}.")));
        }
    }
    (items, owners)
}

/// Every call left in `after` still has its round's reasoning, before it.
fn thinking_kept(after: &[ResponseItem], owners: &[(String, Vec<ItemId>)]) -> Result<(), String> {
    for (call_id, thoughts) in owners {
        let Some(at) = after.iter().position(
            |item| matches!(item, ResponseItem::FunctionCall(c) if &c.call_id == call_id),
        ) else {
            continue;
        };
        for thought in thoughts {
            let kept = after[..at].iter().any(|item| item.id() == *thought);
            if !kept {
                return Err(format!("{call_id} lost its thinking block"));
            }
        }
    }
    Ok(())
}

fn kept_items(items: &[ResponseItem], indices: &[usize]) -> Vec<ResponseItem> {
    indices.iter().map(|&i| items[i].clone()).collect()
}

proptest! {
    /// A layered compaction (whole or up to an item, with pins) keeps the
    /// thinking of every call it keeps.
    #[test]
    fn a_layered_compaction_never_keeps_a_call_without_its_thinking(
        rounds in rounds(),
        pins in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        keep_from in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let (items, owners) = history(&rounds);
        let pinned: std::collections::BTreeSet<ItemId> =
            pins.iter().map(|pin| items[pin.index(items.len())].id()).collect();
        let pinned = pinned_with_partners(&items, &pinned);
        let from = keep_from.map(|at| at.index(items.len()));
        let plan = plan_layered_with(&items, &pinned, from);
        let mut after = kept_items(&items, &plan.leading);
        after.extend(kept_items(&items, &plan.kept));
        prop_assert_eq!(thinking_kept(&after, &owners), Ok(()));
        // Every call kept still has its output, and the reverse.
        let calls: HashSet<&str> = after.iter().filter_map(|item| match item {
            ResponseItem::FunctionCall(call) => Some(call.call_id.as_str()),
            _ => None,
        }).collect();
        for item in &after {
            if let ResponseItem::FunctionCallOutput(output) = item {
                prop_assert!(calls.contains(output.call_id.as_str()));
            }
        }
    }

    /// A base compaction keeps no call, so no call is left without thinking;
    /// the undo point (the history before it) is the history unchanged.
    #[test]
    fn a_base_compaction_never_keeps_a_call_without_its_thinking(rounds in rounds()) {
        let (items, owners) = history(&rounds);
        let after = apply_compaction(&items, summary("earlier work"));
        prop_assert_eq!(thinking_kept(&after, &owners), Ok(()));
        prop_assert_eq!(thinking_kept(&items, &owners), Ok(()));
    }
}

#[test]
fn a_pinned_call_keeps_the_thinking_of_its_round() {
    let (items, owners) = history(&[(
        Round {
            thinks: true,
            text: true,
            calls: 2,
        },
        true,
    )]);
    let call = items
        .iter()
        .find(|item| matches!(item, ResponseItem::FunctionCall(_)))
        .map(ResponseItem::id)
        .into_iter()
        .collect();
    let pinned = pinned_with_partners(&items, &call);
    let plan = plan_layered_with(&items, &pinned, None);
    let after = kept_items(&items, &plan.kept);
    assert!(
        after
            .iter()
            .any(|item| matches!(item, ResponseItem::Reasoning(_))),
        "{after:?}"
    );
    assert_eq!(thinking_kept(&after, &owners), Ok(()));
}
