//! A fork's share of the changes: the prior contents its kept records name
//! (so its own store answers `strata changes` and restores, whatever the
//! parent prunes later), and "with files", the plan that takes back every
//! change the parent made after the fork point, and carrying the files a
//! session tracked into a new checkout.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use strata_protocol::{FileState, ForkPoint, Record, RecordBody};

use super::plan::{RestorePlan, plan_from};
use crate::error::{CoreError, Result};
use crate::tools::workspace::Workspace;

/// What a fork at `point` takes back to return the files to that point:
/// every change recorded after the records it copies, as a restore to
/// before the next item would.
pub fn fork_files_plan(records: &[Record], point: &ForkPoint) -> Result<RestorePlan> {
    let cut = crate::context_ops::fork_cut(records, point)?;
    Ok(plan_from(records, cut))
}

fn named(state: Option<&FileState>) -> Option<String> {
    state
        .filter(|state| state.stored)
        .and_then(|state| state.sha256.clone())
}

/// The stored contents a fork's store needs: every side of the `kept`
/// records' changes and, when it restores its files, what those files hold
/// before that restore (so undoing it finds them).
pub fn blobs_needed(kept: &[Record], restoring: Option<&RestorePlan>) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for record in kept {
        if let RecordBody::FileChange(change) = &record.body {
            names.extend(named(change.before.as_ref()));
            names.extend(named(change.after.as_ref()));
        }
    }
    for action in restoring.iter().flat_map(|plan| plan.actions.iter()) {
        names.extend(named(action.expected.as_ref()));
        names.extend(named(action.target.as_ref()));
    }
    names
}

/// The largest file carried into a new checkout.
const MAX_CARRIED_BYTES: u64 = 1 << 30;

/// Makes each of `paths` in `to` what it is in `from` now (deleted where
/// `from` has none): the uncommitted state of the files a session tracked,
/// brought into a fresh checkout. Both sides are opened beneath their
/// folder (no symlink followed out, never `.git`, never Strata's own
/// folders in `protected`); a file that cannot be carried refuses it all.
pub fn carry_files(
    from: &Path,
    to: &Path,
    paths: &[String],
    protected: &[PathBuf],
) -> Result<Vec<String>> {
    let guard = || crate::tools::secrets::SecretGuard::new(protected, paths);
    let source =
        Workspace::open(from, guard()).map_err(CoreError::io("open the workspace", from))?;
    let target = Workspace::open(to, guard()).map_err(CoreError::io("open the worktree", to))?;
    let refused = |path: &str, why: String| CoreError::RestoreRefused {
        files: vec![format!("{path}: {why}")],
    };
    let mut carried = Vec::new();
    for path in paths {
        if path.split('/').any(|part| part == ".git") {
            continue;
        }
        let content = match source.resolve(path) {
            Ok(resolved) if resolved.exists => Some(
                source
                    .read_bytes(&resolved, MAX_CARRIED_BYTES, "fork")
                    .map_err(|e| refused(path, e.to_string()))?,
            ),
            Ok(_) | Err(crate::tools::ToolError::NotFound { .. }) => None,
            Err(error) => return Err(refused(path, error.to_string())),
        };
        match content {
            Some(bytes) => super::restore::write_back(&target, path, &bytes),
            None => super::restore::remove(&target, path),
        }
        .map_err(|why| refused(path, why))?;
        carried.push(path.clone());
    }
    Ok(carried)
}

#[cfg(test)]
#[path = "fork_tests.rs"]
mod tests;
