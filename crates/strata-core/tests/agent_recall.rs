//! Nothing compacted is gone, through the real loop with a scripted model:
//! recall after an eviction and after a summary, a pin surviving two
//! compactions, undo, a fork from before a compaction, partial compaction,
//! and the rule check.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::HashSet;

use serde_json::json;
use strata_core::compaction::{EVICTED_PREFIX, rule_violations};
use strata_core::recall::RECALL;
use strata_core::store::{ReadMode, read_session_tail, verify_checkpoints};
use strata_core::tools::CancellationToken;
use strata_core::{Agent, ApprovalBroker, CompactOutcome};
use strata_protocol::{CompactionPolicy, ForkPoint, ItemId, RecordBody, ResponseItem, TokenUsage};
use support::*;

fn layered(threshold: u64) -> Harness {
    let mut harness = Harness::new();
    harness.config.compaction = Some(CompactionPolicy::Layered);
    harness.config.compact_threshold = threshold;
    harness.config.context_window = Some(100_000);
    harness
}

/// Six reads, the first three of about 2,000 tokens; the last reports usage
/// over the threshold of 6,000, so the oldest outputs are evicted.
fn six_reads(harness: &Harness) {
    for n in 0..6 {
        let size = if n < 3 { 8_000 } else { 400 };
        harness.write(
            &format!("src/part_{n}.rs"),
            &format!("// original of part {n}\n{}", "x".repeat(size)),
        );
        let usage: Option<TokenUsage> = (n == 5).then(|| usage(7_000, 10));
        harness.gateway.push_round(calls_round(
            vec![call(
                &format!("c{n}"),
                "read_file",
                json!({ "path": format!("src/part_{n}.rs") }),
            )],
            usage,
        ));
    }
    harness.gateway.push_round(text_round("Read them.", None));
}

/// A session that ran one turn reading the six parts.
async fn read_six(harness: &Harness) -> Agent {
    six_reads(harness);
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Read the six parts.").await;
    agent
}

/// A layered session that read the six parts (threshold 60,000: nothing is
/// evicted), then compacted by hand; returns the history before.
async fn read_then_compact(harness: &Harness) -> (Agent, Vec<ResponseItem>) {
    let mut agent = read_six(harness).await;
    let before = agent.history().items().to_vec();
    compact(harness, &mut agent).await;
    (agent, before)
}

/// A manual compaction with a scripted summary, which must apply.
async fn compact(harness: &Harness, agent: &mut Agent) {
    harness.gateway.push_summary(summary_response("Lossy."));
    compact_by_hand(agent).await;
}

fn output_id(items: &[ResponseItem], call_id: &str) -> ItemId {
    items
        .iter()
        .find(|item| matches!(item, ResponseItem::FunctionCallOutput(o) if o.call_id == call_id))
        .map(ResponseItem::id)
        .expect("the output")
}

fn ids(items: &[ResponseItem]) -> Vec<ItemId> {
    items.iter().map(ResponseItem::id).collect()
}

/// Scripts a round calling recall with `arguments`, then an answer.
fn recall_round(harness: &Harness, arguments: serde_json::Value) {
    harness
        .gateway
        .push_round(calls_round(vec![call("r1", RECALL, arguments)], None));
    harness.gateway.push_round(text_round("Got it.", None));
}

#[tokio::test]
async fn recall_returns_the_original_after_an_eviction_and_after_a_summary() {
    let harness = layered(6_000);
    let mut agent = read_six(&harness).await;
    let evicted = output_id(agent.history().items(), "c0");
    assert!(output_of(agent.history().items(), "c0").starts_with(EVICTED_PREFIX));
    assert!(
        harness.gateway.requests()[0]
            .tools
            .iter()
            .any(|tool| tool.name == RECALL),
        "layered rounds offer recall"
    );

    // By a prefix of the id the placeholder names.
    recall_round(&harness, json!({ "id": &evicted.to_string()[..33] }));
    run_turn(&mut agent, "What was in part 0?").await;
    let answer = output_of(agent.history().items(), "r1");
    assert!(answer.contains("// original of part 0"), "{answer}");
    assert!(answer.contains("read_file"), "{answer}");

    compact(&harness, &mut agent).await;
    let summary_text = match &agent.history().items()[1] {
        ResponseItem::CompactionSummary(summary) => summary.summary.clone(),
        other => panic!("{other:?}"),
    };
    assert!(summary_text.contains("recall"), "{summary_text}");

    // After the summary: a search finds the removed originals by their ids.
    harness.gateway.push_round(calls_round(
        vec![call("r2", RECALL, json!({ "query": "original of part 4" }))],
        None,
    ));
    harness.gateway.push_round(text_round("Found.", None));
    run_turn(&mut agent, "Find part 4.").await;
    let found = output_of(agent.history().items(), "r2");
    let part4 = harness
        .records(agent.id())
        .iter()
        .find_map(|record| match &record.body {
            RecordBody::ResponseItem(ResponseItem::FunctionCallOutput(o)) if o.call_id == "c4" => {
                Some(o.id)
            }
            _ => None,
        })
        .unwrap();
    assert!(found.contains(&part4.to_string()), "{found}");
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_pinned_output_survives_two_compactions_verbatim_after_the_sheet_with_its_call() {
    let harness = layered(6_000);
    let mut agent = read_six(&harness).await;
    let pinned = output_id(agent.history().items(), "c4");
    agent.pin(&pinned.to_string()[..33], true).unwrap();

    for round in 0..2 {
        compact(&harness, &mut agent).await;
        let items = agent.history().items();
        let labels = labels(items);
        assert_eq!(labels[1], "summary", "{labels:?}");
        let at = items.iter().position(|item| item.id() == pinned).unwrap();
        // Its call right before it, both after the summary and the sheet.
        assert!(at >= 4, "{labels:?}");
        assert!(
            matches!(&items[at - 1], ResponseItem::FunctionCall(c) if c.call_id == "c4"),
            "{labels:?}"
        );
        assert!(output_of(items, "c4").starts_with("// original of part 4"));
        if round == 0 {
            harness.gateway.push_round(text_round("More work.", None));
            run_turn(&mut agent, "Go on.").await;
        }
    }
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn undo_restores_the_exact_history_before_the_compaction_plus_what_came_after() {
    let harness = layered(60_000);
    let (mut agent, before) = read_then_compact(&harness).await;
    assert_ne!(ids(agent.history().items()), ids(&before));
    harness.gateway.push_round(text_round("After.", None));
    run_turn(&mut agent, "And after?").await;
    let after: Vec<ResponseItem> = agent.history().items()[agent.history().len() - 2..].to_vec();

    let undone = agent.undo_compaction().unwrap();

    let mut expected = before.clone();
    expected.extend(after);
    assert_eq!(agent.history().items(), expected.as_slice());
    assert_eq!(undone.restored, ids(&expected));
    assert!(agent.undo_compaction().is_err(), "only the latest, once");
    harness.assert_reopens_to(agent);
}

/// Resuming starts from the last checkpoint and reads nothing before it:
/// the pins and the history kept for undo travel in the checkpoint, and
/// recall still reads the whole file for the originals before it.
#[tokio::test]
async fn pins_undo_and_recall_survive_a_resume_from_the_checkpoint_after_a_compaction() {
    let harness = layered(60_000);
    let mut agent = read_six(&harness).await;
    let before = agent.history().items().to_vec();
    let pinned = output_id(&before, "c4");
    let removed = output_id(&before, "c0");
    agent.pin(&pinned.to_string(), true).unwrap();
    compact(&harness, &mut agent).await;
    assert!(!ids(agent.history().items()).contains(&removed));
    let id = agent.id();
    drop(agent);

    let path = harness
        .store
        .open_reader(id, ReadMode::Strict)
        .unwrap()
        .path;
    let tail = read_session_tail(&path).unwrap();
    assert!(tail.from_checkpoint(), "the compaction wrote a checkpoint");
    assert_eq!(tail.records.len(), 1, "resume reads the checkpoint alone");
    let (mut agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert!(agent.history().is_pinned(pinned));
    assert!(agent.history().undo_point().is_some());

    // The original lies before the checkpoint; recall reads the whole file.
    recall_round(&harness, json!({ "id": removed.to_string() }));
    run_turn(&mut agent, "What was in part 0?").await;
    let answer = output_of(agent.history().items(), "r1");
    assert!(answer.contains("// original of part 0"), "{answer}");
    let len = agent.history().len();
    let after = agent.history().items()[len - 4..].to_vec();

    let undone = agent.undo_compaction().unwrap();
    let mut expected = before.clone();
    expected.extend(after);
    assert_eq!(undone.restored, ids(&expected));
    assert_eq!(agent.history().items(), expected.as_slice());
    assert!(agent.history().is_pinned(pinned));
    agent.pin(&pinned.to_string(), false).unwrap();
    let records = harness.records(id);
    let last_types: Vec<&str> = records[records.len() - 3..]
        .iter()
        .map(|record| record.body.type_name())
        .collect();
    assert_eq!(last_types, ["compaction_undone", "checkpoint", "item_pin"]);
    let reopened = harness.assert_reopens_to(agent);
    assert!(!reopened.history().is_pinned(pinned));
    assert!(reopened.history().undo_point().is_none());
    drop(reopened);
    let verification =
        verify_checkpoints(&harness.store.open_reader(id, ReadMode::Strict).unwrap());
    assert_eq!(verification.checkpoints, 2);
    assert!(verification.divergences.is_empty(), "{verification:?}");
}

/// The checkpoint keeps the undo point by reference: after a resume the
/// undo reads the items back from the file, evicted outputs as the
/// placeholders the model saw, the others as written.
#[tokio::test]
async fn undo_after_a_resume_restores_evicted_outputs_as_their_placeholders() {
    let harness = layered(6_000);
    let mut agent = read_six(&harness).await;
    let before = agent.history().items().to_vec();
    assert!(output_of(&before, "c0").starts_with(EVICTED_PREFIX));
    assert!(output_of(&before, "c4").starts_with("// original of part 4"));
    compact(&harness, &mut agent).await;
    let id = agent.id();
    drop(agent);

    let (mut agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    agent.undo_compaction().unwrap();
    assert_eq!(agent.history().items(), before.as_slice());
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_fork_before_a_compaction_carries_the_originals_and_nothing_later() {
    let harness = layered(60_000);
    let (mut agent, before) = read_then_compact(&harness).await;
    harness
        .gateway
        .push_round(text_round("Later answer.", None));
    run_turn(&mut agent, "A later request.").await;
    let parent = agent.id();
    drop(agent);

    let fork = harness
        .store
        .fork(parent, ForkPoint::BeforeCompaction { number: 1 })
        .unwrap();
    assert_ne!(fork.id(), parent);
    assert_eq!(fork.history().items(), before.as_slice());
    let forked = fork.id();
    drop(fork);
    let records = harness.records(forked);
    let parent_records = harness.records(parent);
    // The copy: every record after session_meta, as the parent wrote it,
    // then the lineage, the fork's own title and a checkpoint (a resume
    // starts there).
    let copied = records.len() - 4;
    assert_eq!(records[1..=copied], parent_records[1..=copied]);
    assert!(matches!(
        records[records.len() - 3].body,
        RecordBody::SessionForked(_)
    ));
    let parent_title = harness
        .store
        .open_reader(parent, ReadMode::Strict)
        .unwrap()
        .replay()
        .title()
        .unwrap();
    assert!(
        matches!(&records[records.len() - 2].body, RecordBody::TitleSet(t) if t.title == format!("{parent_title} (fork)")),
        "{:?}",
        records[records.len() - 2]
    );
    assert!(matches!(
        records.last().unwrap().body,
        RecordBody::Checkpoint(_)
    ));
    let read = harness.store.open_reader(forked, ReadMode::Strict).unwrap();
    assert!(verify_checkpoints(&read).divergences.is_empty());
    assert!(
        !records.iter().any(|r| matches!(&r.body, RecordBody::ResponseItem(ResponseItem::Message(m)) if m.content == "A later request.")),
        "nothing later"
    );

    // At an item: what the model saw right after it.
    let at = before[3].id();
    let fork = harness
        .store
        .fork(parent, ForkPoint::AtItem { item_id: at })
        .unwrap();
    assert_eq!(fork.history().items().last().unwrap().id(), at);
}

#[tokio::test]
async fn compacting_up_to_an_item_keeps_it_and_everything_after_and_never_splits_a_call() {
    let harness = layered(60_000);
    let mut agent = read_six(&harness).await;
    let items = agent.history().items().to_vec();
    // Up to an output: its call comes along.
    let output = output_id(&items, "c3");
    harness
        .gateway
        .push_summary(summary_response("First half."));
    let outcome = agent
        .compact_up_to(
            &output.to_string(),
            Some("parts".into()),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert!(
        matches!(outcome, CompactOutcome::Compacted(_)),
        "{outcome:?}"
    );
    let call_at = items
        .iter()
        .position(|item| matches!(item, ResponseItem::FunctionCall(c) if c.call_id == "c3"))
        .unwrap();
    let now = agent.history().items();
    assert_eq!(labels(now)[..3], ["system", "summary", "user"]);
    assert_eq!(&now[3..], &items[call_at..]);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn the_rule_check_refuses_a_compaction_that_would_drop_a_pinned_item() {
    let harness = layered(60_000);
    let mut agent = read_six(&harness).await;
    let pinned = output_id(agent.history().items(), "c2");
    agent.pin(&pinned.to_string(), true).unwrap();
    let before = agent.history().items().to_vec();
    harness.gateway.push_summary(summary_response("Lossy."));
    agent
        .compact_now(None, CancellationToken::new())
        .await
        .unwrap();
    let mut record = harness
        .records(agent.id())
        .into_iter()
        .find_map(|record| match record.body {
            RecordBody::LayeredCompaction(layered) => Some(layered),
            _ => None,
        })
        .unwrap();
    let pinned_set: HashSet<ItemId> = [pinned].into_iter().collect();
    assert!(rule_violations(&before, &record, &pinned_set, "auto").is_empty());

    // The same compaction without the pinned item, or with another policy
    // in its sheet, would be refused, saying what it would drop.
    record.kept.retain(|id| *id != pinned);
    let dropped = rule_violations(&before, &record, &pinned_set, "auto");
    // Named by its tool, never by its id (the line shows in the transcript).
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert!(
        dropped[0].starts_with("the pinned output of "),
        "{dropped:?}"
    );
    assert!(!dropped[0].contains(&pinned.to_string()), "{dropped:?}");
    let dropped = rule_violations(&before, &record, &HashSet::new(), "read-only");
    assert!(
        dropped[0].contains("approval policy (read-only)"),
        "{dropped:?}"
    );
    record.leading.clear();
    let dropped = rule_violations(&before, &record, &HashSet::new(), "auto");
    assert!(dropped[0].starts_with("the system prompt"), "{dropped:?}");
}

#[tokio::test]
async fn base_sessions_are_offered_no_recall_and_refuse_pins() {
    let harness = Harness::new();
    harness.gateway.push_round(text_round("Hi.", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Hello").await;
    assert!(
        !harness.gateway.requests()[0]
            .tools
            .iter()
            .any(|tool| tool.name == RECALL)
    );
    let user = agent.history().items()[1].id();
    let error = agent.pin(&user.to_string(), true).unwrap_err();
    assert!(error.to_string().contains("layered"), "{error}");
}
