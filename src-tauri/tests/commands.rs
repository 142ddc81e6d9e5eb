//! The commands through Tauri's IPC on the mock runtime (no display): the
//! argument names and the return shapes the UI relies on, the structured
//! errors, and a whole turn on the offline demo model.

// Helpers outside #[test] functions panic on purpose: a broken fixture is a
// failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use strata_desktop::commands::{Shared, channel_sink};
use strata_protocol::{
    AgentEvent, AppInfo, CommandErrorKind, CompactNow, EventEnvelope, LiveBatch, LiveEvent,
    MainlineEvent, SearchHitKind, SearchResults, SendMessage, SessionExport, SessionId,
    SessionListItem, SessionPage, SessionView, Settings, TranscriptUpdate, TurnOutcome,
};
use tauri::Manager;
use tauri::ipc::{Channel, InvokeResponseBody};

mod support;

use support::MockApp;

/// The app, and a workspace holding `notes.txt`.
struct Harness {
    mock: MockApp,
    workspace: tempfile::TempDir,
}

impl std::ops::Deref for Harness {
    type Target = MockApp;

    fn deref(&self) -> &MockApp {
        &self.mock
    }
}

fn harness() -> Harness {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    Harness {
        mock: MockApp::new(),
        workspace,
    }
}

impl Harness {
    fn create(&self) -> SessionListItem {
        self.invoke(
            "create_session",
            json!({ "workspace": self.workspace.path().to_str().unwrap() }),
        )
    }

    fn state(&self) -> Shared {
        Shared::clone(&self.app.state::<Shared>())
    }
}

/// A turn through the application, its events sent to `channel`.
async fn run_turn(
    app: &Shared,
    session_id: SessionId,
    text: String,
    channel: Channel<LiveBatch>,
) -> Result<strata_protocol::TurnReport, strata_protocol::CommandError> {
    match app
        .send_message(SendMessage { session_id, text }, channel_sink(app, channel))
        .await?
    {
        strata_protocol::SendOutcome::Turn(report) => Ok(report),
        strata_protocol::SendOutcome::Compaction(outcome) => {
            panic!("compacted, not a turn: {outcome:?}")
        }
    }
}

/// A compaction through the application, its events sent to `channel`.
async fn run_compaction(
    app: &Shared,
    session_id: SessionId,
    focus: Option<String>,
    channel: Channel<LiveBatch>,
) -> Result<strata_protocol::CompactOutcome, strata_protocol::CommandError> {
    app.compact_now(CompactNow { session_id, focus }, channel_sink(app, channel))
        .await
}

/// A channel that keeps every batch of events it is sent.
fn collecting_channel() -> (Channel<LiveBatch>, Arc<Mutex<Vec<LiveBatch>>>) {
    let batches = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&batches);
    let channel = Channel::new(move |body: InvokeResponseBody| {
        let InvokeResponseBody::Json(text) = body else {
            panic!("events are JSON");
        };
        sink.lock()
            .unwrap()
            .push(serde_json::from_str(&text).unwrap());
        Ok(())
    });
    (channel, batches)
}

/// The events of `batches`, each with its transcript updates, in order.
fn events_of(batches: &Mutex<Vec<LiveBatch>>) -> Vec<LiveEvent> {
    let batches = batches.lock().unwrap();
    batches.iter().flat_map(|b| b.events.clone()).collect()
}

#[test]
fn with_no_configuration_the_app_runs_on_the_offline_demo_model() {
    let h = harness();
    let info: AppInfo = h.invoke("app_info", json!({}));
    assert!(info.is_demo);
    assert_eq!(
        info.active_profile.kind,
        strata_protocol::ProviderKind::Demo
    );
    assert_eq!(info.active_profile.label, "Offline demo");
    assert_eq!(info.strata_home, h.home.path().display().to_string());
    let settings: Settings = h.invoke("get_settings", json!({}));
    assert_eq!(settings.active_profile, "demo");
}

#[test]
fn sessions_are_created_listed_searched_opened_renamed_and_deleted() {
    let h = harness();
    let created = h.create();
    assert_eq!(created.item_count, 1, "the system prompt is committed");
    let id = created.id.to_string();

    let all: Vec<SessionListItem> = h.invoke::<SessionPage>("list_sessions", json!({})).sessions;
    assert_eq!(all.len(), 1);
    let folder = h.workspace.path().file_name().unwrap().to_str().unwrap();
    let by_workspace: Vec<SessionListItem> = h
        .invoke::<SessionPage>("list_sessions", json!({ "query": folder.to_uppercase() }))
        .sessions;
    assert_eq!(by_workspace.len(), 1);
    let none: Vec<SessionListItem> = h
        .invoke::<SessionPage>("list_sessions", json!({ "query": "zebra" }))
        .sessions;
    assert!(none.is_empty());

    let view: SessionView = h.invoke("open_session", json!({ "session_id": id }));
    assert!(view.live);
    assert_eq!(
        view.records.len(),
        5,
        "session_meta, the compaction policy, the system prompt, the profile it was made on and its sandbox"
    );
    // Nothing chose a sandbox: the default, confined to the workspace.
    assert_eq!(
        view.sandbox,
        Some(strata_protocol::SandboxMode::WorkspaceWrite)
    );
    assert_eq!(
        view.profile.as_ref().map(|p| p.provider_kind),
        Some(strata_protocol::ProviderKind::Demo)
    );
    assert_eq!(view.context.len(), 1);
    assert!(view.threshold > 0);
    assert!(view.context_window.is_some_and(|w| w > view.threshold));

    let renamed: SessionListItem = h.invoke(
        "rename_session",
        json!({ "session_id": id, "title": "  Tally   the notes " }),
    );
    assert_eq!(renamed.title.as_deref(), Some("Tally the notes"));
    let found: Vec<SessionListItem> = h
        .invoke::<SessionPage>("list_sessions", json!({ "query": "TALLY" }))
        .sessions;
    assert_eq!(found.len(), 1);
    let view: SessionView = h.invoke("open_session", json!({ "session_id": id }));
    assert!(view.live, "renaming keeps the session live");
    assert_eq!(view.summary.title.as_deref(), Some("Tally the notes"));

    h.invoke::<()>("delete_session", json!({ "session_id": id }));
    let all: Vec<SessionListItem> = h.invoke::<SessionPage>("list_sessions", json!({})).sessions;
    assert!(all.is_empty());
    let error = h.fail("open_session", json!({ "session_id": id }));
    assert_eq!(error.kind, CommandErrorKind::NotFound);
}

#[test]
fn renaming_a_live_session_keeps_its_agent_and_event_numbering() {
    let h = harness();
    let id = h.create().id;
    let turn = |text: &str| {
        let (channel, events) = collecting_channel();
        let report =
            tauri::async_runtime::block_on(run_turn(&h.state(), id, text.into(), channel)).unwrap();
        assert_eq!(report.outcome, TurnOutcome::Completed);
        events_of(&events)
            .iter()
            .map(|e| e.envelope.seq)
            .collect::<Vec<u64>>()
    };
    let first = turn("What is in this folder?");
    h.invoke::<SessionListItem>(
        "rename_session",
        json!({ "session_id": id.to_string(), "title": "Notes" }),
    );
    let second = turn("Read notes.txt");
    // A rebuilt agent would number its events from 0 again.
    assert_eq!(second.first().copied(), first.last().map(|seq| seq + 1));
    let view: SessionView = h.invoke("open_session", json!({ "session_id": id.to_string() }));
    assert!(view.live);
    assert_eq!(view.summary.title.as_deref(), Some("Notes"));
}

#[test]
fn search_finds_a_turn_and_its_hit_opens_the_session_at_that_item() {
    let h = harness();
    let id = h.create().id;
    let (channel, _events) = collecting_channel();
    let text = "Which zebracorns are in notes.txt?";
    tauri::async_runtime::block_on(run_turn(&h.state(), id, text.into(), channel)).unwrap();
    let results: SearchResults = h.invoke("search_sessions", json!({ "query": "ZEBRACORNS" }));
    assert_eq!(results.v, 1);
    // Newest text first: the demo model's answer may echo the word, so the
    // person's message is looked for among the hits.
    let hit = results
        .hits
        .iter()
        .find(|hit| hit.kind == SearchHitKind::User)
        .unwrap();
    assert_eq!(hit.session_id, id);
    assert_eq!(hit.snippet, text);
    assert_eq!(
        (hit.matches[0].start, hit.matches[0].end),
        (6, 16),
        "Which [zebracorns]"
    );
    let item = hit.item_id.unwrap().to_string();
    let view: SessionView = h.invoke(
        "open_session",
        json!({ "session_id": id.to_string(), "at_item": item }),
    );
    assert!(view.records.iter().any(|record| matches!(
        &record.body,
        strata_protocol::RecordBody::ResponseItem(committed) if Some(committed.id()) == hit.item_id
    )));
    let filtered: SearchResults = h.invoke(
        "search_sessions",
        json!({ "query": "zebracorns", "model": "nobody" }),
    );
    assert_eq!(filtered.total, 0);
    let error = h.fail(
        "open_session",
        json!({ "session_id": id.to_string(), "at_item": "not-an-item" }),
    );
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    let error = h.fail(
        "open_session",
        json!({ "session_id": id.to_string(), "at_item": strata_protocol::ItemId::new().to_string() }),
    );
    assert_eq!(error.kind, CommandErrorKind::NotFound);
    let error = h.fail("search_sessions", json!({ "query": "  " }));
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
}

#[test]
fn a_session_opened_without_records_carries_its_state_and_no_records() {
    let h = harness();
    let id = h.create().id.to_string();
    let whole: SessionView = h.invoke("open_session", json!({ "session_id": id }));
    assert!(!whole.records.is_empty());
    let state: SessionView = h.invoke(
        "open_session",
        json!({ "session_id": id, "without_records": true }),
    );
    assert!(state.records.is_empty(), "{:?}", state.records);
    assert_eq!(state.record_count, whole.record_count);
    assert_eq!(state.context, whole.context);
    assert_eq!(state.summary, whole.summary);
}

#[test]
fn bad_input_gets_structured_errors() {
    let h = harness();
    let error = h.fail("open_session", json!({ "session_id": "not-an-id" }));
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    let error = h.fail("create_session", json!({ "workspace": "relative/folder" }));
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    let missing = h.home.path().join("missing");
    let error = h.fail(
        "create_session",
        json!({ "workspace": missing.to_str().unwrap() }),
    );
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    let id = h.create().id.to_string();
    let error = h.fail(
        "rename_session",
        json!({ "session_id": id, "title": "   " }),
    );
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    let stopped: bool = h.invoke("stop_turn", json!({ "session_id": id }));
    assert!(!stopped, "nothing runs");
    let answered: bool = h.invoke(
        "answer_approval",
        json!({ "session_id": id, "call_id": "call_1", "decision": "allow_once" }),
    );
    assert!(!answered, "nothing waits");
}

#[test]
fn invalid_settings_save_nothing() {
    let h = harness();
    let mut settings: Settings = h.invoke("get_settings", json!({}));
    settings.profiles[0].compact_threshold = 0;
    let error = h.fail("save_settings", json!({ "settings": settings }));
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    assert!(error.message.starts_with("Nothing was saved."), "{error:?}");
    assert!(!h.home.path().join("config").exists());

    let error = h.fail(
        "set_api_key",
        json!({ "profile_id": "demo", "key": "sk-1" }),
    );
    assert_eq!(error.kind, CommandErrorKind::NotFound);
    let error = h.fail("set_api_key", json!({ "profile_id": "demo", "key": " " }));
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
}

#[test]
fn valid_settings_are_saved_and_keys_never_come_back() {
    let h = harness();
    let mut settings: Settings = h.invoke("get_settings", json!({}));
    let mut local = settings.profiles[0].clone();
    local.id = "local".into();
    local.kind = strata_protocol::ProviderKind::OpenaiChat;
    local.model = "qwen3-coder".into();
    local.base_url = Some("http://127.0.0.1:9/v1".into());
    local.context_window = Some(32_000);
    local.compact_threshold = 20_000;
    settings.profiles.push(local);
    settings.active_profile = "local".into();
    settings.theme = strata_protocol::Theme::Dark;
    let saved: Settings = h.invoke("save_settings", json!({ "settings": settings }));
    assert_eq!(saved.active_profile, "local");
    assert_eq!(saved.theme, strata_protocol::Theme::Dark);

    h.invoke::<()>(
        "set_api_key",
        json!({ "profile_id": "local", "key": "sk-secret-123" }),
    );
    let reread: Settings = h.invoke("get_settings", json!({}));
    let local = reread.profiles.iter().find(|p| p.id == "local").unwrap();
    assert!(local.has_key);
    let text = serde_json::to_string(&reread).unwrap();
    assert!(!text.contains("sk-secret-123"));
    let config = std::fs::read_to_string(h.home.path().join("config/config.toml")).unwrap();
    assert!(!config.contains("sk-secret-123"), "{config}");
    let info: AppInfo = h.invoke("app_info", json!({}));
    assert!(!info.is_demo);
    assert_eq!(info.active_profile.id, "local");
}

#[test]
fn a_turn_on_the_demo_model_streams_every_event_in_order() {
    let h = harness();
    let id = h.create().id;
    let (channel, events) = collecting_channel();
    let report = tauri::async_runtime::block_on(run_turn(
        &h.state(),
        id,
        "What is in this folder?".into(),
        channel,
    ))
    .unwrap();
    assert_eq!(report.outcome, TurnOutcome::Completed);
    assert!(report.rounds >= 2, "the demo model calls tools first");

    // Streamed text may wait for the events after it; nothing else waits:
    // every batch holds text deltas only, up to its last event.
    for batch in events.lock().unwrap().iter() {
        let Some((_, held)) = batch.events.split_last() else {
            panic!("an empty batch was sent");
        };
        assert!(
            held.iter().all(|e| matches!(
                e.envelope.event,
                AgentEvent::Mainline(MainlineEvent::TextDelta { .. })
            )),
            "{batch:?}"
        );
    }
    let live = events_of(&events);
    // Every event comes with the transcript updates the conversion made of it.
    assert!(live.iter().any(|e| {
        e.updates
            .iter()
            .any(|u| matches!(u, TranscriptUpdate::AppendText { .. }))
    }));
    let events: Vec<&EventEnvelope> = live.iter().map(|e| &e.envelope).collect();
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    let mainline: Vec<&MainlineEvent> = events
        .iter()
        .filter_map(|e| match &e.event {
            AgentEvent::Mainline(event) => Some(event),
            AgentEvent::Debug(_) => None,
        })
        .collect();
    assert!(matches!(
        mainline.first(),
        Some(MainlineEvent::TurnStarted { .. })
    ));
    assert!(matches!(
        mainline.last(),
        Some(MainlineEvent::TurnFinished { .. })
    ));
    assert!(
        mainline
            .iter()
            .any(|e| matches!(e, MainlineEvent::TextDelta { .. }))
    );
    assert!(
        mainline
            .iter()
            .any(|e| matches!(e, MainlineEvent::ToolCallFinished { .. }))
    );
    assert!(
        events.iter().any(|e| !e.event.is_mainline()),
        "debug events too"
    );

    // The file holds the turn; browsing it shows the answer.
    let view: SessionView = h.invoke("open_session", json!({ "session_id": id.to_string() }));
    assert!(view.live);
    assert!(view.context_tokens.is_some());

    // Manual compaction on the live session.
    let (channel, _events) = collecting_channel();
    let outcome =
        tauri::async_runtime::block_on(run_compaction(&h.state(), id, None, channel)).unwrap();
    assert!(outcome.summary.is_some(), "{outcome:?}");

    // The debug console's views of the same file.
    let compactions: Vec<Value> =
        h.invoke("compaction_views", json!({ "session_id": id.to_string() }));
    assert_eq!(compactions.len(), 1);
    assert!(
        compactions[0]["before"].as_array().unwrap().len()
            > compactions[0]["after"].as_array().unwrap().len()
    );
    let page: Value = h.invoke(
        "round_requests",
        json!({ "session_id": id.to_string(), "offset": 1, "limit": 1 }),
    );
    assert_eq!(page["total"], report.rounds);
    assert_eq!(page["offset"], 1);
    assert_eq!(page["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(page["rounds"][0]["number"], 2);

    // Exports of the finished session: their text (the UI writes it).
    let md: SessionExport = h.invoke(
        "export_session",
        json!({ "session_id": id.to_string(), "format": "md" }),
    );
    assert!(
        md.text.contains("**You:**\n\nWhat is in this folder?"),
        "{}",
        md.text
    );
    let json_lines: SessionExport = h.invoke(
        "export_session",
        json!({ "session_id": id.to_string(), "format": "json" }),
    );
    // JSON lines: one record a line, as the command line exports them.
    let records: Vec<Value> = json_lines
        .text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records[0]["type"], "session_meta");
    assert!(records.len() > 3, "{records:?}");
}

#[test]
fn send_message_over_ipc_resumes_a_closed_session_and_refuses_an_empty_one() {
    let h = harness();
    let id = h.create().id.to_string();
    // Saving settings closes live sessions; the turn must reopen it from
    // its file.
    let settings: Settings = h.invoke("get_settings", json!({}));
    h.invoke::<Settings>("save_settings", json!({ "settings": settings }));
    h.invoke::<SessionListItem>("rename_session", json!({ "session_id": id, "title": "x" }));
    let view: SessionView = h.invoke("open_session", json!({ "session_id": id }));
    assert!(!view.live);
    let report: Value = h.invoke_args(
        "send_message",
        json!({ "request": { "session_id": id, "text": "hello" }, "on_event": "__CHANNEL__:4242" }),
    );
    assert_eq!(report["outcome"], "completed");
    assert!(report["turn_id"].is_string());
    // The title no longer shows the first message; search still finds it.
    let found: Vec<SessionListItem> = h
        .invoke::<SessionPage>("list_sessions", json!({ "query": "HELLO" }))
        .sessions;
    assert_eq!(found.len(), 1);
    let error = h.fail_args(
        "send_message",
        json!({ "request": { "session_id": id, "text": "  " }, "on_event": "__CHANNEL__:4243" }),
    );
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
}

#[test]
fn a_running_session_refuses_a_second_turn_a_rename_and_a_delete_until_it_ends() {
    let h = harness();
    let id = h.create().id;
    let args = json!({ "session_id": id.to_string() });
    let running = tauri::async_runtime::block_on(h.state().start_running(id)).unwrap();
    let error = h.fail_args(
        "send_message",
        json!({ "request": { "session_id": id.to_string(), "text": "hi" }, "on_event": "__CHANNEL__:7" }),
    );
    assert_eq!(error.kind, CommandErrorKind::Busy);
    let error = h.fail("delete_session", args.clone());
    assert_eq!(error.kind, CommandErrorKind::Busy);
    let error = h.fail(
        "rename_session",
        json!({ "session_id": id.to_string(), "title": "t" }),
    );
    assert_eq!(error.kind, CommandErrorKind::Busy);
    assert!(h.invoke::<bool>("stop_turn", args.clone()));
    assert!(running.cancel_token().is_cancelled());
    drop(running);
    assert!(!h.invoke::<bool>("stop_turn", args.clone()));
    h.invoke::<()>("delete_session", args);
    assert!(
        h.invoke::<SessionPage>("list_sessions", json!({}))
            .sessions
            .is_empty()
    );
}
