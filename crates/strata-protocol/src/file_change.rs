//! `file_change` records: a file in the workspace a tool (or a restore)
//! changed, with what it held before and after, so every change can be
//! listed and taken back. The prior contents live content-addressed beside
//! the session file (`<session>.blobs/<sha256>`); a record only names them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::{SessionId, TurnId};

/// What changed a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ChangeCause {
    WriteFile,
    ApplyEdit,
    /// Found by comparing the workspace before and after a `run_shell`.
    RunShell,
    /// A `strata restore` (or the desktop's) wrote the file back.
    Restore,
}

impl ChangeCause {
    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeCause::WriteFile => "write_file",
            ChangeCause::ApplyEdit => "apply_edit",
            ChangeCause::RunShell => "run_shell",
            ChangeCause::Restore => "restore",
        }
    }
}

/// A file's content at one moment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FileState {
    pub size: u64,
    /// The SHA-256 of the content, lowercase hex. Absent when the file was
    /// too big to hash before a shell command changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sha256: Option<String>,
    /// Whether the content was kept beside the session (so it can be
    /// written back). Binary and huge files are recorded by hash and size
    /// only.
    #[serde(default)]
    pub stored: bool,
}

/// `file_change` record: one file changed by one call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FileChange {
    /// Relative to the workspace, `/`-separated.
    pub path: String,
    /// What the file held before; absent: it did not exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub before: Option<FileState>,
    /// What it holds after; absent: it was deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub after: Option<FileState>,
    pub cause: ChangeCause,
    /// The tool call's id, or the restore's (`restore-<uuid>`).
    pub call_id: String,
    /// The turn the call ran in; absent for a restore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub turn_id: Option<TurnId>,
}

/// What a file change did to its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Created,
    Modified,
    Deleted,
}

impl ChangeKind {
    /// The kind of a change from `before` to `after`.
    pub fn of(before: Option<&FileState>, after: Option<&FileState>) -> Self {
        match (before, after) {
            (None, _) => ChangeKind::Created,
            (Some(_), None) => ChangeKind::Deleted,
            (Some(_), Some(_)) => ChangeKind::Modified,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
        }
    }
}

/// One change as `strata changes --json` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct FileChangeRow {
    /// The turn's number (1 for the first); absent for a restore.
    pub turn: Option<u32>,
    pub path: String,
    pub kind: ChangeKind,
    pub cause: ChangeCause,
    pub call_id: String,
    /// Lines added and removed; absent when either side was not kept.
    pub added: Option<u64>,
    pub removed: Option<u64>,
    /// Whether the content before it is still kept, so it can be restored.
    pub restorable: bool,
}

/// `strata changes S --json`: every file change of the session, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct FileChanges {
    /// [`CONTRACT_FORMAT_VERSION`](crate::CONTRACT_FORMAT_VERSION).
    pub v: u32,
    /// Always `file_changes`.
    pub kind: crate::OutputKind,
    pub session_id: SessionId,
    pub changes: Vec<FileChangeRow>,
}

/// What a restore does to one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RestoreStep {
    /// Its earlier content is written back.
    Write,
    /// It is deleted (it did not exist then).
    Delete,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct RestoreFile {
    pub path: String,
    pub step: RestoreStep,
}

/// A file that refuses a restore, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct RestoreRefusal {
    pub path: String,
    pub reason: String,
}

/// `strata restore S … --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct RestoreReport {
    /// [`CONTRACT_FORMAT_VERSION`](crate::CONTRACT_FORMAT_VERSION).
    pub v: u32,
    /// Always `restore`.
    pub kind: crate::OutputKind,
    pub session_id: SessionId,
    pub dry_run: bool,
    /// Whether the files were restored (with `dry_run`: would be).
    pub restored: bool,
    /// The restore's id (`restore-<uuid>`) when it was carried out:
    /// `strata restore S --before-item ID` undoes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub restore_id: Option<String>,
    pub files: Vec<RestoreFile>,
    /// Empty unless refused; then nothing was changed.
    pub refused: Vec<RestoreRefusal>,
}
