//! The session library, watched: the sessions folder's file events (any
//! process's: this app's turns, the command line, another window) become
//! [`LibraryChange`]s, each naming the sessions that appeared, changed or
//! went away over one short quiet period, with their current rows. A
//! front end pushes them to its views; the desktop to the sidebar.
//!
//! Events are debounced: a streaming turn appends many records, and one
//! change per burst is enough for a list.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use strata_core::store::SESSION_FILE_EXTENSION;
use strata_protocol::{CONTRACT_FORMAT_VERSION, LibraryChange, SessionId};

use crate::App;
use crate::error::{AppResult, io};

/// How long the folder must stay quiet before a change is reported.
pub const QUIET: Duration = Duration::from_millis(150);
/// The longest a change waits while writes keep coming.
pub const MAX_DELAY: Duration = Duration::from_millis(1_000);

/// Watches the sessions folder while it lives; dropping it stops the
/// watching (and its thread).
pub struct LibraryWatcher {
    _watcher: RecommendedWatcher,
}

impl LibraryWatcher {
    /// Watches `app`'s sessions folder (creating it, owner-only, when it
    /// does not exist yet) and calls `on_change` on a thread of its own
    /// after every quiet period that followed changes.
    pub fn start<F>(app: Arc<App>, on_change: F) -> AppResult<Self>
    where
        F: Fn(LibraryChange) + Send + 'static,
    {
        let root = app.store().root().to_path_buf();
        strata_core::private::ensure_dir(&root).map_err(|error| {
            io(format!(
                "Could not create the sessions folder {}: {error}",
                root.display()
            ))
        })?;
        let (tx, rx) = mpsc::channel::<BTreeSet<SessionId>>();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                match event {
                    Ok(event) if is_content_change(event.kind) => {
                        let ids: BTreeSet<SessionId> =
                            event.paths.iter().filter_map(|p| session_of(p)).collect();
                        if !ids.is_empty() {
                            // The receiver is gone only when the watcher is.
                            let _ = tx.send(ids);
                        }
                    }
                    Ok(_) => {}
                    Err(error) => tracing::warn!(%error, "watching the sessions folder failed"),
                }
            })
            .map_err(|error| io(format!("Could not watch the sessions folder: {error}")))?;
        watcher
            .watch(&root, RecursiveMode::NonRecursive)
            .map_err(|error| {
                io(format!(
                    "Could not watch the sessions folder {}: {error}",
                    root.display()
                ))
            })?;
        std::thread::Builder::new()
            .name("strata-library-watch".into())
            .spawn(move || debounce_loop(&rx, |ids| on_change(app.library_change(ids))))
            .map_err(|error| io(format!("Could not start the library watcher: {error}")))?;
        tracing::info!(folder = %root.display(), "watching the sessions folder");
        Ok(Self { _watcher: watcher })
    }
}

impl App {
    /// The library change for sessions whose files changed: the current
    /// row of each that still exists, newest first; the rest removed. A
    /// session that cannot be read right now is left out (its next write
    /// reports it again).
    pub fn library_change(&self, ids: BTreeSet<SessionId>) -> LibraryChange {
        let mut updated = Vec::new();
        let mut removed = Vec::new();
        let mut changed_outside = Vec::new();
        for id in ids {
            match self.session_row(id) {
                Ok(Some(row)) => {
                    if self.changed_outside(id) {
                        changed_outside.push(id);
                    }
                    updated.push(row);
                }
                Ok(None) => removed.push(id),
                Err(error) => {
                    tracing::warn!(session = %id, %error, "a changed session could not be read");
                }
            }
        }
        updated.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)));
        LibraryChange {
            v: CONTRACT_FORMAT_VERSION,
            updated,
            removed,
            changed_outside,
        }
    }
}

/// Whether an event may change what a session's row shows. Reads (ours
/// included, or every report would cause another) and permission changes
/// do not.
fn is_content_change(kind: EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// The session a path in the sessions folder is the file of: `<id>.jsonl`
/// (not a torn-tail sidecar or anything else).
fn session_of(path: &Path) -> Option<SessionId> {
    if path.extension()?.to_str()? != SESSION_FILE_EXTENSION {
        return None;
    }
    path.file_stem()?.to_str()?.parse().ok()
}

/// When changes first seen at `first` and last at `last` are reported.
pub fn report_at(first: Instant, last: Instant) -> Instant {
    (last + QUIET).min(first + MAX_DELAY)
}

/// Gathers the changed sessions until the folder has been quiet for
/// [`QUIET`] (or [`MAX_DELAY`] passed), reports them, and waits for the
/// next; returns when the watcher is gone.
fn debounce_loop(rx: &mpsc::Receiver<BTreeSet<SessionId>>, report: impl Fn(BTreeSet<SessionId>)) {
    while let Ok(mut pending) = rx.recv() {
        let first = Instant::now();
        let mut last = first;
        loop {
            let wait = report_at(first, last).saturating_duration_since(Instant::now());
            match rx.recv_timeout(wait) {
                Ok(more) => {
                    pending.extend(more);
                    last = Instant::now();
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        report(pending);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_session_files_name_a_session() {
        let id = SessionId::new();
        assert_eq!(session_of(Path::new(&format!("/s/{id}.jsonl"))), Some(id));
        assert_eq!(
            session_of(Path::new(&format!("/s/{id}.jsonl.torn-1700000000000"))),
            None
        );
        assert_eq!(session_of(Path::new("/s/notes.jsonl")), None);
        assert_eq!(session_of(Path::new(&format!("/s/{id}.tmp"))), None);
    }

    #[test]
    fn reads_and_permission_changes_are_not_changes() {
        use notify::event::{CreateKind, DataChange, MetadataKind, RemoveKind};
        assert!(is_content_change(EventKind::Create(CreateKind::File)));
        assert!(is_content_change(EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(is_content_change(EventKind::Remove(RemoveKind::File)));
        assert!(!is_content_change(EventKind::Access(AccessKind::Open(
            AccessMode::Read
        ))));
        assert!(!is_content_change(EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(!is_content_change(EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Permissions
        ))));
    }

    #[test]
    fn a_burst_is_reported_after_a_quiet_period_but_never_later_than_the_max_delay() {
        let first = Instant::now();
        assert_eq!(report_at(first, first), first + QUIET);
        let later = first + Duration::from_millis(100);
        assert_eq!(report_at(first, later), later + QUIET);
        let much_later = first + MAX_DELAY;
        assert_eq!(report_at(first, much_later), first + MAX_DELAY);
    }
}
