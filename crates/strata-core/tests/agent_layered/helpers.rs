//! What the layered-policy test files share: a harness on the layered
//! policy and rounds that read files.

#![allow(dead_code)]

use serde_json::json;
use strata_protocol::{CompactionPolicy, ResponseItem};

use super::support::*;

pub fn layered(threshold: u64) -> Harness {
    let mut harness = Harness::new();
    harness.config.compaction = Some(CompactionPolicy::Layered);
    harness.config.compact_threshold = threshold;
    harness
}

pub fn read_round(
    call_id: &str,
    path: &str,
    usage: Option<strata_protocol::TokenUsage>,
) -> Vec<Step> {
    calls_round(
        vec![call(call_id, "read_file", json!({ "path": path }))],
        usage,
    )
}

/// Six files, each starting with a line naming it: the first three of
/// 8,000 characters (about 2,000 tokens each), the last three short.
pub fn six_files(harness: &Harness) {
    for n in 0..6 {
        let size = if n < 3 { 8_000 } else { 400 };
        harness.write(
            &format!("src/part_{n}.rs"),
            &format!("// original of part {n}\n{}", "x".repeat(size)),
        );
    }
}

/// Writes the six files and scripts a round reading each; the last round
/// reports `reported` tokens (the tests' threshold is 6,000).
pub fn six_reads_reporting(harness: &Harness, reported: u64) {
    six_files(harness);
    for n in 0..6 {
        let usage = (n == 5).then(|| usage(reported - 10, 10));
        harness.gateway.push_round(read_round(
            &format!("c{n}"),
            &format!("src/part_{n}.rs"),
            usage,
        ));
    }
}

/// [`six_reads_reporting`] over the threshold.
pub fn six_reads(harness: &Harness) {
    six_reads_reporting(harness, 7_010);
}

pub fn outputs(items: &[ResponseItem]) -> Vec<&str> {
    items
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput(output) => Some(output.output.as_str()),
            _ => None,
        })
        .collect()
}
