//! The console's cache view, computed from the records alone: where each
//! round's request stopped repeating the previous round's (the provider's
//! prompt cache serves only a repeated prefix), and why.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use strata_protocol::{
    CacheBreak, CacheBreakCause, ItemId, Message, RecordBody, ResponseItem, Role, ToolSpec,
};

/// What of a request decides its cache prefix: the model, the tool list
/// (sent before the input), and each input item's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestShape {
    pub model: String,
    pub tools: u64,
    /// Each item's id, a hash of its whole content, and whether it is a
    /// system or developer message.
    pub items: Vec<(ItemId, u64, bool)>,
}

fn hash_of<T: serde::Serialize>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    serde_json::to_string(value)
        .unwrap_or_default()
        .hash(&mut hasher);
    hasher.finish()
}

impl RequestShape {
    pub fn new(model: &str, tools: &[ToolSpec], items: &[ResponseItem]) -> Self {
        RequestShape {
            model: model.to_owned(),
            tools: hash_of(&tools),
            items: items
                .iter()
                .map(|item| (item.id(), hash_of(item), is_instructions(item)))
                .collect(),
        }
    }
}

fn is_instructions(item: &ResponseItem) -> bool {
    matches!(
        item,
        ResponseItem::Message(Message {
            role: Role::System | Role::Developer,
            ..
        })
    )
}

/// Where `next` stops beginning with `prev`'s input (the previous request
/// was sent whole, so the next should repeat it and add to it), named by
/// the steps recorded between the two rounds (see [`step_cause`]), the
/// first of them when there are several; `None` when it repeats it.
pub fn cache_break(
    prev: &RequestShape,
    next: &RequestShape,
    between: &[CacheBreakCause],
) -> Option<CacheBreak> {
    let first_difference = if prev.model != next.model || prev.tools != next.tools {
        Some(0)
    } else {
        prev.items
            .iter()
            .enumerate()
            .find(|(i, (_, hash, _))| next.items.get(*i).is_none_or(|(_, h, _)| h != hash))
            .map(|(i, _)| i)
    }?;
    let at = next.items.get(first_difference);
    let cause = if prev.model != next.model {
        CacheBreakCause::ModelSwitch
    } else if prev.tools != next.tools {
        CacheBreakCause::ToolList
    } else {
        between.first().copied().unwrap_or_else(|| {
            let changed_instructions = at.is_some_and(|(_, _, system)| *system)
                || prev
                    .items
                    .get(first_difference)
                    .is_some_and(|(_, _, system)| *system);
            if changed_instructions {
                CacheBreakCause::SystemPrompt
            } else {
                CacheBreakCause::Other
            }
        })
    };
    Some(CacheBreak {
        index: u32::try_from(first_difference).unwrap_or(u32::MAX),
        item_id: at.map(|(id, _, _)| *id),
        cause,
    })
}

/// The history rewrite a record stands for, if it is one.
pub fn step_cause(body: &RecordBody) -> Option<CacheBreakCause> {
    match body {
        RecordBody::ResponseItem(ResponseItem::CompactionSummary(_))
        | RecordBody::LayeredCompaction(_) => Some(CacheBreakCause::Compaction),
        RecordBody::ToolOutputsEvicted(_) => Some(CacheBreakCause::Eviction),
        RecordBody::ItemPin(_) => Some(CacheBreakCause::Pin),
        RecordBody::CompactionUndone(_) => Some(CacheBreakCause::Undo),
        RecordBody::InstructionsSet(_) => Some(CacheBreakCause::SystemPrompt),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(role: Role, text: &str) -> ResponseItem {
        ResponseItem::Message(Message {
            id: ItemId::new(),
            role,
            content: text.to_owned(),
        })
    }

    fn shape(items: &[ResponseItem]) -> RequestShape {
        RequestShape::new("m", &[], items)
    }

    #[test]
    fn a_request_that_repeats_the_previous_one_and_adds_to_it_keeps_the_cache() {
        let system = message(Role::System, "be brief");
        let user = message(Role::User, "hi");
        let reply = message(Role::Assistant, "hello");
        let prev = shape(&[system.clone(), user.clone()]);
        let next = shape(&[system, user, reply]);
        assert_eq!(cache_break(&prev, &next, &[]), None);
    }

    #[test]
    fn a_compaction_breaks_at_the_first_replaced_item_and_is_named() {
        let system = message(Role::System, "be brief");
        let old = message(Role::User, "a long story");
        let summary = message(Role::User, "summary of the story");
        let prev = shape(&[system.clone(), old]);
        let next = shape(&[system, summary.clone()]);
        assert_eq!(
            cache_break(&prev, &next, &[CacheBreakCause::Compaction]),
            Some(CacheBreak {
                index: 1,
                item_id: Some(summary.id()),
                cause: CacheBreakCause::Compaction,
            })
        );
    }

    #[test]
    fn an_eviction_or_a_pin_between_the_rounds_is_named() {
        let a = message(Role::User, "a");
        let b = message(Role::User, "b");
        let prev = shape(&[a.clone(), b]);
        let next = shape(&[a, message(Role::User, "b, evicted")]);
        let of = |between: &[CacheBreakCause]| cache_break(&prev, &next, between).map(|b| b.cause);
        assert_eq!(
            of(&[CacheBreakCause::Eviction]),
            Some(CacheBreakCause::Eviction)
        );
        assert_eq!(
            of(&[CacheBreakCause::Pin, CacheBreakCause::Eviction]),
            Some(CacheBreakCause::Pin)
        );
        assert_eq!(of(&[]), Some(CacheBreakCause::Other));
    }

    #[test]
    fn a_changed_system_prompt_breaks_at_it() {
        let user = message(Role::User, "hi");
        let prev = shape(&[message(Role::System, "v1"), user.clone()]);
        let next = shape(&[message(Role::System, "v2"), user]);
        let found = cache_break(&prev, &next, &[]);
        assert_eq!(
            found.map(|b| (b.index, b.cause)),
            Some((0, CacheBreakCause::SystemPrompt))
        );
    }

    #[test]
    fn a_model_switch_or_new_tool_list_breaks_before_the_first_item() {
        let user = message(Role::User, "hi");
        let prev = shape(std::slice::from_ref(&user));
        let other_model = RequestShape::new("m2", &[], std::slice::from_ref(&user));
        assert_eq!(
            cache_break(&prev, &other_model, &[]).map(|b| (b.index, b.cause)),
            Some((0, CacheBreakCause::ModelSwitch))
        );
        let tool = ToolSpec {
            name: "read_file".into(),
            description: "Reads a file.".into(),
            parameters: serde_json::json!({"type": "object"}),
        };
        let with_tool = RequestShape::new("m", &[tool], std::slice::from_ref(&user));
        assert_eq!(
            cache_break(&prev, &with_tool, &[]).map(|b| b.cause),
            Some(CacheBreakCause::ToolList)
        );
    }

    #[test]
    fn a_shorter_request_breaks_where_it_ends() {
        let a = message(Role::User, "a");
        let b = message(Role::User, "b");
        let prev = shape(&[a.clone(), b]);
        let next = shape(&[a]);
        assert_eq!(
            cache_break(&prev, &next, &[CacheBreakCause::Undo]),
            Some(CacheBreak {
                index: 1,
                item_id: None,
                cause: CacheBreakCause::Undo,
            })
        );
    }
}
