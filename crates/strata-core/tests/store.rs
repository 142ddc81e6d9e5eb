//! The session store's everyday behaviour: create, append, reopen, replay,
//! list, resolve, delete.

// Helpers outside #[test] fns unwrap too: in a test a panic is the report.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use strata_core::compaction::CompactionPlan;
use strata_core::store::{ReadMode, SessionStore};
use strata_core::{Applied, CoreError, LiveSession};
use strata_protocol::{
    CompactionMetadata, CompactionSummary, CompactionTrigger, ItemId, RecordBody, ResponseItem,
    RoundId, SessionId, TokenUsage,
};

mod store_records;

use store_records::one_of_each_record_type;

fn store() -> (tempfile::TempDir, SessionStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    (dir, store)
}

fn create(store: &SessionStore) -> LiveSession {
    store
        .create(Path::new("/work/project"), "openai-responses", "gpt-5.4")
        .unwrap()
}

/// A summary whose metadata counts are what compacting `session` now removes
/// and keeps, as the live loop computes them.
fn summary_for(session: &LiveSession, text: &str) -> CompactionSummary {
    let plan = CompactionPlan::for_history(session.history().items());
    CompactionSummary {
        id: ItemId::new(),
        summary: text.to_owned(),
        metadata: CompactionMetadata {
            trigger: CompactionTrigger::Auto,
            reason: "Reported token usage 9100 reached the compaction threshold 8000".into(),
            context_tokens: Some(9100),
            threshold: Some(8000),
            removed: plan.removed() as u32,
            kept: plan.kept() as u32,
            summarizer_model: "gpt-5.4-mini".into(),
            summarizer_usage: Some(Box::new(usage(7000, 200))),
            summarizer_cost: None,
            duration_ms: 1500,
        },
    }
}

fn usage(input: u64, output: u64) -> TokenUsage {
    TokenUsage {
        input_tokens: Some(input),
        output_tokens: Some(output),
        ..TokenUsage::default()
    }
}

#[test]
fn create_writes_a_synced_session_meta_as_the_first_and_only_record() {
    let (_dir, store) = store();
    let session = create(&store);
    assert_eq!(
        session.path(),
        store.session_path(session.id()),
        "one file per session, named by its id"
    );
    let text = std::fs::read_to_string(session.path()).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(text.ends_with('\n'));
    let read = store.open_reader(session.id(), ReadMode::Strict).unwrap();
    assert_eq!(&read.meta, session.meta());
    assert_eq!(read.meta.workspace, "/work/project");
    assert_eq!(read.meta.provider_kind, "openai-responses");
    assert_eq!(read.meta.model, "gpt-5.4");
    assert!(session.history().is_empty());
}

#[test]
fn resume_replays_compaction_instead_of_returning_the_uncompacted_transcript() {
    let (_dir, store) = store();
    let mut session = create(&store);
    let id = session.id();
    session
        .commit_item(ResponseItem::system("You are Strata."))
        .unwrap();
    session
        .commit_item(ResponseItem::user("Fix the parser."))
        .unwrap();
    session
        .commit_item(ResponseItem::function_call(
            "c1",
            "read_file",
            r#"{"path":"a.rs"}"#,
        ))
        .unwrap();
    session
        .commit_item(ResponseItem::function_call_output("c1", "fn main() {}"))
        .unwrap();
    session
        .commit_item(ResponseItem::assistant("Found it."))
        .unwrap();
    session.record_usage(usage(9000, 100), None, None).unwrap();
    let summary = summary_for(&session, "The user wants the parser fixed.");
    assert_eq!(
        session.commit_compaction(summary.clone()).unwrap(),
        Applied::Compacted {
            removed: 3,
            kept: 2
        }
    );
    session.commit_item(ResponseItem::user("Thanks.")).unwrap();
    let live_items = session.history().items().to_vec();
    drop(session);

    let resumed = store.open_writer(id).unwrap();
    assert_eq!(resumed.history().items(), live_items.as_slice());
    let kinds: Vec<&str> = resumed
        .history()
        .items()
        .iter()
        .map(|item| match item {
            ResponseItem::Message(m) => m.role.as_str(),
            ResponseItem::CompactionSummary(_) => "summary",
            ResponseItem::FunctionCall(_)
            | ResponseItem::FunctionCallOutput(_)
            | ResponseItem::Reasoning(_) => "dropped",
        })
        .collect();
    assert_eq!(kinds, ["system", "summary", "user", "user"]);
    assert_eq!(
        resumed.history().items()[1],
        ResponseItem::CompactionSummary(summary)
    );
    // The file still holds the whole transcript; only the history is compacted.
    assert_eq!(resumed.state().response_items(), 7);
    assert_eq!(resumed.state().compactions(), 1);
}

#[test]
fn append_then_reopen_round_trips_every_record_type() {
    let (_dir, store) = store();
    let mut session = create(&store);
    let bodies = one_of_each_record_type();
    for body in &bodies {
        session.append(body.clone()).unwrap();
    }
    let id = session.id();
    let meta = session.meta().clone();
    drop(session);

    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    assert!(read.report.is_clean());
    // Each compaction is followed by the checkpoint the store writes; the
    // rest is what was appended.
    let mut read_bodies: Vec<RecordBody> = Vec::new();
    let mut checkpoints_written = 0;
    for record in &read.records {
        let after_compaction = matches!(
            read_bodies.last(),
            Some(
                RecordBody::ResponseItem(ResponseItem::CompactionSummary(_))
                    | RecordBody::LayeredCompaction(_)
            )
        );
        if after_compaction && matches!(record.body, RecordBody::Checkpoint(_)) {
            checkpoints_written += 1;
            continue;
        }
        read_bodies.push(record.body.clone());
    }
    assert_eq!(checkpoints_written, 2);
    let mut expected = vec![RecordBody::SessionMeta(meta)];
    expected.extend(bodies);
    assert_eq!(read_bodies, expected);

    let mut types: Vec<&str> = expected.iter().map(RecordBody::type_name).collect();
    types.sort_unstable();
    types.dedup();
    for known in RecordBody::KNOWN_TYPES {
        assert!(types.contains(known), "{known} is not covered");
    }
    assert!(types.contains(&"hologram"));
    assert!(
        read.records.windows(2).all(|pair| pair[0].ts <= pair[1].ts),
        "records are read in write order"
    );

    // Reopening for writing keeps every record as it was.
    let reopened = store.open_writer(id).unwrap();
    assert!(reopened.recovery().is_empty());
    drop(reopened);
    let again = store.open_reader(id, ReadMode::Strict).unwrap();
    assert_eq!(again.records, read.records);
}

#[test]
fn live_session_state_equals_the_replay_of_its_file() {
    let (_dir, store) = store();
    let mut session = create(&store);
    for body in one_of_each_record_type() {
        session.append(body).unwrap();
    }
    let read = store.open_reader(session.id(), ReadMode::Strict).unwrap();
    assert_eq!(&read.replay(), session.state());
}

#[test]
fn replay_restores_the_last_usage_after_the_last_compaction() {
    let (_dir, store) = store();
    let mut session = create(&store);
    let id = session.id();
    let resumed_usage = |store: &SessionStore| {
        store
            .open_reader(id, ReadMode::Strict)
            .unwrap()
            .replay()
            .history()
            .last_usage()
            .cloned()
    };
    session.commit_item(ResponseItem::system("sys")).unwrap();
    session.commit_item(ResponseItem::user("one")).unwrap();
    session.commit_item(ResponseItem::assistant("two")).unwrap();
    assert_eq!(resumed_usage(&store), None, "no round has reported");

    session.record_usage(usage(5000, 10), None, None).unwrap();
    session
        .record_usage(usage(9000, 20), Some(RoundId::new()), None)
        .unwrap();
    assert_eq!(resumed_usage(&store), Some(usage(9000, 20)), "the last one");

    let summary = summary_for(&session, "digest");
    session.commit_compaction(summary).unwrap();
    assert_eq!(
        resumed_usage(&store),
        None,
        "no round has reported since the compaction"
    );

    session.commit_item(ResponseItem::user("three")).unwrap();
    session.record_usage(usage(1200, 30), None, None).unwrap();
    assert_eq!(resumed_usage(&store), Some(usage(1200, 30)));
    assert_eq!(session.history().last_usage(), Some(&usage(1200, 30)));
    drop(session);
    let resumed = store.open_writer(id).unwrap();
    assert_eq!(resumed.history().last_usage(), Some(&usage(1200, 30)));
}

#[test]
fn list_shows_every_session_newest_update_first_with_title_and_counts() {
    let (_dir, store) = store();
    assert!(store.list().unwrap().is_empty(), "no sessions folder yet");

    let mut titled = create(&store);
    titled
        .commit_item(ResponseItem::user("first question"))
        .unwrap();
    titled.set_title("Parser work").unwrap();

    let mut derived = create(&store);
    let long_question = format!("why   is\nthis {}", "slow ".repeat(40));
    derived
        .commit_item(ResponseItem::system("You are Strata."))
        .unwrap();
    derived
        .commit_item(ResponseItem::user(long_question.as_str()))
        .unwrap();
    derived
        .commit_item(ResponseItem::assistant("It is."))
        .unwrap();
    derived.commit_item(ResponseItem::user("and now?")).unwrap();
    let summary = summary_for(&derived, "digest");
    derived.commit_compaction(summary).unwrap();

    let empty = create(&store);
    // The titled session is updated last, so it lists first.
    titled
        .commit_item(ResponseItem::assistant("Sure."))
        .unwrap();

    let sessions = store.list().unwrap();
    let ids: Vec<SessionId> = sessions.iter().map(|s| s.id).collect();
    assert_eq!(ids, [titled.id(), empty.id(), derived.id()]);
    assert!(sessions.windows(2).all(|w| w[0].updated >= w[1].updated));

    let first = &sessions[0];
    assert_eq!(first.title.as_deref(), Some("Parser work"));
    assert_eq!((first.items, first.compactions), (2, 0));
    assert!(first.updated > first.created);
    assert_eq!(first.model, "gpt-5.4");
    assert_eq!(first.path, store.session_path(titled.id()));

    assert_eq!(sessions[1].title, None, "no title and no user message");
    assert_eq!((sessions[1].items, sessions[1].compactions), (0, 0));
    assert_eq!(sessions[1].updated, sessions[1].created);

    let third = &sessions[2];
    let title = third.title.as_deref().unwrap();
    assert!(title.starts_with("why is this slow slow"), "{title}");
    assert_eq!(title.chars().count(), 80);
    assert!(title.ends_with('…'));
    assert_eq!((third.items, third.compactions), (5, 1));
}

#[test]
fn a_blank_title_falls_back_to_the_first_user_message() {
    let (_dir, store) = store();
    let mut session = create(&store);
    session
        .commit_item(ResponseItem::user("hello there"))
        .unwrap();
    session.set_title("Named").unwrap();
    assert_eq!(session.title().as_deref(), Some("Named"));
    session.set_title("  ").unwrap();
    assert_eq!(session.title().as_deref(), Some("hello there"));
    assert_eq!(
        store.list().unwrap()[0].title.as_deref(),
        Some("hello there")
    );
}

#[test]
fn list_ignores_sidecars_and_other_files_and_skips_unreadable_sessions() {
    let (_dir, store) = store();
    let session = create(&store);
    let root = store.root();
    std::fs::write(root.join("notes.txt"), "not a session").unwrap();
    std::fs::write(
        root.join(format!("{}.jsonl.torn-1700000000000", session.id())),
        "{\"v\":1",
    )
    .unwrap();
    std::fs::write(root.join("not-an-id.jsonl"), "").unwrap();
    let garbage_id = SessionId::new();
    std::fs::write(store.session_path(garbage_id), "garbage\n").unwrap();

    let sessions = store.list().unwrap();
    let ids: Vec<SessionId> = sessions.iter().map(|s| s.id).collect();
    assert_eq!(ids, [session.id()]);
}

#[test]
fn resolve_accepts_a_full_id_or_a_unique_prefix() {
    let (_dir, store) = store();
    let a = create(&store).id();
    let b = create(&store).id();
    assert_eq!(store.resolve(&a.to_string()).unwrap(), a);
    assert_eq!(store.resolve(&b.to_string().to_uppercase()).unwrap(), b);

    // The ids share their time prefix and differ in their random tail.
    let full = b.to_string();
    let unique = (1..=full.len())
        .map(|n| &full[..n])
        .find(|prefix| !a.to_string().starts_with(prefix))
        .unwrap();
    assert_eq!(store.resolve(unique).unwrap(), b);
    assert_eq!(store.resolve(&format!("  {unique} ")).unwrap(), b);

    match store.resolve(&full[..1]) {
        Err(CoreError::AmbiguousSession { query, count }) => {
            assert_eq!(query, &full[..1]);
            assert_eq!(count, 2);
        }
        other => panic!("expected ambiguous, got {other:?}"),
    }
    for missing in ["zzz", "", "   ", &SessionId::new().to_string()] {
        match store.resolve(missing) {
            Err(CoreError::SessionNotFound { query }) => assert_eq!(query, missing),
            other => panic!("expected not found for {missing:?}, got {other:?}"),
        }
    }
}

#[test]
fn delete_removes_the_session_its_sidecars_and_its_prior_contents_only() {
    let (_dir, store) = store();
    let doomed = create(&store);
    let kept = create(&store);
    let doomed_id = doomed.id();
    let doomed_sidecar = store
        .root()
        .join(format!("{doomed_id}.jsonl.torn-1700000000000"));
    let kept_sidecar = store
        .root()
        .join(format!("{}.jsonl.torn-1700000000000", kept.id()));
    std::fs::write(&doomed_sidecar, "{\"v\"").unwrap();
    std::fs::write(&kept_sidecar, "{\"v\"").unwrap();
    let doomed_blobs = strata_core::changes::BlobStore::beside(&store.session_path(doomed_id));
    let kept_blobs = strata_core::changes::BlobStore::beside(&store.session_path(kept.id()));
    doomed_blobs.put(b"prior\n").unwrap();
    kept_blobs.put(b"prior\n").unwrap();
    drop(doomed);

    store.delete(doomed_id).unwrap();
    assert!(!store.session_path(doomed_id).exists());
    assert!(!doomed_sidecar.exists());
    assert!(kept_sidecar.exists());
    assert!(!doomed_blobs.dir().exists());
    assert!(kept_blobs.dir().is_dir());
    assert!(store.session_path(kept.id()).exists());
    assert!(matches!(
        store.open_reader(doomed_id, ReadMode::Browsing),
        Err(CoreError::SessionNotFound { .. })
    ));
    assert!(matches!(
        store.delete(doomed_id),
        Err(CoreError::SessionNotFound { .. })
    ));
    assert!(matches!(
        store.open_writer(doomed_id),
        Err(CoreError::SessionNotFound { .. })
    ));
    let ids: Vec<SessionId> = store.list().unwrap().iter().map(|s| s.id).collect();
    assert_eq!(ids, [kept.id()]);
}

#[test]
fn from_paths_uses_the_sessions_folder() {
    let dir = tempfile::tempdir().unwrap();
    let paths = strata_core::StrataPaths::under(dir.path());
    let store = SessionStore::from_paths(&paths);
    assert_eq!(store.root(), paths.sessions);
    let session = create(&store);
    assert!(session.path().starts_with(&paths.sessions));
}

#[test]
fn a_live_session_can_move_to_the_agent_loops_thread() {
    let (_dir, store) = store();
    let mut session = create(&store);
    let worker = std::thread::spawn(move || {
        session
            .commit_item(ResponseItem::user("from a worker"))
            .unwrap();
        session
    });
    let session = worker.join().unwrap();
    assert_eq!(session.history().len(), 1);
    assert!(matches!(
        store.open_writer(session.id()),
        Err(CoreError::SessionLocked { .. })
    ));
}

#[test]
fn a_session_is_held_while_a_writer_has_it_and_free_once_it_is_dropped() {
    let (_dir, store) = store();
    let session = create(&store);
    let id = session.id();
    assert!(store.is_held(id).unwrap());
    drop(session);
    assert!(!store.is_held(id).unwrap());
    // Asking took and dropped the lock: a writer opens as before.
    assert!(store.open_writer(id).is_ok());
    assert!(matches!(
        store.is_held(strata_protocol::SessionId::new()),
        Err(CoreError::SessionNotFound { .. })
    ));
}
