//! The layered policy in the live loop: eviction without a model call, a
//! summary made from the originals with a state sheet, the pre-turn check,
//! the refusal of an oversized message and the model switch; and the
//! base policy's records and requests, pinned by a snapshot.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use strata_core::compaction::{EVICTED_PREFIX, IN_CONTEXT_SUMMARY_PREFIX, STATE_SHEET_PREFIX};
use strata_core::tools::CancellationToken;
use strata_core::{ApprovalBroker, CompactOutcome, CoreError};
use strata_protocol::{CompactionTrigger, DebugEvent, MainlineEvent, RecordBody, ResponseItem};
use support::*;

#[path = "agent_layered/helpers.rs"]
mod helpers;
use helpers::*;

#[tokio::test]
async fn at_the_threshold_old_tool_outputs_are_evicted_without_a_model_call_and_the_last_three_rounds_stay_whole()
 {
    let harness = layered(6_000);
    six_reads(&harness);
    harness
        .gateway
        .push_round(text_round("Read them all.", None));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "Read the six parts.").await;

    let debug = events.debug();
    assert_eq!(report.compactions, 0, "no summary: {debug:#?}");
    assert!(
        harness.gateway.summary_requests().is_empty(),
        "no model call: {debug:#?}"
    );
    let last = harness.gateway.last_request();
    let sent = outputs(&last.input);
    assert_eq!(sent.len(), 6);
    let evicted = sent
        .iter()
        .filter(|o| o.starts_with(EVICTED_PREFIX))
        .count();
    assert_eq!(evicted, 3, "the three large outputs: {sent:?}");
    // Oldest first, and never the last three rounds'.
    assert!(
        sent[..evicted]
            .iter()
            .all(|o| o.starts_with(EVICTED_PREFIX))
    );
    assert!(
        sent[3..].iter().all(|o| o.starts_with("// original")),
        "{sent:?}"
    );
    assert!(
        sent[0].contains("read_file") && sent[0].contains("chars"),
        "{}",
        sent[0]
    );
    let eviction = debug
        .into_iter()
        .find_map(|event| match event {
            DebugEvent::ToolOutputsEvicted { eviction, .. } => Some(eviction),
            _ => None,
        })
        .expect("an eviction event");
    assert_eq!(eviction.evicted.len(), evicted);
    assert!(eviction.estimated_after <= eviction.low_water);
    assert_eq!(eviction.context_tokens, Some(7_010));
    // The full outputs stay in the file; replay applies the stored placeholders.
    let records = harness.records(agent.id());
    let originals = records
        .iter()
        .filter(|r| matches!(&r.body, RecordBody::ResponseItem(ResponseItem::FunctionCallOutput(o)) if o.output.starts_with("// original")))
        .count();
    assert_eq!(originals, 6);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn below_the_threshold_nothing_is_evicted_however_large_the_outputs() {
    let harness = layered(6_000);
    // About 6,300 tokens of outputs, but the round reports just under 6,000.
    six_reads_reporting(&harness, 5_999);
    harness
        .gateway
        .push_round(text_round("Read them all.", Some(usage(5_900, 10))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());

    run_turn(&mut agent, "Read the six parts.").await;

    assert_eq!(agent.session().state().evictions(), 0);
    assert!(harness.gateway.summary_requests().is_empty());
    let sent = harness.gateway.last_request();
    assert!(
        outputs(&sent.input)
            .iter()
            .all(|o| o.starts_with("// original"))
    );
}

#[tokio::test]
async fn when_eviction_cannot_clear_the_floor_a_summary_in_the_sessions_own_context_replaces_it() {
    // Eviction would free the three large outputs; what is left (the system
    // prompt, the tool specs, the last three rounds) is still over 75% of a
    // threshold of 1,000, so a summary is asked for instead, over the
    // history exactly as the last round sent it (its cached prefix) plus
    // one instruction, and no eviction is recorded before it.
    let harness = layered(1_000);
    six_reads(&harness);
    harness
        .gateway
        .push_summary(summary_response("Read six parts."));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());

    let report = run_turn(&mut agent, "Read the six parts.").await;

    assert_eq!(report.compactions, 1);
    let bodies: Vec<&'static str> = harness
        .records(agent.id())
        .iter()
        .filter_map(|r| match r.body {
            RecordBody::ToolOutputsEvicted(_) => Some("evicted"),
            RecordBody::LayeredCompaction(_) => Some("summary"),
            _ => None,
        })
        .collect();
    assert_eq!(bodies, ["summary"]);
    let round = &harness.gateway.requests()[harness.gateway.requests().len() - 2];
    let summary = &harness.gateway.summary_requests()[0];
    assert!(
        summary.input.len() > round.input.len() + 1,
        "the last round's items, then the instruction"
    );
    assert_eq!(summary.input[..round.input.len()], round.input[..]);
    assert_eq!(
        (&summary.tools, &summary.tool_choice),
        (&round.tools, &round.tool_choice)
    );
    assert_eq!(summary.session_id, round.session_id);
    let ResponseItem::Message(instruction) = summary.input.last().unwrap() else {
        panic!("an instruction")
    };
    assert!(instruction.content.starts_with(IN_CONTEXT_SUMMARY_PREFIX));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_layered_summary_reads_evicted_originals_back_from_the_file_and_the_sheet_follows_it() {
    let mut harness = layered(6_000);
    // The summarizer's input may use the whole window.
    harness.config.context_window = Some(100_000);
    six_reads(&harness);
    harness
        .gateway
        .push_round(text_round("Next step: compare part 2 with part 4.", None));
    // The in-context request's reply calls a tool: no summary, so the
    // summarizer's own request over the originals follows.
    harness.gateway.push_summary(tool_call_instead_of_summary());
    harness
        .gateway
        .push_summary(summary_response("Read six parts."));
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Read the six parts. Never edit vendor/.").await;
    assert!(outputs(agent.history().items())[0].starts_with(EVICTED_PREFIX));

    let outcome = agent
        .compact_now(None, CancellationToken::new())
        .await
        .unwrap();

    let CompactOutcome::Compacted(summary) = outcome else {
        panic!("{outcome:?}")
    };
    let request = &harness.gateway.summary_requests()[1];
    let ResponseItem::Message(transcript) = &request.input[1] else {
        panic!()
    };
    for n in 0..6 {
        assert!(
            transcript
                .content
                .contains(&format!("// original of part {n}")),
            "part {n} not from the file"
        );
    }
    assert!(!transcript.content.contains(EVICTED_PREFIX));
    let items = agent.history().items();
    assert_eq!(labels(items), ["system", "summary", "user", "user"]);
    assert_eq!(items[1], ResponseItem::CompactionSummary(summary.clone()));
    let ResponseItem::Message(sheet) = &items[2] else {
        panic!()
    };
    assert!(sheet.content.starts_with(STATE_SHEET_PREFIX));
    for n in 0..6 {
        assert!(
            sheet.content.contains(&format!("src/part_{n}.rs: read")),
            "{}",
            sheet.content
        );
    }
    assert!(sheet.content.contains("Never edit vendor/"));
    assert!(
        sheet
            .content
            .contains("Next step: compare part 2 with part 4.")
    );
    let layered = events
        .debug()
        .into_iter()
        .find_map(|event| match event {
            DebugEvent::LayeredCompacted { compaction, .. } => Some(compaction),
            _ => None,
        })
        .expect("a layered compaction event");
    assert_eq!(layered.summary.metadata.trigger, CompactionTrigger::Manual);
    // The summarizer lost every path; the sheet kept them: nothing is lost.
    assert!(
        layered.loss_audit.paths.is_empty(),
        "{:?}",
        layered.loss_audit
    );
    assert!(layered.loss_audit.commands.is_empty());
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_message_alone_over_the_threshold_is_refused_before_anything_is_sent_or_written() {
    let harness = layered(1_000);
    let (mut agent, mut events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let records = harness.records(agent.id()).len();

    let error = agent
        .run_turn("word ".repeat(2_000), CancellationToken::new())
        .await
        .unwrap_err();

    assert!(
        matches!(
            error,
            CoreError::MessageTooLong {
                threshold: 1_000,
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("too long"), "{error}");
    assert!(harness.gateway.requests().is_empty());
    assert_eq!(harness.records(agent.id()).len(), records);
    assert!(events.mainline().iter().any(|event| matches!(event, MainlineEvent::Error { message, .. } if message.contains("not sent"))));
}

#[tokio::test]
async fn before_a_message_that_would_cross_the_threshold_room_is_made_first_by_eviction() {
    let harness = layered(3_000);
    harness.write("notes.txt", &"n".repeat(6_000));
    harness.write("a.txt", "alpha\n");
    // Every round reports usage under the threshold: nothing is evicted
    // between them. The notes are read before the last three rounds.
    harness
        .gateway
        .push_round(read_round("c1", "notes.txt", Some(usage(1_000, 10))));
    for n in 2..4 {
        harness.gateway.push_round(read_round(
            &format!("c{n}"),
            "a.txt",
            Some(usage(1_050, 10)),
        ));
    }
    harness
        .gateway
        .push_round(text_round("Read the notes.", Some(usage(2_100, 10))));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Read the notes.").await;
    assert_eq!(agent.session().state().evictions(), 0);

    // A message that, added to the last report (2,110), just reaches the
    // threshold, as the agent estimates it.
    let mut message = "Now summarise them in".to_owned();
    while 2_110 + agent.estimate().text(&message) < 3_000 {
        message.push_str(" detail");
    }
    run_turn(&mut agent, message).await;

    let records = harness.records(agent.id());
    let evicted = records
        .iter()
        .position(|r| matches!(&r.body, RecordBody::ToolOutputsEvicted(e) if e.trigger == CompactionTrigger::PreTurn))
        .expect("a pre-turn eviction");
    let second_turn = records
        .iter()
        .rposition(|r| matches!(r.body, RecordBody::TurnStarted(_)))
        .unwrap();
    assert!(evicted < second_turn, "made room before the turn started");
    // Eviction was enough: no summary.
    assert!(harness.gateway.summary_requests().is_empty());
    let sent = harness.gateway.last_request().input;
    assert!(outputs(&sent)[0].starts_with(EVICTED_PREFIX));
    harness.assert_reopens_to(agent);
}

/// An answer of about 900 tokens whose round reports little usage.
#[tokio::test]
async fn a_session_compacting_under_base_writes_exactly_the_base_records_and_requests() {
    let mut harness = Harness::new();
    harness.config.compact_threshold = 1_000;
    harness.write("a.txt", "alpha\n");
    harness
        .gateway
        .push_round(read_round("c1", "a.txt", Some(usage(1_100, 50))));
    harness
        .gateway
        .push_summary(summary_response("Read a.txt."));
    harness
        .gateway
        .push_round(text_round("It says alpha.", Some(usage(300, 5))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "What is in a.txt?").await;
    let records: Vec<serde_json::Value> = harness
        .records(agent.id())
        .iter()
        .map(|record| serde_json::to_value(record).unwrap())
        .collect();
    let requests: Vec<serde_json::Value> = harness
        .gateway
        .requests()
        .iter()
        .map(|request| serde_json::to_value(&request.input).unwrap())
        .collect();
    let normalised = normalise(json!({ "records": records, "requests": requests }));
    insta::assert_json_snapshot!("base_session_records_and_requests", normalised);
}

/// Replaces what differs between runs (ids, times, paths, durations) by
/// stable placeholders, so the snapshot pins the shape and the values.
fn normalise(value: serde_json::Value) -> serde_json::Value {
    let text = value.to_string();
    let uuid =
        regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    let mut seen: Vec<String> = Vec::new();
    let text = uuid.replace_all(&text, |caps: &regex::Captures| {
        let id = caps[0].to_owned();
        let n = seen.iter().position(|s| *s == id).unwrap_or_else(|| {
            seen.push(id);
            seen.len() - 1
        });
        format!("<id {n}>")
    });
    let ts = regex::Regex::new(r#""(ts|created_at)":"[^"]+""#).unwrap();
    let text = ts.replace_all(&text, r#""$1":"<ts>""#);
    let duration = regex::Regex::new(r#""duration_ms":\d+"#).unwrap();
    let text = duration.replace_all(&text, r#""duration_ms":0"#);
    let tmp = regex::Regex::new(r"/tmp/\.tmp[A-Za-z0-9_]+").unwrap();
    let text = tmp.replace_all(&text, "<tmp>");
    serde_json::from_str(&text).unwrap()
}

/// A session file holding only its header line, as a kill right after
/// `create` leaves it.
async fn switched_to_a_smaller_window(
    harness: &mut Harness,
    record_switch: bool,
) -> Vec<RecordBody> {
    harness.config.compact_threshold = 100_000;
    harness.write("big.txt", &"b".repeat(8_000));
    harness
        .gateway
        .push_round(read_round("c1", "big.txt", Some(usage(2_400, 10))));
    harness
        .gateway
        .push_round(text_round("Read it.", Some(usage(2_500, 10))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Read big.txt.").await;
    let id = agent.id();
    drop(agent);

    harness.config.compact_threshold = 1_500;
    let (mut agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    if record_switch {
        agent
            .record_profile(strata_protocol::ProfileSet {
                provider_kind: strata_protocol::ProviderKind::OpenaiChat,
                base_url: Some("http://127.0.0.1:9/v1".into()),
                model: harness.config.model.clone(),
                profile: Some("small".into()),
                change: strata_protocol::ProfileChange::Switched,
                approval: None,
            })
            .unwrap();
    }
    // The read is among the last three rounds, which eviction spares: the
    // room is made by a summary.
    harness
        .gateway
        .push_summary(summary_response("Read big.txt."));
    harness.gateway.push_round(text_round("Go on.", None));
    run_turn(&mut agent, "Go on.").await;
    let records = harness.records(id);
    let second_turn = records
        .iter()
        .rposition(|r| matches!(r.body, RecordBody::TurnStarted(_)))
        .unwrap();
    records[..second_turn]
        .iter()
        .map(|r| r.body.clone())
        .collect()
}

fn pre_turn_triggers(records: &[RecordBody]) -> Vec<CompactionTrigger> {
    records
        .iter()
        .filter_map(|body| match body {
            RecordBody::ToolOutputsEvicted(e) => Some(e.trigger),
            RecordBody::LayeredCompaction(c) => Some(c.summary.metadata.trigger),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_switch_to_a_profile_whose_window_the_history_no_longer_fits_compacts_as_model_switch() {
    let mut harness = layered(100_000);
    let records = switched_to_a_smaller_window(&mut harness, true).await;
    let triggers = pre_turn_triggers(&records);
    assert!(!triggers.is_empty(), "compacted before the turn");
    assert!(
        triggers
            .iter()
            .all(|t| *t == CompactionTrigger::ModelSwitch),
        "{triggers:?}"
    );
}

#[tokio::test]
async fn without_a_switch_the_same_shrink_is_a_pre_turn_compaction() {
    let mut harness = layered(100_000);
    let records = switched_to_a_smaller_window(&mut harness, false).await;
    let triggers = pre_turn_triggers(&records);
    assert!(!triggers.is_empty(), "compacted before the turn");
    assert!(
        triggers.iter().all(|t| *t == CompactionTrigger::PreTurn),
        "{triggers:?}"
    );
}

#[tokio::test]
async fn a_resumed_session_marks_again_the_cache_prefix_its_last_round_announced() {
    let mut harness = layered(100_000);
    six_reads_reporting(&harness, 7_010);
    harness
        .gateway
        .push_round(text_round("Read them all.", Some(usage(7_100, 10))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Read the six parts.").await;
    let id = agent.id();
    drop(agent);
    let announced = harness
        .records(id)
        .iter()
        .rev()
        .find_map(|record| match &record.body {
            RecordBody::Round(round) => Some(round.cache_anchors.clone()),
            _ => None,
        })
        .expect("a round record");
    let [anchor] = announced[..] else {
        panic!("one stable prefix before any eviction: {announced:?}")
    };

    // Resumed under a lower threshold: the first turn evicts before its
    // request, which moves the stable prefix on; the request still marks
    // the one the provider cached before the pause.
    harness.config.compact_threshold = 6_000;
    let (mut agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    harness.gateway.push_round(text_round("Go on.", None));
    run_turn(&mut agent, "Go on.").await;
    let sent = harness.gateway.last_request();
    assert!(
        outputs(&sent.input)
            .iter()
            .any(|output| output.starts_with(EVICTED_PREFIX)),
        "the resumed turn evicted first"
    );
    assert_eq!(sent.cache_anchors.len(), 2, "{:?}", sent.cache_anchors);
    assert_eq!(sent.cache_anchors[0], anchor);
    assert!(sent.cache_anchors[1] > anchor);
    harness.assert_reopens_to(agent);
}
