//! Cutting tool output never leaves part of a configured secret visible: not
//! the shell's capture limit (which keeps the head and the tail of a long
//! output), not the history cap (which keeps its head and tail too).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use strata_core::tools::{
    CancellationToken, OutputCap, RUN_SHELL, ToolConfig, ToolOutcome, ToolRegistry,
};

const SECRET: &str = "sk-live-0123456789abcdefghij";

fn registry(config: ToolConfig) -> (tempfile::TempDir, ToolRegistry) {
    let dir = tempfile::tempdir().unwrap();
    let tools = ToolRegistry::new(dir.path(), config).unwrap();
    (dir, tools)
}

async fn shell(tools: &ToolRegistry, command: &str) -> ToolOutcome {
    let arguments = json!({ "command": command }).to_string();
    let prepared = tools.prepare(RUN_SHELL, &arguments).unwrap();
    tools.execute(&prepared, &CancellationToken::new()).await
}

/// No run of 4 or more characters of the secret appears in `text`.
fn assert_no_fragment(text: &str) {
    for start in 0..SECRET.len() {
        for end in start + 4..=SECRET.len() {
            let fragment = &SECRET[start..end];
            assert!(
                !text.contains(fragment),
                "{fragment:?} of the secret is visible in {text:?}"
            );
        }
    }
}

/// Every text the outcome carries (the history's and the full record's).
fn texts(outcome: &ToolOutcome) -> Vec<&str> {
    std::iter::once(outcome.output.as_str())
        .chain(outcome.full_output.as_deref())
        .collect()
}

#[tokio::test]
async fn a_secret_split_by_the_shell_capture_limit_leaves_no_part_visible() {
    // 40 bytes kept: the first 20 and the last 20 of 43. The secret starts at
    // byte 15, so the cut splits it 5 | 3 | 20.
    let (_dir, tools) = registry(ToolConfig {
        secrets: vec![SECRET.to_owned()],
        shell_capture_bytes: 40,
        ..ToolConfig::default()
    });
    let outcome = shell(&tools, &format!("printf 'aaaaaaaaaaaaaaa%s' {SECRET}")).await;
    for text in texts(&outcome) {
        assert_no_fragment(text);
    }
    assert_eq!(
        outcome.output,
        "aaaaaaaaaaaaaaa[redacted]\n\
         [... 3 bytes of output in the middle were not kept ...]\n\
         [redacted]\n[exit code: 0]"
    );
}

#[tokio::test]
async fn a_secret_split_on_either_side_of_the_capture_cut_is_redacted() {
    // Wherever the cut falls in the secret, nothing of it stays visible.
    for before in 0..40 {
        let (_dir, tools) = registry(ToolConfig {
            secrets: vec![SECRET.to_owned()],
            shell_capture_bytes: 50,
            ..ToolConfig::default()
        });
        let command = format!(
            "printf '%s%s%s' {} {SECRET} {}",
            "x".repeat(before + 1),
            "y".repeat(40 - before)
        );
        let outcome = shell(&tools, &command).await;
        for text in texts(&outcome) {
            assert_no_fragment(text);
        }
        assert!(outcome.output.starts_with('x'), "{}", outcome.output);
        assert!(
            outcome.output.ends_with("y\n[exit code: 0]"),
            "{}",
            outcome.output
        );
    }
}

#[tokio::test]
async fn the_shell_capture_keeps_the_end_of_a_long_output() {
    let (_dir, tools) = registry(ToolConfig {
        shell_capture_bytes: 64,
        ..ToolConfig::default()
    });
    let outcome = shell(&tools, "seq 1 1000; echo 'error: it broke' >&2; exit 1").await;
    assert!(
        outcome.output.starts_with("1\n2\n3\n"),
        "{}",
        outcome.output
    );
    assert!(
        outcome
            .output
            .ends_with("999\n1000\nerror: it broke\n[exit code: 1]"),
        "{}",
        outcome.output
    );
    // 3,893 bytes of seq and 16 of the error line, 64 of them kept.
    assert!(
        outcome
            .output
            .contains("\n[... 3845 bytes of output in the middle were not kept ...]\n"),
        "{}",
        outcome.output
    );
}

#[tokio::test]
async fn a_secret_split_by_the_history_cap_leaves_no_part_visible() {
    // The history cap keeps about 100 bytes from each end; a secret across
    // the head's cut and one across the tail's.
    for offset in 0..SECRET.len() {
        let (_dir, tools) = registry(ToolConfig {
            secrets: vec![SECRET.to_owned()],
            output_cap: OutputCap {
                max_bytes: 200,
                max_lines: 1_000,
            },
            ..ToolConfig::default()
        });
        let command = format!(
            "printf '%s%s%s%s%s' {} {SECRET} {} {SECRET} {}",
            "z".repeat(90 - offset),
            "m".repeat(400),
            "z".repeat(70 + offset),
        );
        let outcome = shell(&tools, &command).await;
        assert!(outcome.full_output.is_some(), "the output was capped");
        for text in texts(&outcome) {
            assert_no_fragment(text);
        }
    }
}
