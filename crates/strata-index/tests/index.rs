//! The index against real session files written by strata-core's store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::library;

use std::path::Path;

use strata_core::SessionStore;
use strata_index::{
    Filters, Index, MATCH_END, MATCH_START, PageRequest, SessionSummary, TailCheck, index_path,
    snippet_spans,
};
use strata_protocol::{FunctionCall, FunctionCallOutput, ItemId, ResponseItem, SessionId};

fn session(store: &SessionStore, workspace: &str, model: &str, texts: &[&str]) -> SessionId {
    let mut live = store
        .create(Path::new(workspace), "openai-responses", model)
        .expect("create");
    for text in texts {
        live.commit_item(ResponseItem::user(*text)).expect("commit");
    }
    live.id()
}

fn all(index: &Index) -> Vec<SessionSummary> {
    index
        .list(&PageRequest {
            limit: 1000,
            ..PageRequest::default()
        })
        .expect("list")
        .items
}

#[test]
fn listing_matches_the_store_newest_first_and_pages_by_cursor() {
    let (_home, paths, store) = library();
    for n in 0..5 {
        session(&store, "/w", "m", &[&format!("task number {n}")]);
    }
    let mut index = Index::open(&paths).expect("open");
    assert_eq!(index.refresh().expect("refresh").reindexed, 5);
    let listed: Vec<SessionId> = all(&index).iter().map(|s| s.id).collect();
    let truth: Vec<SessionId> = store.list().expect("list").iter().map(|s| s.id).collect();
    assert_eq!(listed, truth);
    let first = index
        .list(&PageRequest {
            limit: 2,
            ..PageRequest::default()
        })
        .expect("page");
    assert_eq!(first.total, 5);
    let second = index
        .list(&PageRequest {
            limit: 2,
            cursor: first.next_cursor.clone(),
            ..PageRequest::default()
        })
        .expect("page");
    let by_offset = index
        .list(&PageRequest {
            limit: 2,
            offset: 2,
            ..PageRequest::default()
        })
        .expect("page");
    assert_eq!(second.items, by_offset.items);
    assert_eq!(second.items[0].id, truth[2]);
    assert_eq!(first.items[0].title.as_deref(), Some("task number 4"));
}

#[test]
fn a_grown_file_is_indexed_from_its_last_offset_and_a_rewritten_one_whole() {
    let (_home, paths, store) = library();
    let id = session(&store, "/w", "m", &["first words"]);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    assert_eq!(index.check_tail(id).expect("check"), TailCheck::Matches);
    let mut live = store.open_writer(id).expect("open");
    live.commit_item(ResponseItem::user("appended zebracorn"))
        .expect("commit");
    live.set_title("Renamed").expect("title");
    drop(live);
    assert_eq!(index.check_tail(id).expect("check"), TailCheck::Differs);
    let report = index.refresh().expect("refresh");
    assert_eq!((report.appended, report.reindexed), (1, 0));
    let summary = &all(&index)[0];
    assert_eq!(
        (summary.items, summary.title.as_deref()),
        (2, Some("Renamed"))
    );
    assert_eq!(
        index
            .search("zebracorn", &Filters::default(), 10)
            .expect("search")
            .len(),
        1
    );
    // Rewritten in place (same size, other bytes): read whole, nothing stale.
    let file = store.session_path(id);
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("zebracorn", "unicornzz")).expect("write");
    // A coarse clock can give the rewrite the old mtime: move it on.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(10);
    std::fs::File::options()
        .append(true)
        .open(&file)
        .expect("open")
        .set_modified(later)
        .expect("touch");
    let report = index.refresh().expect("refresh");
    assert_eq!((report.appended, report.reindexed), (0, 1));
    assert!(
        index
            .search("zebracorn", &Filters::default(), 10)
            .expect("search")
            .is_empty()
    );
    assert_eq!(
        index
            .search("unicornzz", &Filters::default(), 10)
            .expect("search")
            .len(),
        1
    );
    // Unchanged: nothing read.
    let report = index.refresh().expect("refresh");
    assert_eq!((report.appended, report.reindexed), (0, 0));
}

#[test]
fn a_writer_noting_its_append_keeps_the_index_current() {
    let (_home, paths, store) = library();
    let id = session(&store, "/w", "m", &["one"]);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    let mut live = store.open_writer(id).expect("open");
    live.commit_item(ResponseItem::user("two three"))
        .expect("commit");
    index.note_appended(id).expect("note");
    assert_eq!(all(&index)[0].items, 2);
    assert_eq!(index.check_tail(id).expect("check"), TailCheck::Matches);
}

#[test]
fn deleting_the_index_file_loses_nothing() {
    let (_home, paths, store) = library();
    for n in 0..4 {
        session(
            &store,
            &format!("/w{n}"),
            "m",
            &[&format!("needle {n} haystack")],
        );
    }
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    let listed = all(&index);
    let found = index
        .search("needle", &Filters::default(), 50)
        .expect("search");
    drop(index);
    std::fs::remove_file(index_path(&paths)).expect("delete index");
    let mut index = Index::open(&paths).expect("reopen");
    index.refresh().expect("refresh");
    assert_eq!(all(&index), listed);
    assert_eq!(
        index
            .search("needle", &Filters::default(), 50)
            .expect("search"),
        found
    );
}

#[test]
fn removed_sessions_leave_the_index() {
    let (_home, paths, store) = library();
    let gone = session(&store, "/w", "m", &["bye"]);
    let kept = session(&store, "/w", "m", &["hi"]);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    store.delete(gone).expect("delete");
    assert_eq!(index.refresh().expect("refresh").removed, 1);
    index.remove(kept).expect("remove");
    assert!(all(&index).is_empty());
}

#[cfg(unix)]
#[test]
fn the_index_file_is_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let (_home, paths, _store) = library();
    let index = Index::open(&paths).expect("open");
    let mode = std::fs::metadata(index.path())
        .expect("stat")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn two_refreshes_at_once_leave_one_consistent_index() {
    let (_home, paths, store) = library();
    for n in 0..40 {
        session(
            &store,
            "/w",
            "m",
            &[&format!("parallel words {n}"), "more text here"],
        );
    }
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let paths = paths.clone();
            std::thread::spawn(move || {
                let mut index = Index::open(&paths).expect("open");
                index.refresh().expect("refresh")
            })
        })
        .collect();
    let reports: Vec<_> = threads
        .into_iter()
        .map(|t| t.join().expect("join"))
        .collect();
    assert_eq!(reports.iter().map(|r| r.reindexed).sum::<usize>(), 40);
    let mut index = Index::open(&paths).expect("open");
    assert_eq!(index.refresh().expect("refresh").reindexed, 0);
    assert_eq!(all(&index).len(), 40);
    // Each session's text is there once, not once per refresher.
    let hits = index
        .search("parallel words", &Filters::default(), 500)
        .expect("search");
    assert_eq!(hits.len(), 40);
}

#[test]
fn search_takes_the_query_as_literal_text_and_marks_the_match() {
    let (_home, paths, store) = library();
    let id = session(
        &store,
        "/w",
        "m",
        &[
            r#"run "cargo test" -- NEAR(a b) OR col:x * ^start"#,
            "plain",
        ],
    );
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    for query in [
        r#""cargo test""#,
        "NEAR(a b) OR",
        "col:x *",
        "^start",
        "\"",
        "*",
    ] {
        let hits = index.search(query, &Filters::default(), 10).expect(query);
        assert_eq!(hits.len(), 1, "{query}");
        assert_eq!(hits[0].session_id, id);
        let spans = snippet_spans(&hits[0].snippet);
        let marked: String = spans
            .iter()
            .filter(|s| s.matched)
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(marked.to_lowercase(), query.to_lowercase(), "{query}");
    }
    assert!(
        index
            .search("OR plain", &Filters::default(), 10)
            .expect("search")
            .is_empty()
    );
    assert!(
        index
            .search("   ", &Filters::default(), 10)
            .expect("search")
            .is_empty()
    );
}

#[test]
fn search_names_the_item_of_each_hit_and_honours_filters() {
    let (_home, paths, store) = library();
    let mut live = store
        .create(Path::new("/alpha"), "anthropic", "claude")
        .expect("create");
    live.commit_item(ResponseItem::user("please read config"))
        .expect("commit");
    let call = ItemId::new();
    live.commit_item(ResponseItem::FunctionCall(FunctionCall {
        id: call,
        call_id: "c1".into(),
        name: "read_file".into(),
        arguments: r#"{"path":"src/frobnicate.rs"}"#.into(),
    }))
    .expect("call");
    let output = ItemId::new();
    live.commit_item(ResponseItem::FunctionCallOutput(FunctionCallOutput {
        id: output,
        call_id: "c1".into(),
        output: "fn frobnicate() {}".into(),
    }))
    .expect("output");
    drop(live);
    session(&store, "/beta", "gpt", &["frobnicate elsewhere"]);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    let hits = index
        .search("frobnicate", &Filters::default(), 10)
        .expect("search");
    assert_eq!(hits.len(), 3);
    let alpha = Filters {
        workspace: Some("/alpha".into()),
        ..Filters::default()
    };
    let hits = index.search("frobnicate", &alpha, 10).expect("search");
    let items: Vec<_> = hits
        .iter()
        .map(|h| (h.kind.as_str(), h.item_id.clone()))
        .collect();
    // Newest text first: the output was written after its call.
    assert_eq!(
        items,
        [
            ("tool_output", Some(output.to_string())),
            ("tool_call", Some(call.to_string()))
        ]
    );
    let gpt = Filters {
        model: Some("gpt".into()),
        ..Filters::default()
    };
    assert_eq!(
        index.search("frobnicate", &gpt, 10).expect("search").len(),
        1
    );
    let future = Filters {
        updated_from: Some(chrono::Utc::now() + chrono::Duration::days(1)),
        ..Filters::default()
    };
    assert!(
        index
            .search("frobnicate", &future, 10)
            .expect("search")
            .is_empty()
    );
    assert!(
        index
            .list(&PageRequest {
                filters: future,
                ..PageRequest::default()
            })
            .expect("list")
            .items
            .is_empty()
    );
    // Two characters: a substring scan, still marked.
    let short = index.search("fn", &alpha, 10).expect("search");
    assert_eq!(short.len(), 1);
    assert!(
        short[0]
            .snippet
            .contains(&format!("{MATCH_START}fn{MATCH_END}"))
    );
}

#[test]
fn hostile_text_cannot_forge_marks_or_break_the_index() {
    let (_home, paths, store) = library();
    let hostile = format!(
        "needle <script>alert(1)</script> {MATCH_START}fake{MATCH_END} \u{1b}[2J '); DROP TABLE sessions; -- 100%_\\"
    );
    session(&store, "/w", "m", &[&hostile]);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    let hits = index
        .search("needle", &Filters::default(), 10)
        .expect("search");
    assert_eq!(hits.len(), 1);
    let spans = snippet_spans(&hits[0].snippet);
    let marked: Vec<_> = spans
        .iter()
        .filter(|s| s.matched)
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(marked, ["needle"]);
    assert!(
        hits[0].snippet.contains("<script>"),
        "kept as plain text for the front end to escape"
    );
    assert_eq!(
        index
            .search("fake", &Filters::default(), 10)
            .expect("search")
            .len(),
        1
    );
    assert_eq!(
        index
            .search("%_", &Filters::default(), 10)
            .expect("search")
            .len(),
        1
    );
    assert!(
        index
            .search("%x", &Filters::default(), 10)
            .expect("search")
            .is_empty()
    );
    assert_eq!(
        index
            .search("'); DROP", &Filters::default(), 10)
            .expect("search")
            .len(),
        1
    );
    assert_eq!(all(&index).len(), 1);
}

#[test]
fn an_index_of_another_schema_version_is_rebuilt() {
    let (_home, paths, store) = library();
    session(&store, "/w", "m", &["versioned"]);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    drop(index);
    let connection = rusqlite::Connection::open(index_path(&paths)).expect("sqlite");
    connection
        .pragma_update(None, "user_version", 999)
        .expect("version");
    drop(connection);
    let mut index = Index::open(&paths).expect("reopen");
    assert!(all(&index).is_empty());
    assert_eq!(index.refresh().expect("refresh").reindexed, 1);
    assert_eq!(all(&index).len(), 1);
}
