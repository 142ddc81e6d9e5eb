//! Session files through the record reader: strict and browsing reads agree,
//! the report accounts for every byte, and what was read writes back and
//! reads again to the same records and the same replay.

use std::path::Path;

use strata_core::store::{ReadMode, parse_session};

use super::{Shape, shape_of};

pub const DICTIONARY: &[&[u8]] = &[
    b"{\"v\":1,\"ts\":\"2026-11-29T09:14:02.118Z\",\"type\":\"",
    b"\"type\":\"response_item\"",
    b"\"type\":\"session_meta\"",
    b"\"type\":\"compaction_summary\"",
    b"\"type\":\"token_usage\"",
    b"\"type\":\"round\"",
    b"\"type\":\"message\"",
    b"\"type\":\"function_call\"",
    b"\"type\":\"function_call_output\"",
    b"\"payload\":",
    b"\"role\":\"user\"",
    b"\"role\":\"system\"",
    b"\"call_id\":\"c1\"",
    b"\"input_items\":",
    b"\"session_id\":\"01a22695-3406-726b-b2a7-4de452e6b438\"",
    b"\"ts\":\"9999-12-31T23:59:59.999999999Z\"",
    b"\"v\":4294967296",
    b"\\u0000",
    b"\\ud800",
    b"\n",
    b"}\n",
];

/// The jsonl blocks of docs/session-format.md's sample, as one file, and
/// each block alone after the first.
pub fn seeds(repo: &Path) -> Vec<Vec<u8>> {
    let doc = std::fs::read_to_string(repo.join("docs/session-format.md")).unwrap_or_default();
    let mut blocks: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match current.as_mut() {
            None if line == "```jsonl" => current = Some(String::new()),
            None => {}
            Some(_) if line == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    let mut seeds = vec![blocks.concat().into_bytes()];
    if let Some(first) = blocks.first() {
        seeds.extend(
            blocks[1..]
                .iter()
                .map(|block| format!("{first}{block}").into_bytes()),
        );
    }
    seeds
}

pub fn run(data: &[u8]) -> Shape {
    let path = Path::new("fuzz.jsonl");
    let strict = parse_session(path, data, ReadMode::Strict);
    let browsing = parse_session(path, data, ReadMode::Browsing);
    let newlines = data.iter().filter(|&&byte| byte == b'\n').count();
    let complete = data
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |at| at + 1);
    if let (Ok(strict), Err(error)) = (&strict, &browsing) {
        panic!(
            "browsing refused what strict read ({} records): {error}",
            strict.records.len()
        );
    }
    let Ok(read) = browsing else {
        return shape_of((strict.is_ok(), false, 0usize, 0usize));
    };
    if let Ok(strict) = &strict {
        assert_eq!(
            strict.records, read.records,
            "strict and browsing reads differ"
        );
        assert!(
            read.report.skipped.is_empty(),
            "strict read a file browsing skipped in"
        );
    }
    assert_eq!(read.report.lines, newlines, "complete lines miscounted");
    assert_eq!(
        read.records.len() + read.report.skipped.len(),
        newlines,
        "a line was neither read nor skipped"
    );
    match read.report.torn_tail {
        Some(torn) => {
            assert_eq!(torn.offset as usize, complete);
            assert_eq!(torn.bytes as usize, data.len() - complete);
        }
        None => assert_eq!(complete, data.len(), "a torn tail went unreported"),
    }
    // What was read writes back as lines that read to the same records and
    // replay to the same state.
    let replayed = read.replay();
    let mut written = Vec::new();
    for record in &read.records {
        serde_json::to_writer(&mut written, record).unwrap_or_else(|error| {
            panic!("a record that was read does not serialise: {error}: {record:?}")
        });
        written.push(b'\n');
    }
    let again = parse_session(path, &written, ReadMode::Strict)
        .unwrap_or_else(|error| panic!("records that were read do not read back: {error}"));
    assert_eq!(
        again.records, read.records,
        "records changed on a write and read"
    );
    assert_eq!(
        again.replay(),
        replayed,
        "the replay changed on a write and read"
    );
    let mut kinds: Vec<&str> = read
        .records
        .iter()
        .map(|record| record.body.type_name())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    shape_of((
        strict.is_ok(),
        read.report.torn_tail.is_some(),
        read.report.skipped.len().min(4),
        kinds,
        replayed.compactions().min(3),
        replayed.unknown_records().min(2),
    ))
}
