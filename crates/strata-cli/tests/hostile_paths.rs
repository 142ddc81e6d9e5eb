//! Hostile paths against the built `strata` binary: a local Responses server
//! plays a prompt-injected model issuing the malicious tool calls, and the
//! workspace is an untrusted repository holding links, FIFOs and secrets.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use support::server::{ResponsesServer, model_calling};
use support::{Home, Run, responses_run};

const SENTINEL: &str = "OUTSIDE-SENTINEL-5e1f";

/// The outputs the model received, in order, from the last request.
fn outputs(server: &ResponsesServer) -> Vec<String> {
    let last = server.requests().pop().unwrap();
    last["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "function_call_output")
        .map(|item| item["output"].as_str().unwrap().to_owned())
        .collect()
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Runs the binary, failing (and killing it) if it has not exited in 60 s:
/// a hang on a FIFO shows as a failure, not as a stuck suite.
fn run_bounded(home: &Home, args: &[&str]) -> Run {
    let mut child = home
        .command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("strata {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Every file under Strata's home, as text.
fn everything_strata_wrote(home: &Home) -> String {
    let mut text = String::new();
    let mut stack = vec![home.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                text.push_str(&String::from_utf8_lossy(&std::fs::read(path).unwrap()));
            }
        }
    }
    text
}

/// A workspace holding `link`, a symlink to a folder outside with `secret.txt`.
fn linked_outside(home: &Home) -> tempfile::TempDir {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), SENTINEL).unwrap();
    symlink(outside.path(), home.workspace.path().join("link")).unwrap();
    outside
}

#[test]
fn dot_dot_after_a_missing_folder_reads_and_writes_nothing_outside() {
    let home = Home::new();
    let outside = linked_outside(&home);
    let server = model_calling(vec![
        ("read_file", json!({"path": "missing/../link/secret.txt"})),
        ("list_directory", json!({"path": "missing/../link"})),
        ("search_text", json!({"pattern": "SENTINEL"})),
        ("read_file", json!({"path": "link/secret.txt"})),
    ]);
    let run = home.run(&responses_run(
        "look around",
        &server.base_url,
        &["--approval", "read-only"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    let seen = outputs(&server);
    assert_eq!(seen.len(), 4, "{seen:#?}");
    assert_eq!(seen[0], "missing does not exist");
    assert_eq!(seen[1], "missing does not exist");
    assert!(seen[2].starts_with("No matches"), "{}", seen[2]);
    assert!(seen[3].starts_with("path escapes the workspace"));
    for request in server.requests() {
        assert!(!request.to_string().contains(SENTINEL));
    }
    assert!(!everything_strata_wrote(&home).contains(SENTINEL));

    let server = model_calling(vec![(
        "write_file",
        json!({"path": "missing/../link/planted.txt", "content": "planted"}),
    )]);
    let run = home.run(&responses_run(
        "write",
        &server.base_url,
        &["--approval", "auto"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    assert_eq!(outputs(&server), ["missing does not exist"]);
    assert!(!outside.path().join("planted.txt").exists());
    assert!(!home.workspace.path().join("missing").exists());
}

#[test]
fn a_symlinked_agents_md_pointing_outside_is_neither_read_nor_sent() {
    let home = Home::new();
    let outside = linked_outside(&home);
    symlink(
        outside.path().join("secret.txt"),
        home.workspace.path().join("AGENTS.md"),
    )
    .unwrap();
    let server = model_calling(Vec::new());
    let run = run_bounded(&home, &responses_run("hi", &server.base_url, &[]));
    run.fails_with(1, "AGENTS.md was not used: path escapes the workspace");
    assert!(server.requests().is_empty());
    assert!(!run.stderr.contains(SENTINEL));
    assert!(!everything_strata_wrote(&home).contains(SENTINEL));
}

#[test]
fn a_fifo_named_agents_md_does_not_hang_session_start() {
    let home = Home::new();
    mkfifo(&home.workspace.path().join("AGENTS.md"));
    let server = model_calling(Vec::new());
    let run = run_bounded(&home, &responses_run("hi", &server.base_url, &[]));
    run.fails_with(1, "AGENTS.md was not used: AGENTS.md is not a regular file");
    assert!(server.requests().is_empty());
}

#[test]
fn read_only_refuses_writes_to_a_fifo_before_opening_it() {
    let home = Home::new();
    mkfifo(&home.workspace.path().join("pipe"));
    let server = model_calling(vec![
        ("write_file", json!({"path": "pipe", "content": "x"})),
        (
            "apply_edit",
            json!({"path": "pipe", "old_text": "a", "new_text": "b"}),
        ),
    ]);
    let run = run_bounded(
        &home,
        &responses_run("write", &server.base_url, &["--approval", "read-only"]),
    );
    assert_eq!(run.code, 0, "{run:#?}");
    for output in outputs(&server) {
        assert!(output.contains("this session is read-only"), "{output}");
    }
}

#[test]
fn the_home_folder_as_workspace_needs_allow_broad_workspace() {
    let home = Home::new();
    let server = model_calling(Vec::new());
    let person = home.workspace.path().to_str().unwrap();
    let args = responses_run("hi", &server.base_url, &["--workspace", person]);
    let refused = home.run_with(&args, &[("HOME", person)]);
    refused.fails_with(1, "--allow-broad-workspace");
    assert!(server.requests().is_empty());

    let mut confirmed = args.clone();
    confirmed.push("--allow-broad-workspace");
    let run = home.run_with(&confirmed, &[("HOME", person)]);
    assert_eq!(run.code, 0, "{run:#?}");
    assert_eq!(run.stdout, "done\n");
}
