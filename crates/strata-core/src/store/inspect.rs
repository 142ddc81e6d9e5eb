//! Read-only views for the debug console, folded by the same [`Replay::fold`]
//! the live session and a resume use: the history just before and just after
//! each compaction, and each round's exact request (the history replayed up
//! to its `round` record plus the record's model, tools, tool choice and
//! output limit). Nothing here writes.

use std::collections::HashMap;

use strata_protocol::{
    CompactionView, ModelRequest, Record, RecordBody, ResponseItem, RoundId, RoundPage, RoundView,
    SessionMeta, TokenUsage,
};

use super::replay::Replay;

fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// Every compaction of the session, in file order, with the history replay
/// held just before and just after its summary record. Its sizes are a
/// layered record's own estimates, else `estimate` of each history with the
/// replay as it stood then (the front end's estimator for the session's
/// model, so the figures are the gauge's, not a character count).
pub fn compaction_views(
    meta: &SessionMeta,
    records: &[Record],
    estimate: impl Fn(&Replay, &[ResponseItem]) -> u64,
) -> Vec<CompactionView> {
    let mut state = Replay::new(meta.clone());
    let mut views: Vec<CompactionView> = Vec::new();
    // The view still waiting for the first usage reported after it.
    let mut awaiting_usage: Option<usize> = None;
    for (index, record) in records.iter().enumerate() {
        match &record.body {
            RecordBody::ResponseItem(ResponseItem::CompactionSummary(_))
            | RecordBody::LayeredCompaction(_) => {
                let summary = match &record.body {
                    RecordBody::LayeredCompaction(compaction) => &compaction.summary,
                    RecordBody::ResponseItem(ResponseItem::CompactionSummary(summary)) => summary,
                    _ => continue,
                };
                let before = state.history().items().to_vec();
                // A layered record keeps its own estimates; a base summary's
                // are counted here, before and after folding it.
                let recorded = match &record.body {
                    RecordBody::LayeredCompaction(compaction) => {
                        Some((compaction.estimated_before, compaction.estimated_after))
                    }
                    _ => None,
                };
                let estimated_before = recorded.map(|(before, _)| before);
                let estimated_before =
                    estimated_before.unwrap_or_else(|| estimate(&state, &before));
                state.fold(record);
                let after = state.history().items().to_vec();
                let estimated_after = recorded
                    .map(|(_, after)| after)
                    .unwrap_or_else(|| estimate(&state, &after));
                let removed_indices = before
                    .iter()
                    .enumerate()
                    .filter(|(_, item)| !after.iter().any(|kept| kept.id() == item.id()))
                    .map(|(position, _)| to_u32(position))
                    .collect();
                views.push(CompactionView {
                    summary: summary.clone(),
                    summary_model_text: summary.model_text(),
                    record_index: to_u32(index),
                    ts: record.ts,
                    estimated_tokens_before: estimated_before,
                    estimated_tokens_after: estimated_after,
                    before,
                    after,
                    removed_indices,
                    next_context_tokens: None,
                });
                awaiting_usage = Some(views.len() - 1);
            }
            RecordBody::TokenUsage(usage) => {
                if let Some(view) = awaiting_usage.take().and_then(|i| views.get_mut(i)) {
                    view.next_context_tokens = usage.usage.context_tokens();
                }
                state.fold(record);
            }
            _ => {
                state.fold(record);
            }
        }
    }
    views
}

/// How many `round` records the session has.
pub fn round_count(records: &[Record]) -> usize {
    records
        .iter()
        .filter(|record| matches!(record.body, RecordBody::Round(_)))
        .count()
}

/// The usage each round reported: by its `round_id`, or, for a usage record
/// without one, the round last sent before it.
fn usage_by_round(records: &[Record]) -> HashMap<RoundId, TokenUsage> {
    let mut usage = HashMap::new();
    let mut last_round: Option<RoundId> = None;
    for record in records {
        match &record.body {
            RecordBody::Round(round) => last_round = Some(round.round_id),
            RecordBody::TokenUsage(reported) => {
                if let Some(round_id) = reported.round_id.or(last_round) {
                    usage
                        .entry(round_id)
                        .or_insert_with(|| reported.usage.clone());
                }
            }
            _ => {}
        }
    }
    usage
}

/// Rounds `offset..offset + limit` of the session (fewer at the end), each
/// with the exact request it sent and the usage it reported. Only the rounds
/// in the window copy the history, so a long session pages cheaply.
pub fn round_requests(
    meta: &SessionMeta,
    records: &[Record],
    offset: usize,
    limit: usize,
) -> RoundPage {
    let total = round_count(records);
    let end = offset.saturating_add(limit).min(total);
    let usage = usage_by_round(records);
    let mut state = Replay::new(meta.clone());
    let mut rounds = Vec::with_capacity(end.saturating_sub(offset));
    let mut number = 0usize;
    for (index, record) in records.iter().enumerate() {
        if number >= end {
            break;
        }
        if let RecordBody::Round(round) = &record.body {
            if number >= offset {
                let input = state.history().items().to_vec();
                let reported = usage.get(&round.round_id).cloned();
                rounds.push(RoundView {
                    number: to_u32(number + 1),
                    record_index: to_u32(index),
                    ts: record.ts,
                    input_consistent: usize::try_from(round.input_items).ok() == Some(input.len()),
                    estimated_input_tokens: round.estimated_input_tokens,
                    request: ModelRequest {
                        model: round.model.clone(),
                        input,
                        tools: round.tools.clone(),
                        tool_choice: round.tool_choice.clone(),
                        max_output_tokens: round.max_output_tokens,
                        session_id: None,
                        reasoning: round.reasoning,
                        cache_anchors: Vec::new(),
                    },
                    context_tokens: reported.as_ref().and_then(TokenUsage::context_tokens),
                    usage: reported,
                    round: round.clone(),
                });
            }
            number += 1;
        }
        state.fold(record);
    }
    RoundPage {
        total: to_u32(total),
        offset: to_u32(offset.min(total)),
        rounds,
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use strata_protocol::{
        CompactionMetadata, CompactionSummary, CompactionTrigger, ItemId, RoundRecord, SessionId,
        TokenUsageRecord, TurnId,
    };

    use super::*;
    use crate::store::replay;

    fn meta() -> SessionMeta {
        SessionMeta {
            session_id: SessionId::new(),
            created_at: Utc::now(),
            workspace: "/w".into(),
            provider_kind: "demo".into(),
            model: "m".into(),
            strata_version: "0".into(),
        }
    }

    fn item(item: ResponseItem) -> Record {
        Record::now(RecordBody::ResponseItem(item))
    }

    fn round(input_items: u32) -> (RoundId, Record) {
        let round_id = RoundId::new();
        let record = Record::now(RecordBody::Round(RoundRecord {
            turn_id: TurnId::new(),
            round_id,
            provider_kind: "demo".into(),
            model: "m".into(),
            tools: Vec::new(),
            tool_choice: None,
            max_output_tokens: None,
            input_items,
            estimated_input_tokens: Some(u64::from(input_items) * 10),
            reasoning: None,
            cache_anchors: Vec::new(),
        }));
        (round_id, record)
    }

    fn usage(round_id: Option<RoundId>, input: u64) -> Record {
        Record::now(RecordBody::TokenUsage(TokenUsageRecord {
            round_id,
            cost: None,
            price: None,
            usage: TokenUsage {
                input_tokens: Some(input),
                output_tokens: Some(10),
                ..TokenUsage::default()
            },
        }))
    }

    fn summary(text: &str, context_tokens: u64) -> ResponseItem {
        ResponseItem::CompactionSummary(CompactionSummary {
            id: ItemId::new(),
            summary: text.into(),
            metadata: CompactionMetadata {
                trigger: CompactionTrigger::Auto,
                reason: "over".into(),
                context_tokens: Some(context_tokens),
                threshold: Some(100),
                removed: 0,
                kept: 0,
                summarizer_model: "m".into(),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: 5,
            },
        })
    }

    /// system, user, assistant, [round 1 + usage], summary A, user, assistant,
    /// [round 2 + usage without id], summary B, [round 3 claiming 9 items].
    fn session() -> Vec<Record> {
        let (first, round_1) = round(3);
        let (_, round_2) = round(5);
        let (_, round_3) = round(9);
        vec![
            item(ResponseItem::system("sys")),
            item(ResponseItem::user("one")),
            item(ResponseItem::assistant("answer one")),
            round_1,
            usage(Some(first), 150),
            item(summary("digest A", 160)),
            item(ResponseItem::user("two")),
            item(ResponseItem::assistant("answer two")),
            round_2,
            usage(None, 170),
            item(summary("digest B", 180)),
            round_3,
        ]
    }

    #[test]
    fn each_compaction_shows_what_replay_held_around_it() {
        let meta = meta();
        let records = session();
        let views = compaction_views(&meta, &records, |_, items| items.len() as u64);
        assert_eq!(views.len(), 2);
        let (a, b) = (&views[0], &views[1]);
        assert_eq!(a.record_index, 5);
        assert_eq!(a.before.len(), 3);
        assert_eq!(a.removed_indices, vec![2], "only the assistant answer goes");
        assert_eq!(a.after.len(), 3);
        // The next usage belongs to round 2, after A; B has none after it.
        assert_eq!(a.next_context_tokens, Some(180));
        assert_eq!(b.next_context_tokens, None);
        // B's "before" is A's "after" plus what came since; A's summary is
        // folded into B's.
        assert_eq!(b.before[..3], a.after[..]);
        assert_eq!(b.before.len(), 5);
        assert_eq!(b.removed_indices, vec![1, 4]);
        assert_eq!(b.after, replay(&meta, &records).history().items().to_vec());
        // The sizes are the given estimate's (here: one per item).
        for view in &views {
            assert_eq!(view.estimated_tokens_before, view.before.len() as u64);
            assert_eq!(view.estimated_tokens_after, view.after.len() as u64);
        }
    }

    #[test]
    fn rounds_carry_their_request_usage_and_consistency() {
        let meta = meta();
        let records = session();
        let page = round_requests(&meta, &records, 0, 10);
        assert_eq!(page.total, 3);
        let inputs: Vec<usize> = page.rounds.iter().map(|r| r.request.input.len()).collect();
        assert_eq!(inputs, vec![3, 5, 4]);
        let consistent: Vec<bool> = page.rounds.iter().map(|r| r.input_consistent).collect();
        assert_eq!(consistent, vec![true, true, false]);
        let tokens: Vec<Option<u64>> = page.rounds.iter().map(|r| r.context_tokens).collect();
        assert_eq!(tokens, vec![Some(160), Some(180), None]);
        // The estimate each round record carries, not one made again here.
        let estimated: Vec<Option<u64>> = page
            .rounds
            .iter()
            .map(|r| r.estimated_input_tokens)
            .collect();
        assert_eq!(estimated, vec![Some(30), Some(50), Some(90)]);
        assert_eq!(
            round_requests(&meta, &records, 2, 1).rounds,
            page.rounds[2..].to_vec()
        );
        assert_eq!(round_requests(&meta, &records, 1, 0).rounds, Vec::new());
    }
}
