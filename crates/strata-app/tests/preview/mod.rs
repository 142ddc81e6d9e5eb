//! The browser preview (ui/src/mock) shows real sessions: their records,
//! and everything the app's commands answer for them (the snapshot, the
//! transcript, compaction views, rounds) and one live turn as the desktop
//! receives it, recorded from the offline demo model into
//! `ui/src/mock/library.json`. Nothing in the preview folds records or
//! repeats a rule of Rust's: what the context commands that write (undo,
//! fork) answered is recorded too, with the session as it was after them.
//!
//! This test writes the session files back and asks the reading commands
//! again (the writing ones stamp new ids and times, so their recorded
//! answers are only read back): a change to the conversion fails it until
//! the fixture is regenerated with
//! `STRATA_UPDATE_FIXTURES=1 cargo test -p strata-app --test transcript preview`.
//! (A module of the `transcript` test binary, so `make test` links one
//! binary less.)

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::support::{create, runtime, send};
use serde::{Deserialize, Serialize};
use strata_app::App;
use strata_app::transcript::{TranscriptFeed, TranscriptFold};
use strata_core::StrataPaths;
use strata_protocol::{
    CommandError, CompactNow, CompactionUndoneView, CompactionView, ConsoleView, ForkPoint,
    ForkSession, GetCompactionViews, GetRoundRequests, GetToolOutput, ListSessionItems, LiveEvent,
    OpenConsole, OpenSession, RoundPage, SessionForkView, SessionId, SessionItems, SessionView,
    ToolOutputText, TranscriptEntry, UndoCompaction,
};

const UPDATE_ENV: &str = "STRATA_UPDATE_FIXTURES";

/// What `ui/src/mock/library.json` holds.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct PreviewLibrary {
    about: String,
    sessions: Vec<PreviewSession>,
    /// A turn as `send_message`'s channel delivers it.
    live_turn: Vec<LiveEvent>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct PreviewSession {
    /// `open_session`'s answer (with every record of the file).
    view: SessionView,
    /// `open_transcript`'s entries, all of them.
    transcript: Vec<TranscriptEntry>,
    compaction_views: Vec<CompactionView>,
    rounds: RoundPage,
    /// `open_console`'s answer, every log row.
    console: ConsoleView,
    /// `session_items`' answer.
    items: SessionItems,
    /// `tool_output`'s answer for each tool card, by call id.
    tool_outputs: BTreeMap<String, ToolOutputText>,
    /// What `fork_session` answered at each point it was asked, with the
    /// fork's own answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    forks: Vec<RecordedFork>,
    /// What `undo_compaction` answered, when this session compacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    undo: Option<RecordedUndo>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct RecordedFork {
    point: ForkPoint,
    answer: SessionForkView,
    fork: PreviewSession,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct RecordedUndo {
    answer: CompactionUndoneView,
    /// The session's answers after the undo.
    after: Box<PreviewSession>,
    /// How a second undo was refused.
    refusal: CommandError,
}

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/mock/library.json")
}

fn app_in(home: &Path) -> Arc<App> {
    let paths = StrataPaths::under(home);
    std::fs::create_dir_all(&paths.config).unwrap();
    std::fs::write(paths.config_file(), "").unwrap();
    Arc::new(App::new(paths, |_| None))
}

/// What the commands answer for a session.
async fn answers(app: &Arc<App>, id: SessionId) -> PreviewSession {
    let transcript = crate::whole_transcript(app, id).await;
    let mut tool_outputs = BTreeMap::new();
    for entry in &transcript {
        if let TranscriptEntry::Tool(tool) = entry {
            let output = app
                .tool_output(GetToolOutput {
                    session_id: id,
                    call_id: tool.call_id.clone(),
                })
                .await;
            if let Ok(output) = output {
                tool_outputs.insert(tool.call_id.clone(), output);
            }
        }
    }
    PreviewSession {
        view: app
            .open_session(OpenSession {
                session_id: id,
                from_record: None,
                without_records: false,
                at_item: None,
            })
            .await
            .unwrap(),
        transcript,
        compaction_views: app
            .compaction_views(GetCompactionViews { session_id: id })
            .await
            .unwrap(),
        rounds: app
            .round_requests(GetRoundRequests {
                session_id: id,
                offset: None,
                limit: Some(200),
            })
            .await
            .unwrap(),
        console: app
            .open_console(OpenConsole {
                session_id: id,
                before: None,
                limit: Some(1_000),
            })
            .await
            .unwrap(),
        items: app
            .session_items(ListSessionItems { session_id: id })
            .await
            .unwrap(),
        tool_outputs,
        forks: Vec::new(),
        undo: None,
    }
}

/// The forks the preview offers: before each compaction, and right after
/// the first item the model sees.
async fn record_forks(app: &Arc<App>, session: &mut PreviewSession) {
    let id = session.view.summary.id;
    let mut points: Vec<ForkPoint> = (1..=session.compaction_views.len())
        .map(|number| ForkPoint::BeforeCompaction {
            number: u32::try_from(number).unwrap(),
        })
        .collect();
    if let Some(first) = session.view.context.first() {
        points.push(ForkPoint::AtItem {
            item_id: first.id(),
        });
    }
    for point in points {
        let answer = app
            .fork_session(ForkSession {
                session_id: id,
                point: point.clone(),
                files: None,
            })
            .await
            .unwrap();
        let fork = answers(app, answer.session_id).await;
        session.forks.push(RecordedFork {
            point,
            answer,
            fork,
        });
    }
}

/// Undoes the session's latest compaction, then asks once more.
async fn record_undo(app: &Arc<App>, session: &mut PreviewSession) {
    let id = session.view.summary.id;
    let answer = app
        .undo_compaction(UndoCompaction { session_id: id })
        .await
        .unwrap();
    let after = Box::new(answers(app, id).await);
    let refusal = app
        .undo_compaction(UndoCompaction { session_id: id })
        .await
        .unwrap_err();
    session.undo = Some(RecordedUndo {
        answer,
        after,
        refusal,
    });
}

/// Records sessions on the demo model.
async fn record(home: &Path) -> PreviewLibrary {
    let app = app_in(&home.join("strata"));
    let workspace = home.join("lighthouse");
    std::fs::create_dir_all(workspace.join("src")).unwrap();
    // Longer than a card's preview, so the preview shows a cut output.
    let inventory: String = (0..60)
        .map(|n| format!("lamp {n:02}: lens cleaned, bulb checked, brass polished\n"))
        .collect();
    std::fs::write(workspace.join("inventory.txt"), inventory).unwrap();
    std::fs::write(
        workspace.join("README.md"),
        "# Lighthouse\n\nKeeps the lamps lit.\n",
    )
    .unwrap();
    std::fs::write(
        workspace.join("src/main.rs"),
        "fn main() {\n    println!(\"lit\");\n}\n",
    )
    .unwrap();

    let mut sessions = Vec::new();
    let mut live_turn = Vec::new();
    let scripts: [&[&str]; 2] = [
        &["What is in this folder?", "Which lamps need work?"],
        &["Check the keeper's log", "Summarise what you found"],
    ];
    for (n, script) in scripts.into_iter().enumerate() {
        let id = create(&app, &workspace).await;
        for text in script {
            let events: Arc<Mutex<Vec<LiveEvent>>> = Arc::default();
            let sink = Arc::clone(&events);
            send(
                &app,
                id,
                text,
                TranscriptFeed::new(move |batch| sink.lock().unwrap().extend(batch.events)),
            )
            .await;
            live_turn = std::mem::take(&mut *events.lock().unwrap());
        }
        if n == 1 {
            // A compaction, for the console's cards and the transcript's divider.
            app.compact_now(
                CompactNow {
                    session_id: id,
                    focus: Some("the lamps that need work".into()),
                },
                TranscriptFeed::new(|_| {}),
            )
            .await
            .unwrap();
            send(&app, id, "What is left to do?", TranscriptFeed::new(|_| {})).await;
        }
        let mut session = answers(&app, id).await;
        record_forks(&app, &mut session).await;
        if !session.compaction_views.is_empty() {
            record_undo(&app, &mut session).await;
        }
        sessions.push(session);
    }
    PreviewLibrary {
        about: "Recorded from the offline demo model by crates/strata-app/tests/preview/mod.rs; regenerate with STRATA_UPDATE_FIXTURES=1 cargo test -p strata-app --test transcript preview".into(),
        sessions,
        live_turn,
    }
}

#[test]
fn the_preview_library_is_what_the_commands_answer_for_its_sessions() {
    let home = tempfile::tempdir().unwrap();
    let rt = runtime();
    if std::env::var_os(UPDATE_ENV).is_some_and(|v| v == "1") {
        let library = rt.block_on(record(home.path()));
        let text = serde_json::to_string(&library).unwrap();
        std::fs::write(fixture_path(), text + "\n").unwrap();
        assert!(
            library
                .sessions
                .iter()
                .any(|s| !s.compaction_views.is_empty()),
            "a preview session should compact"
        );
        return;
    }
    let text = std::fs::read_to_string(fixture_path()).unwrap();
    let library: PreviewLibrary = serde_json::from_str(&text).unwrap();

    // The session files back where the library keeps them.
    let app = app_in(home.path());
    for session in &library.sessions {
        let id = session.view.summary.id;
        let path = app.store().session_path(id);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut file = std::fs::File::create(&path).unwrap();
        for record in &session.view.records {
            writeln!(file, "{}", serde_json::to_string(record).unwrap()).unwrap();
        }
    }
    rt.block_on(async {
        for session in &library.sessions {
            let fresh = answers(&app, session.view.summary.id).await;
            assert_eq!(fresh.transcript, session.transcript, "transcript");
            assert_eq!(fresh.compaction_views, session.compaction_views);
            assert_eq!(fresh.rounds, session.rounds);
            assert_eq!(fresh.console, session.console, "console");
            assert_eq!(fresh.view.context, session.view.context);
            assert_eq!(fresh.view.summary, session.view.summary);
            assert_eq!(fresh.items, session.items, "session items");
            assert_eq!(fresh.tool_outputs, session.tool_outputs, "tool outputs");
        }
    });

    // The live turn's updates are what the conversion makes of its events.
    let mut fold = TranscriptFold::live();
    for event in &library.live_turn {
        fold.apply_event(&event.envelope);
        let updates = fold.take_updates();
        assert_eq!(
            updates.len(),
            event.updates.len(),
            "updates of event {}",
            event.envelope.seq
        );
        for (fresh, recorded) in updates.iter().zip(&event.updates) {
            // Entries only live events make (errors, retries) are named
            // per fold; everything else is named the same.
            if !serde_json::to_string(recorded).unwrap().contains("\"live:") {
                assert_eq!(fresh, recorded, "event {}", event.envelope.seq);
            }
        }
    }
}
