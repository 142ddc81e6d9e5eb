//! Listing and searching a library of 10,000 generated sessions through the
//! index, side by side with scans of the files: (a) today's listing, which
//! replays every file through strata-core's store, and (b) the cheapest
//! scan (the first and last line of each file for a listing; the raw bytes
//! of each file for a search). The library and its index are generated once
//! into target/strata-bench/ and reused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs::File;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::Criterion;
use strata_core::{ReadMode, SessionStore, StrataPaths};
use strata_index::{Filters, Index, PageRequest};
use strata_protocol::Record;

const SESSIONS: usize = 10_000;
const PAGE: usize = 50;
/// A literal that occurs in some sessions' tool calls and outputs.
const QUERY: &str = "HttpClient::send";

fn library() -> StrataPaths {
    // "v2": files whose mtime is their last record's time, as a live
    // session's is (the order a rebuilt index takes them in).
    let home = common::cache_dir(&format!("library-{SESSIONS}-seed{}-v2", common::SEED));
    let paths = StrataPaths::under(&home);
    let done = home.join(".generated");
    if !done.exists() {
        let _ = std::fs::remove_dir_all(&home);
        eprintln!(
            "generating {SESSIONS} sessions into {}",
            paths.sessions.display()
        );
        strata_index::generate::write_library(&paths.sessions, SESSIONS, common::SEED).unwrap();
        std::fs::write(&done, b"").unwrap();
    }
    let mut index = Index::open(&paths).unwrap();
    let report = index.rescan().unwrap();
    eprintln!("index ready: {report:?}");
    paths
}

fn session_files(root: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect()
}

/// The last complete line of a file, read backwards in blocks.
fn last_line(file: &mut File) -> Vec<u8> {
    let len = file.metadata().unwrap().len();
    let mut block = 4096u64;
    loop {
        let start = len.saturating_sub(block);
        file.seek(SeekFrom::Start(start)).unwrap();
        let mut tail = Vec::new();
        file.read_to_end(&mut tail).unwrap();
        let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
        if let Some(at) = body.iter().rposition(|&b| b == b'\n') {
            return body[at + 1..].to_vec();
        }
        if start == 0 {
            return body.to_vec();
        }
        block *= 4;
    }
}

/// Baseline (b) for listing: the first line (session_meta) and the last
/// (its timestamp is the update time) of each file, newest first.
fn first_last_line_page(root: &Path) -> Vec<(i64, String)> {
    let mut rows = Vec::new();
    for path in session_files(root) {
        let mut file = File::open(&path).unwrap();
        let mut first = String::new();
        BufReader::new(&mut file).read_line(&mut first).unwrap();
        let meta: Record = serde_json::from_str(&first).unwrap();
        let last: Record = serde_json::from_slice(&last_line(&mut file)).unwrap();
        rows.push((
            last.ts.timestamp_millis(),
            format!("{:?}", meta.body.type_name()),
        ));
    }
    rows.sort_by_key(|row| std::cmp::Reverse(row.0));
    rows.truncate(PAGE);
    rows
}

/// Baseline (a) for search: replay every file and look in its items' text.
fn replay_search(root: &Path) -> usize {
    let mut hits = 0;
    for path in session_files(root) {
        let read = strata_core::store::read_session_file(&path, ReadMode::Browsing).unwrap();
        hits += read
            .records
            .iter()
            .filter(|record| serde_json::to_string(&record.body).unwrap().contains(QUERY))
            .count();
    }
    hits
}

/// Baseline (b) for search: the raw bytes of every file, no parsing.
fn byte_search(root: &Path) -> usize {
    let needle = QUERY.as_bytes();
    session_files(root)
        .iter()
        .filter(|path| {
            let bytes = std::fs::read(path).unwrap();
            bytes.windows(needle.len()).any(|window| window == needle)
        })
        .count()
}

fn main() {
    let paths = library();
    let store = SessionStore::from_paths(&paths);
    let mut index = Index::open(&paths).unwrap();
    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let mut group = criterion.benchmark_group("library_list");
    let first_page = |index: &Index| {
        index
            .list(&PageRequest {
                limit: PAGE,
                ..PageRequest::default()
            })
            .unwrap()
    };
    // What listing runs: a stat of the folder (and of the sessions open for
    // writing, none here).
    group.bench_function("index_refresh_and_first_page", |b| {
        b.iter(|| {
            index.refresh().unwrap();
            black_box(first_page(&index))
        })
    });
    // The full stat pass, what listing costs when the folder changed.
    group.bench_function("index_rescan_and_first_page", |b| {
        b.iter(|| {
            index.rescan().unwrap();
            black_box(first_page(&index))
        })
    });
    group.bench_function("store_replay_every_file", |b| {
        b.iter(|| black_box(store.list().unwrap().into_iter().take(PAGE).count()))
    });
    group.bench_function("first_and_last_line_of_every_file", |b| {
        b.iter(|| black_box(first_last_line_page(&paths.sessions)))
    });
    group.finish();
    let mut group = criterion.benchmark_group("library_search");
    group.bench_function("index_search", |b| {
        b.iter(|| {
            index.refresh().unwrap();
            black_box(index.search(QUERY, &Filters::default(), PAGE).unwrap())
        })
    });
    group.bench_function("replay_every_file", |b| {
        b.iter(|| black_box(replay_search(&paths.sessions)))
    });
    group.bench_function("read_bytes_of_every_file", |b| {
        b.iter(|| black_box(byte_search(&paths.sessions)))
    });
    group.finish();
    criterion.final_summary();
    common::print_table(
        &format!("Library of {SESSIONS} sessions (ratio = baseline time / index time)"),
        &[
            (
                "library_list",
                "index_refresh_and_first_page",
                "store_replay_every_file",
                "≥ 20×",
            ),
            (
                "library_list",
                "index_refresh_and_first_page",
                "first_and_last_line_of_every_file",
                "≥ 20×",
            ),
            (
                "library_list",
                "index_rescan_and_first_page",
                "first_and_last_line_of_every_file",
                "(reported)",
            ),
            (
                "library_search",
                "index_search",
                "replay_every_file",
                "≥ 20×",
            ),
            (
                "library_search",
                "index_search",
                "read_bytes_of_every_file",
                "≥ 20×",
            ),
        ],
    );
}
