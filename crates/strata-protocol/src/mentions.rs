//! `@` mentions: the composer's finder over the workspace's paths.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// `find_workspace_files`: the paths of `workspace` that match `query` best.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FindWorkspaceFiles {
    pub workspace: String,
    /// What the person typed after `@`; blank lists the shallowest paths.
    pub query: String,
    /// At most this many (1 to 200; 50 when not given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub limit: Option<u32>,
}

/// One path the finder offers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorkspaceFile {
    /// Relative to the workspace, `/`-separated; a folder ends with `/`.
    /// A name from the disk: show it as text only.
    pub path: String,
    pub is_dir: bool,
}

/// The best matches, best first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorkspaceFiles {
    pub files: Vec<WorkspaceFile>,
    /// The walk stopped at its cap (100,000 entries): paths past it were
    /// not looked at.
    pub walk_cut: bool,
}
