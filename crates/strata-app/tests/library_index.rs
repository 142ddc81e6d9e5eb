//! The library's listing survives its index: a damaged `library.sqlite3`
//! is set aside and rebuilt, one that cannot be written is replaced by one
//! in memory; either way the listing says so once, in its page's notice.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use strata_app::App;
use strata_core::{SessionStore, StrataPaths};
use strata_protocol::{ListSessions, ResponseItem, SessionId, SessionPage};

fn session(store: &SessionStore, text: &str) -> SessionId {
    let mut live = store
        .create(Path::new("/w"), "openai-responses", "m")
        .unwrap();
    live.commit_item(ResponseItem::user(text)).unwrap();
    live.id()
}

fn listing(app: &App) -> SessionPage {
    app.list_sessions_blocking(&ListSessions::default())
        .expect("the library lists")
}

fn ids(page: &SessionPage) -> Vec<SessionId> {
    let mut ids: Vec<SessionId> = page.sessions.iter().map(|s| s.id).collect();
    ids.sort();
    ids
}

#[test]
fn a_listing_over_a_damaged_index_lists_every_session_and_says_so_once() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    let store = SessionStore::from_paths(&paths);
    let mut expected = vec![session(&store, "one"), session(&store, "two")];
    expected.sort();
    listing(&App::new(paths.clone(), |_| None));
    let index = strata_index::index_path(&paths);
    std::fs::write(&index, b"SQLite format 3\0 and then nothing of the kind").unwrap();

    let app = App::new(paths.clone(), |_| None);
    let first = listing(&app);
    assert_eq!(ids(&first), expected);
    let notice = first.notice.expect("a notice");
    assert!(notice.contains("damaged"), "{notice}");
    assert!(notice.contains("library.sqlite3.broken-"), "{notice}");
    let second = listing(&app);
    assert_eq!(ids(&second), expected);
    assert_eq!(second.notice, None, "said once");
}

#[test]
fn a_listing_where_the_index_cannot_be_written_reads_the_files_and_says_so_once() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    let store = SessionStore::from_paths(&paths);
    let first_session = session(&store, "one");
    // A folder where the index file should be: SQLite cannot open it,
    // root or not, and it is not Strata's to move.
    std::fs::create_dir_all(strata_index::index_path(&paths)).unwrap();

    let app = App::new(paths.clone(), |_| None);
    let first = listing(&app);
    assert_eq!(ids(&first), [first_session]);
    let notice = first.notice.expect("a notice");
    assert!(notice.contains("cannot be written"), "{notice}");
    assert!(notice.contains("slower"), "{notice}");

    let later = session(&store, "two");
    let second = listing(&app);
    let mut expected = vec![first_session, later];
    expected.sort();
    assert_eq!(ids(&second), expected, "later sessions are read too");
    assert_eq!(second.notice, None, "said once");
    assert!(strata_index::index_path(&paths).is_dir());
}
