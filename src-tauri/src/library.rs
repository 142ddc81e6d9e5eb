//! The session library's live feed: the windows that called
//! `watch_library`, each with its channel, and strata-app's watcher on the
//! sessions folder, started with the first of them. Every change the
//! watcher reports goes to every window still listening.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use strata_app::{App, LibraryWatcher};
use strata_protocol::{CommandError, LibraryChange};
use tauri::ipc::Channel;

type Windows = Arc<Mutex<HashMap<String, Channel<LibraryChange>>>>;

/// Managed state: who listens, and the watcher once someone does.
#[derive(Default)]
pub struct LibraryFeed {
    windows: Windows,
    watcher: Mutex<Option<LibraryWatcher>>,
}

/// Every value under these locks is valid at any point, so a panicking
/// holder leaves nothing half-done.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LibraryFeed {
    /// Sends the library's changes to `channel` from now on, replacing the
    /// channel `window` had (a reloaded page asks again).
    pub fn subscribe(
        &self,
        app: &Arc<App>,
        window: &str,
        channel: Channel<LibraryChange>,
    ) -> Result<(), CommandError> {
        lock(&self.windows).insert(window.to_owned(), channel);
        let mut watcher = lock(&self.watcher);
        if watcher.is_none() {
            let windows = Arc::clone(&self.windows);
            *watcher = Some(LibraryWatcher::start(Arc::clone(app), move |change| {
                publish(&windows, &change);
            })?);
        }
        Ok(())
    }
}

/// Sends `change` to every window; one that cannot be reached any more is
/// dropped.
fn publish(windows: &Windows, change: &LibraryChange) {
    lock(windows).retain(|window, channel| match channel.send(change.clone()) {
        Ok(()) => true,
        Err(error) => {
            tracing::debug!(%window, %error, "a window stopped listening to the library");
            false
        }
    });
}
