//! The library watcher reports what another writer does in the sessions
//! folder: a session created, appended to and deleted through a store of
//! its own (as the command line would, in its own process) arrives as
//! library changes carrying the session's current row, then its removal.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use strata_app::{App, LibraryWatcher};
use strata_core::{SessionStore, StrataPaths};
use strata_protocol::{CONTRACT_FORMAT_VERSION, LibraryChange, ResponseItem};

/// Waits (at most 10 s) for a change that satisfies `wanted`, skipping
/// earlier ones.
fn wait_for(
    changes: &mpsc::Receiver<LibraryChange>,
    what: &str,
    wanted: impl Fn(&LibraryChange) -> bool,
) -> LibraryChange {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match changes.recv_timeout(left) {
            Ok(change) if wanted(&change) => return change,
            Ok(change) => seen.push(change),
            Err(_) => panic!("no change {what} within 10 s; saw {seen:#?}"),
        }
    }
}

#[test]
fn sessions_another_writer_creates_appends_and_deletes_are_reported() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    let app = Arc::new(App::new(paths.clone(), |_| None));
    let (tx, changes) = mpsc::channel();
    let watcher = LibraryWatcher::start(Arc::clone(&app), move |change| {
        let _ = tx.send(change);
    })
    .unwrap();
    // The folder did not exist: watching created it.
    assert!(paths.sessions.is_dir());

    let other = SessionStore::new(paths.sessions.clone());
    let mut session = other
        .create(Path::new("/work/tally"), "demo", "strata-demo")
        .unwrap();
    session
        .commit_item(ResponseItem::user("Fix the CSV parser."))
        .unwrap();
    let id = session.id();
    let created = wait_for(&changes, "naming the new session", |c| {
        c.updated
            .iter()
            .any(|row| row.id == id && row.item_count == 1)
    });
    assert_eq!(created.v, CONTRACT_FORMAT_VERSION);
    assert!(created.removed.is_empty(), "{created:?}");
    let row = created.updated.iter().find(|row| row.id == id).unwrap();
    assert_eq!(row.title.as_deref(), Some("Fix the CSV parser."));
    assert_eq!(row.workspace, "/work/tally");

    session
        .commit_item(ResponseItem::assistant("Fixed."))
        .unwrap();
    session.set_title("Parser work").unwrap();
    let appended = wait_for(&changes, "with the appended records", |c| {
        c.updated
            .iter()
            .any(|row| row.id == id && row.title.as_deref() == Some("Parser work"))
    });
    let row = appended.updated.iter().find(|row| row.id == id).unwrap();
    assert_eq!(row.item_count, 2);
    drop(session);

    other.delete(id).unwrap();
    let removed = wait_for(&changes, "removing the session", |c| {
        c.removed.contains(&id)
    });
    assert!(
        removed.updated.iter().all(|row| row.id != id),
        "{removed:?}"
    );

    // Files that are not sessions are not reported.
    std::fs::write(paths.sessions.join("notes.txt"), "not a session").unwrap();
    assert!(
        changes.recv_timeout(Duration::from_millis(600)).is_err(),
        "a non-session file was reported"
    );
    drop(watcher);
}
