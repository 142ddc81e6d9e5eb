//! Restoring a session's files to before a turn or an item, for both front
//! ends: plan it over the records, refuse (listing the files) when a file
//! was changed outside Strata since or its earlier content is gone, else
//! carry it out under the session's writer lock, recorded as `file_change`
//! records of a `restore-<uuid>` that a later restore to before it undoes.

use std::path::PathBuf;

use strata_core::CoreError;
use strata_core::changes::restore::{Restorer, describe};
use strata_core::changes::{RestoreConflict, RestorePlan, RestorePoint, plan_restore};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, OutputKind, RestoreFile, RestoreRefusal, RestoreReport, RestoreStep,
    RestoreTarget, SessionId,
};

use crate::App;
use crate::error::AppResult;

/// The core's point for the contract's target.
pub fn point_of(target: &RestoreTarget) -> RestorePoint {
    match target {
        RestoreTarget::BeforeTurn { turn } => RestorePoint::BeforeTurn(*turn),
        RestoreTarget::BeforeItem { item } => RestorePoint::BeforeItem(item.clone()),
    }
}

pub(crate) fn files_of(plan: &RestorePlan) -> Vec<RestoreFile> {
    plan.actions
        .iter()
        .map(|action| RestoreFile {
            path: action.path.clone(),
            step: if action.target.is_some() {
                RestoreStep::Write
            } else {
                RestoreStep::Delete
            },
        })
        .collect()
}

pub(crate) fn refused_of(conflicts: &[RestoreConflict]) -> Vec<RestoreRefusal> {
    conflicts
        .iter()
        .zip(describe(conflicts))
        .map(|(conflict, reason)| RestoreRefusal {
            path: conflict.path().to_owned(),
            reason: reason
                .strip_prefix(&format!("{}: ", conflict.path()))
                .map(str::to_owned)
                .unwrap_or(reason),
        })
        .collect()
}

pub(crate) fn refused(message: String) -> CoreError {
    CoreError::RestoreRefused {
        files: vec![message],
    }
}

/// Strata's own folders, which no restore writes.
pub(crate) fn protected(app: &App) -> [PathBuf; 3] {
    let paths = app.paths();
    [
        paths.config.clone(),
        paths.sessions.clone(),
        paths.logs.clone(),
    ]
}

/// What restoring the session to `point` does (`dry_run`: would do), or
/// why it is refused (`refused`, nothing changed). A point that names no
/// turn or item is an error. Blocking: file reads and writes.
pub fn restore(
    app: &App,
    id: SessionId,
    point: &RestorePoint,
    dry_run: bool,
) -> AppResult<RestoreReport> {
    let read = app.browse(id)?;
    let plan = plan_restore(&read.records, point).map_err(refused)?;
    let protected = protected(app);
    let workspace = PathBuf::from(&read.meta.workspace);
    let restorer = Restorer::open(&workspace, &read.path, &plan, &protected)?;
    let conflicts = restorer.preview(&plan);
    let mut report = RestoreReport {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::Restore,
        session_id: id,
        dry_run,
        restored: conflicts.is_empty(),
        restore_id: None,
        files: files_of(&plan),
        refused: refused_of(&conflicts),
    };
    if !conflicts.is_empty() || dry_run || plan.actions.is_empty() {
        return Ok(report);
    }
    let mut session = app.store().open_writer(id)?;
    // Planned again over what the writer holds: nothing may have been
    // appended since the read above.
    let records = session.read_records()?;
    let plan = plan_restore(&records, point).map_err(refused)?;
    match restorer.execute(&mut session, &plan) {
        Ok(done) => {
            report.restore_id = Some(done.restore_id);
            report.files = files_of(&plan);
        }
        // A file changed between the preview and now: refused all the same.
        Err(error @ CoreError::RestoreRefused { .. }) => {
            let conflicts = restorer.preview(&plan);
            if conflicts.is_empty() {
                return Err(error.into());
            }
            report.restored = false;
            report.files = files_of(&plan);
            report.refused = refused_of(&conflicts);
        }
        Err(error) => return Err(error.into()),
    }
    Ok(report)
}
