//! Where Strata keeps what it writes. `STRATA_HOME` moves all of it.

use std::path::{Path, PathBuf};

use crate::error::{CoreError, Result};

/// The environment variable that moves everything Strata writes.
pub const STRATA_HOME_ENV: &str = "STRATA_HOME";

/// The folders Strata writes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrataPaths {
    pub sessions: PathBuf,
    pub config: PathBuf,
    pub logs: PathBuf,
}

impl StrataPaths {
    /// Everything under one folder (what `STRATA_HOME` selects).
    pub fn under(home: &Path) -> Self {
        Self {
            sessions: home.join("sessions"),
            config: home.join("config"),
            logs: home.join("logs"),
        }
    }

    /// `STRATA_HOME` when set and not empty, else the platform's data and
    /// config directories.
    pub fn from_env() -> Result<Self> {
        match std::env::var_os(STRATA_HOME_ENV) {
            Some(home) if !home.is_empty() => Ok(Self::under(Path::new(&home))),
            _ => Self::platform_default(),
        }
    }

    fn platform_default() -> Result<Self> {
        let data = dirs::data_dir().ok_or(CoreError::NoDataDir)?.join("strata");
        let config = dirs::config_dir()
            .map(|d| d.join("strata"))
            .unwrap_or_else(|| data.join("config"));
        Ok(Self {
            sessions: data.join("sessions"),
            logs: data.join("logs"),
            config,
        })
    }

    /// The config file inside the config folder.
    pub fn config_file(&self) -> PathBuf {
        self.config.join("config.toml")
    }
}

/// Refuses a workspace that is the filesystem root or the person's home
/// folder itself (an agent there reaches every project, key and config),
/// unless `allow` says the person confirmed it. `home` is the home folder
/// (`dirs::home_dir()` in the front ends).
pub fn check_workspace_breadth(workspace: &Path, home: Option<&Path>, allow: bool) -> Result<()> {
    if allow {
        return Ok(());
    }
    let real = workspace
        .canonicalize()
        .map_err(CoreError::io("open the workspace", workspace))?;
    let what = if real.parent().is_none() {
        "the root of the filesystem"
    } else if home
        .and_then(|home| home.canonicalize().ok())
        .is_some_and(|home| home == real)
    {
        "your home folder"
    } else {
        return Ok(());
    };
    Err(CoreError::BroadWorkspace { path: real, what })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strata_home_holds_sessions_config_and_logs() {
        let paths = StrataPaths::under(Path::new("/tmp/strata-home"));
        assert_eq!(paths.sessions, Path::new("/tmp/strata-home/sessions"));
        assert_eq!(
            paths.config_file(),
            Path::new("/tmp/strata-home/config/config.toml")
        );
        assert_eq!(paths.logs, Path::new("/tmp/strata-home/logs"));
    }

    #[test]
    fn the_root_and_the_home_folder_are_refused_as_workspaces_unless_confirmed() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join("project");
        std::fs::create_dir(&project).unwrap();
        for broad in [Path::new("/"), home.path()] {
            let error = check_workspace_breadth(broad, Some(home.path()), false).unwrap_err();
            assert!(matches!(error, CoreError::BroadWorkspace { .. }), "{error}");
            assert!(error.to_string().contains("--allow-broad-workspace"));
            check_workspace_breadth(broad, Some(home.path()), true).unwrap();
        }
        check_workspace_breadth(&project, Some(home.path()), false).unwrap();
        check_workspace_breadth(&project.join(".."), None, false).unwrap();
    }
}
