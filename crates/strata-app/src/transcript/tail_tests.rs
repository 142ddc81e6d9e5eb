//! Pages folded from a file's tail are the pages cut from the whole file's
//! fold, and older pages join them without a gap or a repeat.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use strata_core::compaction::{Calibration, CharEstimator, Estimate};
use strata_core::context_ops::decide_undo;
use strata_core::store::{ReadMode, read_session_file};
use strata_core::{LiveSession, SessionStore};
use strata_protocol::{
    ApprovalDecision, ApprovalDecisionRecord, CompactionMetadata, CompactionSummary,
    CompactionTrigger, ErrorRecord, ForkPoint, FullToolOutput, FunctionCall, FunctionCallOutput,
    ItemId, ItemPin, OpenTranscript, Record, RecordBody, ResponseItem, SessionId, TranscriptEntry,
    TranscriptPage, TurnFinished, TurnId, TurnOutcome, TurnStarted,
};

use super::{FIRST_WINDOW, open_page, tool_output as tail_output};
use crate::transcript::{PageAnchor, entry_of_item, from_records, page, tool_output};

/// What a session is made of, step by step.
#[derive(Clone, Debug)]
enum Step {
    /// A turn of `rounds` rounds, each with `calls` tool calls; `capped`
    /// outputs get a `full_tool_output`, `asked` calls an approval.
    Turn {
        rounds: u8,
        calls: u8,
        capped: bool,
        asked: bool,
        failed: bool,
    },
    Compact,
    Undo,
    /// Pins (or unpins) the user message this many back.
    Pin(u8, bool),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (1..4u8, 0..3u8, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
            |(rounds, calls, capped, asked, failed)| Step::Turn { rounds, calls, capped, asked, failed }
        ),
        2 => Just(Step::Compact),
        1 => Just(Step::Undo),
        1 => (0..6u8, any::<bool>()).prop_map(|(back, pinned)| Step::Pin(back, pinned)),
    ]
}

fn append(session: &mut LiveSession, body: RecordBody) {
    session.append(body).unwrap();
}

fn item(session: &mut LiveSession, item: ResponseItem) {
    append(session, RecordBody::ResponseItem(item));
}

fn summary() -> CompactionSummary {
    CompactionSummary {
        id: ItemId::new(),
        summary: "The parser was fixed; the tests pass.".to_owned(),
        metadata: CompactionMetadata {
            trigger: CompactionTrigger::Auto,
            reason: "context reached the threshold".to_owned(),
            context_tokens: Some(900),
            threshold: Some(800),
            removed: 0,
            kept: 0,
            summarizer_model: "demo".to_owned(),
            summarizer_usage: None,
            summarizer_cost: None,
            duration_ms: 5,
        },
    }
}

fn turn(session: &mut LiveSession, n: usize, rounds: u8, calls: u8, flags: (bool, bool, bool)) {
    let (capped, asked, failed) = flags;
    let turn_id = TurnId::new();
    append(session, RecordBody::TurnStarted(TurnStarted { turn_id }));
    item(
        session,
        ResponseItem::user(format!("Step {n}: fix the parser")),
    );
    for round in 0..rounds {
        item(
            session,
            ResponseItem::assistant(format!("Round {round} of step {n}")),
        );
        for call in 0..calls {
            // Call ids are unique in a file (a fork's copied calls included),
            // as every writer keeps them.
            let call_id = format!("call_{n}_{round}_{call}_{}", ItemId::new());
            item(
                session,
                ResponseItem::FunctionCall(FunctionCall {
                    id: ItemId::new(),
                    call_id: call_id.clone(),
                    name: "read_file".to_owned(),
                    arguments: r#"{"path":"src/lib.rs"}"#.to_owned(),
                }),
            );
            if asked {
                append(
                    session,
                    RecordBody::ApprovalDecision(ApprovalDecisionRecord {
                        call_id: call_id.clone(),
                        tool: "read_file".to_owned(),
                        decision: ApprovalDecision::AllowOnce,
                        by: Default::default(),
                        rules: Vec::new(),
                    }),
                );
            }
            let output_id = ItemId::new();
            let text = "fn parse() {}\n".repeat(usize::from(call) * 20 + 1);
            item(
                session,
                ResponseItem::FunctionCallOutput(FunctionCallOutput {
                    id: output_id,
                    call_id: call_id.clone(),
                    output: if capped {
                        text[..10].to_owned()
                    } else {
                        text.clone()
                    },
                }),
            );
            if capped {
                append(
                    session,
                    RecordBody::FullToolOutput(FullToolOutput {
                        call_id,
                        item_id: output_id,
                        output: text,
                    }),
                );
            }
        }
    }
    if failed {
        append(
            session,
            RecordBody::Error(ErrorRecord {
                turn_id: Some(turn_id),
                message: "the model stopped answering".to_owned(),
                model_error: None,
            }),
        );
    }
    let outcome = if failed {
        TurnOutcome::Failed
    } else {
        TurnOutcome::Completed
    };
    append(
        session,
        RecordBody::TurnFinished(TurnFinished {
            turn_id,
            outcome,
            rounds: u32::from(rounds),
        }),
    );
}

/// Writes `steps` to `session`; the ids of its user messages.
fn write(session: &mut LiveSession, steps: &[Step], users: &mut Vec<ItemId>) {
    for (n, step) in steps.iter().enumerate() {
        match step {
            Step::Turn {
                rounds,
                calls,
                capped,
                asked,
                failed,
            } => {
                turn(session, n, *rounds, *calls, (*capped, *asked, *failed));
                if let Some(ResponseItem::Message(message)) =
                    session.history().items().iter().rev().find(
                        |i| matches!(i, ResponseItem::Message(m) if m.content.starts_with("Step")),
                    )
                {
                    users.push(message.id);
                }
            }
            Step::Compact => {
                if session.history().len() >= 2 {
                    session.commit_compaction(summary()).unwrap();
                }
            }
            Step::Undo => {
                let estimate = Estimate::new(&CharEstimator, Calibration::default());
                if let Ok(undone) = decide_undo(session.history(), estimate, 0, u64::MAX) {
                    append(session, RecordBody::CompactionUndone(undone));
                    session.append_checkpoint().unwrap();
                }
            }
            Step::Pin(back, pinned) => {
                if let Some(&item_id) = users.iter().rev().nth(usize::from(*back)) {
                    append(
                        session,
                        RecordBody::ItemPin(ItemPin {
                            item_id,
                            pinned: *pinned,
                        }),
                    );
                }
            }
        }
    }
}

/// A session file and the whole fold of it.
struct Whole<'a> {
    path: &'a Path,
    records: Vec<Record>,
    entries: Vec<TranscriptEntry>,
}

impl<'a> Whole<'a> {
    fn read(path: &'a Path) -> Self {
        let records = read_session_file(path, ReadMode::Browsing).unwrap().records;
        let entries = from_records(&records);
        Self {
            path,
            records,
            entries,
        }
    }

    /// The page the whole file's fold gives.
    fn page(&self, request: &OpenTranscript) -> TranscriptPage {
        let target = request
            .at_item
            .as_ref()
            .map(|item| entry_of_item(&self.records, item).unwrap());
        let anchor = PageAnchor::of(target.as_deref(), request.before.as_deref());
        page(
            request.session_id,
            self.entries.clone(),
            anchor,
            request.limit,
        )
        .unwrap()
    }
}

fn request(session_id: SessionId, limit: u32) -> OpenTranscript {
    OpenTranscript {
        session_id,
        before: None,
        limit: Some(limit),
        at_item: None,
    }
}

/// What a tail page shows: everything but the whole-file counts it lacks.
fn shown(page: &TranscriptPage) -> (&[TranscriptEntry], Option<&str>, Option<&str>) {
    (&page.entries, page.older.as_deref(), page.target.as_deref())
}

/// Checks the tail page of `request` against the whole file's; the page,
/// and whether it was read from the tail.
fn same_page(whole: &Whole<'_>, request: &OpenTranscript, window: u64) -> (TranscriptPage, bool) {
    let expected = whole.page(request);
    match open_page(whole.path, request, window).unwrap() {
        Some(tail) => {
            assert_eq!(
                shown(&tail),
                shown(&expected),
                "{request:?} window {window}"
            );
            assert_eq!((tail.total, tail.start), (None, None));
            (tail, true)
        }
        None => (expected, false),
    }
}

/// Every page from the newest back, as the desktop pages: the entries
/// joined, oldest first, and how many pages came from the tail.
fn walk(whole: &Whole<'_>, limit: u32, window: u64) -> (Vec<TranscriptEntry>, usize) {
    let session_id = match whole.records.first().map(|r| &r.body) {
        Some(RecordBody::SessionMeta(meta)) => meta.session_id,
        _ => panic!("not a session file"),
    };
    let mut joined = Vec::new();
    let mut request = request(session_id, limit);
    let mut from_tail = 0;
    loop {
        let (page, tail) = same_page(whole, &request, window);
        from_tail += usize::from(tail);
        let mut entries = page.entries;
        entries.append(&mut joined);
        joined = entries;
        match page.older {
            Some(cursor) => request.before = Some(cursor),
            None => return (joined, from_tail),
        }
    }
}

fn session_file(dir: &Path) -> (SessionStore, LiveSession) {
    let store = SessionStore::new(dir.join("sessions"));
    let mut session = store.create(dir, "demo", "demo").unwrap();
    item(&mut session, ResponseItem::system("You are Strata."));
    (store, session)
}

/// Pages of every size and window against the whole fold; the pages read
/// from the tail.
fn check_file(path: &Path, session_id: SessionId, items: &[ItemId]) -> usize {
    let whole = Whole::read(path);
    let mut from_tail = 0;
    for (limit, window) in [(1, 64), (3, 300), (7, 2_000), (200, 64)] {
        let (joined, tail) = walk(&whole, limit, window);
        assert_eq!(joined, whole.entries, "limit {limit} window {window}");
        from_tail += tail;
    }
    for entry in &whole.entries {
        if let TranscriptEntry::Tool(tool) = entry {
            let expected = tool_output(&whole.records, &tool.call_id);
            if let Some(output) = tail_output(path, session_id, &tool.call_id, 64) {
                assert_eq!(Some(output), expected, "{}", tool.call_id);
                from_tail += 1;
            }
        }
    }
    for &item_id in items {
        let request = OpenTranscript {
            at_item: Some(item_id.to_string()),
            ..request(session_id, 2)
        };
        from_tail += usize::from(same_page(&whole, &request, 128).1);
    }
    from_tail
}

/// Sessions with compactions, undos, pins, capped outputs, approvals,
/// failed turns and a fork: every page read from the tail is the one the
/// whole file's fold gives, and the pages join into the whole transcript.
#[test]
fn tail_pages_are_the_whole_folds_pages() {
    let config = ProptestConfig {
        cases: 16,
        ..ProptestConfig::default()
    };
    let cases = (
        prop::collection::vec(step(), 1..24),
        any::<prop::sample::Index>(),
        prop::collection::vec(step(), 0..8),
    );
    let from_tail = std::cell::Cell::new(0);
    TestRunner::new(config)
        .run(&cases, |(steps, fork_at, after_fork)| {
            let dir = tempfile::tempdir().unwrap();
            let (store, mut session) = session_file(dir.path());
            let mut users = Vec::new();
            write(&mut session, &steps, &mut users);
            let id = session.id();
            drop(session);
            from_tail.set(from_tail.get() + check_file(&store.session_path(id), id, &users));
            if !users.is_empty() {
                let item_id = users[fork_at.index(users.len())];
                let mut fork = store.fork(id, ForkPoint::AtItem { item_id }).unwrap();
                write(&mut fork, &after_fork, &mut users);
                let fork_id = fork.id();
                drop(fork);
                from_tail
                    .set(from_tail.get() + check_file(&store.session_path(fork_id), fork_id, &[]));
            }
            Ok(())
        })
        .unwrap();
    // The cases exercise the tail, not only the whole-file fallback.
    assert!(from_tail.get() > 0);
}

/// A long session of the generator's shape opens from its tail: the page is
/// read without the whole file, it is the whole fold's page, and so is the
/// page before it.
#[test]
fn a_long_generated_session_opens_from_its_tail() {
    let dir = tempfile::tempdir().unwrap();
    // Long enough (about 5 MB since checkpoints keep their undo point by
    // reference) that the window the older page needs is still smaller
    // than the file, so the tail, not the whole-file fallback, is tested.
    let shape = strata_index::generate::Shape::long(4_000);
    let written =
        strata_index::generate::write_session(dir.path(), 7, chrono::Utc::now(), &shape).unwrap();
    let whole = Whole::read(&written.path);
    let (page, from_tail) = same_page(&whole, &request(written.id, 200), FIRST_WINDOW);
    assert!(from_tail, "the newest page was folded from the whole file");
    assert_eq!(page.entries.len(), 200);
    let older = OpenTranscript {
        before: page.older.clone(),
        ..request(written.id, 200)
    };
    let (older, from_tail) = same_page(&whole, &older, FIRST_WINDOW);
    assert!(from_tail);
    assert_eq!(older.entries.len(), 200);
}

/// Opened without records (as the desktop opens a session), a long
/// session's snapshot and its replay (what the compaction status shows)
/// come from the tail and are the whole file's.
#[test]
fn a_session_opened_without_records_is_the_whole_files_snapshot() {
    let home = tempfile::tempdir().unwrap();
    let paths = strata_core::StrataPaths::under(home.path());
    std::fs::create_dir_all(&paths.sessions).unwrap();
    let shape = strata_index::generate::Shape::long(1_500);
    let written =
        strata_index::generate::write_session(&paths.sessions, 3, chrono::Utc::now(), &shape)
            .unwrap();
    let app = std::sync::Arc::new(crate::App::new(paths, |_| None));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let open = |from_record| {
        runtime
            .block_on(app.open_session(strata_protocol::OpenSession {
                session_id: written.id,
                from_record,
                without_records: false,
                at_item: None,
            }))
            .unwrap()
    };
    let opened = open(Some(u32::MAX));
    let whole = open(None);
    assert!(opened.records.is_empty());
    assert_eq!(whole.records.len(), whole.record_count as usize);
    assert_eq!(
        opened,
        strata_protocol::SessionView {
            records: Vec::new(),
            ..whole
        }
    );
    // The snapshot came from the tail: the file has a checkpoint to start
    // from, and the tail's replay is the whole file's.
    let tail = strata_core::store::read_session_tail(&written.path).unwrap();
    assert!(tail.from_checkpoint());
    assert!(tail.offset > 0);
    assert_eq!(tail.replay(), app.browse(written.id).unwrap().replay());
    assert_eq!(app.replay_from_tail(written.id).unwrap(), tail.replay());
}
