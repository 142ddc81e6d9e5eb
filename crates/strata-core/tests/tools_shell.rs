//! `run_shell` end to end: timeouts and cancellation kill the command, its
//! environment is an allow-list, configured secrets never leave the tool layer,
//! and long output is capped with the full text kept.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::Duration;

use serde_json::json;
use strata_core::tools::{
    CancellationToken, OutputCap, READ_FILE, RUN_SHELL, SEARCH_TEXT, SHELL_ENV_ALLOWED, ToolConfig,
    ToolOutcome, ToolRegistry, WRITE_FILE,
};
use strata_protocol::{ApprovalKind, ToolCallStatus};

fn registry(config: ToolConfig) -> (tempfile::TempDir, ToolRegistry) {
    let dir = tempfile::tempdir().unwrap();
    let tools = ToolRegistry::new(dir.path(), config).unwrap();
    (dir, tools)
}

async fn call(tools: &ToolRegistry, name: &str, arguments: serde_json::Value) -> ToolOutcome {
    let prepared = tools.prepare(name, &arguments.to_string()).unwrap();
    tools.execute(&prepared, &CancellationToken::new()).await
}

#[tokio::test]
async fn shell_timeout_kills_the_command_and_what_it_started() {
    let (_dir, tools) = registry(ToolConfig::default());
    // The background sleep holds the output pipe until it dies: had it
    // survived the kill, the output would end with a note that it may be
    // incomplete, after waiting out a grace period.
    let outcome = call(
        &tools,
        RUN_SHELL,
        json!({"command": "sleep 30 & echo waiting; wait", "timeout_ms": 300}),
    )
    .await;
    assert_eq!(outcome.status, ToolCallStatus::TimedOut);
    assert_eq!(
        outcome.output,
        "waiting\n[timed out after 300 ms; the command and everything it started were killed]"
    );
    assert!(
        outcome.duration < Duration::from_secs(5),
        "{:?}",
        outcome.duration
    );
}

#[tokio::test]
async fn shell_timeout_is_clamped_to_the_configured_maximum() {
    let (_dir, tools) = registry(ToolConfig {
        shell_max_timeout: Duration::from_millis(200),
        ..ToolConfig::default()
    });
    let outcome = call(
        &tools,
        RUN_SHELL,
        json!({"command": "sleep 30", "timeout_ms": 3_600_000}),
    )
    .await;
    assert_eq!(outcome.status, ToolCallStatus::TimedOut);
    assert!(
        outcome.output.contains("timed out after 200 ms"),
        "{}",
        outcome.output
    );
}

#[tokio::test]
async fn shell_cancellation_kills_the_running_command() {
    let (dir, tools) = registry(ToolConfig::default());
    let fifo = dir.path().join("ready.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let prepared = tools
        .prepare(
            RUN_SHELL,
            &json!({"command": "echo running; echo started > ready.fifo; sleep 30"}).to_string(),
        )
        .unwrap();
    let cancel = CancellationToken::new();
    let running = tokio::spawn({
        let (tools, cancel) = (tools.clone(), cancel.clone());
        async move { tools.execute(&prepared, &cancel).await }
    });
    // Opening the fifo for reading completes once the command wrote to it:
    // the command is running when this returns.
    let signal = tokio::task::spawn_blocking(move || std::fs::read_to_string(fifo))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(signal, "started\n");
    cancel.cancel();
    let outcome = running.await.unwrap();
    assert_eq!(outcome.status, ToolCallStatus::Cancelled);
    assert_eq!(
        outcome.output,
        "running\n[cancelled; the command and everything it started were killed]"
    );
    assert!(
        outcome.duration < Duration::from_secs(10),
        "{:?}",
        outcome.duration
    );
}

#[tokio::test]
async fn a_call_cancelled_before_it_runs_does_nothing() {
    let (dir, tools) = registry(ToolConfig::default());
    let prepared = tools
        .prepare(RUN_SHELL, &json!({"command": "touch ran"}).to_string())
        .unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let outcome = tools.execute(&prepared, &cancel).await;
    assert_eq!(outcome.status, ToolCallStatus::Cancelled);
    assert_eq!(
        outcome.output,
        "The run_shell call was cancelled before it ran."
    );
    assert!(!dir.path().join("ran").exists());
}

const CHILD_MARKER: &str = "STRATA_TOOLS_SHELL_ENV_CHILD";
const PLANTED: &str = "planted-value-0123456789abcdef";

/// Runs [`shell_env_child`] in a fresh process whose inherited environment
/// holds credentials and an innocent variable; tests cannot safely change
/// their own.
#[test]
fn the_shell_gets_only_allow_listed_and_configured_variables() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["shell_env_child", "--exact", "--ignored", "--nocapture"])
        .env(CHILD_MARKER, "1")
        .env("AWS_SECRET_ACCESS_KEY", "fake-aws-secret")
        .env("GITHUB_TOKEN", "ghp_fake")
        .env("MY_DB_PASSWORD", "fake-db-password")
        .env("OPENAI_API_KEY", "sk-fake-openai")
        .env("FOO", "innocent")
        .env("PASSED_ON", PLANTED)
        .env("LC_TIME", "C")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The names and values `env` printed in a command run by `tools`.
async fn shell_env(tools: &ToolRegistry) -> Vec<(String, String)> {
    let outcome = call(tools, RUN_SHELL, json!({"command": "env"})).await;
    assert_eq!(outcome.status, ToolCallStatus::Success);
    outcome
        .output
        .lines()
        .filter(|line| !line.starts_with("[exit code"))
        .map(|line| {
            let (name, value) = line.split_once('=').unwrap_or((line, ""));
            (name.to_owned(), value.to_owned())
        })
        .collect()
}

#[tokio::test]
#[ignore = "run by the_shell_gets_only_allow_listed_and_configured_variables with a planted environment"]
async fn shell_env_child() {
    if std::env::var_os(CHILD_MARKER).is_none() {
        return;
    }
    let (_dir, tools) = registry(ToolConfig::default());
    let env = shell_env(&tools).await;
    let names: Vec<&str> = env.iter().map(|(name, _)| name.as_str()).collect();
    for name in &names {
        assert!(
            SHELL_ENV_ALLOWED.contains(name)
                || name.starts_with("LC_")
                || *name == "STRATA_SHELL_RUN"
                // sh itself sets these.
                || ["PWD", "OLDPWD", "SHLVL", "_"].contains(name),
            "{name} reached the command: {names:?}"
        );
    }
    assert!(
        names.contains(&"PATH") && names.contains(&"LC_TIME"),
        "{names:?}"
    );

    // Names the person configured pass, and only those; their values are
    // still redacted from the output when they are configured secrets.
    let (_dir, tools) = registry(ToolConfig {
        shell_env: vec!["FOO".into(), "PASSED_ON".into(), "GITHUB_TOKEN".into()],
        secrets: vec![PLANTED.to_owned()],
        ..ToolConfig::default()
    });
    let env = shell_env(&tools).await;
    let value = |wanted: &str| {
        env.iter()
            .find(|(name, _)| name == wanted)
            .map(|(_, value)| value.as_str())
    };
    assert_eq!(value("FOO"), Some("innocent"));
    assert_eq!(value("GITHUB_TOKEN"), Some("ghp_fake"));
    assert_eq!(value("PASSED_ON"), Some("[redacted]"));
    for name in ["AWS_SECRET_ACCESS_KEY", "MY_DB_PASSWORD", "OPENAI_API_KEY"] {
        assert_eq!(value(name), None, "{name}");
    }
}

#[tokio::test]
async fn configured_secrets_are_redacted_from_every_tool_output() {
    let secret = "sk-live-0123456789abcdefghij";
    let (dir, tools) = registry(ToolConfig {
        secrets: vec![secret.to_owned()],
        ..ToolConfig::default()
    });
    std::fs::write(
        dir.path().join("config.env"),
        format!("API={secret}\nother=1\n"),
    )
    .unwrap();

    let read = call(&tools, READ_FILE, json!({"path": "config.env"})).await;
    assert_eq!(read.output, "API=[redacted]\nother=1\n");
    let search = call(&tools, SEARCH_TEXT, json!({"pattern": "API"})).await;
    assert_eq!(search.output, "config.env:1: API=[redacted]");
    let shell = call(
        &tools,
        RUN_SHELL,
        json!({"command": format!("cat config.env; echo {secret} >&2")}),
    )
    .await;
    assert_eq!(
        shell.output,
        "API=[redacted]\nother=1\n[redacted]\n[exit code: 0]"
    );

    // So are approval requests: the command shown and a write's diff.
    let shell = tools
        .prepare(
            RUN_SHELL,
            &json!({"command": format!("echo {secret}")}).to_string(),
        )
        .unwrap();
    let request = shell.approval_request("c1").unwrap();
    assert_eq!(
        request.kind,
        ApprovalKind::Shell {
            command: "echo [redacted]".into(),
            cwd: tools.workspace().to_string_lossy().into_owned(),
        }
    );
    let write = tools
        .prepare(
            WRITE_FILE,
            &json!({"path": "k.txt", "content": format!("{secret}\n")}).to_string(),
        )
        .unwrap();
    let Some(ApprovalKind::Write { diff, .. }) = write.approval_request("c2").map(|r| r.kind)
    else {
        panic!("a write shows a diff");
    };
    assert_eq!(
        diff,
        "--- /dev/null\n+++ b/k.txt\n@@ -0,0 +1 @@\n+[redacted]\n"
    );

    // The full text kept beside a capped output is redacted too.
    let (dir, tools) = registry(ToolConfig {
        secrets: vec![secret.to_owned()],
        output_cap: OutputCap {
            max_bytes: 200,
            max_lines: 10,
        },
        ..ToolConfig::default()
    });
    let long = call(
        &tools,
        RUN_SHELL,
        json!({"command": format!("seq 1 100; echo {secret}; seq 1 100")}),
    )
    .await;
    assert!(!long.output.contains(secret));
    let full = long.full_output.unwrap();
    assert!(full.contains("[redacted]") && !full.contains(secret));
    drop(dir);
}

#[tokio::test]
async fn output_over_the_cap_is_cut_with_a_marker_and_the_full_text_kept() {
    let (_dir, tools) = registry(ToolConfig {
        output_cap: OutputCap {
            max_bytes: 16 * 1024,
            max_lines: 40,
        },
        ..ToolConfig::default()
    });
    let outcome = call(&tools, RUN_SHELL, json!({"command": "seq 1 1000"})).await;
    let full = outcome
        .full_output
        .expect("capped output keeps its full text");
    let expected_full: String =
        (1..=1000).map(|i| format!("{i}\n")).collect::<String>() + "[exit code: 0]";
    assert_eq!(full, expected_full);

    let lines: Vec<&str> = outcome.output.lines().collect();
    assert_eq!(lines.len(), 41);
    assert_eq!(
        lines[..20],
        (1..=20).map(|i| i.to_string()).collect::<Vec<_>>()
    );
    // Kept tail: the last 19 numbers and the exit code line.
    assert_eq!(
        lines[21..40],
        (982..=1000).map(|i| i.to_string()).collect::<Vec<_>>()
    );
    assert_eq!(lines[40], "[exit code: 0]");
    let cut_text: String = (21..=981).map(|i| format!("{i}\n")).collect();
    assert_eq!(
        lines[20],
        format!(
            "[... {} characters (961 lines) cut ...]",
            group_thousands(cut_text.len())
        )
    );
}

fn group_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
