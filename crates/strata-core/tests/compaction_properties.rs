//! Invariants of `apply_compaction` over random histories.

use proptest::prelude::*;
use strata_core::compaction::{CompactionPlan, USER_MESSAGE_BUDGET_CHARS, apply_compaction};
use strata_protocol::{
    CompactionMetadata, CompactionSummary, CompactionTrigger, ItemId, ReasoningItem, ResponseItem,
    Role,
};

fn summary(text: &str) -> CompactionSummary {
    CompactionSummary {
        id: ItemId::new(),
        summary: text.to_owned(),
        metadata: CompactionMetadata {
            trigger: CompactionTrigger::Auto,
            reason: "property".into(),
            context_tokens: None,
            threshold: None,
            removed: 0,
            kept: 0,
            summarizer_model: "m".into(),
            summarizer_usage: None,
            summarizer_cost: None,
            duration_ms: 0,
        },
    }
}

/// User messages sized around the budget, so some histories exceed it.
fn user_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zé ]{0,40}",
        (1usize..USER_MESSAGE_BUDGET_CHARS).prop_map(|n| "u".repeat(n)),
    ]
}

fn item() -> impl Strategy<Value = ResponseItem> {
    prop_oneof![
        4 => user_text().prop_map(ResponseItem::user),
        3 => "[a-z ]{0,30}".prop_map(ResponseItem::assistant),
        2 => "c[0-9]{1,3}".prop_map(|id| ResponseItem::function_call(id, "read_file", "{}")),
        2 => "c[0-9]{1,3}".prop_map(|id| ResponseItem::function_call_output(id, "out")),
        1 => "[a-z]{0,10}".prop_map(|t| ResponseItem::CompactionSummary(summary(&t))),
        1 => Just(ResponseItem::Reasoning(ReasoningItem {
            id: ItemId::new(),
            provider: "anthropic".into(),
            payload: serde_json::json!({"type": "thinking"}),
        })),
        1 => Just(ResponseItem::message(Role::Developer, "late developer note")),
    ]
}

fn history() -> impl Strategy<Value = Vec<ResponseItem>> {
    (0usize..3, prop::collection::vec(item(), 0..40)).prop_map(|(leading, mut rest)| {
        let mut history: Vec<ResponseItem> = (0..leading)
            .map(|i| {
                let role = if i == 0 {
                    Role::System
                } else {
                    Role::Developer
                };
                ResponseItem::message(role, format!("leading {i}"))
            })
            .collect();
        history.append(&mut rest);
        history
    })
}

fn user_ids(items: &[ResponseItem]) -> Vec<ItemId> {
    items
        .iter()
        .filter(|i| i.is_message_with_role(Role::User))
        .map(ResponseItem::id)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_function_call_or_output_survives(history in history()) {
        let compacted = apply_compaction(&history, summary("s"));
        prop_assert!(compacted.iter().all(|item| item.call_id().is_none()));
    }

    #[test]
    fn exactly_one_summary_follows_the_leading_messages(history in history()) {
        let new_summary = summary("fresh");
        let compacted = apply_compaction(&history, new_summary.clone());
        let summaries: Vec<usize> = compacted.iter().enumerate()
            .filter(|(_, item)| matches!(item, ResponseItem::CompactionSummary(_)))
            .map(|(i, _)| i)
            .collect();
        prop_assert_eq!(summaries.len(), 1);
        let at = summaries[0];
        prop_assert_eq!(&compacted[at], &ResponseItem::CompactionSummary(new_summary));
        prop_assert!(compacted[..at].iter().all(|i| i.is_message_with_role(Role::System)
            || i.is_message_with_role(Role::Developer)));
        prop_assert!(compacted[at + 1..].iter().all(|i| i.is_message_with_role(Role::User)));
    }

    #[test]
    fn the_newest_user_message_survives(history in history()) {
        let compacted = apply_compaction(&history, summary("s"));
        if let Some(newest) = history.iter().rev().find(|i| i.is_message_with_role(Role::User)) {
            prop_assert_eq!(compacted.last(), Some(newest));
        }
    }

    #[test]
    fn kept_user_messages_are_a_suffix_in_order_within_budget(history in history()) {
        let compacted = apply_compaction(&history, summary("s"));
        let before = user_ids(&history);
        let after = user_ids(&compacted);
        prop_assert!(before.ends_with(&after));
        let chars: usize = compacted.iter()
            .filter_map(|i| match i {
                ResponseItem::Message(m) if m.role == Role::User => Some(m.content.chars().count()),
                _ => None,
            })
            .sum();
        prop_assert!(after.len() <= 1 || chars <= USER_MESSAGE_BUDGET_CHARS);
    }

    #[test]
    fn apply_is_deterministic(history in history()) {
        let new_summary = summary("same");
        prop_assert_eq!(
            apply_compaction(&history, new_summary.clone()),
            apply_compaction(&history, new_summary)
        );
    }

    #[test]
    fn removed_and_kept_count_every_item_exactly_once(history in history()) {
        let plan = CompactionPlan::for_history(&history);
        let compacted = apply_compaction(&history, summary("s"));
        prop_assert_eq!(plan.kept() + plan.removed(), history.len());
        let kept_ids: Vec<ItemId> = compacted.iter().map(ResponseItem::id)
            .filter(|id| history.iter().any(|i| i.id() == *id))
            .collect();
        prop_assert_eq!(kept_ids.len(), plan.kept());
    }
}
