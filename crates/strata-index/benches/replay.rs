//! Replay throughput: reading and replaying a generated 10,000-record
//! session (strata-core's strict read + replay) against parsing the same
//! lines into serde_json::Value alone; and append throughput, records per
//! second with a sync at every turn boundary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use strata_core::SessionStore;
use strata_core::store::{ReadMode, read_session_file};
use strata_protocol::{Record, RecordBody};

const RECORDS: u64 = 10_000;
const APPENDED: usize = 2_000;

fn main() {
    let path = common::long_session(RECORDS);
    let bytes = std::fs::read(&path).unwrap();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let mut group = criterion.benchmark_group("replay");
    group.throughput(Throughput::Elements(lines));
    group.bench_function("parse_lines_into_value", |b| {
        b.iter(|| {
            let bytes = std::fs::read(&path).unwrap();
            let mut count = 0;
            for line in bytes.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
                let value: serde_json::Value = serde_json::from_slice(line).unwrap();
                count += usize::from(value.is_object());
            }
            black_box(count)
        })
    });
    group.bench_function("read_and_replay", |b| {
        b.iter(|| {
            let read = read_session_file(&path, ReadMode::Strict).unwrap();
            black_box(read.replay().history().len())
        })
    });
    group.finish();

    // The records of the same session, appended to a fresh one through the
    // store's writer, synced at the end of every turn (its checkpoints left
    // out: the writer adds its own after each compaction).
    let records: Vec<Record> = read_session_file(&path, ReadMode::Strict)
        .unwrap()
        .records
        .into_iter()
        .skip(1)
        .filter(|record| !matches!(record.body, RecordBody::Checkpoint(_)))
        .take(APPENDED)
        .collect();
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::new(home.path());
    let mut group = criterion.benchmark_group("append");
    group.throughput(Throughput::Elements(records.len() as u64));
    group.bench_function("append_sync_per_turn", |b| {
        b.iter(|| {
            let mut live = store
                .create(
                    std::path::Path::new("/bench"),
                    "openai-responses",
                    "gpt-5.4",
                )
                .unwrap();
            // append() itself syncs after every turn boundary.
            for record in &records {
                live.append(record.body.clone()).unwrap();
            }
        })
    });
    group.finish();
    criterion.final_summary();
    common::print_table(
        &format!(
            "Replay of a {RECORDS}-record session ({} bytes)",
            bytes.len()
        ),
        &[(
            "replay",
            "parse_lines_into_value",
            "read_and_replay",
            "≤ 1.5×",
        )],
    );
    if let Some(ns) = common::mean_ns("append", "append_sync_per_turn") {
        let per_second = records.len() as f64 / (ns / 1e9);
        #[allow(clippy::print_stdout)]
        {
            println!(
                "\nAppend: {per_second:.0} records/s ({} records, a sync at each of their turn ends)",
                records.len()
            );
        }
    }
}
