//! How `run_shell`'s commands are confined, as a session records it and the
//! UI shows it. The confinement itself is `strata-sandbox`'s.

use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How `run_shell`'s commands are confined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Writes only inside the workspace, the session's temp folder and the
    /// extra writable roots.
    #[default]
    WorkspaceWrite,
    /// Writes only inside the session's temp folder (compilers and test
    /// runners need a scratch place); the workspace is read-only.
    ReadOnly,
    /// No sandbox: the command runs as the person, with their rights.
    Off,
}

impl SandboxMode {
    /// Every mode, from the most confined to none.
    pub const ALL: [SandboxMode; 3] = [
        SandboxMode::ReadOnly,
        SandboxMode::WorkspaceWrite,
        SandboxMode::Off,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::WorkspaceWrite => "workspace-write",
            Self::ReadOnly => "read-only",
            Self::Off => "off",
        }
    }

    /// What commands may do under this mode, for people.
    pub fn reach(self) -> &'static str {
        match self {
            Self::WorkspaceWrite => {
                "commands write only inside the workspace and their temp folder, without network"
            }
            Self::ReadOnly => "commands write only in their temp folder, without network",
            Self::Off => "commands run with your rights, outside any sandbox",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|mode| mode.as_str() == text)
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a sandboxed command may reach on the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxNetwork {
    /// Nothing, not even this machine's loopback.
    #[default]
    Off,
    /// Only the allowed domains, through Strata's proxy (HTTP and HTTPS).
    AllowList,
    /// Everything the person's own network reaches.
    On,
}

impl SandboxNetwork {
    /// Every choice, from the most confined to none.
    pub const ALL: [SandboxNetwork; 3] = [
        SandboxNetwork::Off,
        SandboxNetwork::AllowList,
        SandboxNetwork::On,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::AllowList => "allow-list",
            Self::On => "on",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|network| network.as_str() == text)
    }

    pub fn is_off(&self) -> bool {
        *self == Self::Off
    }
}

impl fmt::Display for SandboxNetwork {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `sandbox_set` record: the session's sandbox mode and network from here
/// on (the last one wins). Written when a session starts and whenever
/// either changes; a record from before the network was recorded reads as
/// network off.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxSet {
    pub mode: SandboxMode,
    #[serde(default, skip_serializing_if = "SandboxNetwork::is_off")]
    #[ts(as = "Option<SandboxNetwork>", optional)]
    pub network: SandboxNetwork,
    /// The domains the proxy lets through under `allow-list` (`crates.io`,
    /// `*.npmjs.org`), as they were when the choice was made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub allow_domains: Vec<String>,
}

impl SandboxSet {
    /// A record of `mode` with the network off.
    pub fn offline(mode: SandboxMode) -> Self {
        Self {
            mode,
            ..Self::default()
        }
    }

    /// What a sandboxed command reaches on the network, for people;
    /// `None` when the sandbox is off (the command has the person's own).
    pub fn network_reach(&self) -> Option<String> {
        if self.mode == SandboxMode::Off {
            return None;
        }
        Some(match self.network {
            SandboxNetwork::Off => "no network".to_owned(),
            SandboxNetwork::AllowList if self.allow_domains.is_empty() => {
                "network through Strata's proxy, to no domain yet".to_owned()
            }
            SandboxNetwork::AllowList => format!(
                "network only to {} through Strata's proxy",
                self.allow_domains.join(", ")
            ),
            SandboxNetwork::On => "full network".to_owned(),
        })
    }

    /// `Sandbox workspace-write from here on: ...; network ...`, for the
    /// transcript and the console.
    pub fn describe(&self) -> String {
        let reach = self.mode.reach();
        // The mode's own words say "without network"; the choice refines it.
        let reach = reach.strip_suffix(", without network").unwrap_or(reach);
        match self.network_reach() {
            Some(network) => format!("{reach}; {network}"),
            None => reach.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_parses_back_from_the_name_it_is_written_as() {
        for mode in SandboxMode::ALL {
            assert_eq!(SandboxMode::parse(mode.as_str()), Some(mode));
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
        }
        assert_eq!(SandboxMode::parse("workspace_write"), None);
    }

    #[test]
    fn a_sandbox_set_without_a_network_reads_as_network_off_and_writes_none() {
        let old: SandboxSet = serde_json::from_str(r#"{"mode":"read-only"}"#).unwrap();
        assert_eq!(old, SandboxSet::offline(SandboxMode::ReadOnly));
        assert_eq!(
            serde_json::to_string(&old).unwrap(),
            r#"{"mode":"read-only"}"#
        );
        let listed = SandboxSet {
            mode: SandboxMode::WorkspaceWrite,
            network: SandboxNetwork::AllowList,
            allow_domains: vec!["crates.io".into()],
        };
        let json = serde_json::to_string(&listed).unwrap();
        assert_eq!(
            json,
            r#"{"mode":"workspace-write","network":"allow-list","allow_domains":["crates.io"]}"#
        );
        assert_eq!(serde_json::from_str::<SandboxSet>(&json).unwrap(), listed);
        for network in SandboxNetwork::ALL {
            assert_eq!(SandboxNetwork::parse(network.as_str()), Some(network));
        }
    }
}
