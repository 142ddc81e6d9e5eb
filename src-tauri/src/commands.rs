//! The IPC commands of docs/desktop-commands.md, generated from the one list
//! in strata-protocol (`with_commands!`): each `App` row becomes a command
//! taking its request type as `request` (and, with events, the channel
//! `on_event`) and calling the `App` method of the same name; its result
//! and its error ([`CommandError`]) go back as they are. The few `Shell`
//! rows, which need the shell's own objects, are written below by hand.
//! Validation, sessions, settings and profiles all live in strata-app.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use strata_app::App;
use strata_app::transcript::TranscriptFeed;
use strata_protocol::{
    CommandError, LibraryChange, LiveBatch, OpenExternalLink, PickImportPaths, PickWorkspace,
    WatchLibrary,
};
use tauri::ipc::{Channel, CommandArg, CommandItem, Invoke, InvokeError};
use tauri::{Runtime, State, Webview, Window};
use tauri_plugin_dialog::DialogExt;

use crate::library::LibraryFeed;
use crate::links::LinkOpener;

/// What Tauri manages: the application behind an `Arc`, so blocking tasks
/// and turns can hold it past the command's return.
pub type Shared = Arc<App>;

type Result<T> = std::result::Result<T, CommandError>;

/// A command's `request` argument. One that does not decode into the
/// command's request type is an `invalid_input` error, for every command
/// alike, rather than Tauri's bare message.
pub struct Request<T>(pub T);

impl<'de, R: Runtime, T: DeserializeOwned> CommandArg<'de, R> for Request<T> {
    fn from_command(command: CommandItem<'de, R>) -> std::result::Result<Self, InvokeError> {
        let name = command.name;
        T::deserialize(command)
            .map(Request)
            .map_err(|error| InvokeError::from(strata_app::error::bad_request(name, error)))
    }
}

/// A turn's events, each with the transcript updates it makes, sent to the
/// webview's channel in the agent's order, streamed text in batches of
/// about a frame.
pub fn channel_sink(
    app: &App,
    channel: Channel<LiveBatch>,
) -> TranscriptFeed<impl FnMut(LiveBatch) + Send + use<>> {
    let feed = TranscriptFeed::new(move |batch| {
        // A window that went away must not stop the turn: the session file
        // still records everything.
        if let Err(error) = channel.send(batch) {
            tracing::debug!(%error, "the UI stopped listening to a turn's events");
        }
    });
    feed.with_console(app.console_tail())
}

macro_rules! glue {
    ($($group:ident: $handler:ident $name:ident($request:ty) -> $output:ty $(, events $events:ty)?;)*) => {
        $(glue!(@command $handler $name($request) -> $output $(, events $events)?);)*

        /// Every command of the list, for `invoke_handler`.
        pub fn handler<R: Runtime>() -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }
    };
    (@command App $name:ident($request:ty) -> $output:ty) => {
        #[tauri::command(rename_all = "snake_case")]
        async fn $name(app: State<'_, Shared>, request: Request<$request>) -> Result<$output> {
            app.$name(request.0).await
        }
    };
    (@command App $name:ident($request:ty) -> $output:ty, events $events:ty) => {
        #[tauri::command(rename_all = "snake_case")]
        async fn $name(
            app: State<'_, Shared>,
            request: Request<$request>,
            on_event: Channel<$events>,
        ) -> Result<$output> {
            app.$name(request.0, channel_sink(&app, on_event)).await
        }
    };
    // Written by hand below, under the same name.
    (@command Shell $($row:tt)*) => {};
}

strata_protocol::with_commands!(glue);

/// `watch_library`: the library's changes go to this window's channel.
#[tauri::command(rename_all = "snake_case")]
fn watch_library<R: Runtime>(
    app: State<'_, Shared>,
    feed: State<'_, LibraryFeed>,
    webview: Webview<R>,
    request: Request<WatchLibrary>,
    on_event: Channel<LibraryChange>,
) -> Result<()> {
    let Request(WatchLibrary {}) = request;
    feed.subscribe(&app, webview.label(), on_event)
}

/// `pick_workspace`: the native folder picker, opened from here rather
/// than by the webview through the dialog plugin, because the plugin would
/// put the chosen folder and its files in the fs plugin's scope; the
/// webview may write only where the person saves an export. `None` when
/// cancelled.
#[tauri::command(rename_all = "snake_case")]
async fn pick_workspace<R: Runtime>(
    window: Window<R>,
    request: Request<PickWorkspace>,
) -> Result<Option<String>> {
    let Request(PickWorkspace {}) = request;
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
    let folder = picked.await.ok().flatten().and_then(|f| f.into_path().ok());
    Ok(folder.map(|folder| folder.to_string_lossy().into_owned()))
}

/// `pick_import_paths`: the native file picker for "Open file…": other
/// agents' session files (JSON lines, or Codex's compressed rollouts).
/// Opened from here, as the folder picker is, so nothing enters the fs
/// plugin's scope; the UI hands the chosen paths to `import_sessions`,
/// which only reads them. Empty when cancelled.
#[tauri::command(rename_all = "snake_case")]
async fn pick_import_paths<R: Runtime>(
    window: Window<R>,
    request: Request<PickImportPaths>,
) -> Result<Vec<String>> {
    let Request(PickImportPaths {}) = request;
    let (chosen, picked) = tokio::sync::oneshot::channel();
    window
        .dialog()
        .file()
        .set_parent(&window)
        .set_title("Open another agent's session file")
        .add_filter("Session files", &["jsonl", "zst"])
        .pick_files(move |files| {
            // Nobody waits any more only when the window went away.
            let _ = chosen.send(files);
        });
    let files = picked.await.ok().flatten().unwrap_or_default();
    Ok(files
        .into_iter()
        .filter_map(|file| file.into_path().ok())
        .map(|path| path.to_string_lossy().into_owned())
        .collect())
}

/// `open_external_link`: see [`crate::links::open_external_link`].
#[tauri::command(rename_all = "snake_case")]
fn open_external_link(
    opener: State<'_, LinkOpener>,
    request: Request<OpenExternalLink>,
) -> Result<()> {
    crate::links::open_external_link(&opener, &request.0.url)
}
