//! The undo point in a checkpoint: stored by reference to the records
//! before the compaction, so the checkpoint is sized by the history it
//! holds; read back whole when an undo needs it; and checkpoints written
//! when it was stored item for item still resume, undo and verify.

// Helpers outside #[test] fns unwrap too: in a test a panic is the report.
#![allow(clippy::unwrap_used)]

mod store_support;

use std::path::Path;

use serde_json::{Value, json};
use store_support::{lines, store, summary, write_lines};
use strata_core::LiveSession;
use strata_core::compaction::{Calibration, CharEstimator, Estimate};
use strata_core::context_ops::undo_compaction;
use strata_core::store::{ReadMode, SessionStore, read_session_tail, verify_checkpoints};
use strata_protocol::{Record, RecordBody, ResponseItem};

/// A summary of `sentences` sentences.
fn widgets(sentences: usize) -> String {
    "The person asked about widgets; the answers covered each. ".repeat(sentences)
}

/// A generated session: a system prompt and `exchanges` questions of a
/// couple of hundred characters, each answered at `answer_chars`.
fn generated(store: &SessionStore, exchanges: usize, answer_chars: usize) -> LiveSession {
    let mut session = store
        .create(Path::new("/work"), "openai-responses", "gpt-5.4")
        .unwrap();
    session
        .commit_item(ResponseItem::system("You are a careful assistant."))
        .unwrap();
    for turn in 0..exchanges {
        let question = format!(
            "Question {turn}: {}",
            "what does this widget do? ".repeat(8)
        );
        session.commit_item(ResponseItem::user(question)).unwrap();
        let answer: String = format!("Answer {turn}. ")
            .chars()
            .cycle()
            .take(answer_chars)
            .collect();
        session
            .commit_item(ResponseItem::assistant(answer))
            .unwrap();
    }
    session
}

fn last_checkpoint_line(path: &Path) -> usize {
    lines(path)
        .iter()
        .rposition(|line| line.contains(r#""type":"checkpoint""#))
        .unwrap()
}

fn undo(session: &mut LiveSession) {
    let estimate = Estimate::new(&CharEstimator, Calibration::default());
    undo_compaction(session, estimate, 0, u64::MAX).unwrap();
}

#[test]
fn the_checkpoint_after_a_compaction_is_sized_by_its_history_not_by_what_the_compaction_removed() {
    let (_dir, store) = store();
    let mut session = generated(&store, 20, 2_000);
    session.commit_compaction(summary(&widgets(20))).unwrap();
    assert!(session.history().undo_point().is_some());
    let path = session.path().to_owned();
    drop(session);

    let line = &lines(&path)[last_checkpoint_line(&path)];
    let record: Record = serde_json::from_str(line).unwrap();
    let RecordBody::Checkpoint(mut checkpoint) = record.body else {
        panic!("not a checkpoint: {line}");
    };
    // The same checkpoint with nothing to undo: what the history alone costs.
    checkpoint.state.undo_ref = None;
    checkpoint.state.undo_point = None;
    let without_undo = serde_json::to_string(&Record {
        body: RecordBody::Checkpoint(checkpoint),
        ..record
    })
    .unwrap();
    let ratio = line.len() as f64 / without_undo.len() as f64;
    assert!(
        ratio <= 1.5,
        "the checkpoint is {} bytes, {ratio:.2}x the {} it takes without an undo point",
        line.len(),
        without_undo.len()
    );
}

#[test]
fn undo_after_a_resume_reads_the_items_back_from_the_records_before_the_checkpoint() {
    let (_dir, store) = store();
    let mut session = generated(&store, 4, 300);
    let before = session.history().items().to_vec();
    session.commit_compaction(summary(&widgets(2))).unwrap();
    session.commit_item(ResponseItem::user("and now?")).unwrap();
    let after = session.history().items().last().cloned().unwrap();
    let id = session.id();
    drop(session);

    let mut resumed = store.open_writer(id).unwrap();
    assert!(
        resumed
            .history()
            .undo_point()
            .is_some_and(|point| point.before().is_none())
    );
    undo(&mut resumed);
    let mut expected = before;
    expected.push(after);
    assert_eq!(resumed.history().items(), expected.as_slice());
    drop(resumed);
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    assert_eq!(read.replay().history().items(), expected.as_slice());
    assert!(verify_checkpoints(&read).divergences.is_empty());
}

/// A crash between an undo and its checkpoint leaves an undo after a
/// checkpoint that holds the undo point by reference: the tail alone cannot
/// rebuild it, so the file is read whole.
#[test]
fn a_tail_that_undoes_a_compaction_kept_by_reference_is_read_whole() {
    let (_dir, store) = store();
    let mut session = generated(&store, 4, 300);
    let before = session.history().items().to_vec();
    session.commit_compaction(summary(&widgets(2))).unwrap();
    undo(&mut session);
    let path = session.path().to_owned();
    drop(session);
    let mut all = lines(&path);
    assert!(all.pop().unwrap().contains(r#""type":"checkpoint""#));
    write_lines(&path, &all);

    let tail = read_session_tail(&path).unwrap();
    assert!(!tail.from_checkpoint());
    assert_eq!(tail.offset, 0);
    assert_eq!(tail.replay().history().items(), before.as_slice());
}

/// Before references, a checkpoint stored the undo point item for item
/// (`undo_point.before`). Such a file resumes from that checkpoint, undoes
/// from it without reading earlier records, and verifies.
#[test]
fn a_checkpoint_with_the_undo_point_stored_whole_still_resumes_undoes_and_verifies() {
    let (_dir, store) = store();
    let mut session = generated(&store, 4, 300);
    let before = session.history().items().to_vec();
    let compaction = summary(&widgets(2));
    let summary_id = compaction.id;
    session.commit_compaction(compaction).unwrap();
    let len_after = session.history().len();
    let id = session.id();
    let path = session.path().to_owned();
    drop(session);

    // Rewrite the checkpoint as the earlier format wrote it.
    let mut all = lines(&path);
    let at = last_checkpoint_line(&path);
    let mut value: Value = serde_json::from_str(&all[at]).unwrap();
    let state = value["payload"]["state"].as_object_mut().unwrap();
    assert!(state.remove("undo_ref").is_some());
    state.insert(
        "undo_point".into(),
        json!({ "summary_item_id": summary_id, "before": before, "len_after": len_after }),
    );
    // Through the record type, so the envelope keeps its order (`type` first).
    let record: Record = serde_json::from_str(&all[at]).unwrap();
    let checkpoint = serde_json::from_value(value["payload"].take()).unwrap();
    let old = Record {
        body: RecordBody::Checkpoint(Box::new(checkpoint)),
        ..record
    };
    all[at] = serde_json::to_string(&old).unwrap();
    assert!(all[at].contains(r#""before":[{"#), "{}", all[at]);
    // The records before the checkpoint are not needed: damage one.
    let intact = all[2].clone();
    all[2] = intact.replace(r#""type":"response_item""#, r#""type":"response_item","#);
    write_lines(&path, &all);

    let mut resumed = store.open_writer(id).unwrap();
    undo(&mut resumed);
    assert_eq!(resumed.history().items(), before.as_slice());
    drop(resumed);

    let mut repaired = lines(&path);
    repaired[2] = intact;
    write_lines(&path, &repaired);
    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    let verification = verify_checkpoints(&read);
    assert_eq!(verification.checkpoints, 2);
    assert!(verification.divergences.is_empty(), "{verification:?}");
}
