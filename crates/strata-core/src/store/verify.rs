//! Checking checkpoints: replay the whole file from its first record and
//! compare every `checkpoint` with the state the records before it replay
//! to. A checkpoint is a copy a resume trusts; this is what finds one that
//! disagrees with the file.

use strata_protocol::{
    Checkpoint, CheckpointDivergence, CheckpointState, RecordBody, ResponseItem,
};

use crate::store::reader::SessionRead;
use crate::store::replay::Replay;

/// What checking a session's checkpoints found.
#[derive(Clone, Debug, PartialEq)]
pub struct Verification {
    /// Records replayed (the session_meta included).
    pub records: usize,
    pub checkpoints: usize,
    /// Every checkpoint that disagrees, each with its first difference.
    pub divergences: Vec<CheckpointDivergence>,
}

/// Replays `read` (read strictly, so record `n` is line `n + 1`) and checks
/// each checkpoint against the replay of the records before it.
pub fn verify_checkpoints(read: &SessionRead) -> Verification {
    let mut state = Replay::new(read.meta.clone());
    let mut checkpoints = 0;
    let mut divergences = Vec::new();
    for (index, record) in read.records.iter().enumerate() {
        if let RecordBody::Checkpoint(stored) = &record.body {
            checkpoints += 1;
            let mut replayed = state.checkpoint();
            // A checkpoint written before references stores the undo point
            // whole: compare it item for item.
            if stored.state.undo_point.is_some() {
                replayed.state.undo_point = state.whole_undo_point();
                replayed.state.undo_ref = None;
            }
            if let Some(divergence) = first_difference(&replayed, stored) {
                divergences.push(CheckpointDivergence {
                    checkpoint: checkpoints,
                    line: index as u64 + 1,
                    ..divergence
                });
            }
        }
        state.fold(record);
    }
    Verification {
        records: read.records.len(),
        checkpoints: checkpoints as usize,
        divergences,
    }
}

/// Where `stored` first differs from `replayed`: the history item by item,
/// then the last usage, then the other fields.
fn first_difference(replayed: &Checkpoint, stored: &Checkpoint) -> Option<CheckpointDivergence> {
    let divergence = |field: &str, item, replayed, stored| CheckpointDivergence {
        checkpoint: 0,
        line: 0,
        field: field.to_owned(),
        item,
        replayed,
        stored,
    };
    let (ours, theirs) = (&replayed.history, &stored.history);
    let differing = (0..ours.len().max(theirs.len())).find(|&i| ours.get(i) != theirs.get(i));
    if let Some(index) = differing {
        return Some(divergence(
            "history",
            Some(index as u64),
            ours.get(index).map(describe),
            theirs.get(index).map(describe),
        ));
    }
    if replayed.last_usage != stored.last_usage {
        let show = |usage: &Option<strata_protocol::CheckpointUsage>| {
            usage.as_ref().map(|last| {
                let tokens = last.usage.context_tokens().unwrap_or_default();
                format!("{tokens} context tokens at item {}", last.items)
            })
        };
        return Some(divergence(
            "last_usage",
            None,
            show(&replayed.last_usage),
            show(&stored.last_usage),
        ));
    }
    differing_state_field(&replayed.state, &stored.state)
        .map(|field| divergence(&format!("state.{field}"), None, None, None))
}

/// The first field of the two states that differs.
fn differing_state_field(ours: &CheckpointState, theirs: &CheckpointState) -> Option<&'static str> {
    // Named in full so a field added to the state is compared too.
    let CheckpointState {
        records,
        response_items,
        compactions,
        evictions,
        unknown_records,
        inconsistent_rounds,
        explicit_title,
        derived_title,
        profile,
        policy,
        reasoning,
        sandbox,
        sandbox_network,
        sandbox_allow_domains,
        mcp_catalog,
        last_round_model,
        last_cache_anchor,
        last_state_sheet,
        switched_since_round,
        summary_failures_in_a_row,
        last_summary_failure,
        ineffective_at,
        refused_span,
        undos,
        pinned,
        undo_ref,
        undo_point,
        forked_from,
        imported_from,
        estimated_tokens,
    } = ours;
    [
        ("records", *records == theirs.records),
        ("response_items", *response_items == theirs.response_items),
        ("compactions", *compactions == theirs.compactions),
        ("evictions", *evictions == theirs.evictions),
        (
            "unknown_records",
            *unknown_records == theirs.unknown_records,
        ),
        (
            "inconsistent_rounds",
            *inconsistent_rounds == theirs.inconsistent_rounds,
        ),
        ("explicit_title", *explicit_title == theirs.explicit_title),
        ("derived_title", *derived_title == theirs.derived_title),
        ("profile", *profile == theirs.profile),
        ("policy", *policy == theirs.policy),
        ("reasoning", *reasoning == theirs.reasoning),
        ("sandbox", *sandbox == theirs.sandbox),
        (
            "sandbox_network",
            *sandbox_network == theirs.sandbox_network,
        ),
        (
            "sandbox_allow_domains",
            *sandbox_allow_domains == theirs.sandbox_allow_domains,
        ),
        ("mcp_catalog", *mcp_catalog == theirs.mcp_catalog),
        (
            "last_round_model",
            *last_round_model == theirs.last_round_model,
        ),
        (
            "last_cache_anchor",
            *last_cache_anchor == theirs.last_cache_anchor,
        ),
        (
            "last_state_sheet",
            *last_state_sheet == theirs.last_state_sheet,
        ),
        (
            "switched_since_round",
            *switched_since_round == theirs.switched_since_round,
        ),
        (
            "summary_failures_in_a_row",
            *summary_failures_in_a_row == theirs.summary_failures_in_a_row,
        ),
        // Checkpoints written before the field existed carry none.
        (
            "last_summary_failure",
            theirs.last_summary_failure.is_none()
                || *last_summary_failure == theirs.last_summary_failure,
        ),
        ("ineffective_at", *ineffective_at == theirs.ineffective_at),
        ("refused_span", *refused_span == theirs.refused_span),
        ("undos", *undos == theirs.undos),
        ("pinned", *pinned == theirs.pinned),
        ("undo_ref", *undo_ref == theirs.undo_ref),
        ("undo_point", *undo_point == theirs.undo_point),
        ("forked_from", *forked_from == theirs.forked_from),
        ("imported_from", *imported_from == theirs.imported_from),
        // Checkpoints written before the field existed carry none.
        (
            "estimated_tokens",
            theirs.estimated_tokens.is_none() || *estimated_tokens == theirs.estimated_tokens,
        ),
    ]
    .into_iter()
    .find_map(|(field, same)| (!same).then_some(field))
}

/// An item in a few words: its kind and id (the text is the file's, not
/// repeated here).
fn describe(item: &ResponseItem) -> String {
    let kind = match item {
        ResponseItem::Message(message) => format!("{} message", message.role.as_str()),
        ResponseItem::FunctionCall(call) => format!("function_call {}", call.call_id),
        ResponseItem::FunctionCallOutput(output) => {
            format!("function_call_output {}", output.call_id)
        }
        ResponseItem::CompactionSummary(_) => "compaction_summary".to_owned(),
        ResponseItem::Reasoning(_) => "reasoning".to_owned(),
    };
    format!("{kind} {}", item.id())
}
