//! The IPC commands of docs/desktop-commands.md, each mapped one to one onto
//! strata-app: arguments become the contract's request type, the result and
//! the error ([`CommandError`]) go back as they are. Validation, sessions,
//! settings and profiles all live in strata-app.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use strata_app::App;
use strata_app::transcript::TranscriptFeed;
use strata_protocol::{
    AnswerApproval, AppInfo, ApprovalDecision, CheckThreshold, CommandError, CompactNow,
    CompactOutcome, CompactUpTo, CompactionPolicy, CompactionPreview, CompactionStatus,
    CompactionUndoneView, CompactionView, CreateSession, DeleteSession, ExportFormat,
    ExportSession, ForkPoint, ForkSession, GetCompactionStatus, GetCompactionViews,
    GetRoundRequests, GetToolOutput, ItemPinned, LibraryChange, ListSessionItems, ListSessions,
    LiveBatch, OpenSession, OpenTranscript, PinItem, PreviewCompaction, ProviderKindInfo,
    RenameSession, RoundPage, SaveSettings, SearchResults, SearchSessions, SendMessage,
    SessionExport, SessionForkView, SessionItems, SessionListItem, SessionPage, SessionView,
    SetApiKey, SetCompactionPolicy, Settings, StopTurn, SwitchProfile, ThresholdCheck,
    ToolOutputText, TranscriptPage, TurnReport, UndoCompaction,
};
use tauri::ipc::Channel;
use tauri::{Runtime, State, Webview, Window};
use tauri_plugin_dialog::DialogExt;

use crate::library::LibraryFeed;

/// What Tauri manages: the application behind an `Arc`, so blocking tasks
/// and turns can hold it past the command's return.
pub type Shared = Arc<App>;

type Result<T> = std::result::Result<T, CommandError>;

fn id(text: &str) -> Result<strata_protocol::SessionId> {
    strata_app::validate::session_id(text)
}

/// A turn's events, each with the transcript updates it makes, sent to the
/// webview's channel in the agent's order, streamed text in batches of
/// about a frame.
pub fn channel_sink(channel: Channel<LiveBatch>) -> TranscriptFeed<impl FnMut(LiveBatch) + Send> {
    TranscriptFeed::new(move |batch| {
        // A window that went away must not stop the turn: the session file
        // still records everything.
        if let Err(error) = channel.send(batch) {
            tracing::debug!(%error, "the UI stopped listening to a turn's events");
        }
    })
}

#[tauri::command(rename_all = "snake_case")]
pub async fn app_info(app: State<'_, Shared>) -> Result<AppInfo> {
    app.app_info().await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn list_sessions(
    app: State<'_, Shared>,
    query: Option<String>,
    offset: Option<u32>,
    limit: Option<u32>,
) -> Result<SessionPage> {
    app.list_sessions(ListSessions {
        query,
        offset,
        limit,
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
#[allow(clippy::too_many_arguments)]
pub async fn search_sessions(
    app: State<'_, Shared>,
    query: String,
    workspace: Option<String>,
    model: Option<String>,
    updated_from: Option<DateTime<Utc>>,
    updated_until: Option<DateTime<Utc>>,
    offset: Option<u32>,
    limit: Option<u32>,
) -> Result<SearchResults> {
    app.search_sessions(SearchSessions {
        query,
        workspace,
        model,
        updated_from,
        updated_until,
        offset,
        limit,
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn open_session(
    app: State<'_, Shared>,
    session_id: String,
    from_record: Option<u32>,
    at_item: Option<String>,
) -> Result<SessionView> {
    let session_id = id(&session_id)?;
    let at_item = at_item
        .map(|item| strata_app::validate::item_id(&item))
        .transpose()?;
    app.open_session(OpenSession {
        session_id,
        from_record,
        at_item,
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn create_session(
    app: State<'_, Shared>,
    workspace: String,
    allow_broad_workspace: Option<bool>,
) -> Result<SessionListItem> {
    app.create_session(CreateSession {
        workspace,
        allow_broad_workspace: allow_broad_workspace.unwrap_or(false),
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn send_message(
    app: State<'_, Shared>,
    session_id: String,
    text: String,
    on_event: Channel<LiveBatch>,
) -> Result<TurnReport> {
    let session_id = id(&session_id)?;
    app.send_message(SendMessage { session_id, text }, channel_sink(on_event))
        .await
}

#[tauri::command(rename_all = "snake_case")]
pub fn stop_turn(app: State<'_, Shared>, session_id: String) -> Result<bool> {
    let session_id = id(&session_id)?;
    Ok(app.stop_turn(&StopTurn { session_id }))
}

#[tauri::command(rename_all = "snake_case")]
pub fn answer_approval(
    app: State<'_, Shared>,
    session_id: String,
    call_id: String,
    decision: ApprovalDecision,
) -> Result<bool> {
    let session_id = id(&session_id)?;
    Ok(app.answer_approval(&AnswerApproval {
        session_id,
        call_id,
        decision,
    }))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn compact_now(
    app: State<'_, Shared>,
    session_id: String,
    focus: Option<String>,
    on_event: Channel<LiveBatch>,
) -> Result<CompactOutcome> {
    let session_id = id(&session_id)?;
    app.compact_now(CompactNow { session_id, focus }, channel_sink(on_event))
        .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn rename_session(
    app: State<'_, Shared>,
    session_id: String,
    title: String,
) -> Result<SessionListItem> {
    let session_id = id(&session_id)?;
    app.rename_session(RenameSession { session_id, title })
        .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn delete_session(app: State<'_, Shared>, session_id: String) -> Result<()> {
    let session_id = id(&session_id)?;
    app.delete_session(DeleteSession { session_id }).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn export_session(
    app: State<'_, Shared>,
    session_id: String,
    format: ExportFormat,
) -> Result<SessionExport> {
    let session_id = id(&session_id)?;
    app.export_session(ExportSession { session_id, format })
        .await
}

/// `watch_library`: the library's changes go to this window's channel.
#[tauri::command(rename_all = "snake_case")]
pub fn watch_library<R: Runtime>(
    app: State<'_, Shared>,
    feed: State<'_, LibraryFeed>,
    webview: Webview<R>,
    on_event: Channel<LibraryChange>,
) -> Result<()> {
    feed.subscribe(&app, webview.label(), on_event)
}

/// `pick_workspace`: the native folder picker, opened from here rather
/// than by the webview through the dialog plugin, because the plugin would
/// put the chosen folder and its files in the fs plugin's scope; the
/// webview may write only where the person saves an export. `None` when
/// cancelled.
#[tauri::command(rename_all = "snake_case")]
pub async fn pick_workspace<R: Runtime>(window: Window<R>) -> Option<String> {
    let (chosen, picked) = tokio::sync::oneshot::channel();
    window
        .dialog()
        .file()
        .set_parent(&window)
        .set_title("Choose the workspace folder")
        .pick_folder(move |folder| {
            // Nobody waits any more only when the window went away.
            let _ = chosen.send(folder);
        });
    let folder = picked.await.ok().flatten()?.into_path().ok()?;
    Some(folder.to_string_lossy().into_owned())
}

#[tauri::command(rename_all = "snake_case")]
pub async fn switch_profile(
    app: State<'_, Shared>,
    session_id: String,
    profile_id: String,
) -> Result<SessionListItem> {
    let session_id = id(&session_id)?;
    app.switch_profile(SwitchProfile {
        session_id,
        profile_id,
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn get_settings(app: State<'_, Shared>) -> Result<Settings> {
    app.get_settings().await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn save_settings(app: State<'_, Shared>, settings: Settings) -> Result<Settings> {
    app.save_settings(SaveSettings { settings }).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn set_api_key(app: State<'_, Shared>, profile_id: String, key: String) -> Result<()> {
    app.set_api_key(SetApiKey { profile_id, key }).await
}

#[tauri::command(rename_all = "snake_case")]
pub fn provider_kinds() -> Vec<ProviderKindInfo> {
    strata_app::provider_kinds()
}

#[tauri::command(rename_all = "snake_case")]
pub async fn compaction_views(
    app: State<'_, Shared>,
    session_id: String,
) -> Result<Vec<CompactionView>> {
    let session_id = id(&session_id)?;
    app.compaction_views(GetCompactionViews { session_id })
        .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn round_requests(
    app: State<'_, Shared>,
    session_id: String,
    offset: Option<u32>,
    limit: Option<u32>,
) -> Result<RoundPage> {
    let session_id = id(&session_id)?;
    app.round_requests(GetRoundRequests {
        session_id,
        offset,
        limit,
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn open_transcript(
    app: State<'_, Shared>,
    session_id: String,
    before: Option<String>,
    at_item: Option<String>,
    limit: Option<u32>,
) -> Result<TranscriptPage> {
    let session_id = id(&session_id)?;
    app.open_transcript(OpenTranscript {
        session_id,
        before,
        at_item,
        limit,
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn tool_output(
    app: State<'_, Shared>,
    session_id: String,
    call_id: String,
) -> Result<ToolOutputText> {
    let session_id = id(&session_id)?;
    app.tool_output(GetToolOutput {
        session_id,
        call_id,
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn compaction_status(
    app: State<'_, Shared>,
    session_id: String,
) -> Result<CompactionStatus> {
    let session_id = id(&session_id)?;
    app.compaction_status(GetCompactionStatus { session_id })
        .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn set_compaction_policy(
    app: State<'_, Shared>,
    session_id: String,
    policy: CompactionPolicy,
) -> Result<CompactionStatus> {
    let session_id = id(&session_id)?;
    app.set_compaction_policy(SetCompactionPolicy { session_id, policy })
        .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn preview_compaction(
    app: State<'_, Shared>,
    session_id: String,
) -> Result<CompactionPreview> {
    let session_id = id(&session_id)?;
    app.preview_compaction(PreviewCompaction { session_id })
        .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn check_threshold(
    app: State<'_, Shared>,
    threshold: String,
    profile_id: Option<String>,
) -> Result<ThresholdCheck> {
    app.check_threshold(CheckThreshold {
        threshold,
        profile_id,
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn session_items(app: State<'_, Shared>, session_id: String) -> Result<SessionItems> {
    let session_id = id(&session_id)?;
    app.session_items(ListSessionItems { session_id }).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn pin_item(
    app: State<'_, Shared>,
    session_id: String,
    item: String,
    pinned: bool,
) -> Result<ItemPinned> {
    let session_id = id(&session_id)?;
    app.pin_item(PinItem {
        session_id,
        item,
        pinned,
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn compact_up_to(
    app: State<'_, Shared>,
    session_id: String,
    item: String,
    focus: Option<String>,
    on_event: Channel<LiveBatch>,
) -> Result<CompactOutcome> {
    let session_id = id(&session_id)?;
    let request = CompactUpTo {
        session_id,
        item,
        focus,
    };
    app.compact_up_to(request, channel_sink(on_event)).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn undo_compaction(
    app: State<'_, Shared>,
    session_id: String,
) -> Result<CompactionUndoneView> {
    let session_id = id(&session_id)?;
    app.undo_compaction(UndoCompaction { session_id }).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn fork_session(
    app: State<'_, Shared>,
    session_id: String,
    point: ForkPoint,
) -> Result<SessionForkView> {
    let session_id = id(&session_id)?;
    app.fork_session(ForkSession { session_id, point }).await
}
