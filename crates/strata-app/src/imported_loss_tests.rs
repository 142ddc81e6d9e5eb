use proptest::prelude::*;
use strata_import::{ClippedText, KeptItems};

use super::*;

fn item(kind: ItemKind) -> ImportedItem {
    ImportedItem {
        line: 1,
        at: None,
        sidechain: false,
        kind,
    }
}

fn user(text: &str) -> ImportedItem {
    item(ItemKind::User { text: text.into() })
}

fn call(id: &str, name: &str, arguments: &str) -> ImportedItem {
    item(ItemKind::ToolCall {
        call_id: id.into(),
        name: name.into(),
        arguments: ClippedText::new(arguments),
    })
}

fn output(id: &str, text: &str, is_error: Option<bool>) -> ImportedItem {
    item(ItemKind::ToolOutput {
        call_id: id.into(),
        output: ClippedText::new(text),
        is_error,
    })
}

fn compaction(at_item: usize, summary: ImportedSummary) -> ImportedCompaction {
    ImportedCompaction {
        line: 9,
        at: None,
        at_item,
        kind: CompactionKind::Full,
        trigger: None,
        summary,
        tokens_before: None,
        tokens_after: None,
        items_before: None,
        items_after: None,
        kept: None,
    }
}

/// A Claude Code span: a rule, a read of the lexer, a failing cargo test.
fn span() -> Vec<ImportedItem> {
    vec![
        user("Fix the lexer. Never touch vendor/ files"),
        call("t1", "Read", r#"{"file_path":"src/parser/lexer.rs"}"#),
        output("t1", "fn lex() {}", Some(false)),
        call("t2", "Bash", r#"{"command":"cargo test -p parser"}"#),
        output("t2", "error: 2 tests failed", Some(true)),
    ]
}

#[test]
fn a_path_command_error_and_rule_absent_from_the_summary_are_lost() {
    let items = span();
    let summary = ImportedSummary::Text("We worked on parsing.".into());
    let audit = audit_compaction(&items, 0, &compaction(items.len(), summary)).unwrap();
    assert!(audit.against_summary);
    assert!(audit.paths.contains(&"src/parser/lexer.rs".to_owned()));
    assert_eq!(audit.commands, ["cargo test -p parser"]);
    assert_eq!(audit.errors.len(), 1);
    assert!(audit.errors[0].contains("2 tests failed"));
    assert_eq!(audit.rules, ["Never touch vendor/ files"]);
}

#[test]
fn what_the_summary_names_is_not_lost() {
    let items = span();
    let summary = ImportedSummary::Text(
        "Read src/parser/lexer.rs; ran cargo test -p parser: error: 2 tests failed. \
         Never touch vendor/ files. Kept vendor/ and parser too."
            .into(),
    );
    let audit = audit_compaction(&items, 0, &compaction(items.len(), summary)).unwrap();
    assert_eq!(
        audit,
        ImportedLossAudit {
            against_summary: true,
            ..Default::default()
        }
    );
}

#[test]
fn an_encrypted_summary_is_audited_against_the_kept_messages_only() {
    let items = span();
    let mut boundary = compaction(items.len(), ImportedSummary::Encrypted);
    boundary.kept = Some(KeptItems {
        user_messages: 1,
        ..KeptItems::default()
    });
    let audit = audit_compaction(&items, 0, &boundary).unwrap();
    assert!(!audit.against_summary);
    // The kept person's message carries the rule, not the lexer's path.
    assert!(audit.rules.is_empty());
    assert!(audit.paths.contains(&"src/parser/lexer.rs".to_owned()));
}

#[test]
fn only_items_since_the_previous_compaction_are_audited() {
    let mut items = span();
    items.push(user("now the docs"));
    let audit =
        audit_compaction(&items, 5, &compaction(items.len(), ImportedSummary::Absent)).unwrap();
    assert!(audit.paths.is_empty() && audit.commands.is_empty() && audit.rules.is_empty());
}

#[test]
fn a_microcompaction_has_no_audit() {
    let items = span();
    let mut boundary = compaction(items.len(), ImportedSummary::Absent);
    boundary.kind = CompactionKind::Micro {
        tokens_saved: None,
        cleared_tool_ids: vec![],
    };
    assert_eq!(audit_compaction(&items, 0, &boundary), None);
}

#[test]
fn codex_shell_argv_and_exit_code_lines_are_read() {
    let items = vec![
        call(
            "c1",
            "shell",
            r#"{"command":["bash","-lc","cat docs/plan.md"]}"#,
        ),
        output("c1", "Exit code: 0\nWall time: 0.1 seconds\nplan", None),
    ];
    let audit =
        audit_compaction(&items, 0, &compaction(items.len(), ImportedSummary::Absent)).unwrap();
    assert_eq!(audit.commands, ["cat docs/plan.md"]);
    assert!(audit.paths.contains(&"docs/plan.md".to_owned()));
    assert!(audit.errors.is_empty());
}

#[test]
fn a_compaction_past_the_items_is_audited_up_to_the_last_item() {
    let items = span();
    let audit = audit_compaction(&items, 99, &compaction(99, ImportedSummary::Absent)).unwrap();
    assert!(audit.paths.is_empty());
}

proptest! {
    /// Whatever path is read, a summary that names it never reports it lost.
    #[test]
    fn a_path_the_summary_names_is_never_reported_lost(
        path in "[a-z]{1,8}(/[a-z_]{1,8}){0,3}\\.[a-z]{1,4}",
        other in "[A-Za-z .]{0,40}",
    ) {
        let items = vec![
            call("t1", "Read", &serde_json::json!({"file_path": path}).to_string()),
            output("t1", "contents", Some(false)),
        ];
        let summary = ImportedSummary::Text(format!("{other} {path} {other}"));
        let audit = audit_compaction(&items, 0, &compaction(items.len(), summary)).unwrap();
        prop_assert!(!audit.paths.contains(&path));
    }
}

#[test]
fn a_shell_whose_outcome_the_file_does_not_state_is_not_an_error() {
    let items = vec![
        call("c1", "exec_command", r#"{"cmd":"ls"}"#),
        output("c1", "src", None),
    ];
    let audit =
        audit_compaction(&items, 0, &compaction(items.len(), ImportedSummary::Absent)).unwrap();
    assert_eq!(audit.commands, ["ls"]);
    assert!(audit.errors.is_empty(), "{audit:?}");
}

#[test]
fn a_failed_read_is_an_error_with_its_own_message() {
    let items = vec![
        call("t1", "Read", r#"{"file_path":"src/gone.rs"}"#),
        output("t1", "File does not exist.", Some(true)),
    ];
    let audit =
        audit_compaction(&items, 0, &compaction(items.len(), ImportedSummary::Absent)).unwrap();
    assert_eq!(
        audit.errors,
        ["read_file src/gone.rs: File does not exist."]
    );
}
