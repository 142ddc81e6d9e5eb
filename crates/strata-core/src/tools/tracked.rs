//! What change tracking needs from a prepared call: which file a write
//! changes and what it held when approved, and the file's bytes after.

use std::path::Path;

use super::{Action, PreparedCall, ToolRegistry};
use crate::changes::MAX_STORED_BYTES;

/// The file a write or edit changes, as prepared.
pub struct WriteTarget<'a> {
    /// Workspace-relative, `/`-separated.
    pub path: &'a str,
    /// Its bytes when the call was prepared; `None`: it did not exist.
    pub old: Option<&'a [u8]>,
}

impl ToolRegistry {
    /// The file `call` writes, for a `write_file` or `apply_edit`.
    pub fn write_target<'a>(&self, call: &'a PreparedCall) -> Option<WriteTarget<'a>> {
        match &call.action {
            Action::Write(plan) => Some(WriteTarget {
                path: &plan.path.display,
                old: plan.old.as_deref(),
            }),
            Action::Edit(plan) => Some(WriteTarget {
                path: &plan.path.display,
                old: Some(&plan.old),
            }),
            Action::List(_) | Action::Read(_) | Action::Search(_) | Action::Shell { .. } => None,
        }
    }

    /// The bytes of the workspace file `path` now, read beneath the
    /// workspace; `None` when absent or unreadable.
    pub fn file_bytes(&self, path: &str) -> Option<Vec<u8>> {
        let resolved = self.workspace.resolve(path).ok()?;
        if !resolved.exists {
            return None;
        }
        self.workspace
            .read_bytes(&resolved, MAX_STORED_BYTES * 64, "change tracking")
            .ok()
    }

    /// The workspace root, for the shell's before-and-after walks.
    pub fn workspace_root(&self) -> &Path {
        self.workspace.root()
    }
}
