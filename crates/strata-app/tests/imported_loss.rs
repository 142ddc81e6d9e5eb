//! The loss audit on other tools' compactions through the desktop's
//! commands: a Claude Code session written here with a planted path read
//! before the compaction and absent from its summary. (The real files'
//! audits are checked in `imported.rs`, with their other figures.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../strata-import/tests/writers/mod.rs"]
mod writers;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use strata_app::App;
use strata_core::StrataPaths;
use strata_protocol::{ImportSessions, ImportedSummaryView, OpenImported};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A Claude Code session that reads `src/parser/lexer.rs`, runs a command
/// and states a rule, then compacts into a summary naming none of them.
fn planted_session() -> Vec<u8> {
    let records = [
        writers::claude(
            "user",
            "u1",
            json!({"message": {"role": "user",
            "content": "Fix the lexer. Never edit generated files"}}),
        ),
        writers::claude(
            "assistant",
            "u2",
            json!({"message": {"model": "claude-test", "id": "m1",
            "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
            "name": "Read", "input": {"file_path": "src/parser/lexer.rs"}}]}}),
        ),
        writers::claude(
            "user",
            "u3",
            json!({"message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "toolu_1", "content": "fn lex() {}", "is_error": false}]}}),
        ),
        writers::claude(
            "assistant",
            "u4",
            json!({"message": {"model": "claude-test", "id": "m2",
            "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2",
            "name": "Bash", "input": {"command": "cargo test -p lexer"}}]}}),
        ),
        writers::claude(
            "user",
            "u5",
            json!({"message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "toolu_2", "content": "ok", "is_error": false}]}}),
        ),
        writers::claude(
            "system",
            "u6",
            json!({"subtype": "compact_boundary",
            "compactMetadata": {"trigger": "manual", "preTokens": 5000}}),
        ),
        writers::claude(
            "user",
            "u7",
            json!({"isCompactSummary": true, "message": {"role": "user",
            "content": "This session is being continued. Summary: work on parsing."}}),
        ),
    ];
    writers::jsonl(&records)
}

fn app_importing(files: &[PathBuf]) -> (tempfile::TempDir, Arc<App>) {
    let home = tempfile::tempdir().unwrap();
    let app = Arc::new(
        App::new(StrataPaths::under(&home.path().join("data")), |_| None)
            .with_import_home(home.path().to_path_buf()),
    );
    let report = runtime()
        .block_on(app.import_sessions(ImportSessions {
            paths: files.iter().map(|f| f.display().to_string()).collect(),
        }))
        .unwrap();
    assert_eq!(report.sessions.len(), files.len(), "{report:?}");
    (home, app)
}

#[test]
fn the_loss_audit_lists_a_path_read_before_the_compaction_and_absent_from_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("claude-1.jsonl");
    std::fs::write(&file, planted_session()).unwrap();
    let (_home, app) = app_importing(std::slice::from_ref(&file));
    let view = runtime()
        .block_on(app.open_imported(OpenImported {
            id: "claude-1".into(),
        }))
        .unwrap();
    let card = &view.compactions[0];
    assert!(matches!(card.summary, ImportedSummaryView::Text { .. }));
    let loss = card.loss.as_ref().unwrap();
    assert!(loss.against_summary);
    assert!(
        loss.paths.contains(&"src/parser/lexer.rs".to_owned()),
        "{loss:?}"
    );
    assert_eq!(loss.commands, ["cargo test -p lexer"]);
    assert_eq!(loss.rules, ["Never edit generated files"]);
}
