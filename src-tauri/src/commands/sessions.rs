//! Browsing and managing sessions: list, search, open read-only, create,
//! rename, delete, export. The session file is never rewritten: a rename
//! appends a `title_set` record.

use std::path::PathBuf;

use strata_core::ReadMode;
use strata_protocol::{ExportFormat, SessionListItem, SessionView};
use tauri::State;

use super::{Shared, blocking, parse_id};
use crate::errors::{CommandResult, ToCommandError, invalid_input};
use crate::export;
use crate::views::{
    contains, first_user_message, list_item, list_item_of_replay, needle, row_matches,
};

/// Sessions, newest first; `query` filters by title, first user message and
/// workspace, ignoring case.
#[tauri::command]
pub async fn list_sessions(
    state: State<'_, Shared>,
    query: Option<String>,
) -> CommandResult<Vec<SessionListItem>> {
    blocking(&state, move |state| {
        let store = state.store();
        let summaries = store.list().map_err(ToCommandError::to_command_error)?;
        let needle = needle(query.as_deref());
        let mut items = Vec::with_capacity(summaries.len());
        for summary in &summaries {
            let item = list_item(summary);
            let keep = match &needle {
                None => true,
                Some(needle) if row_matches(&item, needle) => true,
                // A renamed session's title no longer shows its first
                // message, so that needs the file.
                Some(needle) => store
                    .open_reader(summary.id, ReadMode::Browsing)
                    .ok()
                    .is_some_and(|read| {
                        first_user_message(&read).is_some_and(|m| contains(m, needle))
                    }),
            };
            if keep {
                items.push(item);
            }
        }
        Ok(items)
    })
    .await
}

/// A read-only snapshot: every record, and the model-visible history the
/// core replays from them.
#[tauri::command]
pub async fn open_session(
    state: State<'_, Shared>,
    session_id: String,
) -> CommandResult<SessionView> {
    let id = parse_id(&session_id)?;
    let live = state.live(id).is_some();
    blocking(&state, move |state| {
        let read = state.browse(id)?;
        let replay = read.replay();
        let history = replay.history();
        let last_usage = history.last_usage().cloned();
        let (threshold, context_window) = state.limits_for(id)?;
        Ok(SessionView {
            summary: list_item_of_replay(&replay),
            context: history.items().to_vec(),
            context_tokens: last_usage.as_ref().and_then(|usage| usage.context_tokens()),
            last_usage,
            threshold,
            context_window,
            live,
            records: read.records,
        })
    })
    .await
}

/// A new session working in `workspace`, on the active profile.
#[tauri::command]
pub async fn create_session(
    state: State<'_, Shared>,
    workspace: String,
) -> CommandResult<SessionListItem> {
    let folder = PathBuf::from(workspace.trim());
    if workspace.trim().is_empty() || !folder.is_absolute() {
        return Err(invalid_input("Choose the folder the agent works in."));
    }
    if !folder.is_dir() {
        return Err(invalid_input(format!(
            "{} is not a folder.",
            folder.display()
        )));
    }
    state.create_session(&folder).await
}

/// Names the session (a `title_set` record); refused while a turn runs.
#[tauri::command]
pub async fn rename_session(
    state: State<'_, Shared>,
    session_id: String,
    title: String,
) -> CommandResult<SessionListItem> {
    let id = parse_id(&session_id)?;
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if title.is_empty() {
        return Err(invalid_input("The title is empty."));
    }
    state.rename(id, title).await
}

/// Deletes the session's file; refused while a turn runs in it.
#[tauri::command]
pub async fn delete_session(state: State<'_, Shared>, session_id: String) -> CommandResult<()> {
    let id = parse_id(&session_id)?;
    state.close(id).await?;
    blocking(&state, move |state| {
        state
            .store()
            .delete(id)
            .map_err(ToCommandError::to_command_error)?;
        tracing::info!(session = %id, "session deleted");
        Ok(())
    })
    .await
}

/// Writes the session as Markdown or JSON to the path the person chose.
#[tauri::command]
pub async fn export_session(
    state: State<'_, Shared>,
    session_id: String,
    format: ExportFormat,
    path: String,
) -> CommandResult<()> {
    let id = parse_id(&session_id)?;
    let target = export::target_path(&path, format)?;
    blocking(&state, move |state| {
        let read = state.browse(id)?;
        let text = export::render(&read, format)?;
        export::write(&target, &text)?;
        tracing::info!(session = %id, ?format, "session exported");
        Ok(())
    })
    .await
}
