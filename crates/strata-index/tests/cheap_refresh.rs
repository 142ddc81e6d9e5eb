//! The refresh listing and search run: a stat of the sessions folder, and
//! of the sessions a writer holds open, unless the folder changed; and
//! search pages whose snippets are made for the page only.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::library;

use std::path::Path;
use std::time::{Duration, SystemTime};

use strata_core::{SessionStore, StrataPaths};
use strata_index::{Filters, Index, MATCH_END, MATCH_START, PageRequest, TailCheck};
use strata_protocol::{ResponseItem, SessionId};

fn session(store: &SessionStore, text: &str) -> SessionId {
    let mut live = store
        .create(Path::new("/w"), "openai-responses", "m")
        .expect("create");
    live.commit_item(ResponseItem::user(text)).expect("commit");
    live.id()
}

/// Moves the folder's mtime a minute back, as if nothing had been created
/// or deleted in it lately (what a library at rest looks like).
fn age_folder(paths: &StrataPaths) {
    let past = SystemTime::now() - Duration::from_secs(60);
    std::fs::File::open(&paths.sessions)
        .expect("open folder")
        .set_modified(past)
        .expect("age folder");
}

fn items(index: &Index, id: SessionId) -> u64 {
    let page = index.list(&PageRequest::default()).expect("list");
    page.items
        .iter()
        .find(|summary| summary.id == id)
        .expect("listed")
        .items
}

#[test]
fn an_unchanged_folder_skips_the_full_pass_and_a_new_file_does_not() {
    let (_home, paths, store) = library();
    let first = session(&store, "one");
    age_folder(&paths);
    let mut index = Index::open(&paths).expect("open");
    assert!(index.refresh().expect("refresh").full_pass);
    let cheap = index.refresh().expect("refresh");
    assert!(!cheap.full_pass);
    assert_eq!(cheap.sessions, 0, "no file statted");
    // A new session changes the folder: the next refresh is full.
    let second = session(&store, "two");
    let report = index.refresh().expect("refresh");
    assert!(report.full_pass);
    assert_eq!(report.reindexed, 1);
    // A deleted one too.
    age_folder(&paths);
    index.refresh().expect("refresh");
    store.delete(first).expect("delete");
    assert_eq!(index.refresh().expect("refresh").removed, 1);
    let listed: Vec<_> = index
        .list(&PageRequest::default())
        .expect("list")
        .items
        .iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed, [second]);
}

#[test]
fn a_recent_folder_mtime_is_not_trusted() {
    let (_home, paths, store) = library();
    session(&store, "fresh");
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    // Made this instant: a file created in the same clock tick would not
    // move it, so every refresh stays full until it is old enough.
    assert!(index.refresh().expect("refresh").full_pass);
}

#[test]
fn appends_by_a_noted_writer_show_without_a_full_pass() {
    let (_home, paths, store) = library();
    let id = session(&store, "one");
    age_folder(&paths);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    // Another process (its own Index on the same file) opens the session.
    let mut writer_index = Index::open(&paths).expect("open");
    writer_index.note_writing(id).expect("note");
    let mut live = store.open_writer(id).expect("writer");
    live.commit_item(ResponseItem::user("two")).expect("commit");
    let report = index.refresh().expect("refresh");
    assert!(!report.full_pass);
    assert_eq!((report.sessions, report.appended), (1, 1));
    assert_eq!(items(&index, id), 2);
    live.commit_item(ResponseItem::user("three"))
        .expect("commit");
    drop(live);
    writer_index.note_closed(id).expect("closed");
    assert_eq!(items(&index, id), 3);
    assert_eq!(index.refresh().expect("refresh").sessions, 0);
}

#[test]
fn an_unnoted_append_waits_for_a_rescan_or_the_tail_check() {
    let (_home, paths, store) = library();
    let id = session(&store, "one");
    age_folder(&paths);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    let mut live = store.open_writer(id).expect("writer");
    live.commit_item(ResponseItem::user("two")).expect("commit");
    drop(live);
    // What the cheap refresh does not promise: a file appended to by
    // something that did not say so is seen by the full pass...
    index.refresh().expect("refresh");
    assert_eq!(items(&index, id), 1);
    assert_eq!(index.check_tail(id).expect("check"), TailCheck::Differs);
    assert_eq!(index.rescan().expect("rescan").appended, 1);
    assert_eq!(items(&index, id), 2);
}

#[test]
fn search_pages_count_every_hit_and_mark_only_the_page() {
    let (_home, paths, store) = library();
    for n in 0..7 {
        session(&store, &format!("needle number {n}"));
    }
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    let first = index
        .search_page("needle", &Filters::default(), 0, 3)
        .expect("search");
    assert_eq!(
        (first.hits.len(), first.total, first.next_offset),
        (3, 7, Some(3))
    );
    let last = index
        .search_page("needle", &Filters::default(), 6, 3)
        .expect("search");
    assert_eq!(
        (last.hits.len(), last.total, last.next_offset),
        (1, 7, None)
    );
    let beyond = index
        .search_page("needle", &Filters::default(), 9, 3)
        .expect("search");
    assert_eq!((beyond.hits.len(), beyond.total), (0, 7));
    let all = index
        .search_page("needle", &Filters::default(), 0, 50)
        .expect("search");
    let paged: Vec<_> = first.hits.iter().chain(&last.hits).collect();
    assert_eq!(paged[0], &all.hits[0]);
    assert_eq!(paged[3], &all.hits[6]);
    for hit in &all.hits {
        assert!(
            hit.snippet
                .contains(&format!("{MATCH_START}needle{MATCH_END}"))
        );
    }
    let short = index
        .search_page("er", &Filters::default(), 0, 2)
        .expect("search");
    assert_eq!((short.hits.len(), short.total), (2, 7));
}
