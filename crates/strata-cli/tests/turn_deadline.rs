//! The turn deadline (`[network] turn_deadline_ms`) through the built CLI:
//! a model that drips real text forever (so no idle timeout fires, and the
//! response deadline is far off), or a tool that would run for ten minutes,
//! is stopped at the turn's deadline. `strata run` ends with one error line
//! naming the deadline and exit code 1; the session file reads strictly,
//! holds no half-streamed answer and a cancelled output for the killed
//! call, and `strata resume` continues it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/fault_server.rs"]
mod fault_server;
mod support;

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use fault_server::{Fault, FaultServer, Wire};
use serde_json::{Value, json};
use strata_core::store::ReadMode;
use strata_protocol::{SessionId, TurnOutcome};
use support::server::{Reply, ResponsesServer, sse_call, sse_text};
use support::{Home, Run, announced_id, last_user, outcomes, responses_run};

const KEY: &str = "sk-turn-deadline-secret-7c1e4b9a02d5";

/// The deadline under test; everything else waits far longer, so only the
/// deadline can end these turns.
const NETWORK: &str = "[network]\nturn_deadline_ms = 1500\nidle_timeout_ms = 600000\n\
response_deadline_ms = 600000\nmax_attempts = 1\n";

const DEADLINE_LINE: &str = "strata: error: the turn failed: the turn passed its deadline of \
1500 ms and was stopped (network.turn_deadline_ms)";

/// A guard against a hang, not a measurement: a run that outlives it is
/// killed and fails the test.
const HANG_GUARD: Duration = Duration::from_secs(120);

fn home_with_deadline() -> Home {
    let home = Home::new();
    let config = home.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), NETWORK).unwrap();
    home
}

/// Runs `strata ARGS` with the key set, killing it if it outlives the guard.
fn run_guarded(home: &Home, args: &[&str]) -> Run {
    let mut child = home
        .command()
        .args(args)
        .env("OPENAI_API_KEY", KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).unwrap();
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).unwrap();
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG_GUARD {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("strata {args:?} still ran after {HANG_GUARD:?}: the deadline never fired");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().expect("strata was killed by a signal"),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// The session's records as JSON, after checking the file reads strictly
/// and whole.
fn records(home: &Home, id: SessionId) -> Vec<Value> {
    let read = home.store().open_reader(id, ReadMode::Strict).unwrap();
    assert!(read.report.is_clean(), "{:?}", read.report);
    read.records
        .iter()
        .map(|record| serde_json::to_value(record).unwrap())
        .collect()
}

fn items<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records
        .iter()
        .filter(|r| r["type"] == "response_item" && r["payload"]["type"] == kind)
        .map(|r| &r["payload"])
        .collect()
}

fn errors(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .filter(|r| r["type"] == "error")
        .map(|r| r["payload"]["message"].as_str().unwrap())
        .collect()
}

/// The deadline ended the run: exit 1, the last line naming the deadline,
/// no key shown.
fn assert_stopped_at_deadline(run: &Run) {
    assert_eq!(run.code, 1, "{run:#?}");
    assert_eq!(run.stderr.lines().last(), Some(DEADLINE_LINE), "{run:#?}");
    assert!(
        !run.stdout.contains(KEY) && !run.stderr.contains(KEY),
        "{run:#?}"
    );
}

/// `strata resume` on the failed session completes a turn answered `answer`,
/// and the file then holds the failed turn and the completed one.
fn assert_resumes(home: &Home, id: SessionId, base_url: &str, answer: &str) {
    let resumed = run_guarded(
        home,
        &[
            "resume",
            &id.to_string(),
            "-p",
            "Are you there?",
            "--base-url",
            base_url,
        ],
    );
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert_eq!(resumed.stdout, answer);
    assert_eq!(
        outcomes(home, id),
        [TurnOutcome::Failed, TurnOutcome::Completed]
    );
    records(home, id);
}

#[test]
fn a_model_dripping_text_forever_is_stopped_at_the_turn_deadline_and_the_session_resumes() {
    let home = home_with_deadline();
    let server = FaultServer::start(Wire::Responses, vec![Fault::Drip]);
    let run = run_guarded(&home, &responses_run("Say hello.", &server.base_url, &[]));
    assert_stopped_at_deadline(&run);
    // The drip reached the person as it came, but was not retried.
    assert!(run.stdout.contains("drip drip"), "{run:#?}");
    assert_eq!(server.requests(), 1);

    let id = announced_id(&run.stderr);
    let written = records(&home, id);
    // Nothing half-streamed was committed: no assistant message at all.
    let assistant: Vec<_> = items(&written, "message")
        .into_iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert!(assistant.is_empty(), "{assistant:?}");
    assert_eq!(
        errors(&written),
        [DEADLINE_LINE.trim_start_matches("strata: error: the turn failed: ")]
    );
    assert_eq!(outcomes(&home, id), [TurnOutcome::Failed]);

    server.heal();
    assert_resumes(&home, id, &server.base_url, "All good.\n");
    let text = std::fs::read_to_string(home.session_file(id)).unwrap();
    assert!(!text.contains(KEY));
}

/// A command no other run could be running (the marker is in its arguments).
const SLOW_COMMAND: &str = "sleep 613.25";

fn slow_command_running() -> bool {
    std::fs::read_dir("/proc").unwrap().any(|entry| {
        let cmdline = entry
            .ok()
            .and_then(|e| std::fs::read(e.path().join("cmdline")).ok());
        cmdline.is_some_and(|bytes| bytes.split(|b| *b == 0).any(|arg| arg == b"613.25"))
    })
}

#[test]
fn a_tool_running_at_the_turn_deadline_is_killed_and_answered_as_cancelled() {
    let home = home_with_deadline();
    let server = ResponsesServer::start(|_, body| match last_user(body).as_str() {
        "wait for it" => Reply::Sse(sse_call(
            "call_slow",
            "run_shell",
            &json!({"command": SLOW_COMMAND}),
            300,
            10,
        )),
        _ => Reply::Sse(sse_text("Noted.", 400, 2)),
    });
    let run = run_guarded(
        &home,
        &responses_run("wait for it", &server.base_url, &["--approval", "auto"]),
    );
    assert_stopped_at_deadline(&run);
    assert!(!slow_command_running(), "the command outlived the turn");

    let id = announced_id(&run.stderr);
    let written = records(&home, id);
    let outputs = items(&written, "function_call_output");
    assert_eq!(outputs.len(), 1, "{written:#?}");
    assert_eq!(outputs[0]["call_id"], "call_slow");
    assert!(
        outputs[0]["output"]
            .as_str()
            .unwrap()
            .contains("were killed"),
        "{:?}",
        outputs[0]
    );
    assert_eq!(outcomes(&home, id), [TurnOutcome::Failed]);

    assert_resumes(&home, id, &server.base_url, "Noted.\n");
    // The resumed request carries the call and its cancelled output, once.
    let last = server.last_round();
    let sent_outputs: Vec<_> = last["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "function_call_output")
        .collect();
    assert_eq!(sent_outputs.len(), 1, "{last:#}");
}
