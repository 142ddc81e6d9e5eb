//! The terminal paths, through the built binary: Ctrl+C once cancels a turn
//! and twice exits, and approvals are asked on a pseudo-terminal, showing
//! the exact command escaped and taking only answers typed once the
//! question is on screen.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::json;
use strata_protocol::TurnOutcome;
use support::pty::{OnTerminal, PROMPT, pty};
use support::server::{Reply, ResponsesServer, input_texts, sse_call, sse_text};
use support::{
    Home, announced_id, has_output, last_call_output, last_user, one_call_server, outcomes,
    output_count, responses_run,
};

fn interrupt(pid: u32) {
    // The shell's builtin `kill`, which every Debian has.
    let status = Command::new("sh")
        .args(["-c", &format!("kill -INT {pid}")])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn ctrl_c_cancels_a_streaming_turn_cleanly_and_the_session_resumes() {
    let home = Home::new();
    let server = ResponsesServer::start(|_, body| {
        if last_user(body) == "hang" {
            Reply::Stall
        } else {
            Reply::Sse(sse_text("Back again.", 200, 3))
        }
    });
    let child = home
        .command()
        .args(responses_run("hang", &server.base_url, &[]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The request is in flight and the stream stalls: cancel now.
    server.wait_for_requests(1);
    interrupt(child.id());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.lines().last().unwrap(),
        "strata: error: the turn was cancelled"
    );
    let id = announced_id(&stderr);
    assert_eq!(outcomes(&home, id), [TurnOutcome::Cancelled]);

    let resumed = home.resume(&id.to_string(), "hello again", &server.base_url);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    let sent = server.last_round();
    assert_eq!(input_texts(&sent), ["hang", "hello again"], "{sent:#}");
}

#[test]
fn ctrl_c_twice_exits_the_chat() {
    let home = Home::new();
    let mut child = home.spawn_piped(&["chat", "--provider", "demo"]);
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut wait_for = |needle: &str| {
        let mut seen = String::new();
        loop {
            let mut line = String::new();
            assert!(
                stderr.read_line(&mut line).unwrap() > 0,
                "stderr ended before {needle:?}: {seen}"
            );
            seen.push_str(&line);
            if line.contains(needle) {
                return seen;
            }
        }
    };
    wait_for("session ");
    interrupt(child.id());
    wait_for("press Ctrl+C again to exit");
    interrupt(child.id());
    let rest = wait_for("interrupted");
    assert!(rest.contains("strata: error: interrupted"), "{rest}");
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

/// A server whose model writes `one.txt`, then `two.txt`, then answers.
fn two_writes_server() -> ResponsesServer {
    ResponsesServer::start(|_, body| match output_count(body) {
        0 => Reply::Sse(sse_call(
            "call_1",
            "write_file",
            &json!({"path": "one.txt", "content": "1\n"}),
            380,
            12,
        )),
        1 => Reply::Sse(sse_call(
            "call_2",
            "write_file",
            &json!({"path": "two.txt", "content": "2\n"}),
            420,
            12,
        )),
        _ => Reply::Sse(sse_text("Both handled.", 460, 3)),
    })
}

#[test]
fn on_a_terminal_approvals_are_asked_allow_once_then_deny() {
    let home = Home::new();
    let server = two_writes_server();
    let (master, slave) = pty();
    let mut terminal = OnTerminal::start(&home, &server, master, slave);
    terminal.wait_for_count(PROMPT, 1);
    terminal.type_keys("y\n");
    terminal.wait_for_count(PROMPT, 2);
    terminal.type_keys("n\n");
    let (code, shown) = terminal.finish();
    assert_eq!(code, 0, "{shown}");
    assert_eq!(
        shown.matches("approval needed: write_file").count(),
        2,
        "{shown}"
    );
    assert!(shown.contains("+1"), "the diff is shown: {shown}");
    assert!(shown.contains("approval: allowed once"), "{shown}");
    assert!(shown.contains("approval: denied"), "{shown}");
    let workspace = home.workspace.path();
    assert_eq!(
        std::fs::read_to_string(workspace.join("one.txt")).unwrap(),
        "1\n"
    );
    assert!(!workspace.join("two.txt").exists());
    let denial = last_call_output(&server, 2);
    assert!(denial.contains("denied"), "{denial}");
}

#[test]
fn on_a_terminal_allow_for_session_asks_once() {
    let home = Home::new();
    let server = two_writes_server();
    let (master, slave) = pty();
    let mut terminal = OnTerminal::start(&home, &server, master, slave);
    terminal.wait_for_count(PROMPT, 1);
    terminal.type_keys("a\n");
    let (code, shown) = terminal.finish();
    assert_eq!(code, 0, "{shown}");
    assert_eq!(
        shown.matches("approval needed: write_file").count(),
        1,
        "{shown}"
    );
    assert!(
        shown.contains("approval: allowed for this session"),
        "{shown}"
    );
    assert!(shown.contains("Both handled."), "{shown}");
    let workspace = home.workspace.path();
    assert!(workspace.join("one.txt").exists() && workspace.join("two.txt").exists());
}

/// A command that shows as `echo harmless` on a raw terminal: the erase-line
/// and carriage return hide the real command before it.
const HIDDEN: &str = "printf pwned > pwned.txt\x1b[2K\recho harmless";

#[test]
fn a_key_typed_before_the_approval_prompt_never_answers_it_and_the_command_is_shown_escaped() {
    let home = Home::new();
    let (master, slave) = pty();
    let typist = std::sync::Mutex::new(master.try_clone().unwrap());
    let server = ResponsesServer::start(move |_, body| {
        if has_output(body) {
            return Reply::Sse(sse_text("Left it alone.", 300, 4));
        }
        // "y" typed while the model is still answering, before any prompt.
        std::io::Write::write_all(&mut *typist.lock().unwrap(), b"y\n").unwrap();
        Reply::Sse(sse_call(
            "call_1",
            "run_shell",
            &json!({"command": HIDDEN}),
            200,
            10,
        ))
    });
    let mut terminal = OnTerminal::start(&home, &server, master, slave);
    terminal.wait_for_count(PROMPT, 1);
    // The typed-ahead "y" was discarded: the prompt still waits.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        !terminal.shown().contains("approval: allowed"),
        "{}",
        terminal.shown()
    );
    terminal.type_keys("n\n");
    let (code, shown) = terminal.finish();
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("approval: denied"), "{shown}");
    assert!(!home.workspace.path().join("pwned.txt").exists());
    // The exact command, its escape and carriage return spelled out, in the
    // summary and on its own line.
    let escaped = r"printf pwned > pwned.txt\x1b[2K\recho harmless";
    assert!(
        shown.contains(&format!("approval needed: run `{escaped}`")),
        "{shown}"
    );
    assert!(shown.contains(&format!("  {escaped}")), "{shown}");
    assert!(!shown.contains("pwned.txt\x1b"), "{shown:?}");
}

#[test]
fn an_answer_typed_after_the_prompt_appeared_is_taken() {
    let home = Home::new();
    let (master, slave) = pty();
    let server = one_call_server(
        "write_file",
        json!({"path": "kept.txt", "content": "ok\n"}),
        "Wrote it.",
    );
    let mut terminal = OnTerminal::start(&home, &server, master, slave);
    terminal.wait_for_count(PROMPT, 1);
    terminal.type_keys("y\n");
    let (code, shown) = terminal.finish();
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("approval: allowed once"), "{shown}");
    assert!(home.workspace.path().join("kept.txt").exists());
}

/// The model runs `first`, then `second`, then answers.
fn two_commands_server(first: &'static str, second: &'static str) -> ResponsesServer {
    ResponsesServer::start(move |_, body| match output_count(body) {
        0 => Reply::Sse(sse_call(
            "call_1",
            "run_shell",
            &json!({"command": first}),
            300,
            10,
        )),
        1 => Reply::Sse(sse_call(
            "call_2",
            "run_shell",
            &json!({"command": second}),
            320,
            10,
        )),
        _ => Reply::Sse(sse_text("Checked.", 340, 3)),
    })
}

/// Runs a session against `server` on a terminal, waits for the first
/// approval question, checks it shows `expected`, answers `keys`; returns
/// everything shown once the run ended.
fn answer_first_question(
    home: &Home,
    server: &ResponsesServer,
    expected: &str,
    keys: &str,
) -> String {
    let (master, slave) = pty();
    let mut terminal = OnTerminal::start(home, server, master, slave);
    terminal.wait_for_count(PROMPT, 1);
    assert!(terminal.shown().contains(expected), "{}", terminal.shown());
    terminal.type_keys(keys);
    let (code, shown) = terminal.finish();
    assert_eq!(code, 0, "{shown}");
    assert_eq!(shown.matches(PROMPT).count(), 1, "{shown}");
    shown
}

#[test]
fn always_allow_saves_the_proposed_rule_which_later_commands_and_sessions_use() {
    let home = Home::new();
    let server = two_commands_server("git status", "git status --short");
    let shown = answer_first_question(
        &home,
        &server,
        "[r] always allow `git status*`  [n] deny",
        "r\n",
    );
    assert!(
        shown.contains("saved always allow `git status*`"),
        "{shown}"
    );
    let rules = home.workspace.path().join(".strata/rules.toml");
    let saved = std::fs::read_to_string(&rules).unwrap();
    assert!(saved.contains("\"git status*\""), "{saved}");

    // A new session in the same workspace: the saved rule runs a matching
    // command without asking, and asks for one it does not cover.
    let server = two_commands_server("git status -s", "echo other");
    let shown = answer_first_question(&home, &server, "approval needed: run `echo other`", "n\n");
    assert!(
        !shown.contains("approval needed: run `git status -s`"),
        "{shown}"
    );
}
