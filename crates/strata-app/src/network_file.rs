//! A workspace's `.strata/network.toml` as both front ends read and save
//! it: `strata rules network NETWORK DOMAIN... --workspace DIR` and the
//! desktop's Settings go through [`save`], so both write the file the same
//! way and Strata trusts what either saved (strata-core keeps its digest).

use std::path::{Path, PathBuf};

use strata_core::tools::rules::{
    WORKSPACE_NETWORK_FILE, WorkspaceNetwork, load_workspace_network, save_workspace_network,
};
use strata_core::{CoreError, StrataPaths};
use strata_protocol::{SandboxNetwork, WorkspaceNetworkView};

use crate::error::{AppResult, invalid_input};

/// The workspace's network file: its choice and domains, and whether the
/// choice applies (a wider one the file makes without Strata's digest is
/// shown, not applied). A file that does not parse, or names a domain
/// that is not one, is an error naming it.
pub fn load(paths: &StrataPaths, workspace: &Path) -> AppResult<WorkspaceNetworkView> {
    let path = workspace.join(WORKSPACE_NETWORK_FILE);
    let exists = path.is_file();
    let loaded = load_workspace_network(workspace, &paths.config)?;
    let (network, allow_domains, applied) = match (loaded.applies, loaded.untrusted) {
        (Some((network, domains)), _) => (Some(network), domains, true),
        (None, Some(network)) => (Some(network), loaded.untrusted_domains, false),
        (None, None) => (None, Vec::new(), false),
    };
    Ok(WorkspaceNetworkView {
        file: path.display().to_string(),
        exists,
        network,
        allow_domains,
        applied,
    })
}

/// Saves the workspace's file with its digest, so its choice applies to
/// the next sessions there. Domains are trimmed, blanks and repeats left
/// out; one that is not a domain, a `*.domain` or an IP address is refused
/// (strata-sandbox's allow-list parser, the proxy's own) and nothing is
/// written, the refusal naming it. Returns the file's path.
pub fn save(
    paths: &StrataPaths,
    workspace: &Path,
    network: SandboxNetwork,
    allow_domains: &[String],
) -> AppResult<PathBuf> {
    let mut domains: Vec<String> = Vec::new();
    for domain in allow_domains.iter().map(|domain| domain.trim()) {
        if !domain.is_empty() && !domains.iter().any(|known| known == domain) {
            domains.push(domain.to_owned());
        }
    }
    let file = WorkspaceNetwork {
        network: Some(network),
        allow_domains: domains,
    };
    save_workspace_network(workspace, &paths.config, &file).map_err(|error| match error {
        CoreError::InvalidRules { message, .. } => {
            invalid_input(format!("Nothing was saved: {message}."))
        }
        other => other.into(),
    })?;
    Ok(workspace.join(WORKSPACE_NETWORK_FILE))
}
