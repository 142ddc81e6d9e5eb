//! What a sandboxed command may do: the mode and the policy built from it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
pub use strata_protocol::SandboxMode;

/// The rules one command runs under; the launcher's wire format (JSON in
/// its argv), so every path is absolute.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxPolicy {
    pub mode: SandboxMode,
    pub workspace: PathBuf,
    /// The session's own temp folder (also the command's `TMPDIR`).
    pub temp_dir: PathBuf,
    /// More folders the command may write to (under `workspace-write`).
    pub writable_roots: Vec<PathBuf>,
    /// Folders and files nothing in the sandbox may read.
    pub read_deny: Vec<PathBuf>,
    /// Whether the command may use the network.
    pub network: bool,
    /// With the network off: the UNIX socket of the session's proxy, which
    /// the command reaches through a forwarder on its own loopback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<PathBuf>,
}

impl SandboxPolicy {
    /// A policy with the default deny list under `home` and no network.
    pub fn new(mode: SandboxMode, workspace: &Path, temp_dir: &Path, home: Option<&Path>) -> Self {
        Self {
            mode,
            workspace: workspace.to_path_buf(),
            temp_dir: temp_dir.to_path_buf(),
            writable_roots: Vec::new(),
            read_deny: home.map(default_read_deny).unwrap_or_default(),
            network: false,
            proxy: None,
        }
    }

    /// The folders writes are allowed under, by mode.
    pub fn writable(&self) -> Vec<&Path> {
        match self.mode {
            SandboxMode::WorkspaceWrite => [self.workspace.as_path(), self.temp_dir.as_path()]
                .into_iter()
                .chain(self.writable_roots.iter().map(PathBuf::as_path))
                .collect(),
            SandboxMode::ReadOnly => vec![self.temp_dir.as_path()],
            SandboxMode::Off => Vec::new(),
        }
    }

    /// Fails for a path that is not UTF-8 (JSON cannot carry it).
    pub fn to_json(&self) -> crate::SandboxResult<String> {
        Ok(serde_json::to_string(self)?)
    }

    pub fn from_json(text: &str) -> crate::SandboxResult<Self> {
        Ok(serde_json::from_str(text)?)
    }
}

/// Secrets a command has no business reading: SSH and AWS keys, Strata's
/// own configuration (keys stored in a file) and the keychain's files.
pub fn default_read_deny(home: &Path) -> Vec<PathBuf> {
    [".ssh", ".aws", ".config/strata", ".local/share/keyrings"]
        .into_iter()
        .map(|relative| home.join(relative))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_are_written_in_lower_kebab_case_and_read_back() {
        for mode in [
            SandboxMode::WorkspaceWrite,
            SandboxMode::ReadOnly,
            SandboxMode::Off,
        ] {
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
            assert_eq!(serde_json::from_str::<SandboxMode>(&json).unwrap(), mode);
            assert_eq!(SandboxMode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(SandboxMode::parse("workspace_write"), None);
    }

    #[test]
    fn read_only_writes_only_to_the_temp_folder() {
        let mut policy = SandboxPolicy::new(
            SandboxMode::ReadOnly,
            Path::new("/w"),
            Path::new("/t"),
            Some(Path::new("/home/p")),
        );
        policy.writable_roots.push("/extra".into());
        assert_eq!(policy.writable(), vec![Path::new("/t")]);
        policy.mode = SandboxMode::WorkspaceWrite;
        assert_eq!(
            policy.writable(),
            vec![Path::new("/w"), Path::new("/t"), Path::new("/extra")]
        );
        assert!(policy.read_deny.contains(&PathBuf::from("/home/p/.ssh")));
    }

    #[test]
    fn a_policy_survives_its_wire_format() {
        let policy = SandboxPolicy::new(
            SandboxMode::WorkspaceWrite,
            Path::new("/w"),
            Path::new("/t"),
            None,
        );
        assert_eq!(
            SandboxPolicy::from_json(&policy.to_json().unwrap()).unwrap(),
            policy
        );
    }
}
