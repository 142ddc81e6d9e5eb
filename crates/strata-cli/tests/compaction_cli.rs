//! The compaction policy and threshold flags and `compact --preview`
//! through the built binary on the offline demo model; the figure shown
//! after a compaction and the circuit breaker's line against a local
//! server speaking the OpenAI Responses wire format.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use strata_core::compaction::EVICTED_PREFIX;
use strata_core::store::ReadMode;
use strata_protocol::{
    COMPACTION_SUMMARY_PREFIX, CONTRACT_FORMAT_VERSION, CompactPreview, CompactionPolicy,
    GetCompactionStatus, RecordBody, SessionContext, SessionId, ThresholdSetting,
};
use support::server::{Reply, ResponsesServer, json_text, message_text, sse_call, sse_text};
use support::{Home, output_count, responses_run};

fn demo_run(home: &Home, extra: &[&str]) -> SessionId {
    for n in 0..6 {
        let text = format!("notes {n}\n").repeat(300);
        std::fs::write(home.workspace.path().join(format!("notes-{n}.txt")), text).unwrap();
    }
    let mut args = vec![
        "run",
        "-p",
        "Read every notes file.",
        "--provider",
        "demo",
        "--json",
    ];
    args.extend(extra);
    let run = home.run(&args);
    assert_eq!(run.code, 0, "{run:#?}");
    let lines: Vec<Value> = run.json_lines();
    lines[0]["session_id"].as_str().unwrap().parse().unwrap()
}

fn policy_records(home: &Home, id: SessionId) -> Vec<(CompactionPolicy, Option<ThresholdSetting>)> {
    let read = home.store().open_reader(id, ReadMode::Strict).unwrap();
    read.records
        .iter()
        .filter_map(|record| match &record.body {
            RecordBody::CompactionPolicy(policy) => Some((policy.policy, policy.threshold)),
            _ => None,
        })
        .collect()
}

#[test]
fn new_sessions_record_layered_and_resume_keeps_the_recorded_policy_unless_given() {
    let home = Home::new();
    let id = demo_run(&home, &["--compact-threshold", "80%"]);
    assert_eq!(
        policy_records(&home, id),
        [(
            CompactionPolicy::Layered,
            Some(ThresholdSetting::Percent(80))
        )]
    );
    let session = id.to_string();
    let resumed = home.run(&["resume", &session, "-p", "again", "--provider", "demo"]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert_eq!(policy_records(&home, id).len(), 1, "kept, not re-recorded");
    let switched = home.run(&[
        "resume",
        &session,
        "-p",
        "again",
        "--provider",
        "demo",
        "--compaction",
        "off",
    ]);
    assert_eq!(switched.code, 0, "{switched:#?}");
    assert_eq!(
        policy_records(&home, id).last().map(|p| p.0),
        Some(CompactionPolicy::Off)
    );
}

#[test]
fn a_base_session_writes_no_policy_record() {
    let home = Home::new();
    let id = demo_run(&home, &["--compaction", "base"]);
    assert!(policy_records(&home, id).is_empty());
}

#[test]
fn bad_policy_and_threshold_flags_are_usage_errors() {
    let home = Home::new();
    for args in [
        ["run", "-p", "hi", "--compaction", "smart"],
        ["run", "-p", "hi", "--compact-threshold", "120%"],
        ["run", "-p", "hi", "--compact-threshold", "left:"],
    ] {
        home.run(&args).fails_with(2, "invalid");
    }
}

#[test]
fn the_preview_calls_no_model_leaves_the_file_byte_identical_and_prints_one_typed_object() {
    let home = Home::new();
    // Low enough that the demo's reads cross it (an override, so layered
    // uses it too), so the preview has a span to summarize.
    let id = demo_run(&home, &["--compact-threshold", "3600"]);
    let before = std::fs::read(home.session_file(id)).unwrap();
    let session = id.to_string();
    let run = home.run(&[
        "compact",
        &session,
        "--preview",
        "--json",
        "--provider",
        "demo",
    ]);
    assert_eq!(run.code, 0, "{run:#?}");
    assert_eq!(std::fs::read(home.session_file(id)).unwrap(), before);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let line: CompactPreview = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(line.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(line.session_id, id);
    let preview = line.preview;
    assert_eq!(preview.policy, CompactionPolicy::Layered);
    assert_eq!(preview.threshold, 3600);
    assert!(preview.estimated_after_summary < preview.estimated_before);
    assert!(preview.state_sheet.text.starts_with("[State sheet]"));

    let human = home.run(&["compact", &session, "--preview", "--provider", "demo"]);
    assert_eq!(human.code, 0, "{human:#?}");
    assert!(human.stdout.contains("estimates only"), "{}", human.stdout);
    assert_eq!(std::fs::read(home.session_file(id)).unwrap(), before);
}

/// Notes files of about 1,000 tokens each (a token per four characters: the
/// test model's tokenizer is not known).
fn write_notes(home: &Home, count: usize) {
    for n in 0..count {
        let text = format!("note {n}: the ledger balances\n").repeat(140);
        std::fs::write(home.workspace.path().join(format!("notes-{n}.txt")), text).unwrap();
    }
}

/// An OpenAI-shaped error no retry or smaller input fixes.
fn refused(message: &str) -> Reply {
    Reply::Json(
        400,
        json!({"error": {"message": message, "type": "invalid_request_error", "code": null, "param": null}}),
    )
}

/// Whether a Responses request's input holds an item whose text starts with `prefix`.
fn holds(body: &Value, prefix: &str) -> bool {
    body["input"].as_array().unwrap().iter().any(|item| {
        item["output"]
            .as_str()
            .is_some_and(|o| o.starts_with(prefix))
            || message_text(item).starts_with(prefix)
    })
}

/// The estimate the app's live gauge shows from the event stream of a
/// `--json` run (as the UI's `gaugeReading` picks it): the one the last
/// compaction step's event carries, unless a round reported after it.
fn live_gauge_estimate(lines: &[Value]) -> Option<u64> {
    lines.iter().rev().find_map(|line| {
        let event = &line["event"]["event"];
        match event["kind"].as_str()? {
            "usage_reported" => Some(None),
            "tool_outputs_evicted" => Some(event["eviction"]["estimated_after"].as_u64()),
            "layered_compacted" => Some(event["compaction"]["estimated_after"].as_u64()),
            "compaction_ineffective" => Some(event["estimated_tokens"].as_u64()),
            _ => None,
        }
    })?
}

/// The estimate the last history-changing record of the file stored.
fn recorded_estimate(home: &Home, id: SessionId) -> (String, u64) {
    let read = home.store().open_reader(id, ReadMode::Strict).unwrap();
    read.records
        .iter()
        .rev()
        .find_map(|record| match &record.body {
            RecordBody::ToolOutputsEvicted(eviction) => {
                Some(("eviction".to_owned(), eviction.estimated_after))
            }
            RecordBody::LayeredCompaction(compaction) => {
                Some(("summary".to_owned(), compaction.estimated_after))
            }
            _ => None,
        })
        .expect("a compaction step")
}

/// `strata context --json`'s figures: reported, estimated.
fn context_figures(home: &Home, id: SessionId) -> (Option<u64>, Option<u64>) {
    let session = id.to_string();
    let run = home.run(&["context", &session, "--json"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let line: SessionContext = serde_json::from_str(run.stdout.trim()).unwrap();
    (line.context_tokens, line.estimated_tokens)
}

/// The estimate the app shows for the session reopened from its file.
fn reopened_app_estimate(home: &Home, id: SessionId) -> Option<u64> {
    let app = std::sync::Arc::new(strata_app::App::new(
        strata_core::StrataPaths::under(home.path()),
        |_| None,
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let status = runtime
        .block_on(app.compaction_status(GetCompactionStatus { session_id: id }))
        .unwrap();
    assert_eq!(status.reported_tokens, None);
    status.estimated_tokens
}

#[test]
fn after_an_eviction_or_a_summary_the_live_gauge_strata_context_and_the_reopened_app_show_one_estimate()
 {
    let home = Home::new();
    write_notes(&home, 8);
    // Phase 0: summaries fail, so an eviction is the last step; phase 1:
    // they succeed. Either way the round right after the step is refused,
    // so nothing reports after it.
    let phase = std::sync::Arc::new(AtomicUsize::new(0));
    let seen = phase.clone();
    let server = ResponsesServer::start(move |_, body| {
        let phase = seen.load(Ordering::SeqCst);
        if body["stream"] == false {
            return match phase {
                0 => refused("the summarizer is unavailable"),
                _ => json_text("SUMMARY: the notes files were read.", 900, 40),
            };
        }
        if (phase == 0 && holds(body, EVICTED_PREFIX))
            || (phase == 1 && holds(body, COMPACTION_SUMMARY_PREFIX))
        {
            return refused("the test server refuses the round after the compaction");
        }
        let reads = output_count(body);
        // Below the threshold of 6,000 for five reads, then well over it.
        let reported = if reads < 5 {
            800 * (reads as u64 + 1)
        } else {
            20_000
        };
        Reply::Sse(sse_call(
            &format!("call_{reads}"),
            "read_file",
            &json!({"path": format!("notes-{reads}.txt")}),
            reported,
            20,
        ))
    });
    let base_url = server.base_url.clone();
    let run = home.run(&responses_run(
        "Read the notes files one by one.",
        &base_url,
        &["--compact-threshold", "6000", "--json"],
    ));
    assert_eq!(run.code, 1, "the round after the eviction fails: {run:#?}");
    let id: SessionId = run.json_lines()[0]["session_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let (step, recorded) = recorded_estimate(&home, id);
    assert_eq!(step, "eviction");
    let live = live_gauge_estimate(&run.json_lines());
    assert_eq!(
        live,
        Some(recorded),
        "the live gauge shows the recorded estimate"
    );
    assert_eq!(context_figures(&home, id), (None, Some(recorded)));
    assert_eq!(reopened_app_estimate(&home, id), Some(recorded));

    phase.store(1, Ordering::SeqCst);
    let session = id.to_string();
    let resumed = home.run(&[
        "resume",
        &session,
        "-p",
        "Read the rest.",
        "--base-url",
        &base_url,
        "--json",
    ]);
    assert_eq!(
        resumed.code, 1,
        "the round after the summary fails: {resumed:#?}"
    );
    let (step, recorded) = recorded_estimate(&home, id);
    assert_eq!(step, "summary");
    assert_eq!(live_gauge_estimate(&resumed.json_lines()), Some(recorded));
    assert_eq!(context_figures(&home, id), (None, Some(recorded)));
    assert_eq!(reopened_app_estimate(&home, id), Some(recorded));
    let human = home.run(&["context", &session]);
    assert!(
        human
            .stdout
            .contains(&format!("about {recorded} tokens (an estimate")),
        "{}",
        human.stdout
    );
}

#[test]
fn three_failed_summaries_in_a_row_print_the_circuit_line_naming_the_failure() {
    let home = Home::new();
    write_notes(&home, 6);
    let server = ResponsesServer::start(|_, body| {
        if body["stream"] == false {
            return refused("the summarizer is unavailable");
        }
        let reads = output_count(body);
        if reads >= 5 {
            return Reply::Sse(sse_text("All notes read.", 20_000, 10));
        }
        Reply::Sse(sse_call(
            &format!("call_{reads}"),
            "read_file",
            &json!({"path": format!("notes-{reads}.txt")}),
            20_000,
            20,
        ))
    });
    let run = home.run(&responses_run(
        "Read the notes files one by one.",
        &server.base_url,
        &["--compact-threshold", "6000"],
    ));
    assert_eq!(run.code, 0, "the turn goes on without compaction: {run:#?}");
    let output = format!("{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = output
        .lines()
        .filter(|line| line.contains("automatic compaction is paused"))
        .collect();
    assert_eq!(lines.len(), 1, "one line, when the circuit opens: {output}");
    assert!(
        lines[0].contains("after 3 compactions in a row whose summary failed or was refused")
            && lines[0].contains("the summarizer is unavailable")
            && lines[0].contains("compact by hand"),
        "{}",
        lines[0]
    );
}
