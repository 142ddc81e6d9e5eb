//! Tool calls in the loop: approvals answered through the broker, refusals
//! the model reads, the output cap, and cancellation at every point.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::HashMap;

use serde_json::json;
use strata_core::agent::Agent;
use strata_core::tools::{CancellationToken, OutputCap, SessionApprovals, ToolKind};
use strata_core::{ApprovalBroker, TurnReport};
use strata_protocol::{
    AgentEvent, ApprovalDecision, ApprovalPolicy, MainlineEvent, RecordBody, ResponseItem,
    StopReason, ToolCallStatus, TurnOutcome,
};
use support::*;

fn ask() -> SessionApprovals {
    SessionApprovals::new(ApprovalPolicy::Ask)
}

fn write_call(call_id: &str, path: &str) -> Vec<Step> {
    calls_round(
        vec![call(
            call_id,
            "write_file",
            json!({"path": path, "content": "new\n"}),
        )],
        None,
    )
}

/// Runs a turn, answering each approval request from `answers` (by call id)
/// as its event arrives.
async fn turn_answering(
    agent: &mut Agent,
    events: &mut Events,
    answers: HashMap<&str, ApprovalDecision>,
) -> TurnReport {
    let broker = agent.broker().clone();
    let (report, ()) = within(async {
        tokio::join!(agent.run_turn("go", CancellationToken::new()), async {
            loop {
                match &events.next().await.event {
                    AgentEvent::Mainline(MainlineEvent::ApprovalRequested { call_id, .. }) => {
                        let decision = answers[call_id.as_str()];
                        assert!(broker.answer(call_id, decision));
                    }
                    AgentEvent::Mainline(MainlineEvent::TurnFinished { .. }) => break,
                    _ => {}
                }
            }
        })
    })
    .await;
    report.unwrap()
}

fn decisions(harness: &Harness, agent: &Agent) -> Vec<(String, ApprovalDecision)> {
    harness
        .records(agent.id())
        .into_iter()
        .filter_map(|record| match record.body {
            RecordBody::ApprovalDecision(d) => Some((d.call_id, d.decision)),
            _ => None,
        })
        .collect()
}

fn finished_status(events: &mut Events, call_id: &str) -> ToolCallStatus {
    events
        .mainline()
        .into_iter()
        .find_map(|event| match event {
            MainlineEvent::ToolCallFinished {
                call_id: id,
                status,
                ..
            } if id == call_id => Some(status),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn allow_once_runs_the_write_and_the_next_write_asks_again_and_a_denial_reaches_the_model() {
    let harness = Harness::new();
    harness.gateway.push_round(write_call("c1", "a.txt"));
    harness.gateway.push_round(write_call("c2", "b.txt"));
    harness.gateway.push_round(text_round("One of two.", None));
    let (mut agent, mut events) = harness.start(ask(), ApprovalBroker::interactive());

    let answers = HashMap::from([
        ("c1", ApprovalDecision::AllowOnce),
        ("c2", ApprovalDecision::Deny),
    ]);
    let report = turn_answering(&mut agent, &mut events, answers).await;

    assert_eq!(report.outcome, TurnOutcome::Completed);
    let workspace = harness.workspace.path();
    assert_eq!(
        std::fs::read_to_string(workspace.join("a.txt")).unwrap(),
        "new\n"
    );
    assert!(!workspace.join("b.txt").exists());
    let last = harness.gateway.last_request();
    assert_eq!(
        output_of(&last.input, "c2"),
        "The user denied this write to b.txt. Do not retry it; ask the user how to proceed."
    );
    assert_eq!(finished_status(&mut events, "c2"), ToolCallStatus::Denied);
    assert_eq!(
        decisions(&harness, &agent),
        [
            ("c1".to_owned(), ApprovalDecision::AllowOnce),
            ("c2".to_owned(), ApprovalDecision::Deny)
        ]
    );
    let mainline = events.mainline();
    let requested = mainline.iter().find_map(|event| match event {
        MainlineEvent::ApprovalRequested {
            call_id,
            summary,
            detail,
            ..
        } if call_id == "c1" => Some((summary.clone(), detail.clone())),
        _ => None,
    });
    let (summary, detail) = requested.unwrap();
    assert_eq!(summary, "write_file a.txt");
    assert!(detail.contains("+new"), "{detail}");
    assert!(mainline.iter().any(|event| matches!(
        event,
        MainlineEvent::ApprovalResolved { call_id, decision: ApprovalDecision::Deny, .. }
            if call_id == "c2"
    )));
    assert!(agent.broker().pending_call_ids().is_empty());
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn allow_for_session_lets_later_writes_run_without_asking() {
    let harness = Harness::new();
    harness.gateway.push_round(write_call("c1", "a.txt"));
    harness.gateway.push_round(calls_round(
        vec![call(
            "c2",
            "apply_edit",
            json!({"path": "a.txt", "old_text": "new", "new_text": "newer"}),
        )],
        None,
    ));
    harness.gateway.push_round(text_round("Both done.", None));
    let (mut agent, mut events) = harness.start(ask(), ApprovalBroker::interactive());

    let answers = HashMap::from([("c1", ApprovalDecision::AllowForSession)]);
    let report = turn_answering(&mut agent, &mut events, answers).await;

    assert_eq!(report.outcome, TurnOutcome::Completed);
    let text = std::fs::read_to_string(harness.workspace.path().join("a.txt")).unwrap();
    assert_eq!(text, "newer\n");
    let asked: Vec<String> = events
        .mainline()
        .into_iter()
        .filter_map(|event| match event {
            MainlineEvent::ApprovalRequested { call_id, .. } => Some(call_id),
            _ => None,
        })
        .collect();
    assert_eq!(asked, ["c1"]);
    assert!(agent.approvals().is_allowed_for_session(ToolKind::Write));
    assert_eq!(
        decisions(&harness, &agent),
        [("c1".to_owned(), ApprovalDecision::AllowForSession)]
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn renaming_between_turns_keeps_the_approvals_and_the_event_numbering() {
    let harness = Harness::new();
    harness.gateway.push_round(write_call("c1", "a.txt"));
    harness.gateway.push_round(text_round("Written.", None));
    harness.gateway.push_round(write_call("c2", "b.txt"));
    harness
        .gateway
        .push_round(text_round("Written again.", None));
    let (mut agent, mut events) = harness.start(ask(), ApprovalBroker::interactive());
    let answers = HashMap::from([("c1", ApprovalDecision::AllowForSession)]);
    turn_answering(&mut agent, &mut events, answers).await;
    let before = events.drain().len();

    agent.set_title("Widgets").unwrap();

    assert_eq!(agent.session().title().as_deref(), Some("Widgets"));
    assert!(agent.approvals().is_allowed_for_session(ToolKind::Write));
    // The next turn asks nothing, and its events carry on the numbering
    // (`Events` checks every seq follows the one before).
    let report = turn_answering(&mut agent, &mut events, HashMap::new()).await;
    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert!(events.all.len() > before);
    assert!(harness.workspace.path().join("b.txt").exists());
    let records = harness.records(agent.id());
    assert_eq!(
        of_type(&records, "title_set"),
        [&RecordBody::TitleSet(strata_protocol::TitleSet {
            title: "Widgets".into()
        })]
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_non_interactive_broker_refuses_at_once_saying_no_one_could_answer() {
    let harness = Harness::new();
    harness.gateway.push_round(calls_round(
        vec![call(
            "c1",
            "run_shell",
            json!({"command": "touch made.txt"}),
        )],
        None,
    ));
    harness.gateway.push_round(text_round("I could not.", None));
    let (mut agent, mut events) = harness.start(ask(), ApprovalBroker::non_interactive());

    let report = within(agent.run_turn("make it", CancellationToken::new()))
        .await
        .unwrap();

    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert!(!harness.workspace.path().join("made.txt").exists());
    let output = output_of(agent.history().items(), "c1").to_owned();
    assert!(output.contains("needs the user's approval"), "{output}");
    assert!(output.contains("no one can answer"), "{output}");
    assert!(output.contains("touch made.txt"), "{output}");
    assert_eq!(finished_status(&mut events, "c1"), ToolCallStatus::Denied);
    assert_eq!(
        decisions(&harness, &agent),
        [("c1".to_owned(), ApprovalDecision::Deny)]
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn read_only_refuses_writes_with_an_output_the_model_reads() {
    let harness = Harness::new();
    harness.gateway.push_round(write_call("c1", "a.txt"));
    harness.gateway.push_round(text_round("Read-only.", None));
    let (mut agent, mut events) = harness.start(
        SessionApprovals::new(ApprovalPolicy::ReadOnly),
        ApprovalBroker::interactive(),
    );
    run_turn(&mut agent, "write").await;
    assert!(!harness.workspace.path().join("a.txt").exists());
    let last = harness.gateway.last_request();
    assert!(output_of(&last.input, "c1").contains("read-only"));
    assert_eq!(finished_status(&mut events, "c1"), ToolCallStatus::Denied);
    assert!(decisions(&harness, &agent).is_empty());
}

#[tokio::test]
async fn read_only_prepares_nothing_so_a_fifo_or_a_huge_target_is_never_opened() {
    let harness = Harness::new();
    let fifo = harness.workspace.path().join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let big = std::fs::File::create(harness.workspace.path().join("big.txt")).unwrap();
    big.set_len(8 << 30).unwrap();
    harness.gateway.push_round(calls_round(
        vec![
            call("c1", "write_file", json!({"path": "pipe", "content": "x"})),
            call(
                "c2",
                "apply_edit",
                json!({"path": "big.txt", "old_text": "a", "new_text": "b"}),
            ),
        ],
        None,
    ));
    harness.gateway.push_round(text_round("Read-only.", None));
    let (mut agent, _events) = harness.start(
        SessionApprovals::new(ApprovalPolicy::ReadOnly),
        ApprovalBroker::interactive(),
    );
    // Preparing either call would block on the FIFO or refuse the size:
    // the outputs show the policy refused them first.
    run_turn(&mut agent, "write").await;
    let last = harness.gateway.last_request();
    for id in ["c1", "c2"] {
        let output = output_of(&last.input, id);
        assert!(output.contains("read-only"), "{id}: {output}");
    }
}

#[tokio::test]
async fn a_workspace_escape_refused_by_the_tool_reaches_the_model_as_output() {
    let harness = Harness::new();
    std::fs::write(harness.home.path().join("secret.txt"), "top secret").unwrap();
    let outside = harness.home.path().join("secret.txt");
    harness.gateway.push_round(calls_round(
        vec![
            call("c1", "read_file", json!({"path": "../secret.txt"})),
            call("c2", "read_file", json!({"path": outside})),
        ],
        None,
    ));
    harness.gateway.push_round(text_round("Refused.", None));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    run_turn(&mut agent, "read it").await;

    let last = harness.gateway.last_request();
    for call_id in ["c1", "c2"] {
        let output = output_of(&last.input, call_id);
        assert!(output.starts_with("path escapes the workspace"), "{output}");
        assert!(!output.contains("top secret"));
        assert_eq!(finished_status(&mut events, call_id), ToolCallStatus::Error);
    }
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn an_output_over_the_cap_is_cut_with_a_marker_and_kept_whole_in_its_own_record() {
    let mut harness = Harness::new();
    harness.tool_config.output_cap = OutputCap {
        max_bytes: 4096,
        max_lines: 40,
    };
    harness.gateway.push_round(calls_round(
        vec![call("c1", "run_shell", json!({"command": "seq 1 500"}))],
        None,
    ));
    harness.gateway.push_round(text_round("Long.", None));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    run_turn(&mut agent, "count").await;

    let item_id = agent
        .history()
        .items()
        .iter()
        .find_map(|item| match item {
            ResponseItem::FunctionCallOutput(output) if output.call_id == "c1" => Some(output.id),
            _ => None,
        })
        .unwrap();
    let capped = output_of(agent.history().items(), "c1").to_owned();
    assert!(capped.contains("lines) cut ...]"), "{capped}");
    assert!(capped.starts_with("1\n2\n"));
    assert!(!capped.contains("\n250\n"));
    let full = harness
        .records(agent.id())
        .into_iter()
        .find_map(|record| match record.body {
            RecordBody::FullToolOutput(full) => Some(full),
            _ => None,
        })
        .unwrap();
    assert_eq!(full.call_id, "c1");
    assert_eq!(full.item_id, item_id);
    let expected: String = (1..=500).map(|n| format!("{n}\n")).collect();
    assert!(full.output.starts_with(&expected), "{}", full.output);
    let shown = events.mainline().into_iter().find_map(|event| match event {
        MainlineEvent::ToolCallFinished { output, .. } => Some(output),
        _ => None,
    });
    assert_eq!(shown.as_deref(), Some(capped.as_str()));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn tools_run_in_the_order_the_model_called_them() {
    let harness = Harness::new();
    harness.gateway.push_round(vec![
        call("c1", "write_file", json!({"path": "n.txt", "content": "1"})),
        call("c2", "read_file", json!({"path": "n.txt"})),
        finished(StopReason::ToolUse),
    ]);
    harness.gateway.push_round(text_round("ok", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "go").await;
    assert_eq!(output_of(agent.history().items(), "c2"), "1");
    assert_eq!(
        labels(agent.history().items()),
        [
            "system",
            "user",
            "call",
            "call",
            "output",
            "output",
            "assistant"
        ]
    );
}

#[tokio::test]
async fn a_write_records_its_change_with_the_prior_content_kept_and_a_denied_write_records_none() {
    let harness = Harness::new();
    std::fs::write(harness.workspace.path().join("a.txt"), "old\n").unwrap();
    harness.gateway.push_round(write_call("c1", "a.txt"));
    harness.gateway.push_round(write_call("c2", "b.txt"));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, mut events) = harness.start(ask(), ApprovalBroker::interactive());
    let answers = HashMap::from([
        ("c1", ApprovalDecision::AllowOnce),
        ("c2", ApprovalDecision::Deny),
    ]);
    turn_answering(&mut agent, &mut events, answers).await;

    let changes: Vec<_> = harness
        .records(agent.id())
        .into_iter()
        .filter_map(|record| match record.body {
            RecordBody::FileChange(change) => Some(change),
            _ => None,
        })
        .collect();
    assert_eq!(changes.len(), 1, "{changes:#?}");
    let change = &changes[0];
    assert_eq!(
        (change.path.as_str(), change.call_id.as_str()),
        ("a.txt", "c1")
    );
    assert_eq!(change.cause, strata_protocol::ChangeCause::WriteFile);
    assert!(change.turn_id.is_some());
    let before = change.before.as_ref().unwrap();
    let after = change.after.as_ref().unwrap();
    assert_eq!(
        before.sha256.as_deref(),
        Some(strata_core::changes::sha256_hex(b"old\n").as_str())
    );
    assert_eq!(
        after.sha256.as_deref(),
        Some(strata_core::changes::sha256_hex(b"new\n").as_str())
    );
    let session_file = harness.store.session_path(agent.id());
    let blobs = strata_core::changes::BlobStore::beside(&session_file);
    assert_eq!(
        blobs
            .get(before.sha256.as_deref().unwrap())
            .unwrap()
            .unwrap(),
        b"old\n"
    );
    harness.assert_reopens_to(agent);
}
