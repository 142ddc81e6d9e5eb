//! Every compaction step of a session in file order, for the console's
//! cards: each summary (the core's compaction view, with its layered record
//! when it has one), each tool-output eviction and each undo, with the
//! figures each shows computed once here.

use std::collections::HashMap;

use strata_core::store::compaction_views;
use strata_protocol::{
    CompactionPolicy, ConsoleStep, ItemId, LayeredCompaction, Record, RecordBody, SessionMeta,
    StepFigures, TokenFigure,
};

use super::fold::policies;
use super::to_u32;

/// Where a step sits among the records.
pub fn record_index(step: &ConsoleStep) -> u32 {
    match step {
        ConsoleStep::Summary { record_index, .. }
        | ConsoleStep::Eviction { record_index, .. }
        | ConsoleStep::Undo { record_index, .. }
        | ConsoleStep::Refused { record_index, .. } => *record_index,
    }
}

/// Before, after and freed, all estimates by one estimator.
pub fn figures(before: u64, after: u64, next_reported: Option<u64>) -> StepFigures {
    let estimate = |tokens| TokenFigure {
        tokens,
        estimated: true,
    };
    StepFigures {
        before: estimate(before),
        after: estimate(after),
        freed: estimate(before.saturating_sub(after)),
        next_reported,
    }
}

pub fn steps(meta: &SessionMeta, records: &[Record]) -> Vec<ConsoleStep> {
    let policy_at = policies(records);
    let policy = |index: usize| {
        policy_at
            .get(index)
            .copied()
            .unwrap_or(CompactionPolicy::Base)
    };
    let mut layered: HashMap<ItemId, &LayeredCompaction> = HashMap::new();
    let mut undone: Vec<ItemId> = Vec::new();
    let mut others: Vec<ConsoleStep> = Vec::new();
    // The eviction still waiting for the first usage reported after it.
    let mut awaiting: Option<usize> = None;
    for (index, record) in records.iter().enumerate() {
        match &record.body {
            RecordBody::LayeredCompaction(compaction) => {
                layered.insert(compaction.summary.id, compaction);
                awaiting = None;
            }
            RecordBody::ResponseItem(strata_protocol::ResponseItem::CompactionSummary(_)) => {
                awaiting = None;
            }
            RecordBody::ToolOutputsEvicted(eviction) => {
                let number = others
                    .iter()
                    .filter(|step| matches!(step, ConsoleStep::Eviction { .. }))
                    .count();
                others.push(ConsoleStep::Eviction {
                    record_index: to_u32(index),
                    ts: record.ts,
                    number: to_u32(number + 1),
                    policy: policy(index),
                    eviction: eviction.clone(),
                    figures: figures(eviction.estimated_before, eviction.estimated_after, None),
                });
                awaiting = Some(others.len() - 1);
            }
            RecordBody::TokenUsage(usage) => {
                if let Some(ConsoleStep::Eviction { figures, .. }) =
                    awaiting.take().and_then(|i| others.get_mut(i))
                {
                    figures.next_reported = usage.usage.context_tokens();
                }
            }
            RecordBody::CompactionUndone(undo) => {
                undone.push(undo.summary_item_id);
                others.push(ConsoleStep::Undo {
                    record_index: to_u32(index),
                    ts: record.ts,
                    undone: undo.clone(),
                    undid: None,
                });
            }
            _ => {}
        }
    }
    let views = compaction_views(meta, records, crate::context::recorded_estimate);
    let number_of: HashMap<ItemId, u32> = views
        .iter()
        .enumerate()
        .map(|(i, view)| (view.summary.id, to_u32(i + 1)))
        .collect();
    for step in &mut others {
        if let ConsoleStep::Undo { undone, undid, .. } = step {
            *undid = number_of.get(&undone.summary_item_id).copied();
        }
    }
    let mut all: Vec<ConsoleStep> = views
        .into_iter()
        .enumerate()
        .map(|(i, view)| {
            let id = view.summary.id;
            let layered = layered.get(&id).map(|c| Box::new((*c).clone()));
            let at = usize::try_from(view.record_index).unwrap_or(usize::MAX);
            ConsoleStep::Summary {
                record_index: view.record_index,
                ts: view.ts,
                number: to_u32(i + 1),
                policy: if layered.is_some() {
                    CompactionPolicy::Layered
                } else {
                    policy(at)
                },
                figures: figures(
                    view.estimated_tokens_before,
                    view.estimated_tokens_after,
                    view.next_context_tokens,
                ),
                undone: undone.contains(&id),
                layered,
                view: Box::new(view),
            }
        })
        .collect();
    all.extend(others);
    all.sort_by_key(record_index);
    all
}
