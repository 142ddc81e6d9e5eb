//! Resume: opening a long generated session for writing
//! (`SessionStore::open_writer`, which reads from the last checkpoint on)
//! against (a) reading and replaying the whole file, what resuming did
//! before checkpoints, and (b) opening a file that holds only that tail:
//! the session_meta line, then the last checkpoint and what follows.
//!
//! Sizes: 10,000 and 100,000 records, or those `STRATA_BENCH_RESUME_RECORDS`
//! lists (`10000,100000,1000000`). The whole-file baseline is skipped above
//! 100,000 records (it holds every parsed record in memory at once).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod common;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::Criterion;
use strata_core::SessionStore;
use strata_core::store::{ReadMode, read_session_file, read_session_tail};
use strata_protocol::SessionId;

const WHOLE_REPLAY_MAX: u64 = 100_000;

fn sizes() -> Vec<u64> {
    match std::env::var("STRATA_BENCH_RESUME_RECORDS") {
        Ok(list) => list
            .split(',')
            .map(|size| size.trim().parse().expect("a record count"))
            .collect(),
        Err(_) => vec![10_000, 100_000],
    }
}

/// The session's id, from its file name.
fn id_of(path: &Path) -> SessionId {
    path.file_stem().unwrap().to_str().unwrap().parse().unwrap()
}

/// A file beside the session's folder holding only its first line and its
/// tail from the last checkpoint on, under the same id.
fn tail_only(path: &Path) -> PathBuf {
    let tail = read_session_tail(path).unwrap();
    assert!(
        tail.from_checkpoint(),
        "the generated session has no checkpoint"
    );
    let bytes = std::fs::read(path).unwrap();
    let first = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let dir = path.parent().unwrap().join("tail-only");
    strata_core::private::ensure_dir(&dir).unwrap();
    let copy = dir.join(path.file_name().unwrap());
    let mut only = bytes[..first].to_vec();
    only.extend_from_slice(&bytes[usize::try_from(tail.offset).unwrap()..]);
    std::fs::write(&copy, only).unwrap();
    copy
}

fn human_bytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn main() {
    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for records in sizes() {
        let path = common::long_session(records);
        let id = id_of(&path);
        let only = tail_only(&path);
        let store = SessionStore::new(path.parent().unwrap());
        let only_store = SessionStore::new(only.parent().unwrap());
        // Both open to the same state.
        let resumed = store.open_writer(id).unwrap();
        let from_only = only_store.open_writer(id).unwrap();
        assert_eq!(resumed.history(), from_only.history());
        drop((resumed, from_only));
        let group_name = format!("resume_{records}");
        let mut group = criterion.benchmark_group(&group_name);
        group.bench_function("open_writer_from_tail", |b| {
            b.iter(|| black_box(store.open_writer(id).unwrap().history().len()))
        });
        group.bench_function("open_writer_tail_only_file", |b| {
            b.iter(|| black_box(only_store.open_writer(id).unwrap().history().len()))
        });
        if records <= WHOLE_REPLAY_MAX {
            group.bench_function("read_and_replay_whole_file", |b| {
                b.iter(|| {
                    let read = read_session_file(&path, ReadMode::Strict).unwrap();
                    black_box(read.replay().history().len())
                })
            });
        }
        group.finish();
        let size = std::fs::metadata(&path).unwrap().len();
        let tail_size = std::fs::metadata(&only).unwrap().len();
        notes.push(format!(
            "{records} records: file {}, tail from the last checkpoint {}",
            human_bytes(size),
            human_bytes(tail_size)
        ));
        rows.push(group_name);
    }
    criterion.final_summary();
    let mut table = Vec::new();
    for group in &rows {
        table.push((
            group.as_str(),
            "open_writer_from_tail",
            "read_and_replay_whole_file",
            "(speed-up)",
        ));
        table.push((
            group.as_str(),
            "open_writer_tail_only_file",
            "open_writer_from_tail",
            "≤ 3× (1M records)",
        ));
    }
    common::print_table("Resume from the tail", &table);
    for note in notes {
        println!("{note}");
    }
}
