//! The Changes view's commands: a session's file changes by turn and call,
//! the diff of one, and restoring the files to before a turn or an item
//! (previewed first). The work is `crate::changes`'s, which `strata
//! changes` and `strata restore` call too.

use std::sync::Arc;

use strata_core::changes::BlobStore;
use strata_protocol::{
    ChangeDiff, GetChangeDiff, ListChanges, PreviewRestore, RestoreFiles, RestoreReport,
    SessionChanges,
};

use crate::App;
use crate::changes::{diff, point_of, restore, session_changes};
use crate::error::CommandResult;

impl App {
    /// `list_changes`: every file change of the session, grouped by turn
    /// and call, and each file once over the whole session. Read-only.
    pub async fn list_changes(
        self: &Arc<Self>,
        request: ListChanges,
    ) -> CommandResult<SessionChanges> {
        self.blocking(move |app| {
            let read = app.browse(request.session_id)?;
            let blobs = BlobStore::beside(&read.path);
            Ok(session_changes(request.session_id, &read.records, &blobs))
        })
        .await
    }

    /// `change_diff`: the diff of one change, or of one file over the
    /// session, bounded; by hash and size only when a side was not kept.
    /// Read-only.
    pub async fn change_diff(
        self: &Arc<Self>,
        request: GetChangeDiff,
    ) -> CommandResult<ChangeDiff> {
        self.blocking(move |app| {
            let read = app.browse(request.session_id)?;
            let blobs = BlobStore::beside(&read.path);
            diff::change_diff(&read.records, &blobs, &request.target)
        })
        .await
    }

    /// `preview_restore`: what `restore_files` would do now, or which files
    /// refuse it; writes nothing.
    pub async fn preview_restore(
        self: &Arc<Self>,
        request: PreviewRestore,
    ) -> CommandResult<RestoreReport> {
        self.blocking(move |app| {
            restore::restore(app, request.session_id, &point_of(&request.target), true)
        })
        .await
    }

    /// `restore_files`: the files back to before the turn or item, recorded
    /// (a restore's id, which a later restore to before it undoes); refused,
    /// changing nothing, when a file was changed outside Strata since. A
    /// live session closes first (its next turn resumes); refused while a
    /// turn runs.
    pub async fn restore_files(
        self: &Arc<Self>,
        request: RestoreFiles,
    ) -> CommandResult<RestoreReport> {
        let id = request.session_id;
        let _opening = self.live.opening.lock().await;
        self.close_locked(id)?;
        self.blocking(move |app| {
            app.check_not_stale(id)?;
            let report = restore::restore(app, id, &point_of(&request.target), false)?;
            app.mark_own_write(id);
            Ok(report)
        })
        .await
    }
}
