//! Checkpoints: every compaction is followed by one; opening for writing
//! reads the file from its tail (the last checkpoint and what follows), and
//! `verify_checkpoints` replays the whole file and finds a checkpoint that
//! disagrees with it.

// Helpers outside #[test] fns unwrap too: in a test a panic is the report.
#![allow(clippy::unwrap_used)]

mod store_support;

use std::path::Path;

use store_support::{append_raw, lines, store, summary, write_lines};
use strata_core::LiveSession;
use strata_core::store::{
    ReadMode, SessionStore, read_session_file, read_session_tail, verify_checkpoints,
};
use strata_protocol::{RecordBody, ResponseItem, SessionId, TokenUsage};

/// A session with a system prompt and three questions, each answered with
/// `answer`.
fn three_exchanges(store: &SessionStore, answer: &str) -> LiveSession {
    let mut session = store
        .create(Path::new("/work"), "openai-responses", "gpt-5.4")
        .unwrap();
    session.commit_item(ResponseItem::system("sys")).unwrap();
    for turn in 0..3 {
        session
            .commit_item(ResponseItem::user(format!("question {turn}")))
            .unwrap();
        session
            .commit_item(ResponseItem::assistant(answer))
            .unwrap();
    }
    session
}

/// A session with three exchanges, a compaction, then `after` more
/// exchanges whose replies are `reply_bytes` long.
fn compacted(store: &SessionStore, after: usize, reply_bytes: usize) -> LiveSession {
    let mut session = three_exchanges(store, "an answer");
    session.set_title("Widgets").unwrap();
    session
        .commit_compaction(summary("three questions"))
        .unwrap();
    for turn in 0..after {
        session
            .commit_item(ResponseItem::user(format!("later {turn}")))
            .unwrap();
        session
            .commit_item(ResponseItem::assistant("x".repeat(reply_bytes)))
            .unwrap();
        session
            .record_usage(
                TokenUsage {
                    input_tokens: Some(100 + turn as u64),
                    ..TokenUsage::default()
                },
                None,
                None,
            )
            .unwrap();
    }
    session
}

fn checkpoint_line(path: &Path) -> usize {
    lines(path)
        .iter()
        .position(|line| line.contains(r#""type":"checkpoint""#))
        .unwrap()
}

fn close(session: LiveSession) -> (SessionId, std::path::PathBuf) {
    let ids = (session.id(), session.path().to_owned());
    drop(session);
    ids
}

#[test]
fn a_compaction_is_followed_by_a_checkpoint_of_the_history_it_produced() {
    let (_dir, store) = store();
    let session = compacted(&store, 0, 10);
    let history = session.history().items().to_vec();
    let (id, path) = close(session);
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    let last = read.records.last().unwrap();
    let RecordBody::Checkpoint(checkpoint) = &last.body else {
        panic!("the last record is {:?}", last.body.type_name());
    };
    assert_eq!(checkpoint.history, history);
    assert_eq!(checkpoint.state.explicit_title.as_deref(), Some("Widgets"));
    assert_eq!(checkpoint.state.compactions, 1);
    assert_eq!(last.v, 3);
    assert_eq!(checkpoint_line(&path), read.records.len() - 1);
}

#[test]
fn a_second_checkpoint_with_nothing_written_between_is_not_written() {
    let (_dir, store) = store();
    let mut session = compacted(&store, 0, 10);
    let before = lines(session.path()).len();
    session.append_checkpoint().unwrap();
    assert_eq!(lines(session.path()).len(), before);
    session.commit_item(ResponseItem::user("more")).unwrap();
    session.append_checkpoint().unwrap();
    assert_eq!(lines(session.path()).len(), before + 2);
}

#[test]
fn resuming_reads_from_the_last_checkpoint_and_holds_what_a_whole_replay_holds() {
    let (_dir, store) = store();
    // Replies of 30 KB put the checkpoint several blocks from the end.
    let session = compacted(&store, 6, 30_000);
    let live = session.state().clone();
    let (id, path) = close(session);

    let tail = read_session_tail(&path).unwrap();
    assert!(tail.from_checkpoint());
    assert!(tail.offset > 0);
    assert_eq!(tail.records.len(), 1 + 6 * 3);
    let whole = read_session_file(&path, ReadMode::Strict).unwrap().replay();
    assert_eq!(tail.replay(), whole);
    assert_eq!(whole, live);

    let resumed = store.open_writer(id).unwrap();
    assert_eq!(resumed.state(), &live);
    assert_eq!(
        resumed
            .history()
            .last_usage()
            .and_then(TokenUsage::context_tokens),
        Some(105)
    );
}

#[test]
fn resuming_does_not_read_what_lies_before_the_last_checkpoint() {
    let (_dir, store) = store();
    let (id, path) = close(compacted(&store, 2, 10));
    // Damage a line before the checkpoint: a whole read refuses the file,
    // the tail read never sees it, and verify reports it with its number.
    let mut all = lines(&path);
    all[2] = all[2].replace(r#""type":"response_item""#, r#""type":"response_item","#);
    write_lines(&path, &all);
    assert!(read_session_file(&path, ReadMode::Strict).is_err());
    let resumed = store.open_writer(id).unwrap();
    // system, summary, the three questions, then two exchanges.
    assert_eq!(resumed.history().len(), 5 + 4);
    drop(resumed);
    let error = store.open_reader(id, ReadMode::Strict).unwrap_err();
    assert!(error.to_string().contains(":3:"), "{error}");
}

#[test]
fn a_corrupt_record_after_the_checkpoint_fails_the_resume_with_its_line() {
    let (_dir, store) = store();
    let (id, path) = close(compacted(&store, 2, 10));
    let mut all = lines(&path);
    let last = all.len() - 1;
    all[last] = "{not json".into();
    write_lines(&path, &all);
    let error = store.open_writer(id).unwrap_err();
    assert!(
        error.to_string().contains(&format!(":{}:", last + 1)),
        "{error}"
    );
}

#[test]
fn a_torn_tail_after_a_checkpoint_is_moved_aside_on_resume_and_the_repair_recorded() {
    let (_dir, store) = store();
    let session = compacted(&store, 1, 10);
    let live = session.state().clone();
    let (id, path) = close(session);
    let complete = std::fs::metadata(&path).unwrap().len();
    append_raw(
        &path,
        br#"{"v":1,"ts":"2026-12-01T00:00:00Z","type":"respo"#,
    );
    let resumed = store.open_writer(id).unwrap();
    let repair = resumed.recovery().torn_tail.clone().unwrap();
    assert_eq!(repair.bytes, 48);
    // The torn bytes are gone; the one record after the complete lines
    // says what was repaired, and the state is the live one plus it.
    let bytes = std::fs::read(&path).unwrap();
    let added = &bytes[usize::try_from(complete).unwrap()..];
    let record: strata_protocol::Record = serde_json::from_slice(added.trim_ascii_end()).unwrap();
    let RecordBody::SessionRepaired(repaired) = &record.body else {
        panic!("{record:?}");
    };
    assert_eq!(repaired.torn_tail.as_ref().map(|torn| torn.bytes), Some(48));
    assert!(repaired.aborted_calls.is_empty());
    let mut expected = live;
    expected.fold(&record);
    assert_eq!(resumed.state(), &expected);
}

#[test]
fn a_file_without_checkpoints_is_read_whole() {
    let (_dir, store) = store();
    let id = store_support::closed_session(&store);
    let path = store.session_path(id);
    let tail = read_session_tail(&path).unwrap();
    assert!(!tail.from_checkpoint());
    assert_eq!(tail.offset, 0);
    assert_eq!(tail.records.len(), 4);
    let whole = read_session_file(&path, ReadMode::Strict).unwrap();
    assert_eq!(tail.replay(), whole.replay());
    assert_eq!(verify_checkpoints(&whole).checkpoints, 0);
}

#[test]
fn verify_finds_a_checkpoint_whose_history_differs_and_names_the_item() {
    let (_dir, store) = store();
    let (id, path) = close(compacted(&store, 1, 10));
    let clean = verify_checkpoints(&store.open_reader(id, ReadMode::Strict).unwrap());
    assert_eq!(clean.checkpoints, 1);
    assert!(clean.divergences.is_empty(), "{clean:?}");

    let mut all = lines(&path);
    let at = checkpoint_line(&path);
    // Item 4 of the stored history: system, summary, then the third question.
    all[at] = all[at].replace("question 2", "question 9");
    write_lines(&path, &all);
    let found = verify_checkpoints(&store.open_reader(id, ReadMode::Strict).unwrap());
    assert_eq!(found.divergences.len(), 1, "{found:?}");
    let divergence = &found.divergences[0];
    assert_eq!(divergence.checkpoint, 1);
    assert_eq!(divergence.line, at as u64 + 1);
    assert_eq!(divergence.field, "history");
    assert_eq!(divergence.item, Some(4));
    assert!(
        divergence
            .replayed
            .as_deref()
            .unwrap()
            .starts_with("user message")
    );
}

#[test]
fn verify_finds_a_checkpoint_whose_counts_or_length_differ() {
    let (_dir, store) = store();
    let (id, path) = close(compacted(&store, 0, 10));
    let original = lines(&path);
    let at = checkpoint_line(&path);

    let mut all = original.clone();
    all[at] = all[at].replace(r#""compactions":1"#, r#""compactions":2"#);
    write_lines(&path, &all);
    let found = verify_checkpoints(&store.open_reader(id, ReadMode::Strict).unwrap());
    assert_eq!(found.divergences[0].field, "state.compactions");

    // A checkpoint that lost its last item.
    let mut all = original;
    // (Payload keys are written in alphabetical order; the state after the
    // history holds the undo point's items too, so look before it.)
    let end = all[at].find(r#"],"state""#).unwrap();
    let start = all[at][..end].rfind(r#",{"content":"question 2""#).unwrap();
    all[at].replace_range(start..end, "");
    write_lines(&path, &all);
    let found = verify_checkpoints(&store.open_reader(id, ReadMode::Strict).unwrap());
    let divergence = &found.divergences[0];
    assert_eq!(divergence.field, "history");
    assert_eq!(divergence.item, Some(4));
    assert_eq!(divergence.stored, None);
}

#[test]
fn a_checkpoint_longer_than_the_blocks_read_is_found_whole() {
    let (_dir, store) = store();
    let mut session = three_exchanges(&store, &"y".repeat(100_000));
    // A 300 KB checkpoint (as an undo to a long history would write),
    // then a little more.
    session.append_checkpoint().unwrap();
    session.commit_item(ResponseItem::user("after")).unwrap();
    let live = session.state().clone();
    let (_, path) = close(session);
    let tail = read_session_tail(&path).unwrap();
    assert!(tail.from_checkpoint());
    assert_eq!(tail.records.len(), 2);
    assert_eq!(tail.replay(), live);
}

#[test]
fn a_recorded_network_choice_is_read_back_from_the_checkpoint_as_from_the_whole_file() {
    let (_dir, store) = store();
    let mut session = three_exchanges(&store, "ok");
    let set = strata_protocol::SandboxSet {
        mode: strata_protocol::SandboxMode::WorkspaceWrite,
        network: strata_protocol::SandboxNetwork::AllowList,
        allow_domains: vec!["crates.io".into(), "*.npmjs.org".into()],
    };
    session.append(RecordBody::SandboxSet(set.clone())).unwrap();
    session.append_checkpoint().unwrap();
    session.commit_item(ResponseItem::user("after")).unwrap();
    let (_id, path) = close(session);
    let tail = read_session_tail(&path).unwrap();
    assert!(tail.from_checkpoint());
    assert_eq!(tail.replay().sandbox_set(), Some(&set));
    let whole = read_session_file(&path, ReadMode::Strict).unwrap().replay();
    assert_eq!(whole.sandbox_set(), Some(&set));
    assert_eq!(tail.replay(), whole);
}
