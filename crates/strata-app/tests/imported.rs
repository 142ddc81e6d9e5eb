//! Other agents' sessions through the desktop's commands: generated Codex,
//! Claude Code and Copilot CLI files in a temporary home (from
//! strata-import's writers-for-tests), and the real files in
//! `../shared/fixtures/sessions`. The files are never written: their
//! bytes and modification times are checked after every command.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../strata-import/tests/writers/mod.rs"]
mod writers;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use strata_app::App;
use strata_core::StrataPaths;
use strata_protocol::{
    CommandErrorKind, CompactionTrigger, GetImportSettings, HideImported, ImportSessions,
    ImportSettings, ImportSource, ImportedCompactionKind, ImportedSummaryView, ListImported,
    OpenImported, SaveImportSettings, SearchImported, TranscriptEntry,
};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn write(path: &Path, bytes: &[u8]) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    path.to_path_buf()
}

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    files: Vec<PathBuf>,
}

/// A home holding one session of each tool in its standard folder.
fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let replacement = vec![
        writers::codex_user_message("fix the bug"),
        serde_json::json!({"type": "compaction", "encrypted_content": "gAAA"}),
    ];
    let files = vec![
        write(
            &home.join(".codex/sessions/2026/06/26/rollout-2026-06-26T12-00-00-thread-1.jsonl"),
            &writers::jsonl(&writers::codex_session("", replacement)),
        ),
        write(
            &home.join(".claude/projects/-work-demo/claude-1.jsonl"),
            &writers::jsonl(&writers::claude_session()),
        ),
        write(
            &home.join(".copilot/session-state/copilot-1/events.jsonl"),
            &writers::jsonl(&writers::copilot_session()),
        ),
    ];
    Home {
        _dir: dir,
        home,
        files,
    }
}

fn app(home: &Home) -> Arc<App> {
    let paths = StrataPaths::under(&home.home.join(".strata-data"));
    Arc::new(App::new(paths, |_| None).with_import_home(home.home.clone()))
}

/// Each file's bytes and modification time.
fn stamps(files: &[PathBuf]) -> Vec<(Vec<u8>, SystemTime)> {
    files
        .iter()
        .map(|file| {
            let modified = std::fs::metadata(file).unwrap().modified().unwrap();
            (std::fs::read(file).unwrap(), modified)
        })
        .collect()
}

fn show_all() -> SaveImportSettings {
    SaveImportSettings {
        settings: ImportSettings {
            asked: true,
            tools: ImportSource::ALL.to_vec(),
            extra_paths: Vec::new(),
        },
    }
}

#[test]
fn nothing_is_listed_before_the_person_agrees_and_the_counts_found_are_offered() {
    let home = home();
    let app = app(&home);
    let rt = runtime();
    let page = rt.block_on(app.list_imported(ListImported {})).unwrap();
    assert!(page.sessions.is_empty());
    let view = rt
        .block_on(app.import_settings(GetImportSettings {}))
        .unwrap();
    assert!(!view.settings.asked);
    assert_eq!(
        (
            view.found.codex,
            view.found.claude_code,
            view.found.copilot_cli
        ),
        (1, 1, 1)
    );
}

#[test]
fn shown_sessions_list_with_their_source_and_open_with_their_compaction_cards() {
    let home = home();
    let before = stamps(&home.files);
    let app = app(&home);
    let rt = runtime();
    rt.block_on(app.save_import_settings(show_all())).unwrap();
    let page = rt.block_on(app.list_imported(ListImported {})).unwrap();
    let mut sources: Vec<ImportSource> = page.sessions.iter().map(|s| s.source).collect();
    sources.sort();
    assert_eq!(
        sources,
        [
            ImportSource::Codex,
            ImportSource::ClaudeCode,
            ImportSource::CopilotCli
        ]
    );

    let claude = rt
        .block_on(app.open_imported(OpenImported {
            id: "claude-1".into(),
        }))
        .unwrap();
    assert_eq!(claude.summary.source, ImportSource::ClaudeCode);
    let [micro, full] = claude.compactions.as_slice() else {
        panic!("{:?}", claude.compactions)
    };
    assert_eq!(
        micro.kind,
        ImportedCompactionKind::Eviction {
            tokens_saved: Some(300),
            cleared_tools: 1
        }
    );
    assert_eq!(micro.tokens_before, Some(1000));
    assert_eq!(full.kind, ImportedCompactionKind::Summary);
    assert_eq!(full.trigger, Some(CompactionTrigger::Manual));
    // preTokens of the compact_boundary.
    assert_eq!(full.tokens_before, Some(153));
    assert!(
        matches!(full.summary, ImportedSummaryView::Text { ref text } if text.contains("the bug is in src"))
    );
    // The divider sits above an entry the transcript has.
    let above = full.before_entry.as_deref().unwrap();
    assert!(claude.entries.iter().any(|entry| entry_id(entry) == above));
    assert!(
        claude
            .entries
            .iter()
            .any(|entry| matches!(entry, TranscriptEntry::Tool(tool) if tool.name == "Bash" && tool.output.as_ref().is_some_and(|o| o.preview == "src")))
    );

    let codex = rt
        .block_on(app.open_imported(OpenImported {
            id: "thread".into(),
        }))
        .unwrap();
    let [compaction] = codex.compactions.as_slice() else {
        panic!("{:?}", codex.compactions)
    };
    assert_eq!(
        (compaction.tokens_before, compaction.tokens_after),
        (Some(5100), Some(900))
    );
    assert_eq!(compaction.summary, ImportedSummaryView::Encrypted);
    assert_eq!(codex.chart.len(), 2, "two requests reported usage");
    assert_eq!(compaction.after_round, 1, "marked after the first request");

    let hits = rt
        .block_on(app.search_imported(SearchImported {
            query: "Fixed".into(),
            limit: None,
        }))
        .unwrap();
    assert!(!hits.hits.is_empty());
    assert!(hits.hits.iter().all(|hit| hit.entry_id.is_some()));

    assert_eq!(stamps(&home.files), before, "no file was written");
}

fn entry_id(entry: &TranscriptEntry) -> &str {
    match entry {
        TranscriptEntry::User { id, .. }
        | TranscriptEntry::Assistant { id, .. }
        | TranscriptEntry::Thinking { id, .. } => id,
        TranscriptEntry::Tool(tool) => &tool.id,
        other => panic!("an imported transcript has no {other:?}"),
    }
}

#[test]
fn hiding_a_session_takes_it_from_the_library_and_leaves_its_file() {
    let home = home();
    let before = stamps(&home.files);
    let app = app(&home);
    let rt = runtime();
    rt.block_on(app.save_import_settings(show_all())).unwrap();
    rt.block_on(app.hide_imported(HideImported {
        id: "copilot-1".into(),
    }))
    .unwrap();
    let page = rt.block_on(app.list_imported(ListImported {})).unwrap();
    assert!(page.sessions.iter().all(|s| s.id != "copilot-1"));
    assert_eq!(page.sessions.len(), 2);
    let gone = rt
        .block_on(app.open_imported(OpenImported {
            id: "copilot-1".into(),
        }))
        .unwrap_err();
    assert_eq!(gone.kind, CommandErrorKind::NotFound);
    assert_eq!(stamps(&home.files), before, "the file is as it was");
}

#[test]
fn importing_a_folder_outside_the_standard_ones_adds_its_sessions_whatever_the_consent() {
    let home = home();
    let app = app(&home);
    let rt = runtime();
    let elsewhere = tempfile::tempdir().unwrap();
    let file = write(
        &elsewhere.path().join("exports/claude-1.jsonl"),
        &writers::jsonl(&writers::claude_session()),
    );
    let before = stamps(std::slice::from_ref(&file));
    let report = rt
        .block_on(app.import_sessions(ImportSessions {
            paths: vec![elsewhere.path().display().to_string()],
        }))
        .unwrap();
    assert_eq!(report.added_paths, [elsewhere.path().display().to_string()]);
    assert_eq!(report.sessions.len(), 1);
    assert_eq!(report.sessions[0].source, ImportSource::ClaudeCode);
    assert_eq!(report.sessions[0].path, file.display().to_string());
    let page = rt.block_on(app.list_imported(ListImported {})).unwrap();
    assert_eq!(page.sessions.len(), 1, "the standard folders are not shown");
    // Importing again adds nothing new.
    let again = rt
        .block_on(app.import_sessions(ImportSessions {
            paths: vec![elsewhere.path().display().to_string()],
        }))
        .unwrap();
    assert!(again.added_paths.is_empty());
    assert_eq!(stamps(std::slice::from_ref(&file)), before);

    let relative = rt
        .block_on(app.import_sessions(ImportSessions {
            paths: vec!["exports".into()],
        }))
        .unwrap_err();
    assert_eq!(relative.kind, CommandErrorKind::InvalidInput);
    let missing = rt
        .block_on(app.import_sessions(ImportSessions {
            paths: vec![elsewhere.path().join("nothing").display().to_string()],
        }))
        .unwrap_err();
    assert_eq!(missing.kind, CommandErrorKind::InvalidInput);
}

#[test]
fn the_real_fixtures_import_with_their_compaction_figures() {
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
    let before = stamps(&files);
    let home = tempfile::tempdir().unwrap();
    let app = Arc::new(
        App::new(StrataPaths::under(&home.path().join("data")), |_| None)
            .with_import_home(home.path().to_path_buf()),
    );
    let rt = runtime();
    let report = rt
        .block_on(app.import_sessions(ImportSessions {
            paths: files.iter().map(|f| f.display().to_string()).collect(),
        }))
        .unwrap();
    assert_eq!(report.sessions.len(), 2, "{report:?}");
    let claude = rt
        .block_on(app.open_imported(OpenImported {
            id: "0cf3db51".into(),
        }))
        .unwrap();
    let summary = claude
        .compactions
        .iter()
        .find(|card| card.kind == ImportedCompactionKind::Summary)
        .unwrap();
    assert_eq!(summary.tokens_before, Some(153_739));
    assert_eq!(summary.trigger, Some(CompactionTrigger::Manual));
    let codex = rt
        .block_on(app.open_imported(OpenImported {
            id: "019f03e0".into(),
        }))
        .unwrap();
    assert_eq!(codex.compactions.len(), 2);
    assert!(
        codex
            .compactions
            .iter()
            .all(|card| card.summary == ImportedSummaryView::Encrypted
                && card.tokens_before.is_some())
    );
    // Every summary compaction carries a loss audit, against its summary
    // where the file holds a readable one (Codex's are encrypted: against
    // the kept messages only); a microcompaction none.
    for view in [&claude, &codex] {
        for card in &view.compactions {
            let summary = card.kind == ImportedCompactionKind::Summary;
            assert_eq!(card.loss.is_some(), summary, "card {}", card.number);
            if let Some(loss) = &card.loss {
                let readable = matches!(card.summary, ImportedSummaryView::Text { .. });
                assert_eq!(loss.against_summary, readable, "card {}", card.number);
            }
        }
    }
    assert_eq!(stamps(&files), before, "the fixtures are as they were");
}
