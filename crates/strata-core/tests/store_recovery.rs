//! The store under damage and contention: torn tails, corrupt lines, a second
//! writer, records from a newer version, and tool calls a crash left
//! unanswered.

// Helpers outside #[test] fns unwrap too: in a test a panic is the report.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use strata_core::store::{ReadMode, SessionStore, TornTail};
use strata_core::{ABORTED_TOOL_OUTPUT, CoreError, LiveSession};
use strata_protocol::{RecordBody, ResponseItem, SessionId, UnknownRecord};

mod store_support;
use store_support::{append_raw, closed_session, insert_line, intact_then_repaired, store};

fn sidecars(store: &SessionStore, id: SessionId) -> Vec<PathBuf> {
    let prefix = format!("{id}.jsonl.torn-");
    let mut found: Vec<PathBuf> = std::fs::read_dir(store.root())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(&prefix))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn torn_tail_is_moved_aside_and_truncated_with_earlier_records_intact() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    let intact = std::fs::read(&path).unwrap();
    let torn =
        br#"{"v":1,"ts":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type":"mess"#;
    append_raw(&path, torn);

    let expected_tail = TornTail {
        offset: intact.len() as u64,
        bytes: torn.len() as u64,
    };
    for mode in [ReadMode::Strict, ReadMode::Browsing] {
        let read = store.open_reader(id, mode).unwrap();
        assert_eq!(read.report.torn_tail, Some(expected_tail), "{mode:?}");
        assert_eq!(read.records.len(), 4, "{mode:?}: the torn line is ignored");
    }
    let before = store
        .open_reader(id, ReadMode::Strict)
        .unwrap()
        .replay()
        .into_history();
    assert!(store.list().unwrap()[0].torn_tail);

    let mut session = store.open_writer(id).unwrap();
    let repair = session.recovery().torn_tail.clone().unwrap();
    assert_eq!(repair.bytes, torn.len() as u64);
    assert_eq!(sidecars(&store, id), std::slice::from_ref(&repair.sidecar));
    assert_eq!(std::fs::read(&repair.sidecar).unwrap(), torn);
    // Truncated to the last newline, earlier bytes untouched, the repair
    // recorded after them.
    let repaired = intact_then_repaired(&path, &intact);
    assert_eq!(
        repaired.torn_tail.map(|torn| torn.bytes),
        Some(repair.bytes)
    );
    assert_eq!(session.history(), &before);

    session
        .commit_item(ResponseItem::user("after the crash"))
        .unwrap();
    drop(session);
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    assert!(read.report.is_clean());
    assert_eq!(read.records.len(), 6);
    assert!(std::fs::read(&path).unwrap().starts_with(&intact));
}

#[test]
fn a_second_torn_tail_gets_its_own_sidecar() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    append_raw(&path, b"{\"v\":1,");
    let first = store.open_writer(id).unwrap().recovery().torn_tail.clone();
    append_raw(&path, b"{\"v\":");
    let second = store.open_writer(id).unwrap().recovery().torn_tail.clone();
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_ne!(first.sidecar, second.sidecar);
    assert_eq!(std::fs::read(&first.sidecar).unwrap(), b"{\"v\":1,");
    assert_eq!(std::fs::read(&second.sidecar).unwrap(), b"{\"v\":");
    assert_eq!(sidecars(&store, id).len(), 2);
}

#[test]
fn second_writer_gets_session_locked() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let mut writer = store.open_writer(id).unwrap();

    let error = store.open_writer(id).unwrap_err();
    match &error {
        CoreError::SessionLocked { session_id, path } => {
            assert_eq!(*session_id, id);
            assert_eq!(path, &store.session_path(id));
        }
        other => panic!("expected SessionLocked, got {other:?}"),
    }
    assert!(error.to_string().contains(&id.to_string()), "{error}");
    assert!(error.is_retryable());
    assert!(matches!(
        store.delete(id),
        Err(CoreError::SessionLocked { .. })
    ));

    // Readers need no lock, and see what the writer wrote.
    writer.commit_item(ResponseItem::user("more")).unwrap();
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    assert_eq!(read.replay().history(), writer.history());

    drop(writer);
    let reopened = store.open_writer(id).unwrap();
    assert_eq!(reopened.history().len(), 4);
}

#[test]
fn a_new_session_is_locked_from_creation() {
    let (_dir, store) = store();
    let session: LiveSession = store
        .create(Path::new("/work"), "openai-responses", "gpt-5.4")
        .unwrap();
    assert!(matches!(
        store.open_writer(session.id()),
        Err(CoreError::SessionLocked { .. })
    ));
}

#[test]
fn strict_reader_fails_with_file_and_line_on_a_corrupt_middle_line() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    insert_line(&path, 3, "{\"v\":1,\"ts\":\"not a time\"");

    match store.open_reader(id, ReadMode::Strict) {
        Err(CoreError::CorruptRecord {
            path: reported,
            line,
            message,
        }) => {
            assert_eq!(reported, path);
            assert_eq!(line, 3);
            assert!(!message.is_empty());
        }
        other => panic!("expected CorruptRecord, got {other:?}"),
    }
    let error = store.open_writer(id).unwrap_err();
    assert!(
        matches!(error, CoreError::CorruptRecord { line: 3, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains(&format!("{}:3", path.display())));
}

#[test]
fn a_known_type_with_a_malformed_payload_is_corrupt_not_unknown() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    insert_line(
        &path,
        2,
        r#"{"v":1,"ts":"2026-11-29T10:00:00Z","type":"title_set","payload":{"name":"x"}}"#,
    );
    assert!(matches!(
        store.open_reader(id, ReadMode::Strict),
        Err(CoreError::CorruptRecord { line: 2, .. })
    ));
}

#[test]
fn browsing_reader_skips_a_corrupt_middle_line_and_counts_it() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    let clean = store
        .open_reader(id, ReadMode::Strict)
        .unwrap()
        .replay()
        .into_history();
    insert_line(&path, 2, "");
    insert_line(&path, 4, "{ broken");

    let read = store.open_reader(id, ReadMode::Browsing).unwrap();
    assert_eq!(read.report.skipped_lines(), 2);
    let lines: Vec<usize> = read.report.skipped.iter().map(|s| s.line).collect();
    assert_eq!(lines, [2, 4]);
    assert_eq!(read.report.lines, 6);
    assert_eq!(read.records.len(), 4);
    assert_eq!(read.replay().history(), &clean);
    assert_eq!(store.list().unwrap()[0].skipped_lines, 2);
}

#[test]
fn unknown_record_types_survive_and_are_counted() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    let from_the_future =
        r#"{"v":3,"ts":"2031-01-01T00:00:00Z","type":"hologram","payload":{"frames":[1,2]}}"#;
    append_raw(&path, format!("{from_the_future}\n").as_bytes());

    let mut session = store.open_writer(id).unwrap();
    let history_before = session.history().clone();
    assert_eq!(session.state().unknown_records(), 1);
    session
        .append(RecordBody::Unknown(UnknownRecord {
            record_type: "bookmark".into(),
            payload: serde_json::json!({"label": "here"}),
        }))
        .unwrap();
    assert_eq!(session.history(), &history_before, "ignored by replay");
    session.commit_item(ResponseItem::user("later")).unwrap();
    drop(session);

    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.lines().any(|line| line == from_the_future),
        "kept verbatim"
    );
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    let state = read.replay();
    assert_eq!(state.unknown_records(), 2);
    let types: Vec<&str> = read.records.iter().map(|r| r.body.type_name()).collect();
    assert_eq!(
        types[4..],
        ["hologram", "bookmark", "response_item"],
        "in write order"
    );
    assert_eq!(state.history().len(), 4);
}

#[test]
fn orphan_function_calls_get_an_aborted_output_on_reopen() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    {
        let mut session = store.open_writer(id).unwrap();
        for call in ["call_a", "call_b", "call_c"] {
            session
                .commit_item(ResponseItem::function_call(call, "shell", "{}"))
                .unwrap();
        }
        session
            .commit_item(ResponseItem::function_call_output("call_b", "ok"))
            .unwrap();
        // The process dies here, with call_a and call_c still running.
    }

    let session = store.open_writer(id).unwrap();
    assert_eq!(session.recovery().aborted_calls, ["call_a", "call_c"]);
    assert!(session.history().pending_call_ids().is_empty());
    let tail: Vec<(&str, &str)> = session.history().items()[7..]
        .iter()
        .map(|item| match item {
            ResponseItem::FunctionCallOutput(output) => {
                (output.call_id.as_str(), output.output.as_str())
            }
            other => panic!("expected an output, got {other:?}"),
        })
        .collect();
    assert_eq!(
        tail,
        [
            ("call_a", ABORTED_TOOL_OUTPUT),
            ("call_c", ABORTED_TOOL_OUTPUT)
        ]
    );
    let from_file = store
        .open_reader(id, ReadMode::Strict)
        .unwrap()
        .replay()
        .into_history();
    assert_eq!(&from_file, session.history(), "the file agrees");
    drop(session);

    let again = store.open_writer(id).unwrap();
    assert!(again.recovery().aborted_calls.is_empty(), "nothing twice");
}

#[test]
fn a_file_that_does_not_start_with_session_meta_is_not_a_session() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    let text = std::fs::read_to_string(&path).unwrap();
    let without_meta: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, without_meta).unwrap();
    for mode in [ReadMode::Strict, ReadMode::Browsing] {
        assert!(matches!(
            store.open_reader(id, mode),
            Err(CoreError::NotASession { .. })
        ));
    }
    assert!(matches!(
        store.open_writer(id),
        Err(CoreError::NotASession { .. })
    ));

    std::fs::write(&path, "").unwrap();
    assert!(matches!(
        store.open_reader(id, ReadMode::Browsing),
        Err(CoreError::NotASession { .. })
    ));
}

#[test]
fn a_session_file_under_another_sessions_name_is_refused() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let other = SessionId::new();
    std::fs::copy(store.session_path(id), store.session_path(other)).unwrap();
    assert!(matches!(
        store.open_reader(other, ReadMode::Strict),
        Err(CoreError::NotASession { .. })
    ));
    assert!(matches!(
        store.open_writer(other),
        Err(CoreError::NotASession { .. })
    ));
}

#[test]
fn a_new_session_file_appears_only_with_its_session_meta_and_staging_files_are_not_listed() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let names: Vec<String> = std::fs::read_dir(store.root())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![format!("{id}.jsonl")],
        "no staging file is left"
    );
    let first = std::fs::read_to_string(store.session_path(id)).unwrap();
    assert!(first.contains(r#""type":"session_meta""#), "{first}");
    // What a crash during creation leaves: a staging file, empty or not.
    let other = SessionId::new();
    std::fs::write(store.root().join(format!("{other}.jsonl.new")), "").unwrap();
    let listed: Vec<SessionId> = store.list().unwrap().iter().map(|s| s.id).collect();
    assert_eq!(listed, vec![id]);
    assert!(matches!(
        store.resolve(&other.to_string()),
        Err(CoreError::SessionNotFound { .. })
    ));
}
