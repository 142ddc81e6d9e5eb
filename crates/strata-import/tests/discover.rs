//! Discovery of the three tools' standard folders under a home made in a
//! temporary directory.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use strata_import::{SessionFileRef, Tool, discover};

fn touch(home: &Path, relative: &str) {
    let path = home.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"{}\n").unwrap();
}

#[test]
fn finds_each_tools_sessions_preferring_plain_rollouts_and_skipping_links_and_subagents() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    for file in [
        ".codex/sessions/2026/06/26/rollout-2026-06-26T12-20-52-a.jsonl",
        // Both forms of one rollout: Codex reads the plain one.
        ".codex/sessions/2026/06/26/rollout-2026-06-26T13-00-00-b.jsonl",
        ".codex/sessions/2026/06/26/rollout-2026-06-26T13-00-00-b.jsonl.zst",
        ".codex/sessions/2026/06/27/rollout-2026-06-27T09-00-00-c.jsonl.zst",
        ".codex/sessions/2026/06/27/notes.txt",
        ".codex/archived_sessions/rollout-2026-05-01T10-00-00-d.jsonl",
        ".claude/projects/-work-demo/0cf3db51.jsonl",
        ".claude/projects/-work-demo/agent-1234.jsonl",
        ".claude/projects/-work-demo/0cf3db51/subagents/agent-5678.jsonl",
        ".copilot/session-state/10fb4666/events.jsonl",
        ".copilot/session-state/10fb4666/workspace.yaml",
        ".copilot/session-state/legacy-1.jsonl",
    ] {
        touch(home, file);
    }
    let outside = tempfile::tempdir().unwrap();
    touch(outside.path(), "rollout-2026-01-01T00-00-00-e.jsonl");
    std::os::unix::fs::symlink(
        outside.path().join("rollout-2026-01-01T00-00-00-e.jsonl"),
        home.join(".codex/sessions/2026/06/26/rollout-2026-01-01T00-00-00-e.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), home.join(".claude/projects/linked")).unwrap();

    let found: Vec<(Tool, String, bool)> = discover(home)
        .into_iter()
        .map(
            |SessionFileRef {
                 tool,
                 path,
                 archived,
             }| {
                let relative = path
                    .strip_prefix(home)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                (tool, relative, archived)
            },
        )
        .collect();
    let expected = [
        (
            Tool::Codex,
            ".codex/archived_sessions/rollout-2026-05-01T10-00-00-d.jsonl",
            true,
        ),
        (
            Tool::Codex,
            ".codex/sessions/2026/06/26/rollout-2026-06-26T12-20-52-a.jsonl",
            false,
        ),
        (
            Tool::Codex,
            ".codex/sessions/2026/06/26/rollout-2026-06-26T13-00-00-b.jsonl",
            false,
        ),
        (
            Tool::Codex,
            ".codex/sessions/2026/06/27/rollout-2026-06-27T09-00-00-c.jsonl.zst",
            false,
        ),
        (
            Tool::ClaudeCode,
            ".claude/projects/-work-demo/0cf3db51.jsonl",
            false,
        ),
        (
            Tool::CopilotCli,
            ".copilot/session-state/10fb4666/events.jsonl",
            false,
        ),
        (
            Tool::CopilotCli,
            ".copilot/session-state/legacy-1.jsonl",
            false,
        ),
    ]
    .map(|(tool, path, archived)| (tool, path.to_owned(), archived));
    assert_eq!(found, expected);
}

#[test]
fn a_home_without_any_tool_finds_nothing() {
    let home = tempfile::tempdir().unwrap();
    assert!(discover(home.path()).is_empty());
    assert!(discover(&home.path().join("missing")).is_empty());
}
