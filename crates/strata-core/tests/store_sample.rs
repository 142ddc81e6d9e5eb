//! The annotated sample in docs/session-format.md is a fixture: its `jsonl`
//! blocks, concatenated, are a session file, and it must replay to the
//! history (and last usage) the same page documents.

// Helpers outside #[test] fns unwrap too: in a test a panic is the report.
#![allow(clippy::unwrap_used)]

use strata_core::compaction::{Calibration, CharEstimator, Estimate};
use strata_core::store::{
    ReadMode, SessionStore, compaction_views, replay, round_count, round_requests,
};
use strata_core::{Applied, Replay};
use strata_protocol::{Record, RecordBody, ResponseItem, Role, SessionId, TokenUsage};

const FORMAT_DOC: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/session-format.md"
));

/// The contents of every fenced block whose info string is exactly `info`,
/// in document order.
fn fenced_blocks(doc: &str, info: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match current.as_mut() {
            None if line.strip_prefix("```") == Some(info) => current = Some(String::new()),
            None => {}
            Some(_) if line == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    assert!(current.is_none(), "unterminated ```{info} block");
    blocks
}

fn sample_file() -> String {
    let blocks = fenced_blocks(FORMAT_DOC, "jsonl");
    assert!(
        blocks.len() > 1,
        "the sample is split into annotated pieces"
    );
    blocks.concat()
}

fn single_json_block(info: &str) -> serde_json::Value {
    let blocks = fenced_blocks(FORMAT_DOC, info);
    assert_eq!(blocks.len(), 1, "exactly one ```{info} block");
    serde_json::from_str(&blocks[0]).unwrap()
}

fn session_id_of(sample: &str) -> SessionId {
    let first: Record = serde_json::from_str(sample.lines().next().unwrap()).unwrap();
    match first.body {
        RecordBody::SessionMeta(meta) => meta.session_id,
        other => panic!("the sample starts with {other:?}"),
    }
}

/// A store holding only the sample, under its own session id.
fn store_with_sample() -> (tempfile::TempDir, SessionStore, SessionId, String) {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let sample = sample_file();
    let id = session_id_of(&sample);
    std::fs::write(store.session_path(id), &sample).unwrap();
    (dir, store, id, sample)
}

#[test]
fn sample_session_file_parses_and_replays_to_its_documented_history() {
    let (_dir, store, id, _sample) = store_with_sample();
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    assert!(read.report.is_clean(), "{:?}", read.report);
    let state = read.replay();

    let replayed = serde_json::to_value(state.history().items()).unwrap();
    assert_eq!(replayed, single_json_block("json expected-history"));
    let expected_usage: TokenUsage =
        serde_json::from_value(single_json_block("json expected-last-usage")).unwrap();
    assert_eq!(state.history().last_usage(), Some(&expected_usage));

    assert_eq!(state.unknown_records(), 1);
    assert_eq!(state.compactions(), 1);
    assert_eq!(state.inconsistent_rounds(), 0, "every round's input_items");
    assert_eq!(
        state.title().as_deref(),
        Some("Fix the off-by-one in tally report")
    );
}

#[test]
fn sample_compaction_metadata_matches_what_replay_removed_and_kept() {
    let (_dir, store, id, _sample) = store_with_sample();
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    let mut state = Replay::new(read.meta.clone());
    let mut compactions = 0;
    for record in &read.records {
        let applied = state.fold(record);
        if let RecordBody::ResponseItem(ResponseItem::CompactionSummary(summary)) = &record.body {
            compactions += 1;
            let removed = summary.metadata.removed as usize;
            let kept = summary.metadata.kept as usize;
            assert_eq!(applied, Applied::Compacted { removed, kept });
        }
    }
    assert_eq!(compactions, 1);
    assert_eq!(state, replay(&read.meta, &read.records));
}

#[test]
fn every_sample_line_round_trips_through_record_unchanged() {
    for (index, line) in sample_file().lines().enumerate() {
        let record: Record = serde_json::from_str(line)
            .unwrap_or_else(|error| panic!("sample line {}: {error}", index + 1));
        let original: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            serde_json::to_value(&record).unwrap(),
            original,
            "sample line {}",
            index + 1
        );
    }
}

#[test]
fn sample_lists_with_its_documented_title_and_counts() {
    let (_dir, store, id, _sample) = store_with_sample();
    let sessions = store.list().unwrap();
    assert_eq!(sessions.len(), 1);
    let summary = &sessions[0];
    assert_eq!(summary.id, id);
    assert_eq!(
        summary.title.as_deref(),
        Some("Fix the off-by-one in tally report")
    );
    assert_eq!(summary.items, 16);
    assert_eq!(summary.compactions, 1);
    assert_eq!(summary.provider_kind, "openai-responses");
    assert_eq!(summary.workspace, "/home/ada/code/tally");
}

#[test]
fn opening_the_sample_for_writing_changes_nothing() {
    let (_dir, store, id, sample) = store_with_sample();
    let session = store.open_writer(id).unwrap();
    assert!(session.recovery().is_empty());
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    assert_eq!(session.history(), read.replay().history());
    drop(session);
    let bytes = std::fs::read_to_string(store.session_path(id)).unwrap();
    assert_eq!(bytes, sample);
}

#[test]
fn sample_compaction_view_shows_the_history_before_and_after() {
    let (_dir, store, id, _sample) = store_with_sample();
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    let chars = Estimate::new(&CharEstimator, Calibration::default());
    let views = compaction_views(&read.meta, &read.records, |_, items| chars.items(items));
    assert_eq!(views.len(), 1);
    let view = &views[0];
    let metadata = &view.summary.metadata;
    assert_eq!(
        (metadata.context_tokens, metadata.threshold),
        (Some(8412), Some(8000))
    );
    assert!(matches!(
        &read.records[view.record_index as usize].body,
        RecordBody::ResponseItem(ResponseItem::CompactionSummary(s)) if s.id == view.summary.id
    ));
    assert!(view.summary_model_text.ends_with(&view.summary.summary));
    assert!(
        view.summary_model_text
            .starts_with(strata_protocol::COMPACTION_SUMMARY_PREFIX)
    );
    assert_eq!(view.before.len(), 11);
    assert_eq!(view.after.len(), 4);
    assert_eq!(view.removed_indices.len(), metadata.removed as usize);
    assert_eq!(
        view.before.len() - view.removed_indices.len(),
        metadata.kept as usize
    );
    // Everything removed is the model's and the tools' work; the system
    // prompt and both user messages survive, with the summary after the
    // system prompt.
    for &index in &view.removed_indices {
        let item = &view.before[index as usize];
        assert!(!item.is_message_with_role(Role::System) && !item.is_message_with_role(Role::User));
    }
    assert!(view.after[0].is_message_with_role(Role::System));
    assert_eq!(view.after[1].id(), view.summary.id);
    assert!(
        view.after[2..]
            .iter()
            .all(|item| item.is_message_with_role(Role::User))
    );
    assert!(view.estimated_tokens_after < view.estimated_tokens_before);
    // Round 5 failed without usage; round 6 reported 1930 + 402.
    assert_eq!(view.next_context_tokens, Some(2332));
}

#[test]
fn sample_round_requests_are_the_replayed_history_at_each_round() {
    let (_dir, store, id, _sample) = store_with_sample();
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    assert_eq!(round_count(&read.records), 7);
    let page = round_requests(&read.meta, &read.records, 0, 100);
    assert_eq!((page.total, page.offset, page.rounds.len()), (7, 0, 7));
    let inputs: Vec<usize> = page.rounds.iter().map(|r| r.request.input.len()).collect();
    assert_eq!(inputs, vec![2, 5, 7, 9, 4, 5, 7]);
    for (index, round) in page.rounds.iter().enumerate() {
        assert_eq!(round.number as usize, index + 1);
        assert!(round.input_consistent, "round {}", round.number);
        assert_eq!(round.request.input.len(), round.round.input_items as usize);
        assert_eq!(round.request.model, "gpt-5.4");
        assert_eq!(round.request.tools.len(), 2);
        assert_eq!(round.request.max_output_tokens, Some(8192));
        assert!(round.request.input[0].is_message_with_role(Role::System));
        assert!(matches!(&read.records[round.record_index as usize].body,
            RecordBody::Round(r) if r.round_id == round.round.round_id));
    }
    let contexts: Vec<Option<u64>> = page.rounds.iter().map(|r| r.context_tokens).collect();
    assert_eq!(contexts[3], Some(8412));
    assert_eq!(contexts[4], None, "round 5 failed before reporting usage");
    assert_eq!(contexts[6], Some(2752));
    // Round 5, the first after the compaction, sent the compacted history.
    let compacted = &replay(
        &read.meta,
        &read.records[..=page.rounds[4].record_index as usize],
    );
    assert_eq!(page.rounds[4].request.input, compacted.history().items());
    assert!(matches!(
        page.rounds[4].request.input[1],
        ResponseItem::CompactionSummary(_)
    ));

    // Pages are windows of the same list.
    let window = round_requests(&read.meta, &read.records, 3, 2);
    assert_eq!((window.total, window.offset), (7, 3));
    assert_eq!(window.rounds, page.rounds[3..5].to_vec());
    let past_end = round_requests(&read.meta, &read.records, 50, 10);
    assert_eq!(
        (past_end.total, past_end.offset, past_end.rounds.len()),
        (7, 7, 0)
    );
}
