//! Opening a session for writing validates it before it changes anything: a
//! file that is refused keeps every byte, torn tail included, and gets no
//! sidecar; only a file that is accepted has its torn tail moved aside.

// Helpers outside #[test] fns unwrap too: in a test a panic is the report.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use strata_core::CoreError;
use strata_core::store::SessionStore;
use strata_protocol::SessionId;

mod store_support;
use store_support::{append_raw, closed_session, insert_line, intact_then_repaired, store};

const TORN: &[u8] =
    br#"{"v":1,"ts":"2026-11-29T10:00:00Z","type":"response_item","payload":{"type":"mess"#;

/// Every file in the store's folder other than session files.
fn other_files(store: &SessionStore) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(store.root())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_none_or(|ext| ext != "jsonl"))
        .collect();
    found.sort();
    found
}

/// `open_writer` fails as `expected` says, and leaves the file exactly as it
/// was, with no sidecar beside it.
fn assert_refused_untouched(
    store: &SessionStore,
    id: SessionId,
    expected: impl Fn(&CoreError) -> bool,
) {
    let path = store.session_path(id);
    let before = std::fs::read(&path).unwrap();
    assert!(before.ends_with(TORN), "the file ends in a torn line");
    let error = store.open_writer(id).map(|_| ()).unwrap_err();
    assert!(expected(&error), "unexpected error: {error:?}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a refused file must keep every byte, its torn tail included"
    );
    assert_eq!(other_files(store), Vec::<PathBuf>::new(), "no sidecar");
}

#[test]
fn a_file_for_another_session_with_a_torn_tail_is_refused_untouched() {
    let (_dir, store) = store();
    let real = closed_session(&store);
    // The file of session `real`, saved under another session's name.
    let other = SessionId::new();
    std::fs::rename(store.session_path(real), store.session_path(other)).unwrap();
    append_raw(&store.session_path(other), TORN);

    assert_refused_untouched(
        &store,
        other,
        |error| matches!(error, CoreError::NotASession { message, .. } if message.contains(&real.to_string())),
    );
}

#[test]
fn a_corrupt_middle_line_with_a_torn_tail_is_refused_untouched() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    insert_line(&path, 3, "{not json");
    append_raw(&path, TORN);

    assert_refused_untouched(&store, id, |error| {
        matches!(error, CoreError::CorruptRecord { line: 3, .. })
    });
}

#[test]
fn a_file_without_session_meta_with_a_torn_tail_is_refused_untouched() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    let text = std::fs::read_to_string(&path).unwrap();
    let rest: String = text.split_inclusive('\n').skip(1).collect();
    std::fs::write(&path, rest).unwrap();
    append_raw(&path, TORN);

    assert_refused_untouched(&store, id, |error| {
        matches!(error, CoreError::NotASession { .. })
    });
}

#[test]
fn a_valid_file_with_a_torn_tail_is_still_repaired() {
    let (_dir, store) = store();
    let id = closed_session(&store);
    let path = store.session_path(id);
    let intact = std::fs::read(&path).unwrap();
    append_raw(&path, TORN);

    let session = store.open_writer(id).unwrap();
    let repair = session.recovery().torn_tail.clone().unwrap();
    assert_eq!(repair.bytes, TORN.len() as u64);
    assert_eq!(std::fs::read(&repair.sidecar).unwrap(), TORN);
    assert_eq!(other_files(&store), vec![repair.sidecar.clone()]);
    let repaired = intact_then_repaired(&path, &intact);
    assert_eq!(
        repaired.torn_tail.map(|torn| torn.bytes),
        Some(repair.bytes)
    );
    assert_eq!(session.history().len(), 3);
}
