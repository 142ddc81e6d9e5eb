//! What must hold after a SIGKILL and after the resume that follows it.
//! Each check returns the first violation as text.

use std::path::{Path, PathBuf};

use strata_core::ABORTED_TOOL_OUTPUT;
use strata_core::compaction::{apply_compaction, apply_eviction, apply_layered_compaction};
use strata_core::store::{ReadMode, SessionRead, read_session_file};
use strata_protocol::Record;
use strata_protocol::{
    AgentEvent, DebugEvent, EventEnvelope, ItemId, MainlineEvent, RecordBody, ResponseItem, Role,
    TurnOutcome,
};

use super::server::Ledger;

pub type Check<T> = Result<T, String>;

/// The session file as a killed process left it.
pub struct AfterKill {
    pub bytes: Vec<u8>,
    pub read: SessionRead,
}

/// The file reads strictly, only grew, and every item in it is one the
/// server sent in full, with finished turns whole.
pub fn after_kill(file: &Path, before: &[u8], ledger: &Ledger) -> Check<Option<AfterKill>> {
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound && before.is_empty() => {
            return Ok(None);
        }
        Err(error) => return Err(format!("the session file is gone: {error}")),
    };
    if !bytes.starts_with(before) {
        return Err("the bytes written before this process were changed".into());
    }
    let read = read_session_file(file, ReadMode::Strict)
        .map_err(|error| format!("the killed session does not read: {error}"))?;
    records_match_the_server(&read, ledger)?;
    let inconsistent = read.replay().inconsistent_rounds();
    if inconsistent > 0 {
        return Err(format!(
            "{inconsistent} round records disagree with the replayed history"
        ));
    }
    Ok(Some(AfterKill { bytes, read }))
}

/// Every committed assistant text, call and summary was sent in full; every
/// output answers an earlier call; a finished turn answers all its calls and
/// a completed one ends in the assistant's text.
fn records_match_the_server(read: &SessionRead, ledger: &Ledger) -> Check<()> {
    let mut calls: Vec<String> = Vec::new();
    let mut turn_open_calls: Vec<String> = Vec::new();
    let mut last_item: Option<&ResponseItem> = None;
    for (line, record) in read.records.iter().enumerate() {
        let at = format!("line {}", line + 1);
        match &record.body {
            RecordBody::TurnStarted(_) => {
                turn_open_calls.clear();
                last_item = None;
            }
            RecordBody::ResponseItem(item) => {
                match item {
                    ResponseItem::Message(message) if message.role == Role::Assistant => {
                        if !ledger.texts.contains(&message.content) {
                            return Err(format!(
                                "{at}: assistant text {:?} was never sent whole",
                                message.content
                            ));
                        }
                    }
                    ResponseItem::FunctionCall(call) => {
                        let key = (
                            call.call_id.clone(),
                            call.name.clone(),
                            call.arguments.clone(),
                        );
                        if !ledger.calls.contains(&key) {
                            return Err(format!("{at}: call {key:?} was never sent whole"));
                        }
                        calls.push(call.call_id.clone());
                        turn_open_calls.push(call.call_id.clone());
                    }
                    ResponseItem::FunctionCallOutput(output) => {
                        if !calls.contains(&output.call_id) {
                            return Err(format!(
                                "{at}: output for {} answers no earlier call",
                                output.call_id
                            ));
                        }
                        turn_open_calls.retain(|id| id != &output.call_id);
                    }
                    ResponseItem::CompactionSummary(summary) => {
                        if !ledger.summaries.contains(&summary.summary) {
                            return Err(format!(
                                "{at}: summary {:?} was never sent whole",
                                summary.summary
                            ));
                        }
                    }
                    ResponseItem::Message(_) | ResponseItem::Reasoning(_) => {}
                }
                last_item = Some(item);
            }
            RecordBody::TurnFinished(finished) => {
                if !turn_open_calls.is_empty() {
                    return Err(format!(
                        "{at}: a finished turn left calls unanswered: {turn_open_calls:?}"
                    ));
                }
                let ends_in_text =
                    matches!(
                        last_item,
                        Some(ResponseItem::Message(message)) if message.role == Role::Assistant
                    ) || matches!(last_item, Some(ResponseItem::CompactionSummary(_)));
                if finished.outcome == TurnOutcome::Completed && !ends_in_text {
                    return Err(format!(
                        "{at}: a completed turn ends in {last_item:?}, not the assistant's text"
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The history a process reported through its `--json` events, and how
/// many steps of each kind it folded to get there.
#[derive(Debug, Default)]
pub struct Live {
    pub items: Vec<ResponseItem>,
    pub evictions: usize,
    pub base_summaries: usize,
    pub layered_summaries: usize,
}

/// A `history_compacted` event not yet known to be base or layered: a
/// layered summary's `layered_compacted` event follows it directly.
struct PendingSummary {
    seq: u64,
    before: Vec<ResponseItem>,
    summary_id: ItemId,
    history_items: u32,
}

/// Rebuilds the live history from `start` (the history the process opened
/// with) and its events, folding each step as replay does: the turn's user
/// message, the items committed, evictions (stored placeholders by item
/// id), base compactions (`apply_compaction`) and layered ones (leading,
/// summary, sheet, kept by id), pre-turn steps included. Checks each round
/// sends exactly the history the events built so far and each step leaves
/// as many items as its event says.
pub fn live_history(start: Vec<ResponseItem>, events: &[EventEnvelope]) -> Check<Live> {
    let mut live = Live {
        items: start,
        ..Live::default()
    };
    let mut rounds = 0;
    let mut pending: Option<PendingSummary> = None;
    for envelope in events {
        let seq = envelope.seq;
        if let AgentEvent::Debug(DebugEvent::LayeredCompacted { compaction, .. }) = &envelope.event
        {
            let pending = pending.take().ok_or_else(|| {
                format!("event {seq}: a layered compaction with no history_compacted before it")
            })?;
            if pending.summary_id != compaction.summary.id {
                return Err(format!(
                    "event {seq}: the layered compaction's summary is not the one just reported"
                ));
            }
            live.items = apply_layered_compaction(&pending.before, compaction);
            expect_items(seq, &live.items, pending.history_items)?;
            live.layered_summaries += 1;
            continue;
        }
        if let Some(base) = pending.take() {
            expect_items(base.seq, &live.items, base.history_items)?;
            live.base_summaries += 1;
        }
        match &envelope.event {
            AgentEvent::Debug(DebugEvent::RoundStarted { request, .. }) => {
                if live.items != request.input {
                    return Err(format!(
                        "event {seq}: a round sent {} items, not the {} the events built",
                        request.input.len(),
                        live.items.len()
                    ));
                }
                rounds += 1;
            }
            AgentEvent::Mainline(MainlineEvent::TurnStarted { user_message, .. }) => {
                live.items.push(user_message.clone());
            }
            AgentEvent::Mainline(MainlineEvent::MessageCommitted { item, .. }) => {
                live.items.push(item.clone());
            }
            AgentEvent::Debug(DebugEvent::ToolOutputsEvicted {
                eviction,
                history_items,
                ..
            }) => {
                let replaced = apply_eviction(&mut live.items, eviction);
                if replaced != eviction.evicted.len() {
                    return Err(format!(
                        "event {seq}: the eviction names {} outputs, the history holds {replaced}",
                        eviction.evicted.len()
                    ));
                }
                expect_items(seq, &live.items, *history_items)?;
                live.evictions += 1;
            }
            AgentEvent::Debug(DebugEvent::HistoryCompacted {
                summary,
                history_items,
                ..
            }) => {
                let before = std::mem::take(&mut live.items);
                live.items = apply_compaction(&before, summary.clone());
                pending = Some(PendingSummary {
                    seq,
                    before,
                    summary_id: summary.id,
                    history_items: *history_items,
                });
            }
            _ => {}
        }
    }
    if let Some(base) = pending {
        expect_items(base.seq, &live.items, base.history_items)?;
        live.base_summaries += 1;
    }
    if rounds == 0 {
        return Err("the process reported no round".into());
    }
    Ok(live)
}

fn expect_items(seq: u64, items: &[ResponseItem], reported: u32) -> Check<()> {
    if items.len() != reported as usize {
        return Err(format!(
            "event {seq}: the folded history has {} items, the event reports {reported}",
            items.len()
        ));
    }
    Ok(())
}

/// What the resume's first request must start with: the replayed history,
/// then an aborted output for each call left unanswered.
pub fn expected_resume_prefix(read: &SessionRead) -> Vec<ResponseItem> {
    let history = read.replay().into_history();
    let mut items = history.items().to_vec();
    for call_id in history.pending_call_ids() {
        items.push(ResponseItem::function_call_output(
            call_id.as_str(),
            ABORTED_TOOL_OUTPUT,
        ));
    }
    items
}

/// The records a resume opened with: the `killed` ones, then those it
/// writes before its first event (aborted outputs, a preamble, a policy).
pub fn opened_records(records: &[Record], killed: usize) -> &[Record] {
    let written_on_open = records
        .iter()
        .skip(killed)
        .take_while(|record| match &record.body {
            RecordBody::CompactionPolicy(_) => true,
            RecordBody::ResponseItem(ResponseItem::FunctionCallOutput(output)) => {
                output.output == ABORTED_TOOL_OUTPUT
            }
            RecordBody::ResponseItem(item) => is_preamble(item),
            _ => false,
        })
        .count();
    &records[..(killed + written_on_open).min(records.len())]
}

/// A system or developer message, as a session's preamble holds.
pub fn is_preamble(item: &ResponseItem) -> bool {
    matches!(item, ResponseItem::Message(message) if matches!(message.role, Role::System | Role::Developer))
}

/// Items equal but for ids the store assigns on commit (aborted outputs get
/// fresh ones), compared as JSON without `id` fields.
pub fn same_items(a: &[ResponseItem], b: &[ResponseItem]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| without_ids(x) == without_ids(y))
}

fn without_ids(item: &ResponseItem) -> serde_json::Value {
    let mut value = serde_json::to_value(item).unwrap();
    if let Some(object) = value.as_object_mut() {
        object.remove("id");
    }
    value
}

/// The torn-tail sidecars beside `file` holding exactly `torn`.
pub fn sidecar_holding(file: &Path, torn: &[u8]) -> Option<PathBuf> {
    let name = file.file_name()?.to_string_lossy().into_owned();
    let prefix = format!("{name}.torn-");
    std::fs::read_dir(file.parent()?)
        .ok()?
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(&prefix))
        .map(|entry| entry.path())
        .find(|path| std::fs::read(path).ok().as_deref() == Some(torn))
}
