//! A session the app shows, written by another writer (the `strata` command
//! line, in its own process, through a store of its own): the app's view
//! says when that writer holds it, the library watcher names it as changed
//! outside, and a write from the app is refused until the session is shown
//! again, so the app never appends after records the person has not seen.
//! The app's own writes never count as outside changes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use strata_app::{App, LibraryWatcher};
use strata_core::{SessionStore, StrataPaths};
use strata_protocol::{
    CommandErrorKind, CompactionPolicy, LibraryChange, OpenSession, ResponseItem, SendMessage,
    SessionId, SessionView, SetCompactionPolicy, TurnOutcome,
};

mod support;
use support::{Collect, create, runtime, send};

fn open(id: SessionId) -> OpenSession {
    OpenSession {
        session_id: id,
        from_record: None,
        without_records: true,
        at_item: None,
    }
}

async fn view(app: &Arc<App>, id: SessionId) -> SessionView {
    app.open_session(open(id)).await.unwrap()
}

fn records(store: &SessionStore, id: SessionId) -> usize {
    std::fs::read_to_string(store.session_path(id))
        .unwrap()
        .lines()
        .count()
}

/// The first change naming `id` among its updated rows (at most 10 s).
fn change_of(changes: &mpsc::Receiver<LibraryChange>, id: SessionId) -> LibraryChange {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let change = changes
            .recv_timeout(left)
            .expect("a library change naming the session");
        if change.updated.iter().any(|row| row.id == id) {
            return change;
        }
    }
}

#[test]
fn a_session_written_outside_the_app_is_shown_held_reported_and_refuses_the_apps_writes_until_reopened()
 {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    let app = Arc::new(App::new(paths.clone(), |_| None));
    let (tx, changes) = mpsc::channel();
    let _watcher = LibraryWatcher::start(Arc::clone(&app), move |change| {
        let _ = tx.send(change);
    })
    .unwrap();
    let rt = runtime();
    rt.block_on(async {
        // The app's own session and turn: its writes are its own.
        let id = create(&app, workspace.path()).await;
        let shown = view(&app, id).await;
        assert!(shown.live && !shown.held_elsewhere, "{shown:?}");
        send(&app, id, "List the files", Collect::default()).await;
        let own = change_of(&changes, id);
        assert!(own.changed_outside.is_empty(), "{own:?}");
        // Closed by a policy change (the app's own write, too).
        app.set_compaction_policy(SetCompactionPolicy {
            session_id: id,
            policy: CompactionPolicy::Base,
        })
        .await
        .unwrap();
        assert!(!app.changed_outside(id));
        let shown = view(&app, id).await;
        assert!(!shown.live && !shown.held_elsewhere, "{shown:?}");
        while changes.recv_timeout(Duration::from_millis(400)).is_ok() {}

        // Another process takes the session and appends to it.
        let other = SessionStore::new(paths.sessions.clone());
        let mut writer = other.open_writer(id).unwrap();
        assert!(view(&app, id).await.held_elsewhere);
        // Shown again just now: nothing changed since.
        assert!(!app.changed_outside(id));
        writer
            .commit_item(ResponseItem::user("Typed in the terminal"))
            .unwrap();
        let outside = change_of(&changes, id);
        assert_eq!(outside.changed_outside, vec![id], "{outside:?}");
        drop(writer);

        // The app's write is refused and writes nothing.
        let before = records(&other, id);
        let refused = app
            .send_message(
                SendMessage {
                    session_id: id,
                    text: "Continue".into(),
                },
                Collect::default(),
            )
            .await
            .unwrap_err();
        assert_eq!(refused.kind, CommandErrorKind::Stale, "{refused:?}");
        assert!(refused.message.contains("reload"), "{refused:?}");
        let policy = app
            .set_compaction_policy(SetCompactionPolicy {
                session_id: id,
                policy: CompactionPolicy::Off,
            })
            .await
            .unwrap_err();
        assert_eq!(policy.kind, CommandErrorKind::Stale);
        assert_eq!(records(&other, id), before);

        // Shown again (the writer let go): live, and the app writes again.
        let reopened = view(&app, id).await;
        assert!(!reopened.held_elsewhere, "{reopened:?}");
        let report = send(&app, id, "Continue", Collect::default()).await;
        assert_eq!(report.outcome, TurnOutcome::Completed);
        assert!(records(&other, id) > before);
    });
}
