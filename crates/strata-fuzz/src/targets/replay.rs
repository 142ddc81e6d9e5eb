//! Record sequences, compactions included, through replay: folding them live
//! (through a real session file) and replaying that file after reopening
//! give the same history; a JSONL write and read gives the same state; and
//! every compaction keeps exactly the leading system messages, the summary
//! and a suffix of the user messages within the budget.

use std::cell::RefCell;
use std::path::Path;

use chrono::{TimeZone, Utc};
use strata_core::compaction::USER_MESSAGE_BUDGET_CHARS;
use strata_core::store::{ReadMode, parse_session};
use strata_core::{ABORTED_TOOL_OUTPUT, Applied, History, Replay, SessionStore};
use strata_protocol::{
    CompactionMetadata, CompactionSummary, CompactionTrigger, ItemId, Record, RecordBody,
    ResponseItem, Role, RoundId, RoundRecord, SessionId, SessionMeta, TitleSet, TokenUsage,
    TokenUsageRecord, TurnFinished, TurnId, TurnOutcome, TurnStarted, UnknownRecord,
};

use super::{Shape, shape_of};

/// A few hand-made sequences: a turn with a call, a compaction, a resume.
pub fn seeds() -> Vec<Vec<u8>> {
    vec![
        vec![2, 0, 0, 5, 4, 1, 5, 1, 1, 9, 7, 30, 6, 0, 0, 200, 1, 3],
        vec![2, 0, 0, 250, 0, 240, 0, 10, 6, 1, 0, 3, 4, 2, 6, 0],
        vec![3, 1, 0, 1, 4, 0, 4, 0, 5, 0, 8, 2, 11, 0, 10, 0, 6, 2],
    ]
}

thread_local! {
    static STORE: RefCell<Option<(tempfile::TempDir, SessionStore)>> = const { RefCell::new(None) };
}

fn meta() -> SessionMeta {
    SessionMeta {
        session_id: SessionId::new(),
        created_at: Utc
            .timestamp_opt(1_700_000_000, 0)
            .single()
            .unwrap_or_default(),
        workspace: "/fuzz".into(),
        provider_kind: "demo".into(),
        model: "fuzz".into(),
        strata_version: "0".into(),
    }
}

fn text(kind: u8, length: u8) -> String {
    let unit = ["a", "é", "\u{1d11e}", " ", "\n"][usize::from(kind % 5)];
    unit.repeat(usize::from(length) * 100)
}

/// Reads the bytes as (op, argument) pairs.
fn bodies(data: &[u8]) -> Vec<RecordBody> {
    let turn = TurnId::new();
    data.chunks(2)
        .map(|pair| {
            let (op, arg) = (pair[0], pair.get(1).copied().unwrap_or(0));
            let call_id = format!("c{}", arg % 4);
            match op % 12 {
                0 => RecordBody::ResponseItem(ResponseItem::user(text(op / 12, arg))),
                1 => RecordBody::ResponseItem(ResponseItem::assistant(format!("a{arg}"))),
                2 => RecordBody::ResponseItem(ResponseItem::system(format!("s{arg}"))),
                3 => RecordBody::ResponseItem(ResponseItem::message(Role::Developer, "d")),
                4 => RecordBody::ResponseItem(ResponseItem::function_call(
                    call_id,
                    "read_file",
                    "{}",
                )),
                5 => RecordBody::ResponseItem(ResponseItem::function_call_output(call_id, "out")),
                6 => RecordBody::ResponseItem(ResponseItem::CompactionSummary(summary(arg))),
                7 => RecordBody::TokenUsage(TokenUsageRecord {
                    round_id: None,
                    cost: None,
                    price: None,
                    usage: TokenUsage {
                        input_tokens: Some(u64::from(arg) * 100),
                        ..TokenUsage::default()
                    },
                }),
                8 => RecordBody::Round(RoundRecord {
                    turn_id: turn,
                    round_id: RoundId::new(),
                    provider_kind: "demo".into(),
                    model: "fuzz".into(),
                    tools: Vec::new(),
                    tool_choice: None,
                    max_output_tokens: None,
                    input_items: u32::from(arg),
                    estimated_input_tokens: None,
                    reasoning: None,
                    cache_anchors: Vec::new(),
                }),
                9 => RecordBody::TurnStarted(TurnStarted { turn_id: turn }),
                10 => RecordBody::TurnFinished(TurnFinished {
                    turn_id: turn,
                    outcome: TurnOutcome::Completed,
                    rounds: u32::from(arg),
                }),
                _ if arg % 2 == 0 => RecordBody::TitleSet(TitleSet {
                    title: text(arg, 1),
                }),
                _ => RecordBody::Unknown(UnknownRecord {
                    record_type: format!("future_{arg}"),
                    payload: serde_json::json!({"n": arg}),
                }),
            }
        })
        .collect()
}

fn summary(arg: u8) -> CompactionSummary {
    CompactionSummary {
        id: ItemId::new(),
        summary: format!("summary {arg}"),
        metadata: CompactionMetadata {
            trigger: CompactionTrigger::Auto,
            reason: "fuzz".into(),
            context_tokens: Some(u64::from(arg)),
            threshold: Some(1),
            removed: 0,
            kept: 0,
            summarizer_model: "fuzz".into(),
            summarizer_usage: None,
            summarizer_cost: None,
            duration_ms: 0,
        },
    }
}

pub fn run(data: &[u8]) -> Shape {
    let bodies = bodies(data);
    let meta = meta();
    let mut state = Replay::new(meta.clone());
    let mut history = History::new();
    let mut records = vec![Record {
        v: 1,
        ts: meta.created_at,
        body: RecordBody::SessionMeta(meta.clone()),
    }];
    state.fold(&records[0]);
    let mut applied_kinds = Vec::new();
    for (index, body) in bodies.iter().enumerate() {
        let before = history.items().to_vec();
        let applied = history.apply(body);
        let record = Record {
            v: 1,
            ts: meta.created_at + chrono::Duration::milliseconds(index as i64 + 1),
            body: body.clone(),
        };
        assert_eq!(state.fold(&record), applied, "replay and history disagree");
        if let Applied::Compacted { removed, kept } = applied {
            compaction_kept_the_right_items(&before, history.items(), removed, kept);
        }
        applied_kinds.push(std::mem::discriminant(&applied));
        records.push(record);
    }
    assert_eq!(
        state.history(),
        &history,
        "the replayed history is not the applied one"
    );

    // A write and a strict read of the same records replay to the same state.
    let mut file = Vec::new();
    for record in &records {
        serde_json::to_writer(&mut file, record).unwrap_or_else(|error| panic!("{error}"));
        file.push(b'\n');
    }
    let read = parse_session(Path::new("fuzz.jsonl"), &file, ReadMode::Strict)
        .unwrap_or_else(|error| panic!("written records do not read: {error}"));
    assert_eq!(read.replay(), state, "a write and read changed the replay");

    live_session_resumes_to_the_same_history(&bodies);
    applied_kinds.dedup();
    shape_of((
        applied_kinds,
        state.compactions().min(3),
        state.inconsistent_rounds().min(2),
    ))
}

/// After a compaction: the leading system/developer messages, the summary,
/// then a suffix of the user messages that fits the budget (the newest is
/// always kept).
fn compaction_kept_the_right_items(
    before: &[ResponseItem],
    after: &[ResponseItem],
    removed: usize,
    kept: usize,
) {
    assert_eq!(
        before.len(),
        removed + kept,
        "removed + kept is not the history before"
    );
    assert_eq!(
        after.len(),
        kept + 1,
        "the history after is not the kept items and the summary"
    );
    let leading = before
        .iter()
        .take_while(|item| {
            item.is_message_with_role(Role::System) || item.is_message_with_role(Role::Developer)
        })
        .count();
    assert_eq!(
        &after[..leading],
        &before[..leading],
        "the leading messages changed"
    );
    assert!(
        matches!(after[leading], ResponseItem::CompactionSummary(_)),
        "no summary after the leading messages"
    );
    let users: Vec<&ResponseItem> = before[leading..]
        .iter()
        .filter(|item| item.is_message_with_role(Role::User))
        .collect();
    let kept_users = &after[leading + 1..];
    assert!(
        kept_users
            .iter()
            .all(|item| item.is_message_with_role(Role::User)),
        "a compaction kept something other than user messages"
    );
    let suffix = &users[users.len() - kept_users.len()..];
    assert!(
        suffix.iter().zip(kept_users).all(|(a, b)| *a == b),
        "the kept user messages are not the newest ones in order"
    );
    let chars: usize = kept_users
        .iter()
        .map(|item| match item {
            ResponseItem::Message(message) => message.content.chars().count(),
            _ => 0,
        })
        .sum();
    assert!(
        kept_users.len() <= 1 || chars <= USER_MESSAGE_BUDGET_CHARS,
        "kept {chars} characters of user messages"
    );
    assert!(
        users.is_empty() || !kept_users.is_empty(),
        "the newest user message was dropped"
    );
}

/// The same bodies appended to a real session, then the session reopened:
/// the resumed history is the live one plus an aborted output for each
/// unanswered call.
fn live_session_resumes_to_the_same_history(bodies: &[RecordBody]) {
    STORE.with(|cell| {
        let mut cell = cell.borrow_mut();
        let (_, store) = cell.get_or_insert_with(|| {
            let dir = super::scratch_dir().unwrap_or_else(|error| panic!("{error}"));
            let store = SessionStore::new(dir.path().join("sessions"));
            (dir, store)
        });
        let mut live = store
            .create(Path::new("/fuzz"), "demo", "fuzz")
            .unwrap_or_else(|error| panic!("{error}"));
        for body in bodies {
            live.append(body.clone())
                .unwrap_or_else(|error| panic!("{error}"));
        }
        let id = live.id();
        let history = live.history().clone();
        drop(live);
        let resumed = store
            .open_writer(id)
            .unwrap_or_else(|error| panic!("the session does not reopen: {error}"));
        let pending = history.pending_call_ids();
        assert_eq!(resumed.recovery().aborted_calls, pending);
        let mut expected = history.items().to_vec();
        expected.extend(pending.iter().map(|call_id| {
            ResponseItem::function_call_output(call_id.as_str(), ABORTED_TOOL_OUTPUT)
        }));
        let got = resumed.history().items();
        assert_eq!(
            got.len(),
            expected.len(),
            "the resumed history has another length"
        );
        for (got, want) in got.iter().zip(&expected) {
            assert_eq!(
                without_id(got),
                without_id(want),
                "the resumed history differs from the live one"
            );
        }
        drop(resumed);
        store.delete(id).unwrap_or_else(|error| panic!("{error}"));
    });
}

fn without_id(item: &ResponseItem) -> serde_json::Value {
    let mut value = serde_json::to_value(item).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        object.remove("id");
    }
    value
}
