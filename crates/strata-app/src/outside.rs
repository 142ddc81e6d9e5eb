//! Changes made outside this app to the sessions it shows: the `strata`
//! command line or another window appending to a session open here.
//!
//! Each session the app has shown carries a stamp: its file's length when
//! the app last read it or last wrote it itself. A file of another length
//! (appends only grow it; a torn-tail repair shrinks it) changed outside
//! the app. While the app holds a session open for writing nobody else can
//! write it, so every change is the app's own and the stamp follows it.
//!
//! The stamps serve two things: the library watcher names the sessions that
//! changed outside ([`strata_protocol::LibraryChange::changed_outside`]), so
//! the window reloads what it shows; and a write from the app to a session
//! that changed outside since it was shown is refused
//! ([`CommandErrorKind::Stale`]): it would follow records the person has
//! not seen.

use std::collections::HashMap;
use std::sync::Mutex;

use strata_protocol::{CommandError, CommandErrorKind, SessionId};

use crate::App;
use crate::error::AppError;
use crate::manager::lock;

const STALE: &str = "This session changed outside Strata since it was shown here (the strata command line or another window wrote to it). Nothing was written: reload it to see what changed, then try again.";

/// The file length of each session this app has shown, as it last knew it.
#[derive(Default)]
pub(crate) struct Shown {
    stamps: Mutex<HashMap<SessionId, u64>>,
}

impl App {
    /// The length of the session's file now; `None` when it cannot be
    /// read (gone, or not a file this app can stat).
    fn file_length(&self, id: SessionId) -> Option<u64> {
        std::fs::metadata(self.store.session_path(id))
            .ok()
            .map(|meta| meta.len())
    }

    /// The app is about to read the session to show it: what it shows is
    /// the file as it is now.
    pub(crate) fn mark_shown(&self, id: SessionId) {
        if let Some(length) = self.file_length(id) {
            lock(&self.shown.stamps).insert(id, length);
        }
    }

    /// The app wrote the session itself (or let go of its writer): its
    /// file as it is now is what the app knows.
    pub(crate) fn mark_own_write(&self, id: SessionId) {
        self.mark_shown(id);
    }

    /// Whether the session's file changed outside this app since the app
    /// last read or wrote it. Never for a session the app holds open for
    /// writing (its changes are all the app's own), nor for one it never
    /// showed.
    pub fn changed_outside(&self, id: SessionId) -> bool {
        if self.live(id).is_some() {
            self.mark_own_write(id);
            return false;
        }
        let Some(known) = lock(&self.shown.stamps).get(&id).copied() else {
            return false;
        };
        self.file_length(id).is_some_and(|length| length != known)
    }

    /// Refuses a write to a session that changed outside this app since it
    /// was shown.
    pub(crate) fn check_not_stale(&self, id: SessionId) -> Result<(), AppError> {
        if self.changed_outside(id) {
            tracing::info!(session = %id, "write refused: the session changed outside this app");
            return Err(CommandError::new(CommandErrorKind::Stale, STALE).into());
        }
        Ok(())
    }
}
