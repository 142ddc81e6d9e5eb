use std::fs;

use super::*;

fn walk(root: &Path, known: Option<&Snapshot>, blobs: &BlobStore) -> Snapshot {
    take(
        root,
        known,
        blobs,
        SnapshotLimits {
            max_files: 100,
            max_copy_bytes: 64,
            max_read_bytes: 1 << 20,
        },
    )
}

#[test]
fn a_shell_change_is_found_with_the_prior_content_kept_before_it_and_secrets_and_git_unseen() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let blobs = BlobStore::beside(&home.path().join("s.jsonl"));
    fs::write(ws.path().join("keep.txt"), "same").unwrap();
    fs::write(ws.path().join("edit.txt"), "old").unwrap();
    fs::write(ws.path().join("gone.txt"), "bye").unwrap();
    fs::write(ws.path().join("big.txt"), "x".repeat(100)).unwrap();
    fs::write(ws.path().join(".gitignore"), "ignored/\n").unwrap();
    fs::create_dir(ws.path().join("ignored")).unwrap();
    fs::create_dir(ws.path().join(".git")).unwrap();
    fs::write(ws.path().join(".git/HEAD"), "ref").unwrap();
    fs::write(ws.path().join(".env"), "TOKEN=hunter2").unwrap();
    let before = walk(ws.path(), None, &blobs);
    assert!(!before.files.contains_key(".git/HEAD"));
    assert!(
        !before.files.contains_key(".env"),
        "a secret file is never copied"
    );

    fs::write(ws.path().join("edit.txt"), "new").unwrap();
    fs::remove_file(ws.path().join("gone.txt")).unwrap();
    fs::write(ws.path().join("made.txt"), "hi").unwrap();
    fs::write(ws.path().join("ignored/out.o"), "obj").unwrap();
    fs::write(ws.path().join("big.txt"), "y".repeat(101)).unwrap();
    let after = walk(ws.path(), Some(&before), &blobs);

    let changes = diff(&before, &after);
    let paths: Vec<_> = changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["big.txt", "edit.txt", "gone.txt", "made.txt"]);
    let edit = &changes[1];
    let old = edit.before.as_ref().unwrap();
    assert_eq!(
        blobs.get(old.sha256.as_deref().unwrap()).unwrap().unwrap(),
        b"old"
    );
    let gone = changes[2].before.as_ref().unwrap();
    assert_eq!(
        blobs.get(gone.sha256.as_deref().unwrap()).unwrap().unwrap(),
        b"bye"
    );
    assert!(changes[2].after.is_none() && changes[3].before.is_none());
    // Over the copy limit: seen as changed, by size only, not restorable.
    let big = changes[0].before.as_ref().unwrap();
    assert_eq!(
        (big.sha256.as_deref(), big.stored, big.size),
        (None, false, 100)
    );
}

#[test]
fn the_walk_stops_at_its_file_limit_and_then_reports_no_deletions_or_creations() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let blobs = BlobStore::beside(&home.path().join("s.jsonl"));
    for i in 0..5 {
        fs::write(ws.path().join(format!("f{i}")), "x").unwrap();
    }
    let limits = SnapshotLimits {
        max_files: 3,
        max_copy_bytes: 64,
        max_read_bytes: 1 << 20,
    };
    let before = take(ws.path(), None, &blobs, limits);
    assert!(before.truncated);
    assert_eq!(before.files.len(), 3);
    let after = take(ws.path(), Some(&before), &blobs, limits);
    assert!(
        diff(&before, &after)
            .iter()
            .all(|c| c.before.is_some() && c.after.is_some())
    );
}

#[test]
fn past_its_read_budget_a_walk_compares_the_remaining_files_by_size_and_time_only() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let blobs = BlobStore::beside(&home.path().join("s.jsonl"));
    for i in 0..4 {
        fs::write(ws.path().join(format!("f{i}")), "0123456789").unwrap();
    }
    let limits = SnapshotLimits {
        max_files: 100,
        max_copy_bytes: 64,
        max_read_bytes: 25,
    };
    let before = take(ws.path(), None, &blobs, limits);
    let hashed = before
        .files
        .values()
        .filter(|mark| mark.sha256.is_some())
        .count();
    assert_eq!((before.files.len(), hashed), (4, 2));
    // The next walk reads only what it has no hash for, within its budget.
    let after = take(ws.path(), Some(&before), &blobs, limits);
    assert_eq!(
        after
            .files
            .values()
            .filter(|mark| mark.sha256.is_some())
            .count(),
        4
    );
    assert!(diff(&before, &after).is_empty());
}
