//! A workspace's `.strata/network.toml` as the desktop's Settings show and
//! save it: the network its sessions' sandboxed commands get, and whether
//! Strata trusts the file (saved it as it is) or sets its choice aside.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::SandboxNetwork;

/// `get_workspace_network`: that workspace's network file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetWorkspaceNetwork {
    pub workspace: String,
}

/// `save_workspace_network`: writes the workspace's network file with
/// this choice and these domains, and trusts it (what `strata rules
/// network NETWORK DOMAIN... --workspace DIR` does). A domain that is not
/// one is refused, nothing written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveWorkspaceNetwork {
    pub workspace: String,
    pub network: SandboxNetwork,
    /// The domains `allow-list` lets through (`crates.io`, `*.npmjs.org`).
    #[serde(default)]
    pub allow_domains: Vec<String>,
}

/// The workspace's network file as Strata reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorkspaceNetworkView {
    /// The file's path (it may not exist).
    pub file: String,
    /// Whether the file exists.
    pub exists: bool,
    /// The file's choice, applied or not; `None`: the file makes none (or
    /// there is no file), so sessions get the network of the settings.
    pub network: Option<SandboxNetwork>,
    /// The file's domains (for `allow-list`), applied or not.
    pub allow_domains: Vec<String>,
    /// Whether `network` applies to new sessions in the workspace: `off`
    /// always does; `allow-list` and `on` only while the file is as Strata
    /// saved it. `false` with a `network`: the file changed since (or
    /// Strata never saved it) and its wider choice is set aside.
    pub applied: bool,
}
