//! The order search lists hits in, newest text first (the order the index
//! took the text in, so the full-text index can stop at the page), and its
//! total, counted up to a cap.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::library;

use std::path::Path;
use std::time::{Duration, SystemTime};

use strata_core::{SessionStore, StrataPaths};
use strata_index::{Filters, Index, MATCH_END, MATCH_START, TOTAL_CAP};
use strata_protocol::{ResponseItem, SessionId};

fn session(store: &SessionStore, texts: &[String]) -> SessionId {
    let mut live = store
        .create(Path::new("/w"), "openai-responses", "m")
        .expect("create");
    for text in texts {
        live.commit_item(ResponseItem::user(text.as_str()))
            .expect("commit");
    }
    live.id()
}

/// Sets a session file's mtime `minutes_ago` minutes back.
fn modified(paths: &StrataPaths, id: SessionId, minutes_ago: u64) {
    let past = SystemTime::now() - Duration::from_secs(60 * minutes_ago);
    std::fs::File::options()
        .append(true)
        .open(paths.sessions.join(format!("{id}.jsonl")))
        .expect("open session")
        .set_modified(past)
        .expect("set mtime");
}

/// A snippet without its match marks.
fn plain(snippet: &str) -> String {
    snippet.replace([MATCH_START, MATCH_END], "")
}

fn found(index: &Index, query: &str) -> Vec<String> {
    index
        .search(query, &Filters::default(), 50)
        .expect("search")
        .iter()
        .map(|hit| plain(&hit.snippet))
        .collect()
}

#[test]
fn a_rebuilt_index_lists_hits_from_the_most_recently_written_file_first() {
    let (_home, paths, store) = library();
    let older = session(&store, &["needle in the older file".into()]);
    let newer = session(&store, &["needle in the newer file".into()]);
    let middle = session(&store, &["needle in the middle file".into()]);
    // Created in another order than written: the rebuild follows the mtime.
    modified(&paths, older, 30);
    modified(&paths, middle, 20);
    modified(&paths, newer, 10);
    let mut index = Index::open(&paths).expect("open");
    index.rescan().expect("rescan");
    assert_eq!(
        found(&index, "needle"),
        [
            "needle in the newer file",
            "needle in the middle file",
            "needle in the older file"
        ]
    );
}

#[test]
fn text_appended_later_comes_before_older_text_of_any_session() {
    let (_home, paths, store) = library();
    let first = session(&store, &["needle one".into()]);
    session(&store, &["needle two".into()]);
    let mut index = Index::open(&paths).expect("open");
    index.rescan().expect("rescan");
    let mut live = store.open_writer(first).expect("writer");
    live.commit_item(ResponseItem::user("needle three"))
        .expect("commit");
    drop(live);
    index.rescan().expect("rescan");
    let hits = found(&index, "needle");
    assert_eq!(hits[0], "needle three");
    assert_eq!(hits.len(), 3);
    // A short query (a substring scan, not the trigram index) keeps the
    // same order.
    assert_eq!(found(&index, "ne"), hits);
}

#[test]
fn the_total_stops_at_the_cap_and_says_more_match() {
    let (_home, paths, store) = library();
    let texts: Vec<String> = (0..TOTAL_CAP + 5)
        .map(|n| format!("needle number {n}"))
        .collect();
    session(&store, &texts);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    let first = index
        .search_page("needle", &Filters::default(), 0, 50)
        .expect("search");
    assert_eq!(
        (
            first.hits.len(),
            first.total,
            first.total_capped,
            first.next_offset
        ),
        (50, TOTAL_CAP, true, Some(50))
    );
    assert_eq!(
        plain(&first.hits[0].snippet),
        format!("needle number {}", TOTAL_CAP + 4)
    );
    // A page that ends past the cap counts on to its end: here, every hit.
    let last = index
        .search_page("needle", &Filters::default(), TOTAL_CAP - 10, 50)
        .expect("search");
    assert_eq!(
        (
            last.hits.len(),
            last.total,
            last.total_capped,
            last.next_offset
        ),
        (15, TOTAL_CAP + 5, false, None)
    );
    assert_eq!(plain(&last.hits[14].snippet), "needle number 0");
    // Filters still apply before the count.
    let nobody = Filters {
        model: Some("nobody".into()),
        ..Filters::default()
    };
    let none = index.search_page("needle", &nobody, 0, 50).expect("search");
    assert_eq!((none.total, none.total_capped), (0, false));
}

#[test]
fn a_snippet_keeps_forty_characters_either_side_of_the_case_folded_match() {
    let (_home, paths, store) = library();
    let long = format!("{}ÉCOLE{}", "ä".repeat(100), "y".repeat(100));
    let short = "Élan vital".to_owned();
    session(&store, &[long, short]);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    let snippets: Vec<String> = index
        .search("éco", &Filters::default(), 10)
        .expect("search")
        .into_iter()
        .map(|hit| hit.snippet)
        .collect();
    assert_eq!(
        snippets,
        [format!(
            "…{}{MATCH_START}ÉCO{MATCH_END}LE{}…",
            "ä".repeat(40),
            "y".repeat(38)
        )]
    );
    let whole = index
        .search("LAN", &Filters::default(), 10)
        .expect("search");
    assert_eq!(
        whole[0].snippet,
        format!("É{MATCH_START}lan{MATCH_END} vital")
    );
}
