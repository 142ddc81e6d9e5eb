//! The layered summary: which items a summary with a state sheet replaces
//! and which it keeps ([`plan_layered`]), replay's half
//! ([`apply_layered_compaction`]), and the summarizer's request built from
//! the original items of the span with the previous summary and sheet as
//! context ([`build_layered_summary_request`]).

use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;

use strata_protocol::{ItemId, LayeredCompaction, ModelRequest, ResponseItem, Role, StateSheet};

use super::extract::is_person_message;
use super::prompt::{serialize_history_for_summary_prompt, summary_request};

/// What a layered summary keeps and replaces, as indices into the history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayeredPlan {
    /// Leading system and developer messages.
    pub leading: Vec<usize>,
    /// The person's recent messages within the budget, oldest first.
    pub kept: Vec<usize>,
    /// Everything else: the span the summary replaces (earlier summaries
    /// and sheets included, which the new ones supersede).
    pub span: Vec<usize>,
}

/// Like the base plan, but a state sheet is never kept as a user message.
pub fn plan_layered(history: &[ResponseItem]) -> LayeredPlan {
    plan_layered_with(history, &HashSet::new(), None)
}

/// The pinned items with their partners: a pinned output keeps its call,
/// and a pinned call its output.
pub fn pinned_with_partners(
    history: &[ResponseItem],
    pinned: &BTreeSet<ItemId>,
) -> HashSet<ItemId> {
    let pinned_calls: HashSet<&str> = history
        .iter()
        .filter(|item| pinned.contains(&item.id()))
        .filter_map(|item| match item {
            ResponseItem::FunctionCall(_) | ResponseItem::FunctionCallOutput(_) => item.call_id(),
            _ => None,
        })
        .collect();
    history
        .iter()
        .filter(|item| {
            pinned.contains(&item.id())
                || matches!(
                    item,
                    ResponseItem::FunctionCall(_) | ResponseItem::FunctionCallOutput(_)
                ) && item.call_id().is_some_and(|id| pinned_calls.contains(id))
        })
        .map(ResponseItem::id)
        .collect()
}

/// The layered plan keeping `pinned` items (partners included) verbatim,
/// outside the person's message budget, and, for a partial compaction,
/// everything from index `keep_from` on (moved back so a call is never
/// split from its output). Kept items stay in their original order.
pub fn plan_layered_with(
    history: &[ResponseItem],
    pinned: &HashSet<ItemId>,
    keep_from: Option<usize>,
) -> LayeredPlan {
    let is_pinned = |index: usize| pinned.contains(&history[index].id());
    let (leading, mut kept) = match keep_from {
        // A partial compaction summarizes everything before the item.
        Some(_) => (super::select_kept(history, |_| false).0, Vec::new()),
        None => {
            let (leading, persons) = super::select_kept_where(history, |index, text| {
                is_person_message(text) && !is_pinned(index)
            });
            (leading, persons)
        }
    };
    let from = keep_from.map(|from| call_start(history, from.max(leading.len())));
    for index in leading.len()..history.len() {
        if is_pinned(index) || from.is_some_and(|from| index >= from) {
            kept.push(index);
        }
    }
    let thinking: Vec<usize> = kept
        .iter()
        .flat_map(|&index| round_reasoning(history, index, leading.len()))
        .collect();
    kept.extend(thinking);
    kept.sort_unstable();
    kept.dedup();
    let span = (leading.len()..history.len())
        .filter(|index| !kept.contains(index))
        .collect();
    LayeredPlan {
        leading,
        kept,
        span,
    }
}

/// The reasoning items of the round that made the call at `index` (none
/// for other items): a kept call keeps them, as Anthropic refuses a tool
/// result whose turn lost its thinking block and the Responses API a call
/// whose reasoning went missing. A round's items are its reasoning, its
/// text, then its calls, so they are the run of those kinds before it.
fn round_reasoning(history: &[ResponseItem], index: usize, floor: usize) -> Vec<usize> {
    if !matches!(history[index], ResponseItem::FunctionCall(_)) {
        return Vec::new();
    }
    let mut found = Vec::new();
    for before in (floor..index).rev() {
        match &history[before] {
            ResponseItem::Reasoning(_) => found.push(before),
            ResponseItem::FunctionCall(_) => {}
            ResponseItem::Message(message) if message.role == Role::Assistant => {}
            _ => break,
        }
    }
    found
}

/// Eviction that leaves the next request at or above this share of the
/// threshold is not enough: what it cannot replace (the recent rounds, call
/// skeletons, placeholders) has grown into a floor every round re-reads, and
/// a summary (asked for in the session's cached context, so it costs a cache
/// read) clears it. Measured by `make bench-context` (docs/CONTEXT.md).
pub const SUMMARY_FLOOR_PERCENT: u64 = 75;

/// Whether a summary must follow eviction: when the expected size of the
/// next request (`expected`: the estimate after eviction, which may also
/// count what the estimate misses) is still at or over
/// [`SUMMARY_FLOOR_PERCENT`] of the threshold.
pub fn needs_summary(expected: u64, threshold: u64) -> bool {
    expected >= super::share_of(threshold, SUMMARY_FLOOR_PERCENT)
}

/// Where a partial compaction may start keeping: at `from`, or earlier when
/// `from` is a tool output whose call comes before it (a call and its output
/// stay together), or inside a run of calls whose outputs follow.
fn call_start(history: &[ResponseItem], from: usize) -> usize {
    let mut start = from.min(history.len());
    // Every output at or after `start` must have its call at or after it.
    loop {
        let earliest_call = history[start..]
            .iter()
            .filter_map(|item| match item {
                ResponseItem::FunctionCallOutput(output) => history[..start]
                    .iter()
                    .rposition(|other| {
                        matches!(other, ResponseItem::FunctionCall(call) if call.call_id == output.call_id)
                    }),
                _ => None,
            })
            .min();
        match earliest_call {
            Some(call) if call < start => start = call,
            _ => return start,
        }
    }
}

impl LayeredPlan {
    pub fn ids(history: &[ResponseItem], indices: &[usize]) -> Vec<ItemId> {
        indices.iter().map(|&i| history[i].id()).collect()
    }
}

/// Replay's half: the leading items, the summary, the sheet, then the kept
/// items, each found by the id the record stored.
pub fn apply_layered_compaction(
    history: &[ResponseItem],
    record: &LayeredCompaction,
) -> Vec<ResponseItem> {
    let pick = |ids: &[ItemId]| -> Vec<ResponseItem> {
        let wanted: HashSet<ItemId> = ids.iter().copied().collect();
        history
            .iter()
            .filter(|item| wanted.contains(&item.id()))
            .cloned()
            .collect()
    };
    let mut items = pick(&record.leading);
    items.push(ResponseItem::CompactionSummary(record.summary.clone()));
    items.push(ResponseItem::Message(record.sheet_message.clone()));
    items.extend(pick(&record.kept));
    items
}

/// The latest state sheet in a history, read back from its message.
pub fn previous_summary_text(span: &[ResponseItem]) -> Option<&str> {
    span.iter().rev().find_map(|item| match item {
        ResponseItem::CompactionSummary(summary) => Some(summary.summary.as_str()),
        _ => None,
    })
}

/// The summarizer's request: the previous summary and sheet as context, then
/// the original items of the span (earlier summaries and sheets left out, so
/// no summary is ever a summary of a summary).
pub fn build_layered_summary_request(
    previous_summary: Option<&str>,
    previous_sheet: Option<&StateSheet>,
    originals: &[ResponseItem],
    folded_out: usize,
    focus: Option<&str>,
    model: &str,
) -> ModelRequest {
    let mut prompt = String::new();
    if let Some(summary) = previous_summary {
        let _ = writeln!(
            prompt,
            "Summary of the work before this part (context; carry its facts into your summary):\n{summary}\n"
        );
    }
    if let Some(sheet) = previous_sheet {
        let _ = writeln!(prompt, "State sheet so far (context):\n{}\n", sheet.text);
    }
    if folded_out > 0 {
        let _ = writeln!(
            prompt,
            "({folded_out} of the oldest items of this part are not shown: they did not fit.)\n"
        );
    }
    prompt.push_str("Transcript to summarize:\n\n");
    prompt.push_str(&serialize_history_for_summary_prompt(originals));
    summary_request(prompt, focus, model)
}

/// The span's items the summarizer reads: no earlier summaries or sheets.
pub fn span_originals(span: Vec<ResponseItem>) -> Vec<ResponseItem> {
    span.into_iter()
        .filter(|item| match item {
            ResponseItem::CompactionSummary(_) => false,
            ResponseItem::Message(message) => {
                message.role != Role::User || is_person_message(&message.content)
            }
            ResponseItem::FunctionCall(_)
            | ResponseItem::FunctionCallOutput(_)
            | ResponseItem::Reasoning(_) => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::sheet::STATE_SHEET_PREFIX;
    use crate::compaction::test_support::summary;

    #[test]
    fn the_plan_keeps_leading_and_person_messages_and_never_an_old_sheet() {
        let history = vec![
            ResponseItem::system("sys"),
            ResponseItem::message(Role::Developer, "agents"),
            ResponseItem::user("one"),
            ResponseItem::assistant("a"),
            ResponseItem::user(format!("{STATE_SHEET_PREFIX} old")),
            ResponseItem::user("two"),
        ];
        let plan = plan_layered(&history);
        assert_eq!(plan.leading, [0, 1]);
        assert_eq!(plan.kept, [2, 5]);
        assert_eq!(plan.span, [3, 4]);
    }

    #[test]
    fn applying_the_record_orders_leading_summary_sheet_then_kept() {
        let history = vec![
            ResponseItem::system("sys"),
            ResponseItem::user("one"),
            ResponseItem::assistant("a"),
        ];
        let ResponseItem::Message(sheet_message) = ResponseItem::user(STATE_SHEET_PREFIX) else {
            unreachable!()
        };
        let record = LayeredCompaction {
            summary: summary("s"),
            sheet_message: sheet_message.clone(),
            state_sheet: StateSheet::default(),
            leading: vec![history[0].id()],
            kept: vec![history[1].id()],
            folded_out: 0,
            estimated_before: 0,
            estimated_after: 0,
            loss_audit: Default::default(),
        };
        let items = apply_layered_compaction(&history, &record);
        assert_eq!(items.len(), 4);
        assert_eq!(items[0], history[0]);
        assert_eq!(
            items[1],
            ResponseItem::CompactionSummary(record.summary.clone())
        );
        assert_eq!(items[2], ResponseItem::Message(sheet_message));
        assert_eq!(items[3], history[1]);
    }
}
