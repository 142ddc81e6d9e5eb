//! The sampling loop against a scripted model: what a turn commits, sends
//! and emits, round limits, retries and provider failures.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use strata_core::tools::CancellationToken;
use strata_core::{AgentConfig, ApprovalBroker};
use strata_protocol::{
    CompactionPolicy, DebugEvent, MainlineEvent, ModelError, ModelEvent, RecordBody, ResponseItem,
    Role, StopReason, ToolCallStatus, ToolChoice, TurnFinished, TurnOutcome,
};
use support::*;

/// The kind of each mainline event, e.g. `["turn_started", "text_delta"]`.
fn kinds(events: &[MainlineEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            serde_json::to_value(event).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_new_session_starts_with_the_system_prompt_and_agents_md() {
    let harness = Harness::new();
    harness.write("AGENTS.md", "Always use tabs.\n");
    let (agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let items = agent.history().items();
    assert_eq!(labels(items), ["system", "developer"]);
    let ResponseItem::Message(system) = &items[0] else {
        panic!("not a message")
    };
    assert!(system.content.starts_with("You are Strata"));
    assert!(
        system
            .content
            .contains(&agent.workspace().display().to_string())
    );
    assert!(system.content.contains("- run_shell: "));
    let ResponseItem::Message(developer) = &items[1] else {
        panic!("not a message")
    };
    assert_eq!(developer.role, Role::Developer);
    assert!(developer.content.ends_with("Always use tabs."));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_turn_runs_the_tools_commits_each_round_and_reopens_to_the_same_history() {
    let harness = Harness::new();
    harness.write("notes.txt", "alpha\nbeta\n");
    harness.gateway.push_round(calls_round(
        vec![call("c1", "read_file", json!({"path": "notes.txt"}))],
        Some(usage(300, 20)),
    ));
    harness
        .gateway
        .push_round(text_round("notes.txt has two lines.", Some(usage(400, 10))));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "How long is notes.txt?").await;

    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert_eq!(
        (report.rounds, report.compactions, report.error),
        (2, 0, None)
    );
    let requests = harness.gateway.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(labels(&requests[0].input), ["system", "user"]);
    assert_eq!(
        labels(&requests[1].input),
        ["system", "user", "call", "output"]
    );
    assert_eq!(requests[0].model, "model-1");
    // Every round names the session (providers key their prompt cache on it).
    assert!(requests.iter().all(|r| r.session_id == Some(agent.id())));
    assert_eq!(requests[0].tool_choice, Some(ToolChoice::Auto));
    // The six workspace tools, then the plan, offered under every policy.
    let offered: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(offered.len(), 7);
    assert_eq!(offered.last(), Some(&"update_plan"));
    assert_eq!(output_of(&requests[1].input, "c1"), "alpha\nbeta\n");
    assert_eq!(
        labels(agent.history().items()),
        ["system", "user", "call", "output", "assistant"]
    );
    assert_eq!(
        agent.history().last_usage().unwrap().context_tokens(),
        Some(410)
    );

    let mainline = events.mainline();
    assert_eq!(
        kinds(&mainline),
        [
            "turn_started",
            "message_committed",
            "tool_call_started",
            "message_committed",
            "tool_call_finished",
            "text_delta",
            "message_committed",
            "turn_finished"
        ]
    );
    assert!(matches!(
        &mainline[4],
        MainlineEvent::ToolCallFinished { status: ToolCallStatus::Success, output, .. }
            if output == "alpha\nbeta\n"
    ));
    let debug = events.debug();
    assert!(matches!(
        &debug[..],
        [
            DebugEvent::RoundStarted { .. },
            DebugEvent::UsageReported {
                context_tokens: Some(320),
                threshold: 8000,
                ..
            },
            DebugEvent::RoundStarted { .. },
            DebugEvent::UsageReported {
                context_tokens: Some(410),
                ..
            },
        ]
    ));

    let records = harness.records(agent.id());
    let types: Vec<&str> = records[2..].iter().map(|r| r.body.type_name()).collect();
    assert_eq!(
        types,
        [
            "turn_started",
            "response_item",
            "round",
            "response_item",
            "token_usage",
            "response_item",
            "round",
            "response_item",
            "token_usage",
            "turn_finished"
        ]
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn reasoning_is_committed_before_the_answer_it_led_to() {
    let harness = Harness::new();
    let reasoning = ResponseItem::Reasoning(strata_protocol::ReasoningItem {
        id: strata_protocol::ItemId::new(),
        provider: "scripted".into(),
        payload: json!({"type": "reasoning", "encrypted_content": "opaque"}),
    });
    harness.gateway.push_round(vec![
        delta("Hi."),
        ev(ModelEvent::Reasoning {
            item: reasoning.clone(),
        }),
        finished(StopReason::EndTurn),
    ]);
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "hello").await;
    let items = agent.history().items();
    assert_eq!(labels(items), ["system", "user", "reasoning", "assistant"]);
    assert_eq!(items[2], reasoning);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_5000_delta_stream_loses_and_reorders_nothing() {
    let harness = Harness::new();
    let deltas: Vec<String> = (0..5000).map(|i| format!("{i};")).collect();
    let mut steps: Vec<Step> = deltas.iter().map(|d| delta(d)).collect();
    steps.push(finished(StopReason::EndTurn));
    harness.gateway.push_round(steps);
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    run_turn(&mut agent, "count").await;

    let received: Vec<String> = events
        .mainline()
        .into_iter()
        .filter_map(|event| match event {
            MainlineEvent::TextDelta { delta, .. } => Some(delta),
            _ => None,
        })
        .collect();
    assert_eq!(received, deltas);
    let ResponseItem::Message(answer) = agent.history().items().last().unwrap() else {
        panic!("no answer")
    };
    assert_eq!(answer.content, deltas.concat());
    // Events::drain asserted every seq in order from 0 with no gap.
    assert_eq!(events.all.len(), 5000 + 4);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_turn_that_keeps_calling_tools_stops_at_the_round_limit() {
    let mut harness = Harness::new();
    harness.config = AgentConfig {
        max_rounds: 2,
        ..harness.config.clone()
    };
    for id in ["c1", "c2"] {
        harness.gateway.push_round(calls_round(
            vec![call(id, "list_directory", json!({}))],
            None,
        ));
    }
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "explore").await;

    assert_eq!(report.outcome, TurnOutcome::RoundLimit);
    assert_eq!(report.rounds, 2);
    assert_eq!(harness.gateway.requests().len(), 2);
    assert_eq!(
        labels(agent.history().items()),
        ["system", "user", "call", "output", "call", "output"]
    );
    assert!(matches!(
        events.mainline().last(),
        Some(MainlineEvent::TurnFinished {
            outcome: TurnOutcome::RoundLimit,
            rounds: 2,
            ..
        })
    ));
    let records = harness.records(agent.id());
    assert!(matches!(
        of_type(&records, "turn_finished")[..],
        [RecordBody::TurnFinished(TurnFinished {
            outcome: TurnOutcome::RoundLimit,
            rounds: 2,
            ..
        })]
    ));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_provider_failure_mid_turn_records_the_error_and_leaves_the_history_clean() {
    let harness = Harness::new();
    let failure = ModelError::Transient {
        message: "503 Service Unavailable".into(),
    };
    harness.gateway.push_round(calls_round(
        vec![call("c1", "list_directory", json!({}))],
        None,
    ));
    harness
        .gateway
        .push_round(vec![delta("Half an ans"), Step::Fail(failure.clone())]);
    harness.gateway.push_round(text_round("Back.", None));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "look").await;

    assert_eq!(report.outcome, TurnOutcome::Failed);
    assert_eq!(report.error, Some(failure.clone()));
    assert_eq!(
        labels(agent.history().items()),
        ["system", "user", "call", "output"]
    );
    let records = harness.records(agent.id());
    assert!(matches!(
        &of_type(&records, "error")[..],
        [RecordBody::Error(error)] if error.model_error == Some(failure.clone())
            && error.turn_id == Some(report.turn_id)
    ));
    let mainline = events.mainline();
    assert!(mainline.iter().any(|event| matches!(
        event,
        MainlineEvent::Error { model_error: Some(error), .. } if *error == failure
    )));
    assert!(matches!(
        mainline.last(),
        Some(MainlineEvent::TurnFinished {
            outcome: TurnOutcome::Failed,
            rounds: 2,
            ..
        })
    ));

    // The next turn goes on from the clean history.
    let report = run_turn(&mut agent, "again").await;
    assert_eq!(report.outcome, TurnOutcome::Completed);
    let last = harness.gateway.last_request();
    assert_eq!(
        labels(&last.input),
        ["system", "user", "call", "output", "user"]
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_stream_that_ends_without_finishing_fails_the_turn_without_committing() {
    let harness = Harness::new();
    harness.gateway.push_round(vec![delta("cut")]);
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let report = run_turn(&mut agent, "hi").await;
    assert_eq!(report.outcome, TurnOutcome::Failed);
    assert!(matches!(
        report.error,
        Some(ModelError::StreamInterrupted { .. })
    ));
    assert_eq!(labels(agent.history().items()), ["system", "user"]);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_retried_round_records_the_retry_and_commits_only_the_final_attempt() {
    let harness = Harness::new();
    harness.gateway.push_round(vec![
        delta("stale "),
        ev(ModelEvent::Retrying {
            attempt: 1,
            of: 3,
            delay_ms: 0,
            cause: "temporary provider failure: 502".into(),
        }),
        delta("fresh"),
        finished(StopReason::EndTurn),
    ]);
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "hi").await;

    let ResponseItem::Message(answer) = agent.history().items().last().unwrap() else {
        panic!("no answer")
    };
    assert_eq!(answer.content, "fresh");
    let records = harness.records(agent.id());
    assert!(matches!(
        &of_type(&records, "retry")[..],
        [RecordBody::Retry(retry)] if retry.attempt == 1 && retry.of == 3
    ));
    assert!(events.debug().iter().any(|event| matches!(
        event,
        DebugEvent::Retrying { attempt: 1, of: 3, cause, .. } if cause.contains("502")
    )));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn an_incomplete_tool_call_is_reported_and_never_run_or_committed() {
    let harness = Harness::new();
    harness.gateway.push_round(vec![
        delta("Writing it now."),
        ev(ModelEvent::ToolCallIncomplete {
            call_id: "c1".into(),
            name: "write_file".into(),
            partial_arguments: r#"{"path":"out.txt","content":"par"#.into(),
        }),
        finished(StopReason::MaxTokens),
    ]);
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "write").await;

    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert_eq!(
        labels(agent.history().items()),
        ["system", "user", "assistant"]
    );
    assert!(!harness.workspace.path().join("out.txt").exists());
    assert!(events.mainline().iter().any(|event| matches!(
        event,
        MainlineEvent::Error { message, model_error: None, .. }
            if message.contains("write_file") && message.contains("not run")
    )));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn max_output_tokens_and_the_model_are_sent_and_recorded_in_each_round() {
    let mut harness = Harness::new();
    harness.config.max_output_tokens = Some(512);
    harness.gateway.push_round(text_round("ok", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "hi").await;
    assert_eq!(harness.gateway.requests()[0].max_output_tokens, Some(512));
    let records = harness.records(agent.id());
    assert!(matches!(
        &of_type(&records, "round")[..],
        [RecordBody::Round(round)] if round.max_output_tokens == Some(512)
            && round.provider_kind == "scripted"
            && round.model == "model-1"
            && round.input_items == 2
    ));
}

#[test]
fn the_context_window_caps_the_threshold() {
    let base = CompactionPolicy::Base;
    let mut config = AgentConfig::new("p", "m");
    assert_eq!(config.effective_threshold(base), config.compact_threshold);
    config.context_window = Some(6_000);
    config.max_output_tokens = Some(1_000);
    assert_eq!(config.effective_threshold(base), 5_000);
    config.context_window = Some(200_000);
    assert_eq!(config.effective_threshold(base), config.compact_threshold);
    // Layered's default is a fifth of the window, never above the profile's.
    assert_eq!(
        config.effective_threshold(CompactionPolicy::Layered),
        config.compact_threshold.min(40_000)
    );
    config.compact_threshold = 160_000;
    assert_eq!(
        config.effective_threshold(CompactionPolicy::Layered),
        40_000
    );
}

#[test]
fn turns_and_compactions_can_run_on_a_multi_threaded_runtime() {
    fn assert_send<T: Send>(_: &T) {}
    let harness = Harness::new();
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let turn = agent.run_turn("hi", CancellationToken::new());
    assert_send(&turn);
    drop(turn);
    let compaction = agent.compact_now(None, CancellationToken::new());
    assert_send(&compaction);
}

/// A request as a token per four characters: its items, then its tool specs.
fn raw_request_estimate(request: &strata_protocol::ModelRequest) -> u64 {
    use strata_core::compaction::{CharEstimator, TokenEstimator, item_text};
    let items: u64 = request
        .input
        .iter()
        .map(|item| CharEstimator.count(&item_text(item)))
        .sum();
    items + CharEstimator.count(&serde_json::to_string(&request.tools).unwrap())
}

#[tokio::test]
async fn each_round_records_the_calibrated_estimate_the_console_compares_with_the_report() {
    let mut harness = Harness::new();
    harness.config.compaction = Some(strata_protocol::CompactionPolicy::Layered);
    harness.config.compact_threshold = 10_000_000;
    // Far more than a token per four characters: the next estimate is
    // calibrated up to the bound of three times the raw count.
    harness
        .gateway
        .push_round(text_round("Noted.", Some(usage(1_000_000, 10))));
    harness
        .gateway
        .push_round(text_round("Still noted.", Some(usage(1_200, 10))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "first").await;
    run_turn(&mut agent, "second").await;
    let records = harness.records(agent.id());
    let RecordBody::SessionMeta(meta) = &records[0].body else {
        panic!("session_meta first");
    };
    // What the console's drift reads: the estimate each round record keeps.
    let page = strata_core::store::round_requests(meta, &records, 0, 10);
    let [first, second] = &page.rounds[..] else {
        panic!("two rounds: {page:?}");
    };
    assert_eq!(
        first.estimated_input_tokens,
        Some(raw_request_estimate(&first.request)),
        "nothing reported yet: uncalibrated"
    );
    assert_eq!(
        second.estimated_input_tokens,
        Some(3 * raw_request_estimate(&second.request)),
        "calibrated against the first report, as the agent estimated it"
    );
    assert_eq!(
        second.round.estimated_input_tokens,
        second.estimated_input_tokens
    );
    assert_eq!(
        second.usage.as_ref().and_then(|u| u.input_tokens),
        Some(1_200)
    );

    // A base session's rounds are written exactly as before: no estimate.
    let base = Harness::new();
    base.gateway.push_round(text_round("ok", None));
    let (mut agent, _events) = base.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "hi").await;
    let records = base.records(agent.id());
    assert!(matches!(
        &of_type(&records, "round")[..],
        [RecordBody::Round(round)] if round.estimated_input_tokens.is_none()
    ));
}
