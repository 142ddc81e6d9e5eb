//! The check a layered compaction must pass before it is committed: the
//! history it leaves keeps the system prompt and developer messages, every
//! pinned item, the person's latest request verbatim, and a state sheet
//! stating the approval policy and the role (the system prompt's rules).

use std::collections::HashSet;

use strata_protocol::{ItemId, LayeredCompaction, ResponseItem, Role};

use super::extract::is_person_message;
use super::layered::apply_layered_compaction;

/// What the compaction `record` would drop from `before`, one line each;
/// empty when it keeps every rule. `pinned` holds the pinned items with their
/// partners; `approval_policy` is the session's (`ask`, `auto`, `read-only`).
pub fn rule_violations(
    before: &[ResponseItem],
    record: &LayeredCompaction,
    pinned: &HashSet<ItemId>,
    approval_policy: &str,
) -> Vec<String> {
    let after = apply_layered_compaction(before, record);
    let kept: HashSet<ItemId> = after.iter().map(ResponseItem::id).collect();
    let mut dropped = Vec::new();
    for item in before.iter().take_while(|item| {
        item.is_message_with_role(Role::System) || item.is_message_with_role(Role::Developer)
    }) {
        if !kept.contains(&item.id()) {
            let what = if item.is_message_with_role(Role::System) {
                "the system prompt"
            } else {
                "a developer message (AGENTS.md)"
            };
            dropped.push(format!("{what} (item {})", item.id()));
        }
    }
    for item in before.iter().filter(|item| pinned.contains(&item.id())) {
        if !kept.contains(&item.id()) {
            dropped.push(format!("pinned item {}", item.id()));
        }
    }
    let latest = before.iter().rev().find_map(|item| match item {
        ResponseItem::Message(message)
            if message.role == Role::User && is_person_message(&message.content) =>
        {
            Some(message.content.as_str())
        }
        _ => None,
    });
    if let Some(latest) = latest {
        let verbatim = after.iter().any(|item| {
            matches!(item, ResponseItem::Message(m) if m.role == Role::User && m.content.contains(latest))
        });
        if !verbatim {
            dropped.push("the latest user request (verbatim)".to_owned());
        }
    }
    let rules = &record.state_sheet.rules;
    let policy_line = format!("Approval policy: {approval_policy}.");
    if !rules.contains(&policy_line) || !record.sheet_message.content.contains(&policy_line) {
        dropped.push(format!(
            "the approval policy ({approval_policy}) in the state sheet"
        ));
    }
    if !rules
        .iter()
        .any(|rule| rule.starts_with("The system prompt"))
        || !record.sheet_message.content.contains("The system prompt")
    {
        dropped.push("the role (the system prompt's rules) in the state sheet".to_owned());
    }
    dropped
}
