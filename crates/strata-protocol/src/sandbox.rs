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

/// `sandbox_set` record: the session's sandbox mode from here on (the last
/// one wins). Written when a session starts and whenever its mode changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SandboxSet {
    pub mode: SandboxMode,
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
}
