//! "Continue in Strata" over the real files other tools wrote, read in place
//! from `../shared/fixtures/sessions` (skipped when that folder is absent):
//! every cut keeps calls and outputs paired, a cut before a compaction never
//! carries the other tool's summary, and the file is left as it was.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use strata_import::{
    ContinuePoint, ImportedSession, ImportedSummary, Tool, continue_history, read_path,
};
use strata_protocol::ResponseItem;

fn fixture_files() -> Option<Vec<(Tool, PathBuf)>> {
    let sessions = strata_testkit::needs_shared(strata_testkit::SESSIONS)?;
    let mut files = Vec::new();
    for (dir, tool) in [
        ("codex", Tool::Codex),
        ("claude", Tool::ClaudeCode),
        ("copilot", Tool::CopilotCli),
    ] {
        collect(&sessions.join(dir), tool, &mut files);
    }
    files.sort();
    Some(files)
}

fn collect(dir: &Path, tool: Tool, files: &mut Vec<(Tool, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, tool, files);
        } else if path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.ends_with(".jsonl") || name.ends_with(".jsonl.zst"))
        {
            files.push((tool, path));
        }
    }
}

fn assert_paired(items: &[ResponseItem], context: &str) {
    let mut open = HashSet::new();
    for item in items {
        match item {
            ResponseItem::FunctionCall(call) => {
                assert!(
                    open.insert(call.call_id.clone()),
                    "{context}: repeated call"
                );
            }
            ResponseItem::FunctionCallOutput(output) => {
                assert!(
                    open.remove(&output.call_id),
                    "{context}: output without call"
                );
            }
            ResponseItem::Message(_) => {}
            other => panic!("{context}: unexpected item {other:?}"),
        }
    }
    assert!(open.is_empty(), "{context}: calls without outputs {open:?}");
}

fn points(session: &ImportedSession) -> Vec<ContinuePoint> {
    let mut points = vec![ContinuePoint::End];
    points.extend((0..session.compactions.len()).map(ContinuePoint::BeforeCompaction));
    points
}

#[test]
fn every_fixture_continues_at_the_end_and_before_each_compaction_with_pairs_intact() {
    let Some(files) = fixture_files() else {
        return;
    };
    assert!(!files.is_empty());
    for (tool, path) in files {
        let session = read_path(tool, &path).unwrap();
        for point in points(&session) {
            let context = format!("{} at {point:?}", path.display());
            let history = continue_history(&session, point).unwrap();
            assert_paired(&history.items, &context);
            assert!(history.items.len() <= history.source_items, "{context}");
        }
    }
}

#[test]
fn a_fixture_cut_before_a_compaction_holds_the_originals_not_the_summary() {
    let Some(files) = fixture_files() else {
        return;
    };
    let mut checked = 0;
    for (tool, path) in files {
        let session = read_path(tool, &path).unwrap();
        for (index, compaction) in session.compactions.iter().enumerate() {
            let history =
                continue_history(&session, ContinuePoint::BeforeCompaction(index)).unwrap();
            assert_eq!(history.source_items, compaction.at_item);
            if let ImportedSummary::Text(summary) = &compaction.summary {
                let carried = history.items.iter().any(|item| match item {
                    ResponseItem::Message(message) => message.content.contains(summary.as_str()),
                    _ => false,
                });
                assert!(!carried, "{} carried the summary", path.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "the fixtures hold compactions");
}

#[test]
fn continuing_a_fixture_leaves_its_bytes_and_mtime_unchanged() {
    let Some(files) = fixture_files() else {
        return;
    };
    for (tool, path) in files {
        let before = (
            std::fs::read(&path).unwrap(),
            path.metadata().unwrap().modified().unwrap(),
        );
        let session = read_path(tool, &path).unwrap();
        continue_history(&session, ContinuePoint::End).unwrap();
        let after = (
            std::fs::read(&path).unwrap(),
            path.metadata().unwrap().modified().unwrap(),
        );
        assert!(before == after, "{} changed", path.display());
    }
}
