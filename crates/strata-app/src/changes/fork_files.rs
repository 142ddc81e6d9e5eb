//! Forks "with files" (issue 26): the fork's history stops at the point,
//! and so do the files. One plan ([`fork_files_plan`]: every change after
//! the records the fork copies) is previewed against the parent's folder
//! and carried out by the one restore machinery, recorded in the fork (its
//! `restore_id` undoes it there): in the parent's folder (`in_place`), or
//! in a new detached git worktree that first receives the folder's current
//! state of every file Strata tracked (`worktree`). Refused, making
//! nothing, when a file changed outside Strata since or its earlier
//! content is gone.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use strata_core::CoreError;
use strata_core::changes::fork::{carry_files, fork_files_plan};
use strata_core::changes::restore::{Restorer, describe};
use strata_core::changes::{RestorePlan, change_log};
use strata_core::session::LiveSession;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, ForkFiles, ForkFilesDone, ForkPoint, ForkPreview, ForkSession,
    OutputKind, Record, RestoreReport, SessionForkView, SessionId,
};

use super::restore::{files_of, protected, refused_of};
use super::worktree::{self, Repo};
use crate::App;
use crate::error::{AppResult, busy, invalid_input, io};

const HELD_ELSEWHERE: &str = "The session is open in another Strata window or process: it may be \
     changing these files. Close it there first, or fork into a new git worktree.";

/// What a fork at `point` with files would do, writing nothing.
pub fn preview(app: &App, id: SessionId, point: &ForkPoint) -> AppResult<ForkPreview> {
    let read = app.browse(id)?;
    let plan = fork_files_plan(&read.records, point)?;
    let workspace = PathBuf::from(&read.meta.workspace);
    let conflicts = Restorer::open(&workspace, &read.path, &plan, &protected(app))?.preview(&plan);
    let (worktree, worktree_unavailable) = match worktree::repo_of(&workspace) {
        Ok(repo) => (
            Some(
                worktree::worktree_path(&repo, id, point)
                    .to_string_lossy()
                    .into_owned(),
            ),
            None,
        ),
        Err(why) => (None, Some(why)),
    };
    Ok(ForkPreview {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::ForkPreview,
        session_id: id,
        point: point.clone(),
        workspace: read.meta.workspace.clone(),
        worktree,
        worktree_unavailable,
        files: files_of(&plan),
        refused: refused_of(&conflicts),
    })
}

/// Forks as `request` says; with files, refused (nothing made) when the
/// preview finds a conflict. Blocking: file and git work.
pub fn fork(app: &App, request: &ForkSession) -> AppResult<SessionForkView> {
    let (id, point) = (request.session_id, &request.point);
    let mode = request.files.unwrap_or_default();
    let view = |fork: &LiveSession, files| SessionForkView {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::SessionForked,
        session_id: fork.id(),
        parent_session_id: id,
        point: point.clone(),
        history_items: u32::try_from(fork.history().len()).unwrap_or(u32::MAX),
        files,
    };
    if mode == ForkFiles::Keep {
        let fork = app.store().fork(id, point.clone())?;
        return Ok(view(&fork, None));
    }
    // Another process running the parent could be changing these files.
    if mode == ForkFiles::InPlace && app.store().is_held(id)? {
        return Err(busy(HELD_ELSEWHERE));
    }
    let read = app.browse(id)?;
    let plan = fork_files_plan(&read.records, point)?;
    let workspace = PathBuf::from(&read.meta.workspace);
    let protected = protected(app);
    let conflicts = Restorer::open(&workspace, &read.path, &plan, &protected)?.preview(&plan);
    if !conflicts.is_empty() {
        return Err(CoreError::RestoreRefused {
            files: describe(&conflicts),
        }
        .into());
    }
    let (fork_ws, repo) = match mode {
        ForkFiles::Keep | ForkFiles::InPlace => (workspace.clone(), None),
        ForkFiles::Worktree => {
            let (repo, path) = new_worktree(id, point, &workspace, &read.records, &protected)?;
            (worktree::workspace_in(&repo, &path), Some((repo, path)))
        }
    };
    let undo_worktree = || {
        if let Some((repo, path)) = &repo {
            worktree::remove(repo, path);
        }
    };
    let mut fork = match app
        .store()
        .fork_into(id, point.clone(), Some(&fork_ws), true)
    {
        Ok(fork) => fork,
        Err(error) => {
            undo_worktree();
            return Err(error.into());
        }
    };
    match restore_in(app, &mut fork, &fork_ws, &plan, &protected) {
        Ok(restore) => {
            let done = ForkFilesDone {
                mode,
                workspace: fork_ws.to_string_lossy().into_owned(),
                worktree: repo
                    .as_ref()
                    .map(|(_, path)| path.to_string_lossy().into_owned()),
                restore,
            };
            tracing::info!(parent = %id, fork = %fork.id(), ?mode, "session forked with files");
            Ok(view(&fork, Some(done)))
        }
        Err(error) => {
            // A fork whose files did not follow is not the fork asked for.
            let fork_id = fork.id();
            drop(fork);
            if let Err(error) = app.store().delete(fork_id) {
                tracing::warn!(%error, fork = %fork_id, "could not delete an unfinished fork");
            }
            undo_worktree();
            Err(error)
        }
    }
}

/// A detached worktree beside the repository holding the folder's current
/// state of every file the session tracked.
fn new_worktree(
    id: SessionId,
    point: &ForkPoint,
    workspace: &Path,
    records: &[Record],
    protected: &[PathBuf],
) -> AppResult<(Repo, PathBuf)> {
    let repo = worktree::repo_of(workspace).map_err(|why| {
        invalid_input(format!(
            "A fork into a new git worktree needs a git repository with a commit: {why}."
        ))
    })?;
    let path = worktree::worktree_path(&repo, id, point);
    worktree::add(&repo, &path).map_err(io)?;
    let tracked: BTreeSet<String> = change_log(records)
        .into_iter()
        .map(|entry| entry.change.path)
        .collect();
    let tracked: Vec<String> = tracked.into_iter().collect();
    if let Err(error) = carry_files(
        workspace,
        &worktree::workspace_in(&repo, &path),
        &tracked,
        protected,
    ) {
        worktree::remove(&repo, &path);
        return Err(error.into());
    }
    Ok((repo, path))
}

/// The plan carried out in `workspace`, recorded in the fork.
fn restore_in(
    app: &App,
    fork: &mut LiveSession,
    workspace: &Path,
    plan: &RestorePlan,
    protected: &[PathBuf],
) -> AppResult<RestoreReport> {
    let file = app.store().session_path(fork.id());
    let restorer = Restorer::open(workspace, &file, plan, protected)?;
    let done = restorer.execute(fork, plan)?;
    Ok(RestoreReport {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::Restore,
        session_id: fork.id(),
        dry_run: false,
        restored: true,
        restore_id: (!done.changes.is_empty()).then_some(done.restore_id),
        files: files_of(plan),
        refused: Vec::new(),
    })
}
