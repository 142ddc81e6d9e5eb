//! The person's context operations, each a pure decision whose result a
//! record stores: pin and unpin ([`decide_pin`]), undo the latest compaction
//! ([`decide_undo`]), and where a fork cuts its parent's records
//! ([`fork_cut`]).

use strata_protocol::{
    CompactionUndone, ForkPoint, ItemId, ItemPin, Record, RecordBody, ResponseItem,
};

use crate::compaction::{EVICTED_PREFIX, Estimate, pinned_with_partners};
use crate::error::{CoreError, Result};
use crate::history::History;
use crate::session::LiveSession;

fn refused(message: impl Into<String>) -> CoreError {
    CoreError::ContextRefused {
        message: message.into(),
    }
}

/// Pins apply to the layered policy, whose compactions keep them: `base`
/// (and a manual compaction under `off`, which is base's) keeps its records
/// and replay exactly as before pins existed.
pub fn pins_allowed(policy: strata_protocol::CompactionPolicy) -> Result<()> {
    match policy {
        strata_protocol::CompactionPolicy::Layered => Ok(()),
        strata_protocol::CompactionPolicy::Off | strata_protocol::CompactionPolicy::Base => {
            Err(refused(format!(
                "pins need the layered policy (this session's is {}); resume it with \
                 --compaction layered first",
                policy.as_str()
            )))
        }
    }
}

/// Pins `item_id` (`pinned`) or unpins it. A pin is refused when the item is
/// not in the model-visible history verbatim (recall it, undo or fork
/// first), and when the pinned items, partners included, would together
/// exceed half of `threshold` (an estimate).
pub fn decide_pin(
    history: &History,
    item_id: ItemId,
    pinned: bool,
    estimate: Estimate<'_>,
    threshold: u64,
) -> Result<ItemPin> {
    if !pinned {
        if !history.is_pinned(item_id) {
            return Err(refused(format!("item {item_id} is not pinned")));
        }
        return Ok(ItemPin { item_id, pinned });
    }
    if history.is_pinned(item_id) {
        return Err(refused(format!("item {item_id} is already pinned")));
    }
    let items = history.items();
    let Some(item) = items.iter().find(|item| item.id() == item_id) else {
        return Err(refused(format!(
            "item {item_id} is not in what the model sees now (a compaction removed it); only \
             items in context can be pinned: undo the compaction or fork from before it"
        )));
    };
    if matches!(item, ResponseItem::FunctionCallOutput(o) if o.output.starts_with(EVICTED_PREFIX)) {
        return Err(refused(format!(
            "item {item_id} was evicted (the model sees a placeholder); it cannot be pinned"
        )));
    }
    if matches!(item, ResponseItem::CompactionSummary(_)) {
        return Err(refused(
            "a summary cannot be pinned; pin the items you need instead",
        ));
    }
    let mut wanted = history.pinned().clone();
    wanted.insert(item_id);
    let with_partners = pinned_with_partners(items, &wanted);
    let pinned_items: Vec<ResponseItem> = items
        .iter()
        .filter(|item| with_partners.contains(&item.id()))
        .cloned()
        .collect();
    let total = estimate.items(&pinned_items);
    let limit = threshold / 2;
    if total > limit {
        return Err(refused(format!(
            "pinning item {item_id} would make the pinned items about {total} tokens (an \
             estimate), over half the compaction threshold ({limit} of {threshold}); unpin \
             something first"
        )));
    }
    Ok(ItemPin { item_id, pinned })
}

/// Undoes the latest compaction: the history before it plus everything
/// appended since, only when the next request's estimate is under
/// `threshold`: the restored items' estimate (what the record keeps, as a
/// compaction's record keeps its result's) plus `request_overhead`, what
/// every request carries besides the history (the tool specs). An undo
/// whose next request reaches the threshold would only be compacted again
/// at the next round, at the cost of a summary.
pub fn decide_undo(
    history: &History,
    estimate: Estimate<'_>,
    request_overhead: u64,
    threshold: u64,
) -> Result<CompactionUndone> {
    let Some(point) = history.undo_point() else {
        return Err(refused(
            "there is no compaction to undo (none yet, or the latest was already undone)",
        ));
    };
    let Some(restored) = point.restored(history.items()) else {
        return Err(refused(
            "the history before the compaction was not read back from the session file",
        ));
    };
    let estimated_tokens = estimate.items(&restored);
    let next_request = estimated_tokens.saturating_add(request_overhead);
    if next_request >= threshold {
        return Err(refused(format!(
            "undoing would bring the next request to about {next_request} tokens (an estimate: \
             the restored history and the tool specs), at or over the compaction threshold of \
             {threshold}; nothing was changed"
        )));
    }
    Ok(CompactionUndone {
        summary_item_id: point.summary_item_id,
        restored: restored.iter().map(ResponseItem::id).collect(),
        estimated_tokens,
        threshold,
    })
}

/// How many of the parent's `records` a fork at `point` copies: through the
/// item's record (a function call's output included, so no call is left
/// unanswered), or up to, not including, compaction `number`'s record.
pub fn fork_cut(records: &[Record], point: &ForkPoint) -> Result<usize> {
    match point {
        ForkPoint::AtItem { item_id } => {
            let at = records
                .iter()
                .position(|record| record_holds(record, *item_id))
                .ok_or_else(|| CoreError::ItemNotFound {
                    query: item_id.to_string(),
                })?;
            let call_id = match &records[at].body {
                RecordBody::ResponseItem(ResponseItem::FunctionCall(call)) => {
                    Some(call.call_id.as_str())
                }
                _ => None,
            };
            let end = call_id
                .and_then(|call_id| {
                    records[at..].iter().position(|record| {
                        matches!(&record.body, RecordBody::ResponseItem(ResponseItem::FunctionCallOutput(o)) if o.call_id == call_id)
                    })
                })
                .map_or(at, |offset| at + offset);
            Ok(end + 1)
        }
        ForkPoint::BeforeCompaction { number } => {
            let index = usize::try_from(*number).unwrap_or(usize::MAX);
            records
                .iter()
                .enumerate()
                .filter(|(_, record)| is_compaction(&record.body))
                .nth(index.saturating_sub(1))
                .filter(|_| index > 0)
                .map(|(at, _)| at)
                .ok_or_else(|| {
                    refused(format!(
                        "the session has no compaction {number} (strata compactions numbers them \
                         from 1)"
                    ))
                })
        }
    }
}

/// A summary record, numbered as `strata compactions` numbers them.
fn is_compaction(body: &RecordBody) -> bool {
    matches!(
        body,
        RecordBody::ResponseItem(ResponseItem::CompactionSummary(_))
            | RecordBody::LayeredCompaction(_)
    )
}

fn record_holds(record: &Record, item_id: ItemId) -> bool {
    match &record.body {
        RecordBody::ResponseItem(item) => item.id() == item_id,
        RecordBody::LayeredCompaction(layered) => {
            layered.summary.id == item_id || layered.sheet_message.id == item_id
        }
        _ => false,
    }
}

/// What must follow every record that replaces the history other than a
/// compaction (an undo, a fork's start): a `checkpoint`, written and synced,
/// so a resume starts from the history as it now is (and never reads the
/// records before it).
pub(crate) fn after_history_replaced(session: &mut LiveSession) -> Result<()> {
    session.append_checkpoint()
}

/// Pins (or unpins) the item `query` names (an id or a unique prefix of one
/// among every item the session recorded) and records it.
pub fn pin_item(
    session: &mut LiveSession,
    query: &str,
    pinned: bool,
    estimate: Estimate<'_>,
    threshold: u64,
) -> Result<ItemPin> {
    if pinned {
        pins_allowed(session.state().policy())?;
    }
    let records = session.read_records()?;
    let item_id = crate::recall::resolve_recorded_item(&records, query)?;
    let pin = decide_pin(session.history(), item_id, pinned, estimate, threshold)?;
    session.append(RecordBody::ItemPin(pin.clone()))?;
    session.sync()?;
    Ok(pin)
}

/// Undoes the latest compaction when the result fits under `threshold`
/// ([`decide_undo`]).
pub fn undo_compaction(
    session: &mut LiveSession,
    estimate: Estimate<'_>,
    request_overhead: u64,
    threshold: u64,
) -> Result<CompactionUndone> {
    session.resolve_undo_point()?;
    let undone = decide_undo(session.history(), estimate, request_overhead, threshold)?;
    session.append(RecordBody::CompactionUndone(undone.clone()))?;
    after_history_replaced(session)?;
    Ok(undone)
}

#[cfg(test)]
mod tests;
