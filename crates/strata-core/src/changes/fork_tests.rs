use std::fs;

use strata_protocol::{ChangeCause, FileChange, FileState, ResponseItem, SessionMeta};

use super::*;
use crate::changes::{BlobStore, RestoreAction, sha256_hex};

fn state(content: &str) -> FileState {
    FileState {
        size: content.len() as u64,
        sha256: Some(sha256_hex(content.as_bytes())),
        stored: true,
    }
}

fn change(path: &str, before: Option<&str>, after: Option<&str>, call: &str) -> Record {
    Record::now(RecordBody::FileChange(FileChange {
        path: path.into(),
        before: before.map(state),
        after: after.map(state),
        cause: ChangeCause::WriteFile,
        call_id: call.into(),
        turn_id: None,
    }))
}

fn item(item: &ResponseItem) -> Record {
    Record::now(RecordBody::ResponseItem(item.clone()))
}

fn meta() -> Record {
    Record::now(RecordBody::SessionMeta(SessionMeta {
        session_id: strata_protocol::SessionId::new(),
        created_at: chrono::Utc::now(),
        workspace: "/w".into(),
        provider_kind: "demo".into(),
        model: "m".into(),
        strata_version: "0".into(),
    }))
}

/// A call that creates a.txt, then (after the fork point) one that edits
/// it and one that creates b.txt.
fn session() -> (Vec<Record>, ResponseItem) {
    let first = ResponseItem::function_call("c1", "write_file", "{}");
    let records = vec![
        meta(),
        item(&ResponseItem::user("go")),
        item(&first),
        change("a.txt", None, Some("one"), "c1"),
        item(&ResponseItem::function_call_output("c1", "ok")),
        item(&ResponseItem::function_call("c2", "apply_edit", "{}")),
        change("a.txt", Some("one"), Some("two"), "c2"),
        item(&ResponseItem::function_call_output("c2", "ok")),
        item(&ResponseItem::function_call("c3", "shell", "{}")),
        change("b.txt", None, Some("bee"), "c3"),
        change("a.txt", Some("two"), Some("three"), "c3"),
        item(&ResponseItem::function_call_output("c3", "ok")),
    ];
    (records, first)
}

fn at(records: &[Record], item: &ResponseItem) -> RestorePlan {
    fork_files_plan(records, &ForkPoint::AtItem { item_id: item.id() }).unwrap()
}

#[test]
fn a_fork_at_a_call_keeps_its_changes_and_takes_back_every_later_one() {
    let (records, first) = session();
    let plan = at(&records, &first);
    assert_eq!(plan.from_record, 5, "the call's output is kept with it");
    let action = |path: &str, expected, target: Option<&str>| RestoreAction {
        path: path.into(),
        expected: Some(state(expected)),
        target: target.map(state),
    };
    assert_eq!(
        plan.actions,
        vec![
            action("a.txt", "three", Some("one")),
            action("b.txt", "bee", None)
        ]
    );
}

#[test]
fn a_fork_at_the_last_item_takes_nothing_back_and_an_unknown_item_is_an_error() {
    let (records, _) = session();
    let last = match &records[records.len() - 1].body {
        RecordBody::ResponseItem(item) => item.id(),
        _ => panic!("the last record is an item"),
    };
    let plan = fork_files_plan(&records, &ForkPoint::AtItem { item_id: last }).unwrap();
    assert!(plan.actions.is_empty());
    let unknown = ResponseItem::user("never recorded").id();
    assert!(fork_files_plan(&records, &ForkPoint::AtItem { item_id: unknown }).is_err());
}

#[test]
fn a_fork_needs_the_kept_contents_and_with_files_those_its_restore_replaces() {
    let (records, first) = session();
    let plan = at(&records, &first);
    let kept = &records[1..plan.from_record];
    let sha = |s: &str| sha256_hex(s.as_bytes());
    assert_eq!(
        blobs_needed(kept, None),
        BTreeSet::from([sha("one")]),
        "only what the kept records name"
    );
    assert_eq!(
        blobs_needed(kept, Some(&plan)),
        BTreeSet::from([sha("one"), sha("three"), sha("bee")])
    );
}

#[test]
fn a_shared_blob_outlives_the_parents_copy_and_a_pruned_one_is_skipped() {
    let home = tempfile::tempdir().unwrap();
    let parent = BlobStore::beside(&home.path().join("p.jsonl"));
    let fork = BlobStore::beside(&home.path().join("f.jsonl"));
    let kept = parent.put(b"kept").unwrap().sha256.unwrap();
    let gone = sha256_hex(b"gone");
    assert_eq!(parent.share_into(&fork, [&kept, &gone]).unwrap(), 1);
    fs::remove_file(parent.dir().join(&kept)).unwrap();
    assert_eq!(fork.get(&kept).unwrap().unwrap(), b"kept");
    assert!(!fork.has(&gone));
}

#[test]
fn carrying_files_makes_them_what_the_workspace_holds_and_never_follows_a_link_out() {
    let from = tempfile::tempdir().unwrap();
    let to = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir(from.path().join("src")).unwrap();
    fs::write(from.path().join("src/a.txt"), "edited").unwrap();
    fs::write(to.path().join("gone.txt"), "committed").unwrap();
    let paths = vec!["src/a.txt".to_owned(), "gone.txt".to_owned()];
    let carried = carry_files(from.path(), to.path(), &paths, &[]).unwrap();
    assert_eq!(carried, paths);
    assert_eq!(
        fs::read_to_string(to.path().join("src/a.txt")).unwrap(),
        "edited"
    );
    assert!(!to.path().join("gone.txt").exists());

    fs::write(outside.path().join("secret"), "outside").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), from.path().join("link")).unwrap();
    assert!(carry_files(from.path(), to.path(), &["link".to_owned()], &[]).is_err());
    assert!(!to.path().join("link").exists());
}
