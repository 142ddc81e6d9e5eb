//! `strata run --sandbox MODE`: the built binary runs the model's shell
//! command through the sandbox launcher beside it, and the model reads which
//! rule refused what; where the sandbox cannot be had the session says so
//! and no command runs without approval, under `--approval auto` too.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::server::{Reply, ResponsesServer, sse_call, sse_text};
use support::{Home, has_output, responses_run};

/// The launcher cargo built beside `strata`, if it did.
fn launcher(test: &str) -> Option<PathBuf> {
    let beside = Path::new(env!("CARGO_BIN_EXE_strata")).with_file_name("strata-sandbox-exec");
    if beside.is_file() {
        Some(beside)
    } else {
        eprintln!("SKIPPED (strata-sandbox-exec not built; cargo build -p strata-sandbox): {test}");
        None
    }
}

/// A model that runs `command` once, then says it is done.
fn server_running(command: String) -> ResponsesServer {
    ResponsesServer::start(move |_, body| {
        if has_output(body) {
            Reply::Sse(sse_text("Done.", 400, 3))
        } else {
            Reply::Sse(sse_call(
                "call_s",
                "run_shell",
                &json!({ "command": command }),
                380,
                12,
            ))
        }
    })
}

/// The shell call's output as the model read it.
fn tool_output(server: &ResponsesServer) -> String {
    let requests = server.requests();
    let body: &Value = requests
        .iter()
        .find(|body| has_output(body))
        .expect("no tool output sent");
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call_output")
        .and_then(|item| item["output"].as_str())
        .unwrap()
        .to_owned()
}

#[test]
fn a_sandboxed_run_writes_in_the_workspace_and_the_model_reads_why_the_outside_write_failed() {
    let test =
        "a_sandboxed_run_writes_in_the_workspace_and_the_model_reads_why_the_outside_write_failed";
    if launcher(test).is_none() {
        return;
    }
    let home = Home::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped");
    let server = server_running(format!("echo in > made; echo x > '{}'", target.display()));
    let run = home.run(&responses_run(
        "go",
        &server.base_url,
        &["--approval", "auto", "--sandbox", "workspace-write"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(
        run.stderr.contains("· sandbox workspace-write ·"),
        "{}",
        run.stderr
    );
    assert!(home.workspace.path().join("made").is_file());
    assert!(!target.exists());
    let output = tool_output(&server);
    assert!(
        output.contains("[sandbox: writes outside the workspace are refused (workspace-write)]"),
        "{output}"
    );
}

#[test]
fn without_a_kernel_sandbox_auto_runs_no_command_and_the_session_says_why() {
    let test = "without_a_kernel_sandbox_auto_runs_no_command_and_the_session_says_why";
    if launcher(test).is_none() {
        return;
    }
    let home = Home::new();
    let server = server_running("echo in > made".to_owned());
    let run = home.run_with(
        &responses_run(
            "go",
            &server.base_url,
            &["--approval", "auto", "--sandbox", "workspace-write"],
        ),
        &[("STRATA_SANDBOX_FORCE_UNSUPPORTED", "1")],
    );
    assert!(
        run.stderr.contains(
            "the workspace-write sandbox is unavailable (this kernel lacks Landlock ABI 3"
        ) && run.stderr.contains("every shell command asks first"),
        "{}",
        run.stderr
    );
    // No terminal to ask on: the command waits for a person who is not
    // there, so it is refused and never runs.
    assert!(!home.workspace.path().join("made").exists(), "{run:#?}");
    assert!(
        !tool_output(&server).contains("[exit code"),
        "{}",
        tool_output(&server)
    );
}
