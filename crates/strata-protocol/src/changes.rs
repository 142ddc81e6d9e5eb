//! The desktop's Changes view: a session's file changes grouped by turn and
//! call, the diff of one change (or of a file over the whole session), and
//! restoring the files to before a turn or an item. The CLI's
//! `strata changes` and `strata restore` read the same records through the
//! same `strata_app::changes`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::file_change::{ChangeCause, ChangeKind, FileState};
use crate::ids::SessionId;

/// `list_changes`: every file change of a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListChanges {
    pub session_id: SessionId,
}

/// One recorded change of one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChangedFile {
    /// The `file_change` record's index in the session file: what
    /// [`DiffTarget::Change`] names.
    pub record: u32,
    pub path: String,
    pub kind: ChangeKind,
    /// Lines added and removed; absent when either side was not kept.
    pub added: Option<u64>,
    pub removed: Option<u64>,
    /// Whether the content before it is still kept, so it can be restored.
    pub restorable: bool,
}

/// The files one call (a tool call, or a restore) changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CallChanges {
    /// The tool call's id, or the restore's (`restore-<uuid>`): a restore
    /// is undone by restoring to before it.
    pub call_id: String,
    pub cause: ChangeCause,
    pub files: Vec<ChangedFile>,
}

/// The changes of one turn, or of one restore (`turn` absent), in file
/// order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChangeGroup {
    /// The turn's number (1 for the session's first).
    pub turn: Option<u32>,
    pub calls: Vec<CallChanges>,
}

/// One file over the whole session: its state before the first change
/// against its state after the last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionFileChange {
    pub path: String,
    pub kind: ChangeKind,
    /// How many recorded changes touched it.
    pub changes: u32,
    pub added: Option<u64>,
    pub removed: Option<u64>,
}

/// `list_changes`' answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionChanges {
    /// [`CONTRACT_FORMAT_VERSION`](crate::CONTRACT_FORMAT_VERSION).
    pub v: u32,
    pub session_id: SessionId,
    /// Turns and restores in file order.
    pub groups: Vec<ChangeGroup>,
    /// Every file the session changed, once, sorted by path; a file whose
    /// changes cancel out (restored, or written back as it was) is left out.
    pub files: Vec<SessionFileChange>,
}

/// What a diff compares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DiffTarget {
    /// One recorded change: its `before` against its `after`.
    Change { record: u32 },
    /// A file over the whole session.
    SessionFile { path: String },
}

/// `change_diff`: the diff of one change, or of one file over the session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetChangeDiff {
    pub session_id: SessionId,
    pub target: DiffTarget,
}

/// A line of a diff.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DiffTag {
    Context,
    Added,
    Removed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DiffLine {
    pub tag: DiffTag,
    /// Its number in the old file (absent for an added line).
    pub old: Option<u32>,
    /// Its number in the new file (absent for a removed line).
    pub new: Option<u32>,
    /// The line without its line break, at most 1,000 characters (`…` marks
    /// a cut).
    pub text: String,
}

/// One hunk of a unified diff (three lines of context).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DiffHunk {
    /// `@@ -a,b +c,d @@`.
    pub header: String,
    pub lines: Vec<DiffLine>,
}

/// Why a diff shows no content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DiffWithheld {
    /// A side was recorded by hash and size only: binary, over 4 MiB, or
    /// holding a configured secret.
    NotKept,
    /// A side's kept content was pruned (the session's store is full).
    Pruned,
    /// The path looks like a secret (`.env`, keys): never shown.
    SecretPath,
}

/// What a diff shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DiffBody {
    Text {
        hunks: Vec<DiffHunk>,
        added: u64,
        removed: u64,
        /// Lines left out after the first 2,000 shown.
        omitted_lines: u64,
    },
    /// By hash and size only (the states above).
    Withheld { reason: DiffWithheld },
}

/// `change_diff`'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChangeDiff {
    /// [`CONTRACT_FORMAT_VERSION`](crate::CONTRACT_FORMAT_VERSION).
    pub v: u32,
    pub path: String,
    pub kind: ChangeKind,
    pub before: Option<FileState>,
    pub after: Option<FileState>,
    pub body: DiffBody,
}

/// Where a restore returns the files to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RestoreTarget {
    /// Before the turn with this number (1 for the first) started.
    BeforeTurn { turn: u32 },
    /// Before an item (an id or a unique prefix), a tool call's id, or a
    /// restore's id (which undoes that restore).
    BeforeItem { item: String },
}

/// `preview_restore` (a dry run) and `restore_files`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RestoreFiles {
    pub session_id: SessionId,
    pub target: RestoreTarget,
}

/// `preview_restore`: what [`RestoreFiles`] would do now, writing nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PreviewRestore {
    pub session_id: SessionId,
    pub target: RestoreTarget,
}
