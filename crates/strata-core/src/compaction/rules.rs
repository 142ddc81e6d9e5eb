//! The check a layered compaction must pass before it is committed: the
//! history it leaves keeps the system prompt and developer messages, every
//! pinned item, the person's latest request verbatim, and a state sheet
//! stating the approval policy and the role (the system prompt's rules).

use std::collections::HashSet;

use strata_protocol::{ItemId, LayeredCompaction, ResponseItem, Role};

use super::layered::apply_layered_compaction;
use super::sheet::STATE_SHEET_PREFIX;

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
            dropped.push(what.to_owned());
        }
    }
    for item in before.iter().filter(|item| pinned.contains(&item.id())) {
        if !kept.contains(&item.id()) {
            dropped.push(pinned_what(before, item));
        }
    }
    let latest = latest_person_request(before);
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

/// A pinned item as a person knows it, by what it says or which tool it
/// belongs to, never by its id (the line is shown in the transcript):
/// "your pinned message “Fix the parser…”", "the pinned output of read_file".
fn pinned_what(history: &[ResponseItem], item: &ResponseItem) -> String {
    match item {
        ResponseItem::Message(message) => {
            let whose = match message.role {
                Role::User => "your pinned message",
                Role::Assistant => "the pinned answer",
                Role::System | Role::Developer => "a pinned instruction",
            };
            format!("{whose} “{}”", opening(&message.content))
        }
        ResponseItem::FunctionCall(call) => {
            format!("the pinned call of {}", opening(&call.name))
        }
        ResponseItem::FunctionCallOutput(output) => {
            let name = history.iter().find_map(|other| match other {
                ResponseItem::FunctionCall(call) if call.call_id == output.call_id => {
                    Some(opening(&call.name))
                }
                _ => None,
            });
            match name {
                Some(name) => format!("the pinned output of {name}"),
                None => "a pinned tool output".to_owned(),
            }
        }
        ResponseItem::CompactionSummary(_) => "a pinned summary".to_owned(),
        ResponseItem::Reasoning(_) => "a pinned reasoning item".to_owned(),
    }
}

/// The start of a text a model or a person wrote, on one line, without
/// control characters, cut with "…" after a few words.
fn opening(text: &str) -> String {
    const CHARS: usize = 40;
    let line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    if line.chars().count() > CHARS {
        let cut: String = line.chars().take(CHARS).collect();
        format!("{}…", cut.trim_end())
    } else {
        line
    }
}

/// The person's latest request: the last user message that is not a state
/// sheet Strata placed. A sheet is known by where it stands (right after
/// its summary), not by its text alone: a person's message may start like
/// one (a sheet copied from a compaction card and pasted back), and it is
/// still their latest request.
fn latest_person_request(history: &[ResponseItem]) -> Option<&str> {
    history
        .iter()
        .enumerate()
        .rev()
        .find_map(|(index, item)| match item {
            ResponseItem::Message(message) if message.role == Role::User => {
                let placed_sheet = message.content.starts_with(STATE_SHEET_PREFIX)
                    && index
                        .checked_sub(1)
                        .is_some_and(|i| matches!(history[i], ResponseItem::CompactionSummary(_)));
                (!placed_sheet).then_some(message.content.as_str())
            }
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::test_support::summary;

    #[test]
    fn a_sheet_right_after_its_summary_is_strata_s_and_a_pasted_one_is_the_person_s() {
        let sheet = format!("{STATE_SHEET_PREFIX} kept by Strata");
        let placed = vec![
            ResponseItem::system("sys"),
            ResponseItem::user("fix it"),
            ResponseItem::CompactionSummary(summary("s")),
            ResponseItem::user(sheet.clone()),
        ];
        assert_eq!(latest_person_request(&placed), Some("fix it"));
        let pasted = vec![
            ResponseItem::system("sys"),
            ResponseItem::user("fix it"),
            ResponseItem::assistant("done"),
            ResponseItem::user(sheet.clone()),
        ];
        assert_eq!(latest_person_request(&pasted), Some(sheet.as_str()));
    }
}
