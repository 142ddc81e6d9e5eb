//! A round the provider rejects with HTTP 400 `context_length_exceeded`,
//! through the built binary against a local server speaking the OpenAI
//! Responses wire format, under the default (layered) policy: the history is
//! shrunk, the round sent again with the state sheet (which keeps the file
//! read earlier), and the turn finishes; the recovery is a compaction with
//! trigger `context_overflow`. Also after a switch to a model with a smaller
//! window, and when the retry overflows too (one error naming what was tried).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use strata_core::compaction::STATE_SHEET_PREFIX;
use support::server::{Reply, ResponsesServer, input_texts, json_text, sse_call, sse_text};
use support::{Home, announced_id, has_output, last_user, responses_run};

const FILE: &str = "ledger-7f3.txt";
const SUMMARY: &str = "SUMMARY: the user asked what the ledger holds; it lists apples and pears.";

fn overflow_reply() -> Reply {
    Reply::Json(
        400,
        json!({"error": {
            "message": "Your input exceeds the context window of this model.",
            "type": "invalid_request_error",
            "param": "input",
            "code": "context_length_exceeded"
        }}),
    )
}

/// The first turn reads the ledger and answers; later streamed requests
/// get `later(n, body)` (n counts streamed requests from 0).
fn ledger_server(
    later: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static,
) -> ResponsesServer {
    let streamed = Arc::new(AtomicUsize::new(0));
    ResponsesServer::start(move |_, body| {
        if body["stream"] == false {
            return json_text(SUMMARY, 700, 40);
        }
        let n = streamed.fetch_add(1, Ordering::SeqCst);
        match (last_user(body).as_str(), has_output(body), n) {
            ("What is in the ledger?", false, 0) => Reply::Sse(sse_call(
                "call_a",
                "read_file",
                &json!({"path": FILE}),
                800,
                20,
            )),
            ("What is in the ledger?", true, 1) => {
                Reply::Sse(sse_text("The ledger lists apples and pears.", 1_200, 30))
            }
            _ => later(n, body),
        }
    })
}

/// A layered session (the default policy) whose first turn read the ledger.
fn first_turn(home: &Home, server: &ResponsesServer) -> String {
    std::fs::write(home.workspace.path().join(FILE), "apples 3\npears 5\n").unwrap();
    let run = home.run(&responses_run(
        "What is in the ledger?",
        &server.base_url,
        &[],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    announced_id(&run.stderr).to_string()
}

/// The session's compactions as `strata compactions --json` lists them.
fn compactions(home: &Home, id: &str) -> Vec<Value> {
    let listed = home.run(&["compactions", id, "--json"]);
    assert_eq!(listed.code, 0, "{listed:#?}");
    let lines = listed.json_lines();
    lines[0]["compactions"].as_array().unwrap().clone()
}

/// Whether a request carries the state sheet naming the ledger.
fn carries_sheet_with_the_file(request: &Value) -> bool {
    input_texts(request)
        .iter()
        .any(|text| text.starts_with(STATE_SHEET_PREFIX) && text.contains(FILE))
}

#[test]
fn an_overflow_under_the_default_policy_compacts_and_the_retried_round_finishes_the_turn() {
    let home = Home::new();
    let server = ledger_server(|n, _| match n {
        2 => overflow_reply(),
        _ => Reply::Sse(sse_text("Going on: the ledger balances.", 900, 12)),
    });
    let id = first_turn(&home, &server);

    let resumed = home.resume(&id[..20], "go on", &server.base_url);

    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert_eq!(resumed.stdout, "Going on: the ledger balances.\n");
    let rounds = server.round_requests();
    assert_eq!(rounds.len(), 4, "{rounds:#?}");
    // The retried round is smaller and still names the file read earlier.
    let (rejected, retried) = (&rounds[2], &rounds[3]);
    assert!(!carries_sheet_with_the_file(rejected));
    assert!(carries_sheet_with_the_file(retried), "{retried:#}");
    assert!(
        input_texts(retried)
            .iter()
            .any(|text| text.contains(SUMMARY)),
        "{retried:#}"
    );
    assert_eq!(last_user(retried), "go on");
    let listed = compactions(&home, &id);
    assert_eq!(listed.len(), 1, "{listed:#?}");
    let metadata = &listed[0]["summary"]["metadata"];
    assert_eq!(metadata["trigger"], "context_overflow");
    assert!(
        metadata["reason"]
            .as_str()
            .unwrap()
            .contains("Your input exceeds the context window"),
        "{metadata:#}"
    );
}

#[test]
fn an_overflow_after_a_switch_to_a_smaller_model_recovers_the_same_way() {
    let home = Home::new();
    let server = ledger_server(|_, body| {
        let small = body["model"] == "gpt-small";
        // The small model's window cannot take the whole history.
        if small && !carries_sheet_with_the_file(body) {
            overflow_reply()
        } else {
            Reply::Sse(sse_text("Going on with the small model.", 600, 9))
        }
    });
    let id = first_turn(&home, &server);

    let resumed = home.run(&[
        "resume",
        &id,
        "-p",
        "go on",
        "--base-url",
        &server.base_url,
        "--model",
        "gpt-small",
    ]);

    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert_eq!(resumed.stdout, "Going on with the small model.\n");
    let rounds = server.round_requests();
    assert_eq!(rounds.len(), 4, "{rounds:#?}");
    assert!(
        rounds[2..]
            .iter()
            .all(|round| round["model"] == "gpt-small")
    );
    let listed = compactions(&home, &id);
    assert_eq!(
        listed
            .iter()
            .map(|c| c["summary"]["metadata"]["trigger"].clone())
            .collect::<Vec<_>>(),
        ["context_overflow"]
    );
}

#[test]
fn a_retry_that_overflows_too_fails_with_one_error_naming_what_was_tried() {
    let home = Home::new();
    let server = ledger_server(|_, _| overflow_reply());
    let id = first_turn(&home, &server);

    let resumed = home.resume(&id[..20], "go on", &server.base_url);

    assert_eq!(resumed.code, 1, "{resumed:#?}");
    // The rejected round and its one retry; no third attempt.
    assert_eq!(server.round_requests().len(), 4);
    // One error: the live line and the exit's one-line reason say the same.
    let mut errors: Vec<&str> = resumed
        .stderr
        .lines()
        .filter_map(|line| {
            line.strip_prefix("strata: error: the turn failed: ")
                .or_else(|| line.strip_prefix("error: "))
        })
        .collect();
    errors.dedup();
    assert_eq!(errors.len(), 1, "{}", resumed.stderr);
    assert_eq!(
        errors[0],
        "The conversation no longer fits the model's context window."
    );
    // What was tried is in the error's details, once.
    let details: Vec<&str> = resumed
        .stderr
        .lines()
        .filter_map(|line| line.strip_prefix("  details: "))
        .collect();
    assert_eq!(details.len(), 1, "{}", resumed.stderr);
    let error = details[0];
    for named in [
        "Your input exceeds the context window of this model.",
        "summarised",
        "sent the round again, but it was still too long",
    ] {
        assert!(error.contains(named), "{named:?} missing from {error:?}");
    }
    // The compaction stands: the next attempt starts from it.
    assert_eq!(compactions(&home, &id).len(), 1);
}
