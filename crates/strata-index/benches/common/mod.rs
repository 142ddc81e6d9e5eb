//! What both benches share: cached generated data under the target folder
//! and the ratio table read back from criterion's estimates.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The seed every figure in docs/PERFORMANCE.md was measured with.
pub const SEED: u64 = 13;

/// A folder kept between runs: under `STRATA_BENCH_DIR` when set (a tmpfs,
/// say), else under the target directory.
pub fn cache_dir(name: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os("STRATA_BENCH_DIR") {
        return PathBuf::from(dir).join(name);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("strata-bench").join(name)
}

/// criterion's mean estimate of `group/bench`, in nanoseconds.
pub fn mean_ns(group: &str, bench: &str) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let path = target
        .join("criterion")
        .join(group)
        .join(bench)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["mean"]["point_estimate"].as_f64()
}

fn human(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}

/// Prints one row per (measure, baseline): both means and their ratio.
#[allow(clippy::print_stdout)]
pub fn print_table(title: &str, rows: &[(&str, &str, &str, &str)]) {
    println!("\n{title}");
    println!("| measure | time | compared with | its time | ratio (its time / time) | target |");
    println!("|---|---|---|---|---|---|");
    for (group, measure, baseline, target) in rows {
        let (Some(ours), Some(theirs)) = (mean_ns(group, measure), mean_ns(group, baseline)) else {
            println!("| {measure} | – | {baseline} | – | not measured | {target} |");
            continue;
        };
        println!(
            "| {measure} | {} | {baseline} | {} | {:.2}× | {target} |",
            human(ours),
            human(theirs),
            theirs / ours
        );
    }
}

/// A long generated session of `records` records (compactions every ~400,
/// each followed by its checkpoint), cached under [`cache_dir`].
#[allow(clippy::unwrap_used)]
pub fn long_session(records: u64) -> PathBuf {
    use chrono::{TimeZone, Utc};
    use strata_index::generate::{Shape, write_session};
    // "v3": sessions of the format with checkpoints.
    let dir = cache_dir(&format!("session-{records}-seed{SEED}-v3"));
    let done = dir.join(".generated");
    if let Ok(name) = std::fs::read_to_string(&done) {
        return dir.join(name);
    }
    let _ = std::fs::remove_dir_all(&dir);
    strata_core::private::ensure_dir(&dir).unwrap();
    let created = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).single().unwrap();
    let written = write_session(&dir, SEED, created, &Shape::long(records)).unwrap();
    let name = written
        .path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    std::fs::write(&done, &name).unwrap();
    written.path
}
