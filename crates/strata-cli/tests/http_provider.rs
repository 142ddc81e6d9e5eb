//! `strata run` and `resume` end to end through the built binary against a
//! local server speaking the OpenAI Responses wire format: the compacted
//! history on resume, approvals without a terminal, provider failures and
//! a closed output.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Stdio;

use serde_json::json;
use strata_protocol::{COMPACTION_SUMMARY_PREFIX, TurnOutcome};
use support::server::{
    Reply, ResponsesServer, input_texts, json_text, message_text, sse_call, sse_text,
};
use support::{Home, announced_id, has_output, last_user, outcomes, responses_run};

const SUMMARY: &str =
    "SUMMARY: the user asked what ledger-7f3.txt holds; it lists apples and pears.";

#[test]
fn resume_after_a_compaction_sends_the_compacted_history_not_the_transcript() {
    let home = Home::new();
    std::fs::write(
        home.workspace.path().join("ledger-7f3.txt"),
        "apples 3\npears 5\n",
    )
    .unwrap();
    let server = ResponsesServer::start(|_, body| {
        if body["stream"] == false {
            return json_text(SUMMARY, 700, 40);
        }
        match (last_user(body).as_str(), has_output(body)) {
            ("What is in the ledger?", false) => Reply::Sse(sse_call(
                "call_a",
                "read_file",
                &json!({"path": "ledger-7f3.txt"}),
                800,
                20,
            )),
            ("What is in the ledger?", true) => {
                Reply::Sse(sse_text("The ledger lists apples and pears.", 1200, 30))
            }
            _ => Reply::Sse(sse_text("Noted, thanks.", 300, 5)),
        }
    });
    let base_url = server.base_url.clone();
    // The exact history checked below is the base design's (layered
    // sessions add a state sheet after the summary).
    let run = home.run(&responses_run(
        "What is in the ledger?",
        &base_url,
        &["--compact-threshold", "1000", "--compaction", "base"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    let id = announced_id(&run.stderr);
    assert_eq!(run.stdout, "The ledger lists apples and pears.\n");
    assert!(run.stderr.contains("→ read_file"), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "history compacted (auto): 3 items removed, 2 kept, 1230 tokens (threshold 1000)"
        ),
        "{}",
        run.stderr
    );
    // Two rounds and the summary request, which is not streamed and offers no tools.
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "{requests:#?}");
    assert_eq!(requests[2]["stream"], false);
    assert!(requests[2].get("tools").is_none());

    // The resume keeps the session's provider and model; only the URL is given.
    let resumed = home.resume(&id.to_string()[..20], "Second question", &base_url);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert_eq!(resumed.stdout, "Noted, thanks.\n");
    assert!(resumed.stderr.starts_with(&format!("resumed session {id}")));

    let rounds = server.round_requests();
    assert_eq!(rounds.len(), 3);
    let sent = rounds.last().unwrap();
    assert_eq!(sent["model"], "gpt-test");
    assert!(
        sent["instructions"]
            .as_str()
            .unwrap()
            .starts_with("You are Strata"),
        "the system prompt goes in instructions: {sent:#}"
    );
    let input = sent["input"].as_array().unwrap();
    let shape: Vec<(String, String, String)> = input
        .iter()
        .map(|item| {
            (
                item["type"].as_str().unwrap_or_default().to_owned(),
                item["role"].as_str().unwrap_or_default().to_owned(),
                message_text(item),
            )
        })
        .collect();
    let user = |text: &str| ("message".to_owned(), "user".to_owned(), text.to_owned());
    assert_eq!(
        shape,
        vec![
            user(&format!("{COMPACTION_SUMMARY_PREFIX}{SUMMARY}")),
            user("What is in the ledger?"),
            user("Second question"),
        ],
        "the compacted history, not the transcript: {sent:#}"
    );
    let wire = sent.to_string();
    assert!(!wire.contains("apples 3"), "the old tool output was sent");
    assert!(
        !wire.contains("The ledger lists"),
        "the old answer was sent"
    );

    // The transcript still has everything; the context is the compacted view.
    let transcript = home.run(&["sessions", "show", &id.to_string()]).ok();
    assert!(transcript.contains("The ledger lists apples and pears."));
    assert!(transcript.contains("apples 3"));
    let context = home
        .run(&["context", &id.to_string(), "--json"])
        .json_lines();
    let kinds: Vec<&str> = context[0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "message",
            "compaction_summary",
            "message",
            "message",
            "message"
        ]
    );
    assert_eq!(
        outcomes(&home, id),
        [TurnOutcome::Completed, TurnOutcome::Completed]
    );
}

/// A server whose model writes `out-9.txt` once, then answers.
fn writing_server() -> ResponsesServer {
    ResponsesServer::start(|_, body| {
        if has_output(body) {
            Reply::Sse(sse_text("Done.", 400, 3))
        } else {
            Reply::Sse(sse_call(
                "call_w",
                "write_file",
                &json!({"path": "out-9.txt", "content": "hello\n"}),
                380,
                12,
            ))
        }
    })
}

#[test]
fn without_a_terminal_ask_refuses_writes_and_auto_runs_them() {
    let home = Home::new();
    let target = home.workspace.path().join("out-9.txt");

    let server = writing_server();
    let run = home.run(&responses_run("write it", &server.base_url, &[]));
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(!target.exists(), "a write ran without approval");
    assert!(
        run.stderr
            .contains("approval needed: write_file out-9.txt — refused, no terminal to ask on"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("✗ write_file refused"),
        "{}",
        run.stderr
    );
    let rounds = server.round_requests();
    let refusal = rounds[1]["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call_output")
        .unwrap()["output"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(refusal.contains("needs the user's approval"), "{refusal}");

    let server = writing_server();
    let read_only = home.run(&responses_run(
        "write it",
        &server.base_url,
        &["--approval", "read-only"],
    ));
    assert_eq!(read_only.code, 0, "{read_only:#?}");
    assert!(!target.exists());
    assert!(
        read_only.stderr.contains("✗ write_file"),
        "{}",
        read_only.stderr
    );

    let server = writing_server();
    let auto = home.run(&responses_run(
        "write it",
        &server.base_url,
        &["--approval", "auto"],
    ));
    assert_eq!(auto.code, 0, "{auto:#?}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "hello\n");
    assert!(auto.stderr.contains("✓ write_file"), "{}", auto.stderr);
}

#[test]
fn a_provider_failure_fails_the_turn_with_exit_1_and_is_recorded() {
    let home = Home::new();
    let server = ResponsesServer::start(|_, _| {
        Reply::Json(
            401,
            json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}),
        )
    });
    let run = home.run(&responses_run("hello", &server.base_url, &[]));
    assert_eq!(run.code, 1, "{run:#?}");
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("strata: error: the turn failed: This key was rejected."),
        "{last:?}"
    );
    assert!(
        run.stderr
            .contains("  details: the provider rejected the credentials: HTTP 401"),
        "{}",
        run.stderr
    );
    let id = announced_id(&run.stderr);
    assert_eq!(outcomes(&home, id), [TurnOutcome::Failed]);
    let shown = home.run(&["sessions", "show", &id.to_string()]).ok();
    assert!(shown.contains("error: "), "{shown}");
}

#[test]
fn a_closed_port_ends_with_one_sentence_asking_whether_the_server_runs() {
    let home = Home::new();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let base_url = format!("http://127.0.0.1:{port}/v1");
    let run = home.run(&responses_run("hello", &base_url, &[]));
    assert_eq!(run.code, 1, "{run:#?}");
    let sentence = format!("Can't reach 127.0.0.1:{port} — is the server running?");
    let last = run.stderr.lines().last().unwrap();
    assert_eq!(last, format!("strata: error: the turn failed: {sentence}"));
    assert!(
        run.stderr
            .contains(&format!("error: {sentence}\n  details: ")),
        "{}",
        run.stderr
    );
    // The retries are short lines of their own; the client's text is said once.
    let retries: Vec<&str> = run
        .stderr
        .lines()
        .filter(|line| line.starts_with("retrying ("))
        .collect();
    assert!(!retries.is_empty(), "{}", run.stderr);
    assert!(
        retries.iter().all(|line| line.ends_with(" ms…")),
        "{retries:?}"
    );
    assert_eq!(
        run.stderr.matches("Connection refused").count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn a_closed_output_cancels_the_turn_cleanly_and_exits_quietly() {
    let home = Home::new();
    let server = ResponsesServer::start(|_, body| {
        if last_user(body) == "talk" {
            Reply::StallAfterText("Hello".to_owned())
        } else {
            Reply::Sse(sse_text("Fine.", 100, 2))
        }
    });
    // A pipe whose reading end is already closed: the first write fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = home
        .command()
        .args(responses_run("talk", &server.base_url, &[]))
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("strata: error"), "{stderr}");
    let id = announced_id(&stderr);
    // The stalled stream was cancelled, not left hanging, and nothing of it
    // entered the history; the session resumes.
    assert_eq!(outcomes(&home, id), [TurnOutcome::Cancelled]);
    let resumed = home.resume(&id.to_string(), "again", &server.base_url);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    let sent = server.last_round();
    assert_eq!(input_texts(&sent), ["talk", "again"], "{sent:#}");
}
