//! The commands of docs/desktop-commands.md, one module per group. Each is a
//! few lines over [`AppState`](crate::state::AppState) and the core; blocking
//! work (files, the keychain) runs on the blocking pool.

pub mod console;
pub mod sessions;
pub mod settings;
pub mod turns;

use std::sync::Arc;

use strata_protocol::SessionId;

use crate::errors::{CommandResult, invalid_input};

/// What Tauri manages: the state behind an `Arc`, so blocking tasks and
/// turns can hold it past the command's return.
pub type Shared = Arc<crate::state::AppState>;

/// Runs blocking work (file reads, keychain access) off the async runtime.
pub async fn blocking<T, F>(state: &Shared, work: F) -> CommandResult<T>
where
    T: Send + 'static,
    F: FnOnce(&crate::state::AppState) -> CommandResult<T> + Send + 'static,
{
    let state = Arc::clone(state);
    tauri::async_runtime::spawn_blocking(move || work(&state))
        .await
        .map_err(crate::errors::task_failed)?
}

/// A session id from the UI (ids are UUIDs; anything else is a bad request,
/// not a missing session).
pub fn parse_id(session_id: &str) -> CommandResult<SessionId> {
    session_id
        .trim()
        .parse()
        .map_err(|_| invalid_input(format!("{session_id:?} is not a session id.")))
}
