//! The built-in tools end to end on real temp folders: confinement, reads,
//! writes behind approvals, the shell's kills and scrubbing, redaction and
//! the output cap.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::json;
use strata_core::tools::{
    APPLY_EDIT, ApprovalCheck, CancellationToken, LIST_DIRECTORY, OutputCap, READ_FILE, RUN_SHELL,
    SEARCH_TEXT, SessionApprovals, ToolConfig, ToolOutcome, ToolRegistry, WRITE_FILE,
};
use strata_protocol::{ApprovalDecision, ApprovalKind, ApprovalPolicy, ToolCallStatus};

fn registry(config: ToolConfig) -> (tempfile::TempDir, ToolRegistry) {
    let dir = tempfile::tempdir().unwrap();
    let tools = ToolRegistry::new(dir.path(), config).unwrap();
    (dir, tools)
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Prepares and runs a call as the agent loop would under `auto`.
async fn call(tools: &ToolRegistry, name: &str, arguments: serde_json::Value) -> ToolOutcome {
    match tools.prepare(name, &arguments.to_string()) {
        Ok(prepared) => tools.execute(&prepared, &CancellationToken::new()).await,
        Err(error) => tools.error_outcome(&error),
    }
}

#[tokio::test]
async fn workspace_escape_via_dot_dot_is_refused() {
    let (_dir, tools) = registry(ToolConfig::default());
    for (name, arguments) in [
        (READ_FILE, json!({"path": "../outside.txt"})),
        (LIST_DIRECTORY, json!({"path": ".."})),
        (
            WRITE_FILE,
            json!({"path": "new/../../escape.txt", "content": "x"}),
        ),
        (SEARCH_TEXT, json!({"pattern": "x", "path": "/etc"})),
    ] {
        let outcome = call(&tools, name, arguments).await;
        assert_eq!(outcome.status, ToolCallStatus::Error, "{name}");
        assert!(
            outcome.output.starts_with("path escapes the workspace: "),
            "{name}: {}",
            outcome.output
        );
    }
    let parent = tools.workspace().parent().unwrap();
    assert!(!parent.join("escape.txt").exists());
}

#[tokio::test]
async fn workspace_escape_via_symlink_is_refused() {
    let (dir, tools) = registry(ToolConfig::default());
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "private.txt", "outside secret\n");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link_dir")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("private.txt"),
        dir.path().join("link_file"),
    )
    .unwrap();

    for (name, arguments) in [
        (READ_FILE, json!({"path": "link_file"})),
        (READ_FILE, json!({"path": "link_dir/private.txt"})),
        (LIST_DIRECTORY, json!({"path": "link_dir"})),
        (
            WRITE_FILE,
            json!({"path": "link_dir/planted.txt", "content": "x"}),
        ),
    ] {
        let outcome = call(&tools, name, arguments.clone()).await;
        assert_eq!(
            outcome.output,
            format!(
                "path escapes the workspace: {}",
                arguments["path"].as_str().unwrap()
            )
        );
    }
    assert!(!outside.path().join("planted.txt").exists());

    // Search walks the tree itself: links out are skipped, not followed.
    let outcome = call(&tools, SEARCH_TEXT, json!({"pattern": "outside"})).await;
    assert!(
        outcome.output.starts_with("No matches"),
        "{}",
        outcome.output
    );

    // A link that stays inside is fine.
    write(dir.path(), "real/inner.txt", "inside\n");
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("alias")).unwrap();
    let outcome = call(&tools, READ_FILE, json!({"path": "alias/inner.txt"})).await;
    assert_eq!(outcome.output, "inside\n");
}

#[tokio::test]
async fn read_file_returns_the_requested_line_range() {
    let (dir, tools) = registry(ToolConfig::default());
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    write(dir.path(), "src/f.txt", &text);

    let outcome = call(
        &tools,
        READ_FILE,
        json!({"path": "src/f.txt", "start_line": 3, "end_line": 5}),
    )
    .await;
    assert_eq!(outcome.status, ToolCallStatus::Success);
    assert_eq!(outcome.output, "line 3\nline 4\nline 5\n");

    let outcome = call(
        &tools,
        READ_FILE,
        json!({"path": "src/f.txt", "start_line": 9}),
    )
    .await;
    assert_eq!(outcome.output, "line 9\nline 10\n");

    let absolute = dir.path().join("src/f.txt");
    let outcome = call(&tools, READ_FILE, json!({"path": absolute, "end_line": 1})).await;
    assert_eq!(outcome.output, "line 1\n");

    let outcome = call(
        &tools,
        READ_FILE,
        json!({"path": "src/f.txt", "start_line": 11}),
    )
    .await;
    assert_eq!(
        outcome.output,
        "invalid arguments for read_file: start_line 11 is past the end; src/f.txt has 10 lines"
    );
    let outcome = call(
        &tools,
        READ_FILE,
        json!({"path": "src/f.txt", "start_line": 0}),
    )
    .await;
    assert_eq!(outcome.status, ToolCallStatus::Error);
    assert!(outcome.output.contains("1-based"), "{}", outcome.output);
}

#[tokio::test]
async fn read_file_over_the_size_cap_is_truncated_with_a_note() {
    let (dir, tools) = registry(ToolConfig {
        output_cap: OutputCap {
            max_bytes: 16 * 1024,
            max_lines: 21,
        },
        ..ToolConfig::default()
    });
    let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
    write(dir.path(), "long.txt", &text);
    let outcome = call(&tools, READ_FILE, json!({"path": "long.txt"})).await;
    assert!(
        outcome.full_output.is_none(),
        "a read is never cut in the middle"
    );
    let expected: String = (1..=20).map(|i| format!("line {i}\n")).collect::<String>()
        + "[showing lines 1-20 of 100; call read_file with start_line=21 to read on]";
    assert_eq!(outcome.output, expected);
}

#[tokio::test]
async fn list_directory_is_sorted_with_directories_marked_and_git_skipped() {
    let (dir, tools) = registry(ToolConfig::default());
    write(dir.path(), ".git/HEAD", "ref");
    write(dir.path(), "src/main.rs", "");
    write(dir.path(), "README.md", "");
    write(dir.path(), ".gitignore", "");
    let outcome = call(&tools, LIST_DIRECTORY, json!({})).await;
    assert_eq!(outcome.output, ".gitignore\nREADME.md\nsrc/");
    let outcome = call(&tools, LIST_DIRECTORY, json!({"path": "src"})).await;
    assert_eq!(outcome.output, "main.rs");
}

#[tokio::test]
async fn search_respects_gitignore() {
    let (dir, tools) = registry(ToolConfig::default());
    write(dir.path(), ".gitignore", "target/\n*.log\n");
    write(dir.path(), "src/lib.rs", "// needle in source\n");
    write(
        dir.path(),
        "target/debug/out.rs",
        "// needle in build output\n",
    );
    write(dir.path(), "run.log", "needle in a log\n");
    write(dir.path(), "docs/guide.md", "no match\nthe needle again\n");

    let outcome = call(&tools, SEARCH_TEXT, json!({"pattern": "needle"})).await;
    assert_eq!(outcome.status, ToolCallStatus::Success);
    assert_eq!(
        outcome.output,
        "docs/guide.md:2: the needle again\nsrc/lib.rs:1: // needle in source"
    );

    let outcome = call(
        &tools,
        SEARCH_TEXT,
        json!({"pattern": r"needle\s+in", "path": "src"}),
    )
    .await;
    assert_eq!(outcome.output, "src/lib.rs:1: // needle in source");
}

#[tokio::test]
async fn write_shows_a_diff_and_needs_approval_under_ask() {
    let (dir, tools) = registry(ToolConfig::default());
    write(dir.path(), "notes.txt", "alpha\nbeta\n");
    let approvals = SessionApprovals::new(ApprovalPolicy::Ask);

    let prepared = tools
        .prepare(
            WRITE_FILE,
            &json!({"path": "notes.txt", "content": "alpha\ngamma\n"}).to_string(),
        )
        .unwrap();
    assert!(prepared.needs_approval(ApprovalPolicy::Ask));
    let ApprovalCheck::Ask(request) = approvals.check(&prepared, "call_1") else {
        panic!("a write under ask must wait for approval");
    };
    assert_eq!(request.call_id, "call_1");
    assert_eq!(request.tool, WRITE_FILE);
    assert_eq!(
        request.kind,
        ApprovalKind::Write {
            path: "notes.txt".into(),
            diff: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n"
                .into(),
        }
    );
    // Nothing was written while waiting.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "alpha\nbeta\n"
    );

    // An edit shows its diff too; a shell command shows command and folder.
    let edit = tools
        .prepare(
            APPLY_EDIT,
            &json!({"path": "notes.txt", "old_text": "beta", "new_text": "delta"}).to_string(),
        )
        .unwrap();
    let Some(ApprovalKind::Write { diff, .. }) = edit.approval_request("c").map(|r| r.kind) else {
        panic!("an edit shows a diff");
    };
    assert!(diff.contains("-beta\n+delta\n"), "{diff}");
    let shell = tools
        .prepare(RUN_SHELL, &json!({"command": "ls -la"}).to_string())
        .unwrap();
    let ApprovalCheck::Ask(request) = approvals.check(&shell, "call_2") else {
        panic!("shell under ask must wait for approval");
    };
    assert_eq!(
        request.kind,
        ApprovalKind::Shell {
            command: "ls -la".into(),
            cwd: tools.workspace().to_string_lossy().into_owned(),
        }
    );

    // Reads never ask.
    let read = tools
        .prepare(READ_FILE, &json!({"path": "notes.txt"}).to_string())
        .unwrap();
    assert!(!read.needs_approval(ApprovalPolicy::Ask));
    assert_eq!(approvals.check(&read, "call_3"), ApprovalCheck::Run);
}

#[tokio::test]
async fn auto_runs_writes_and_shell_without_asking() {
    let (dir, tools) = registry(ToolConfig::default());
    let approvals = SessionApprovals::new(ApprovalPolicy::Auto);
    let write_call = tools
        .prepare(
            WRITE_FILE,
            &json!({"path": "deep/new.txt", "content": "hello\n"}).to_string(),
        )
        .unwrap();
    assert!(!write_call.needs_approval(ApprovalPolicy::Auto));
    assert_eq!(approvals.check(&write_call, "c1"), ApprovalCheck::Run);
    let outcome = tools.execute(&write_call, &CancellationToken::new()).await;
    assert_eq!(outcome.status, ToolCallStatus::Success);
    assert_eq!(outcome.output, "Created deep/new.txt (1 lines, 6 bytes).");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("deep/new.txt")).unwrap(),
        "hello\n"
    );

    let shell = tools
        .prepare(
            RUN_SHELL,
            &json!({"command": "cat deep/new.txt; pwd"}).to_string(),
        )
        .unwrap();
    assert_eq!(approvals.check(&shell, "c2"), ApprovalCheck::Run);
    let outcome = tools.execute(&shell, &CancellationToken::new()).await;
    assert_eq!(outcome.status, ToolCallStatus::Success);
    assert_eq!(outcome.exit_code, Some(0));
    assert_eq!(
        outcome.output,
        format!("hello\n{}\n[exit code: 0]", tools.workspace().display())
    );
}

#[tokio::test]
async fn read_only_refuses_writes_and_shell_with_a_clear_output() {
    let (dir, tools) = registry(ToolConfig::default());
    let approvals = SessionApprovals::new(ApprovalPolicy::ReadOnly);
    for (name, arguments) in [
        (WRITE_FILE, json!({"path": "x.txt", "content": "x"})),
        (RUN_SHELL, json!({"command": "touch y.txt"})),
    ] {
        let prepared = tools.prepare(name, &arguments.to_string()).unwrap();
        let ApprovalCheck::Refuse(error) = approvals.check(&prepared, "c") else {
            panic!("{name} must be refused under read-only");
        };
        let outcome = tools.error_outcome(&error);
        assert_eq!(outcome.status, ToolCallStatus::Denied);
        assert_eq!(
            outcome.output,
            format!(
                "{name} was refused: this session is read-only (approval policy read-only); only list_directory, read_file and search_text may run"
            )
        );
    }
    assert!(!dir.path().join("x.txt").exists() && !dir.path().join("y.txt").exists());

    let read = tools
        .prepare(LIST_DIRECTORY, &json!({}).to_string())
        .unwrap();
    assert_eq!(approvals.check(&read, "c"), ApprovalCheck::Run);
}

#[tokio::test]
async fn allow_for_session_is_remembered_for_later_calls_of_the_same_kind() {
    let (_dir, tools) = registry(ToolConfig::default());
    let mut approvals = SessionApprovals::new(ApprovalPolicy::Ask);
    let first = tools
        .prepare(
            WRITE_FILE,
            &json!({"path": "a.txt", "content": "a"}).to_string(),
        )
        .unwrap();
    assert!(matches!(
        approvals.check(&first, "c1"),
        ApprovalCheck::Ask(_)
    ));
    approvals
        .resolve(&first, ApprovalDecision::AllowForSession)
        .unwrap();
    tools.execute(&first, &CancellationToken::new()).await;

    // The remembered kind is "write": apply_edit runs without asking too.
    let edit = tools
        .prepare(
            APPLY_EDIT,
            &json!({"path": "a.txt", "old_text": "a", "new_text": "b"}).to_string(),
        )
        .unwrap();
    assert_eq!(approvals.check(&edit, "c2"), ApprovalCheck::Run);

    // Other kinds still ask, and allow-once is not remembered.
    let shell = tools
        .prepare(RUN_SHELL, &json!({"command": "true"}).to_string())
        .unwrap();
    assert!(matches!(
        approvals.check(&shell, "c3"),
        ApprovalCheck::Ask(_)
    ));
    approvals
        .resolve(&shell, ApprovalDecision::AllowOnce)
        .unwrap();
    assert!(matches!(
        approvals.check(&shell, "c4"),
        ApprovalCheck::Ask(_)
    ));
}

#[tokio::test]
async fn deny_becomes_an_output_the_model_sees() {
    let (dir, tools) = registry(ToolConfig::default());
    let mut approvals = SessionApprovals::new(ApprovalPolicy::Ask);
    let prepared = tools
        .prepare(
            WRITE_FILE,
            &json!({"path": "src/a.rs", "content": "x"}).to_string(),
        )
        .unwrap();
    let error = approvals
        .resolve(&prepared, ApprovalDecision::Deny)
        .unwrap_err();
    let outcome = tools.error_outcome(&error);
    assert_eq!(outcome.status, ToolCallStatus::Denied);
    assert_eq!(
        outcome.output,
        "The user denied this write to src/a.rs. Do not retry it; ask the user how to proceed."
    );
    assert!(!dir.path().join("src/a.rs").exists());
    // A denial is not remembered: the next write asks again.
    assert!(matches!(
        approvals.check(&prepared, "c"),
        ApprovalCheck::Ask(_)
    ));
}

#[tokio::test]
async fn apply_edit_replaces_the_unique_match_or_explains_why_not() {
    let (dir, tools) = registry(ToolConfig::default());
    write(dir.path(), "f.rs", "fn a() {}\nfn b() {}\nfn a() {}\n");
    let outcome = call(
        &tools,
        APPLY_EDIT,
        json!({"path": "f.rs", "old_text": "fn a() {}", "new_text": "fn c() {}"}),
    )
    .await;
    assert_eq!(outcome.status, ToolCallStatus::Error);
    assert_eq!(
        outcome.output,
        "old_text occurs 2 times in f.rs; include more surrounding lines so it matches exactly once"
    );
    let outcome = call(
        &tools,
        APPLY_EDIT,
        json!({"path": "f.rs", "old_text": "fn b() {}\nfn a", "new_text": "fn b() {}\nfn z"}),
    )
    .await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::Success,
        "{}",
        outcome.output
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.rs")).unwrap(),
        "fn a() {}\nfn b() {}\nfn z() {}\n"
    );
}

#[tokio::test]
async fn unknown_tools_and_bad_arguments_are_outputs_not_failures() {
    let (_dir, tools) = registry(ToolConfig::default());
    let outcome = call(&tools, "delete_everything", json!({})).await;
    assert_eq!(outcome.status, ToolCallStatus::Error);
    assert!(outcome.output.starts_with(
        "unknown tool \"delete_everything\"; the tools are: list_directory, read_file"
    ));
    let error = tools.prepare(READ_FILE, "{not json").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("invalid arguments for read_file: ")
    );
    assert_eq!(tools.specs().len(), 6);
}
