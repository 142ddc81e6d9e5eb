//! The loss audit on other tools' compactions through the desktop's
//! commands: a Claude Code session written here with a planted path read
//! before the compaction and absent from its summary, and the real files
//! in `../shared/fixtures/sessions` (read in place, never written).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../strata-import/tests/writers/mod.rs"]
mod writers;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use strata_app::App;
use strata_core::StrataPaths;
use strata_protocol::{ImportSessions, ImportedCompactionKind, ImportedSummaryView, OpenImported};

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

#[test]
fn the_real_fixtures_carry_an_audit_per_summary_compaction() {
    let Some(sessions) = strata_testkit::needs_shared(strata_testkit::SESSIONS) else {
        return;
    };
    let files: Vec<PathBuf> = [
        "claude/entire-cli_2.1.14_manual-compact.jsonl",
        "codex/agentv_0.142.2_two-compactions.jsonl",
    ]
    .iter()
    .map(|name| sessions.join(name))
    .collect();
    let before: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let (_home, app) = app_importing(&files);
    let rt = runtime();
    for id in ["0cf3db51", "019f03e0"] {
        let view = rt
            .block_on(app.open_imported(OpenImported { id: id.into() }))
            .unwrap();
        for card in &view.compactions {
            let summary = card.kind == ImportedCompactionKind::Summary;
            assert_eq!(card.loss.is_some(), summary, "{id} card {}", card.number);
            if let Some(loss) = &card.loss {
                let readable = matches!(card.summary, ImportedSummaryView::Text { .. });
                assert_eq!(loss.against_summary, readable);
            }
        }
    }
    let codex = rt
        .block_on(app.open_imported(OpenImported {
            id: "019f03e0".into(),
        }))
        .unwrap();
    // Encrypted summaries: audited against the kept messages only.
    assert!(
        codex
            .compactions
            .iter()
            .all(|c| !c.loss.as_ref().unwrap().against_summary)
    );
    let after: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    assert_eq!(after, before, "the fixtures are as they were");
}
