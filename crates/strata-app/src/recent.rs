//! What the desktop remembers between runs (`config/recent.toml`): the
//! folders new sessions were started in and the session the window showed
//! last; and the new-session sheet's approval choice, which is the
//! desktop's approval policy. State, not settings: losing the file loses nothing but the
//! shortcuts, so a damaged one is read as empty.

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use strata_protocol::{ApprovalPolicy, SessionId};

use crate::App;
use crate::error::{AppResult, io};
use crate::settings::write_replacing;

/// The file inside the config folder.
pub const RECENT_FILE: &str = "recent.toml";
/// The most folders the new-session sheet offers.
pub const MAX_WORKSPACES: usize = 12;
/// The library sessions whose folders are offered after the remembered ones.
pub(crate) const LIBRARY_SESSIONS: u32 = 200;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Stored {
    /// Most recent first.
    pub(crate) workspaces: Vec<String>,
    pub(crate) last_session: Option<SessionId>,
}

impl Stored {
    pub(crate) fn load(config_dir: &Path) -> Self {
        let path = config_dir.join(RECENT_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text).unwrap_or_else(|error| {
                tracing::warn!(path = %path.display(), %error, "ignoring an unreadable recent-folders file");
                Self::default()
            }),
            Err(_) => Self::default(),
        }
    }

    pub(crate) fn save(&self, config_dir: &Path) -> std::io::Result<()> {
        let text = toml::to_string(self).map_err(std::io::Error::other)?;
        write_replacing(&config_dir.join(RECENT_FILE), text.as_bytes())
    }
}

/// `first` then `rest`, each folder once, only folders that exist, at most
/// [`MAX_WORKSPACES`].
pub(crate) fn merged(first: Vec<String>, rest: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut folders: Vec<String> = Vec::new();
    for folder in first.into_iter().chain(rest) {
        if folders.len() == MAX_WORKSPACES {
            break;
        }
        if !folders.contains(&folder) && Path::new(&folder).is_dir() {
            folders.push(folder);
        }
    }
    folders
}

impl App {
    /// The new-session sheet's approval choice: makes `policy` the desktop's approval policy; sessions open for
    /// turns pick it up at their next turn (as after saving Settings).
    pub(crate) async fn set_approval_policy(
        self: &Arc<Self>,
        policy: ApprovalPolicy,
    ) -> AppResult<()> {
        let changed = self
            .blocking(move |app| {
                let mut prefs = app.prefs();
                if prefs.approval_policy == policy {
                    return Ok(false);
                }
                prefs.approval_policy = policy;
                prefs
                    .save(&app.paths.config)
                    .map_err(|error| io(format!("Could not save the approval policy: {error}")))?;
                tracing::info!(
                    policy = policy.as_str(),
                    "approval policy set for new turns"
                );
                Ok(true)
            })
            .await?;
        if changed {
            self.settings_changed();
        }
        Ok(())
    }

    /// A new session started in `workspace`: offered first next time. Best
    /// effort: the session exists either way.
    pub(crate) fn remember_workspace(&self, workspace: &Path) {
        let folder = workspace.display().to_string();
        let mut stored = Stored::load(&self.paths.config);
        stored.workspaces.retain(|known| *known != folder);
        stored.workspaces.insert(0, folder);
        stored.workspaces.truncate(MAX_WORKSPACES);
        if let Err(error) = stored.save(&self.paths.config) {
            tracing::warn!(%error, "could not remember the new session's folder");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_offered_once_remembered_first_and_only_while_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let [a, b, gone] =
            ["a", "b", "gone"].map(|name| dir.path().join(name).display().to_string());
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        assert_eq!(
            merged(vec![b.clone(), gone.clone()], [a.clone(), b.clone(), gone]),
            vec![b, a]
        );
        let many: Vec<String> = (0..20)
            .map(|n| {
                let folder = dir.path().join(format!("f{n}"));
                std::fs::create_dir(&folder).unwrap();
                folder.display().to_string()
            })
            .collect();
        assert_eq!(merged(many.clone(), []).len(), MAX_WORKSPACES);
    }

    #[test]
    fn an_unreadable_file_reads_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(RECENT_FILE), "workspaces = 3 [").unwrap();
        assert_eq!(Stored::load(dir.path()), Stored::default());
    }
}
