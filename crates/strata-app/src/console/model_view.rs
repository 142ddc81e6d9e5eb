//! The model view: the history the model sees now, in order, grouped for
//! reading.

use strata_protocol::{ItemId, ModelGroupId, ModelViewGroup, ResponseItem, Role};

fn group(id: ModelGroupId, title: &str, hint: &str, items: &[ResponseItem]) -> ModelViewGroup {
    ModelViewGroup {
        id,
        title: title.to_owned(),
        hint: hint.to_owned(),
        items: items.to_vec(),
    }
}

fn is_instruction(item: &ResponseItem) -> bool {
    matches!(item, ResponseItem::Message(m) if matches!(m.role, Role::System | Role::Developer))
}

/// The leading system/developer messages, the last summary (with what the
/// last compaction put before it), the messages that compaction kept, and
/// what joined after it. Without a summary in view: instructions and the
/// conversation. `last_after` is the history right after the last
/// compaction, when there was one.
pub fn groups(context: &[ResponseItem], last_after: Option<Vec<ItemId>>) -> Vec<ModelViewGroup> {
    let lead = context
        .iter()
        .take_while(|item| is_instruction(item))
        .count();
    let (instructions, rest) = context.split_at(lead);
    let mut groups = Vec::new();
    if !instructions.is_empty() {
        groups.push(group(
            ModelGroupId::Instructions,
            "Instructions",
            "The leading system messages, kept by every compaction.",
            instructions,
        ));
    }
    let summary_at = rest
        .iter()
        .position(|item| matches!(item, ResponseItem::CompactionSummary(_)));
    let Some(summary_at) = summary_at else {
        let hint = if last_after.is_some() {
            "Every message since the session started: the last compaction was undone."
        } else {
            "Every message since the session started; nothing has been compacted yet."
        };
        if !rest.is_empty() {
            groups.push(group(
                ModelGroupId::Conversation,
                "Conversation",
                hint,
                rest,
            ));
        }
        return groups;
    };
    let kept_ids = last_after.unwrap_or_default();
    let (upto, after_summary) = rest.split_at(summary_at + 1);
    let kept = after_summary
        .iter()
        .take_while(|item| kept_ids.contains(&item.id()))
        .count();
    groups.push(group(
        ModelGroupId::Summary,
        "Summary of earlier work",
        "Sent as a user message in place of everything the last compaction removed.",
        upto,
    ));
    let (kept_items, later) = after_summary.split_at(kept);
    if !kept_items.is_empty() {
        groups.push(group(
            ModelGroupId::Kept,
            "Kept messages",
            "The recent user messages the last compaction kept.",
            kept_items,
        ));
    }
    if !later.is_empty() {
        groups.push(group(
            ModelGroupId::Later,
            "Since the last compaction",
            "Messages that joined the history after it.",
            later,
        ));
    }
    groups
}
