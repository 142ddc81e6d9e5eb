//! The workspace's `.strata/network.toml`: the network its sandboxed
//! commands get (`network = "off" | "allow-list" | "on"`, `allow_domains`).
//!
//! Like `.strata/rules.toml`, a cloned repository or the agent could have
//! written it, so it never widens access by itself: `allow-list` and `on`
//! (and its domains) apply only while its SHA-256 matches the digest Strata
//! stored in the user's config folder when it saved the file; `off` always
//! applies (it only narrows).

use std::path::Path;

use serde::{Deserialize, Serialize};
use strata_protocol::SandboxNetwork;

use super::file::{digest, trust_file_in, write_atomically};
use crate::error::{CoreError, Result};

pub const WORKSPACE_NETWORK_FILE: &str = ".strata/network.toml";

/// The folder of `trust_dir` that holds the saved files' digests.
const TRUST_KIND: &str = "trusted-network";

/// The file's contents.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceNetwork {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<SandboxNetwork>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_domains: Vec<String>,
}

/// The file as loaded: what applies, and what was set aside.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadedNetwork {
    /// The choice and domains that apply; `None` when the file says
    /// nothing that may apply.
    pub applies: Option<(SandboxNetwork, Vec<String>)>,
    /// A wider choice the file makes that does not apply because Strata
    /// did not save the file as it is.
    pub untrusted: Option<SandboxNetwork>,
    /// The domains that come with `untrusted`, set aside with it.
    pub untrusted_domains: Vec<String>,
}

/// Reads the workspace's network file (none: nothing applies). A file that
/// does not parse, or names a domain that is not one, is an error.
pub fn load_workspace_network(workspace: &Path, trust_dir: &Path) -> Result<LoadedNetwork> {
    let path = workspace.join(WORKSPACE_NETWORK_FILE);
    let invalid = |message: String| CoreError::InvalidRules {
        path: path.clone(),
        message,
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(LoadedNetwork::default()),
        Err(e) => return Err(CoreError::io("read the workspace network file", &path)(e)),
    };
    let file: WorkspaceNetwork =
        toml::from_str(&text).map_err(|e| invalid(e.message().to_owned()))?;
    strata_sandbox::AllowList::parse(&file.allow_domains).map_err(invalid)?;
    let trusted = std::fs::read_to_string(trust_file_in(workspace, trust_dir, TRUST_KIND))
        .is_ok_and(|saved| saved.trim() == digest(text.as_bytes()));
    Ok(match file.network {
        None => LoadedNetwork::default(),
        Some(SandboxNetwork::Off) => LoadedNetwork {
            applies: Some((SandboxNetwork::Off, Vec::new())),
            ..LoadedNetwork::default()
        },
        Some(wider) if trusted => LoadedNetwork {
            applies: Some((wider, file.allow_domains)),
            ..LoadedNetwork::default()
        },
        Some(wider) => LoadedNetwork {
            applies: None,
            untrusted: Some(wider),
            untrusted_domains: file.allow_domains,
        },
    })
}

/// Writes the file and stores its digest, so it applies from now on.
pub fn save_workspace_network(
    workspace: &Path,
    trust_dir: &Path,
    network: &WorkspaceNetwork,
) -> Result<()> {
    let path = workspace.join(WORKSPACE_NETWORK_FILE);
    strata_sandbox::AllowList::parse(&network.allow_domains).map_err(|message| {
        CoreError::InvalidRules {
            path: path.clone(),
            message,
        }
    })?;
    let text = toml::to_string(network).map_err(|e| CoreError::InvalidRules {
        path: path.clone(),
        message: e.to_string(),
    })?;
    write_atomically(&path, text.as_bytes())?;
    write_atomically(
        &trust_file_in(workspace, trust_dir, TRUST_KIND),
        digest(text.as_bytes()).as_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir) {
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())
    }

    fn listed() -> WorkspaceNetwork {
        WorkspaceNetwork {
            network: Some(SandboxNetwork::AllowList),
            allow_domains: vec!["crates.io".into()],
        }
    }

    #[test]
    fn a_saved_file_applies_and_an_edit_outside_strata_stops_it_widening() {
        let (workspace, config) = setup();
        save_workspace_network(workspace.path(), config.path(), &listed()).unwrap();
        let loaded = load_workspace_network(workspace.path(), config.path()).unwrap();
        assert_eq!(
            loaded.applies,
            Some((SandboxNetwork::AllowList, vec!["crates.io".to_owned()]))
        );
        let file = workspace.path().join(WORKSPACE_NETWORK_FILE);
        std::fs::write(&file, "network = \"on\"\n").unwrap();
        let loaded = load_workspace_network(workspace.path(), config.path()).unwrap();
        assert_eq!(loaded.applies, None);
        assert_eq!(loaded.untrusted, Some(SandboxNetwork::On));
    }

    #[test]
    fn a_file_strata_never_saved_can_turn_the_network_off_but_not_on() {
        let (workspace, config) = setup();
        let dir = workspace.path().join(".strata");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("network.toml"),
            "network = \"allow-list\"\nallow_domains = [\"evil.com\"]\n",
        )
        .unwrap();
        let loaded = load_workspace_network(workspace.path(), config.path()).unwrap();
        assert_eq!(loaded.applies, None);
        assert_eq!(loaded.untrusted_domains, vec!["evil.com".to_owned()]);
        std::fs::write(dir.join("network.toml"), "network = \"off\"\n").unwrap();
        let loaded = load_workspace_network(workspace.path(), config.path()).unwrap();
        assert_eq!(loaded.applies, Some((SandboxNetwork::Off, Vec::new())));
    }

    #[test]
    fn a_domain_that_is_not_one_is_an_error_naming_the_file() {
        let (workspace, config) = setup();
        let dir = workspace.path().join(".strata");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("network.toml"), "allow_domains = [\"a b\"]\n").unwrap();
        let error = load_workspace_network(workspace.path(), config.path()).unwrap_err();
        assert!(error.to_string().contains("network.toml"), "{error}");
        assert!(load_workspace_network(config.path(), workspace.path()).is_ok());
    }
}
