//! The workspace's rules file, `.strata/rules.toml`, and whether its allow
//! rules can be trusted.
//!
//! The file lives in the workspace, which a cloned repository (or the agent
//! itself) can write, so its `ask` and `deny` rules always apply (they only
//! ask more) but its `allow` rules apply only while the file is exactly what
//! Strata last saved there for this person: the digest of each saved file
//! is kept in the user's config folder, outside the workspace.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use strata_protocol::{RuleKind, RuleList, RuleSource, RulesConfig};

use super::RuleSet;

use crate::error::{CoreError, Result};

/// The workspace-relative path of the workspace's rules.
pub const WORKSPACE_RULES_FILE: &str = ".strata/rules.toml";

/// A workspace's rules as loaded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkspaceRules {
    /// Every list; `allow`, `write_allow` and `mcp_allow` are emptied when
    /// untrusted.
    pub rules: RulesConfig,
    /// The allow lists the file holds but that were not saved by Strata
    /// (the file changed since): shown, never applied.
    pub untrusted_allow: RulesConfig,
}

/// Loads `workspace/.strata/rules.toml` (none: empty). `trust_dir` is the
/// user's config folder where saved digests are kept.
pub fn load_workspace_rules(workspace: &Path, trust_dir: &Path) -> Result<WorkspaceRules> {
    let path = workspace.join(WORKSPACE_RULES_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(WorkspaceRules::default()),
        Err(e) => return Err(CoreError::io("read the workspace rules", &path)(e)),
    };
    let mut rules: RulesConfig = toml::from_str(&text).map_err(|e| CoreError::InvalidRules {
        path: path.clone(),
        message: e.message().to_owned(),
    })?;
    let trusted = std::fs::read_to_string(trust_file(workspace, trust_dir))
        .is_ok_and(|saved| saved.trim() == digest(text.as_bytes()));
    let mut untrusted_allow = RulesConfig::default();
    if !trusted {
        for kind in [RuleKind::Command, RuleKind::Write, RuleKind::Mcp] {
            *untrusted_allow.list_mut(kind, RuleList::Allow) =
                std::mem::take(rules.list_mut(kind, RuleList::Allow));
        }
    }
    Ok(WorkspaceRules {
        rules,
        untrusted_allow,
    })
}

/// Saves the workspace's rules (creating `.strata/`) and trusts what was
/// saved.
pub fn save_workspace_rules(workspace: &Path, trust_dir: &Path, rules: &RulesConfig) -> Result<()> {
    let path = workspace.join(WORKSPACE_RULES_FILE);
    let text = toml::to_string(rules).map_err(|e| CoreError::InvalidRules {
        path: path.clone(),
        message: e.to_string(),
    })?;
    write_atomically(&path, text.as_bytes())?;
    write_atomically(
        &trust_file(workspace, trust_dir),
        digest(text.as_bytes()).as_bytes(),
    )
}

pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(CoreError::io("create", dir))?;
    let mut file =
        tempfile::NamedTempFile::new_in(dir).map_err(CoreError::io("create a file in", dir))?;
    std::io::Write::write_all(&mut file, bytes).map_err(CoreError::io("write", path))?;
    file.persist(path)
        .map_err(|e| CoreError::io("save", path)(e.error))?;
    Ok(())
}

/// Where the digest of a workspace's saved rules is kept.
fn trust_file(workspace: &Path, trust_dir: &Path) -> PathBuf {
    trust_file_in(workspace, trust_dir, "trusted-rules")
}

/// Where the digest of one of the workspace's `.strata/` files is kept:
/// `kind` (a folder per file) in the user's config folder.
pub(super) fn trust_file_in(workspace: &Path, trust_dir: &Path, kind: &str) -> PathBuf {
    let real = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_owned());
    let key = digest(real.as_os_str().as_encoded_bytes());
    trust_dir.join(kind).join(key)
}

pub(super) fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Adds `patterns` to the workspace's `list` of `kind` rules (each checked
/// first; one already there is kept once) and saves the file, which Strata
/// then trusts. Allow lists that were not trusted are dropped, never made
/// trusted by this save. Returns the file's path.
pub fn add_workspace_rules(
    workspace: &Path,
    trust_dir: &Path,
    kind: RuleKind,
    list: RuleList,
    patterns: &[String],
) -> Result<PathBuf> {
    edit_workspace_rules(workspace, trust_dir, |rules| {
        let mut check = RuleSet::default();
        for pattern in patterns {
            check.add(RuleSource::Workspace, kind, list, pattern)?;
            let entries = rules.list_mut(kind, list);
            let pattern = pattern.trim().to_owned();
            if !entries.contains(&pattern) {
                entries.push(pattern);
            }
        }
        Ok(())
    })
}

/// Removes `pattern` from the workspace's `list` of `kind` rules; `false`
/// (and nothing written) when it was not there.
pub fn remove_workspace_rule(
    workspace: &Path,
    trust_dir: &Path,
    kind: RuleKind,
    list: RuleList,
    pattern: &str,
) -> Result<bool> {
    let loaded = load_workspace_rules(workspace, trust_dir)?;
    let mut rules = loaded.rules;
    let entries = rules.list_mut(kind, list);
    let before = entries.len();
    entries.retain(|entry| entry != pattern.trim());
    if entries.len() == before {
        return Ok(false);
    }
    save_workspace_rules(workspace, trust_dir, &rules)?;
    Ok(true)
}

fn edit_workspace_rules(
    workspace: &Path,
    trust_dir: &Path,
    edit: impl FnOnce(&mut RulesConfig) -> std::result::Result<(), String>,
) -> Result<PathBuf> {
    let path = workspace.join(WORKSPACE_RULES_FILE);
    let mut rules = load_workspace_rules(workspace, trust_dir)?.rules;
    edit(&mut rules).map_err(|message| CoreError::InvalidRules {
        path: path.clone(),
        message,
    })?;
    save_workspace_rules(workspace, trust_dir, &rules)?;
    Ok(path)
}
