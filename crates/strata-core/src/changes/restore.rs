//! Carrying a restore out: each file written back (a temp file renamed over
//! it) or deleted beneath the workspace's handle, the content it held first
//! kept in the session's store, and a `file_change` record per file, so a
//! restore is undone by restoring to before it. Never touches `.git`.

use std::io::Read;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use strata_protocol::{ChangeCause, FileChange, FileState, RecordBody};

use super::blobs::BlobStore;
use super::plan::{RestoreConflict, RestorePlan, check_restore};
use crate::error::{CoreError, Result};
use crate::session::LiveSession;
use crate::tools::beneath;
use crate::tools::workspace::Workspace;

/// What a restore did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restored {
    /// The id its records carry (`restore-<uuid>`): restoring to before it
    /// undoes it.
    pub restore_id: String,
    pub changes: Vec<FileChange>,
}

/// A restore's workspace and the session's store of contents.
#[derive(Debug)]
pub struct Restorer {
    ws: Workspace,
    blobs: BlobStore,
}

impl Restorer {
    /// `root` opened for the files of `plan` only (secret-looking files
    /// among them included, as the session changed them), never Strata's
    /// own folders (`protected`); the store beside `session_file`.
    pub fn open(
        root: &Path,
        session_file: &Path,
        plan: &RestorePlan,
        protected: &[PathBuf],
    ) -> Result<Self> {
        let allowed: Vec<String> = plan.actions.iter().map(|a| a.path.clone()).collect();
        let guard = crate::tools::secrets::SecretGuard::new(protected, &allowed);
        let ws = Workspace::open(root, guard).map_err(CoreError::io("open the workspace", root))?;
        Ok(Self {
            ws,
            blobs: BlobStore::beside(session_file),
        })
    }

    /// Why `plan` cannot be carried out now (empty: it can).
    pub fn preview(&self, plan: &RestorePlan) -> Vec<RestoreConflict> {
        preview(&self.ws, &self.blobs, plan)
    }

    /// Carries `plan` out, recording it in `session`.
    pub fn execute(&self, session: &mut LiveSession, plan: &RestorePlan) -> Result<Restored> {
        execute(session, &self.ws, &self.blobs, plan)
    }
}

/// The file's size and hash now; `None` when absent. Anything that is not a
/// readable regular file beneath the workspace reads as a state no record
/// has, so it refuses the restore.
fn current_state(ws: &Workspace, path: &str) -> Option<FileState> {
    let unreadable = FileState {
        size: u64::MAX,
        sha256: None,
        stored: false,
    };
    let resolved = match ws.resolve(path) {
        Ok(resolved) if !resolved.exists => return None,
        Ok(resolved) => resolved,
        Err(crate::tools::ToolError::NotFound { .. }) => return None,
        Err(_) => return Some(unreadable),
    };
    let Ok(mut file) = ws.open_read(&resolved) else {
        return Some(unreadable);
    };
    match file.metadata() {
        Ok(meta) if meta.is_file() => {}
        _ => return Some(unreadable),
    }
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buffer[..n]);
                size += n as u64;
            }
            Err(_) => return Some(unreadable),
        }
    }
    let sha = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(FileState {
        size,
        sha256: Some(sha),
        stored: false,
    })
}

/// Why `plan` cannot be carried out now (empty: it can): files changed
/// outside Strata since, contents no longer kept, and any path in `.git`.
fn preview(ws: &Workspace, blobs: &BlobStore, plan: &RestorePlan) -> Vec<RestoreConflict> {
    let mut conflicts: Vec<RestoreConflict> = plan
        .actions
        .iter()
        .filter(|action| action.path.split('/').any(|part| part == ".git"))
        .map(|action| RestoreConflict::NotRestorable {
            path: action.path.clone(),
            reason: "files in .git are never restored".into(),
        })
        .collect();
    conflicts.extend(check_restore(
        plan,
        |path| current_state(ws, path),
        |sha| blobs.has(sha),
    ));
    conflicts
}

/// Describes each conflict as `path: why`.
pub fn describe(conflicts: &[RestoreConflict]) -> Vec<String> {
    conflicts
        .iter()
        .map(|conflict| match conflict {
            RestoreConflict::ChangedOutside { path } => {
                format!("{path}: changed outside Strata since its last recorded change")
            }
            RestoreConflict::NotRestorable { path, reason } => format!("{path}: {reason}"),
        })
        .collect()
}

/// Restores the files of `plan` in `ws`, recording each in `session`;
/// refuses (changing nothing) when [`preview`] finds any conflict.
fn execute(
    session: &mut LiveSession,
    ws: &Workspace,
    blobs: &BlobStore,
    plan: &RestorePlan,
) -> Result<Restored> {
    let conflicts = preview(ws, blobs, plan);
    if !conflicts.is_empty() {
        return Err(CoreError::RestoreRefused {
            files: describe(&conflicts),
        });
    }
    let restore_id = format!("restore-{}", uuid::Uuid::now_v7());
    let mut changes = Vec::new();
    for action in &plan.actions {
        let refused = |why: String| CoreError::RestoreRefused {
            files: vec![format!("{}: {why}", action.path)],
        };
        // What the file holds now was checked against the last record's
        // `after` (or the target), already kept or withheld when recorded:
        // nothing new enters the store.
        let now = current_state(ws, &action.path);
        // Already restored (by a restore cut short before its record): the
        // record alone brings the log up to date.
        let done = super::holds(now.as_ref(), action.target.as_ref());
        let before = if done {
            action.target.clone()
        } else {
            action.expected.clone()
        };
        match &action.target {
            _ if done => {}
            Some(target) => {
                let bytes = target
                    .sha256
                    .as_deref()
                    .map(|sha| blobs.get(sha))
                    .transpose()?
                    .flatten()
                    .ok_or_else(|| refused("its stored content is gone".into()))?;
                write_back(ws, &action.path, &bytes).map_err(&refused)?;
            }
            None => remove(ws, &action.path).map_err(&refused)?,
        }
        let change = FileChange {
            path: action.path.clone(),
            before,
            after: action.target.clone(),
            cause: ChangeCause::Restore,
            call_id: restore_id.clone(),
            turn_id: None,
        };
        session.append(RecordBody::FileChange(change.clone()))?;
        changes.push(change);
    }
    session.sync()?;
    Ok(Restored {
        restore_id,
        changes,
    })
}

/// The parent folder's handle (created if missing) and the file's name.
fn parent_of(
    ws: &Workspace,
    path: &str,
) -> Result<(std::os::fd::OwnedFd, std::ffi::OsString), String> {
    let resolved = ws.resolve(path).map_err(|e| e.to_string())?;
    let (Some(name), Some(parent)) = (resolved.real.file_name(), resolved.real.parent()) else {
        return Err("not a file path".into());
    };
    let dir = beneath::open_dir_creating(ws.handle(), parent, ws.strategy())
        .map_err(|e| format!("could not open its folder: {e}"))?;
    Ok((dir, name.to_owned()))
}

pub(crate) fn write_back(ws: &Workspace, path: &str, bytes: &[u8]) -> Result<(), String> {
    let (dir, name) = parent_of(ws, path)?;
    let mode = rustix::fs::statat(dir.as_fd(), &name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .ok()
        .map(|stat| stat.st_mode);
    beneath::write_atomic(dir.as_fd(), &name, bytes, mode)
        .map_err(|e| format!("could not write it back: {e}"))
}

pub(crate) fn remove(ws: &Workspace, path: &str) -> Result<(), String> {
    let (dir, name) = parent_of(ws, path)?;
    match rustix::fs::unlinkat(dir.as_fd(), &name, rustix::fs::AtFlags::empty()) {
        Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
        Err(error) => Err(format!("could not delete it: {error}")),
    }
}
