use strata_protocol::{
    ChangeCause, FileChange, FileState, Record, RecordBody, SessionId, TurnId, TurnStarted,
};

use super::*;

fn state(content: &str) -> FileState {
    FileState {
        size: content.len() as u64,
        sha256: Some(strata_core::changes::sha256_hex(content.as_bytes())),
        stored: true,
    }
}

fn turn(id: TurnId) -> Record {
    Record::now(RecordBody::TurnStarted(TurnStarted { turn_id: id }))
}

fn change(
    path: &str,
    before: Option<&str>,
    after: Option<&str>,
    call: &str,
    turn: Option<TurnId>,
) -> Record {
    Record::now(RecordBody::FileChange(FileChange {
        path: path.into(),
        before: before.map(state),
        after: after.map(state),
        cause: if turn.is_some() {
            ChangeCause::WriteFile
        } else {
            ChangeCause::Restore
        },
        call_id: call.into(),
        turn_id: turn,
    }))
}

fn blobs() -> (tempfile::TempDir, BlobStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = BlobStore::beside(&dir.path().join("s.jsonl"));
    (dir, store)
}

#[test]
fn two_restores_in_a_row_are_two_groups_and_a_turns_calls_share_one() {
    let (one, two) = (TurnId::new(), TurnId::new());
    let records = vec![
        turn(one),
        change("a.txt", None, Some("a"), "call-1", Some(one)),
        change("b.txt", None, Some("b"), "call-2", Some(one)),
        change("a.txt", Some("a"), None, "restore-1", None),
        change("a.txt", None, Some("a"), "restore-2", None),
        turn(two),
        change("a.txt", Some("a"), Some("aa"), "call-3", Some(two)),
    ];
    let (_dir, blobs) = blobs();
    let view = session_changes(SessionId::new(), &records, &blobs);
    let shape: Vec<(Option<u32>, Vec<&str>)> = view
        .groups
        .iter()
        .map(|g| (g.turn, g.calls.iter().map(|c| c.call_id.as_str()).collect()))
        .collect();
    assert_eq!(
        shape,
        vec![
            (Some(1), vec!["call-1", "call-2"]),
            (None, vec!["restore-1"]),
            (None, vec!["restore-2"]),
            (Some(2), vec!["call-3"]),
        ]
    );
    // The record index is what a diff names.
    assert_eq!(view.groups[0].calls[0].files[0].record, 1);
}

#[test]
fn a_file_whose_changes_cancel_out_is_left_out_of_the_whole_session() {
    let one = TurnId::new();
    let records = vec![
        turn(one),
        change("a.txt", Some("old"), Some("new"), "call-1", Some(one)),
        change("a.txt", Some("new"), Some("old"), "restore-1", None),
        change("b.txt", None, Some("b"), "call-2", Some(one)),
        change("b.txt", Some("b"), Some("bb"), "call-3", Some(one)),
    ];
    let (_dir, blobs) = blobs();
    let view = session_changes(SessionId::new(), &records, &blobs);
    let files: Vec<(&str, ChangeKind, u32)> = view
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.kind, f.changes))
        .collect();
    assert_eq!(files, vec![("b.txt", ChangeKind::Created, 2)]);
}

#[test]
fn line_counts_need_both_sides_kept() {
    let one = TurnId::new();
    let records = vec![
        turn(one),
        change("a.txt", None, Some("a\n"), "c", Some(one)),
    ];
    let (_dir, blobs) = blobs();
    // Nothing was put in the store: the after side is not there to count.
    let view = session_changes(SessionId::new(), &records, &blobs);
    let file = &view.groups[0].calls[0].files[0];
    assert_eq!((file.added, file.removed), (None, None));
    blobs.put(b"a\n").unwrap();
    let view = session_changes(SessionId::new(), &records, &blobs);
    let file = &view.groups[0].calls[0].files[0];
    assert_eq!((file.added, file.removed), (Some(1), Some(0)));
}
