//! Shared by the store tests: a temp store, a small closed session, and ways
//! to damage its file the way a crash or a bad edit would.

#![allow(dead_code, clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;

use strata_core::store::SessionStore;
use strata_protocol::{
    CompactionMetadata, CompactionSummary, CompactionTrigger, ItemId, ResponseItem, SessionId,
};

pub fn store() -> (tempfile::TempDir, SessionStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    (dir, store)
}

/// A closed session holding a system prompt, a user message and a reply.
pub fn closed_session(store: &SessionStore) -> SessionId {
    let mut session = store
        .create(Path::new("/work"), "anthropic", "claude-sonnet-4-5")
        .unwrap();
    session.commit_item(ResponseItem::system("sys")).unwrap();
    session.commit_item(ResponseItem::user("hello")).unwrap();
    session.commit_item(ResponseItem::assistant("hi")).unwrap();
    session.id()
}

/// Appends raw bytes, as a crash mid-write would leave them.
pub fn append_raw(path: &Path, bytes: &[u8]) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(bytes).unwrap();
}

/// Puts `line` (plus its newline) before the 1-based line `number`.
pub fn insert_line(path: &Path, number: usize, line: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(number - 1, line);
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// A manual compaction's summary saying `text`.
pub fn summary(text: &str) -> CompactionSummary {
    CompactionSummary {
        id: ItemId::new(),
        summary: text.into(),
        metadata: CompactionMetadata {
            trigger: CompactionTrigger::Manual,
            reason: "test".into(),
            context_tokens: None,
            threshold: None,
            removed: 0,
            kept: 0,
            summarizer_model: "m".into(),
            summarizer_usage: None,
            summarizer_cost: None,
            duration_ms: 1,
        },
    }
}

/// The file's lines, without their newlines.
pub fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

pub fn write_lines(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// The file at `path` is `intact` followed by one `session_repaired` record
/// (what reopening it repaired); returns that record's payload.
pub fn intact_then_repaired(path: &Path, intact: &[u8]) -> strata_protocol::SessionRepaired {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.starts_with(intact), "earlier bytes untouched");
    let added = &bytes[intact.len()..];
    assert_eq!(
        added.iter().filter(|&&b| b == b'\n').count(),
        1,
        "one record added"
    );
    let record: strata_protocol::Record = serde_json::from_slice(added.trim_ascii_end()).unwrap();
    match record.body {
        strata_protocol::RecordBody::SessionRepaired(repaired) => repaired,
        other => panic!("not a session_repaired record: {other:?}"),
    }
}
