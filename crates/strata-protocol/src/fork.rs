//! Forking a session (`fork_session`, `strata fork`), and "with files":
//! the workspace returned to the fork point too, in place or in a new git
//! worktree, previewed first (`preview_fork`, `strata fork --dry-run`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::file_change::{RestoreFile, RestoreRefusal, RestoreReport};
use crate::ids::SessionId;
use crate::output::OutputKind;
use crate::recall::ForkPoint;

/// What a fork does with the workspace's files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ForkFiles {
    /// Leaves them as they are: the fork works in the parent's folder with
    /// every change made after the point.
    #[default]
    Keep,
    /// Takes back, in the parent's folder, every recorded change made after
    /// the point (a restore recorded in the fork, undoable like any other).
    InPlace,
    /// A new detached git worktree beside the repository, holding the
    /// folder's current state of the files Strata tracked with the changes
    /// after the point taken back; the fork works there.
    Worktree,
}

/// `fork_session`: a new session whose history is the parent's at `point`
/// (originals, not a summary), nothing later; `files` says what happens to
/// the workspace (absent: [`ForkFiles::Keep`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ForkSession {
    pub session_id: SessionId,
    pub point: ForkPoint,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub files: Option<ForkFiles>,
}

/// What a fork with files did to the files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct ForkFilesDone {
    pub mode: ForkFiles,
    /// The new session's workspace: the parent's, or its place in the
    /// new worktree.
    pub workspace: String,
    /// The new worktree's folder ([`ForkFiles::Worktree`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub worktree: Option<String>,
    /// The restore, recorded in the fork (its `restore_id` undoes it there).
    pub restore: RestoreReport,
}

/// What `strata fork --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionForkView {
    /// [`CONTRACT_FORMAT_VERSION`](crate::CONTRACT_FORMAT_VERSION).
    pub v: u32,
    /// Always `session_forked`.
    pub kind: OutputKind,
    /// The new session.
    pub session_id: SessionId,
    pub parent_session_id: SessionId,
    pub point: ForkPoint,
    /// Items in the new session's model-visible history.
    pub history_items: u32,
    /// Present when the fork was made with files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub files: Option<ForkFilesDone>,
}

/// `preview_fork`: what forking at `point` with files would do, writing
/// nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PreviewFork {
    pub session_id: SessionId,
    pub point: ForkPoint,
}

/// `preview_fork`'s answer, and `strata fork --with-files … --dry-run --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct ForkPreview {
    /// [`CONTRACT_FORMAT_VERSION`](crate::CONTRACT_FORMAT_VERSION).
    pub v: u32,
    /// Always `fork_preview`.
    pub kind: OutputKind,
    pub session_id: SessionId,
    pub point: ForkPoint,
    /// The parent's workspace.
    pub workspace: String,
    /// The folder a [`ForkFiles::Worktree`] fork would make its worktree
    /// in (beside the repository); absent when the workspace is not in a
    /// git repository with a commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub worktree: Option<String>,
    /// Why there is no worktree choice, for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub worktree_unavailable: Option<String>,
    /// The files a fork with files would write back or delete.
    pub files: Vec<RestoreFile>,
    /// Empty unless a fork with files is refused (a file changed outside
    /// Strata since, or its earlier content is gone); a fork that leaves
    /// the files is never refused.
    pub refused: Vec<RestoreRefusal>,
}
