//! Approval rules as both front ends list and edit them: the user's
//! `[rules]` in config.toml and a workspace's `.strata/rules.toml` (saved
//! through strata-core, so Strata trusts the allow rules it wrote), and
//! "always allow" on an approval, which saves the request's proposal.

use std::path::{Path, PathBuf};

use strata_core::StrataPaths;
use strata_core::tools::rules::{
    WORKSPACE_RULES_FILE, add_workspace_rules, load_workspace_rules, remove_workspace_rule,
};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, OutputKind, RuleKind, RuleList, RuleSource, RulesListing,
};
use strata_providers::StrataConfig;

use crate::error::{AppResult, invalid_input};

/// The longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1_000;

/// The user's rules (when `user`) and the workspace's; the workspace
/// file's allow rules that are not in effect (edited outside Strata) are
/// listed apart, as `not_applied`.
pub fn listing(
    paths: &StrataPaths,
    user: bool,
    workspace: Option<&Path>,
) -> AppResult<RulesListing> {
    let mut rules = Vec::new();
    if user {
        let config = StrataConfig::load(&paths.config_file())?;
        rules.extend(config.rules.refs(RuleSource::User));
    }
    let mut not_applied = Vec::new();
    if let Some(workspace) = workspace {
        let loaded = load_workspace_rules(workspace, &paths.config)?;
        rules.extend(loaded.rules.refs(RuleSource::Workspace));
        not_applied = loaded.untrusted_allow.refs(RuleSource::Workspace);
    }
    Ok(RulesListing {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::Rules,
        rules,
        not_applied,
    })
}

/// One rule to add or remove: in `workspace`'s file, else the user's.
#[derive(Clone, Copy, Debug)]
pub struct RuleEdit<'a> {
    pub workspace: Option<&'a Path>,
    pub kind: RuleKind,
    pub list: RuleList,
    pub pattern: &'a str,
}

/// Adds (`add`) or removes the rule. Returns whether anything changed (an
/// added rule already there, a removed one that was not: nothing) and the
/// file it is in. A pattern that does not parse is refused, nothing written.
pub fn edit(paths: &StrataPaths, edit: RuleEdit<'_>, add: bool) -> AppResult<(bool, PathBuf)> {
    let pattern = edit.pattern.trim();
    if pattern.is_empty() {
        return Err(invalid_input("A rule needs a pattern."));
    }
    if pattern.len() > MAX_PATTERN_BYTES || pattern.contains(['\n', '\r', '\0']) {
        return Err(invalid_input(format!(
            "A rule's pattern is one line of at most {MAX_PATTERN_BYTES} bytes."
        )));
    }
    let RuleEdit {
        workspace,
        kind,
        list,
        ..
    } = edit;
    match workspace {
        Some(workspace) => {
            let trust = &paths.config;
            let place = workspace.join(WORKSPACE_RULES_FILE);
            let done = if add {
                let before = load_workspace_rules(workspace, trust)?;
                let known = before.rules.lists().iter().any(|(k, l, entries)| {
                    *k == kind && *l == list && entries.iter().any(|entry| entry == pattern)
                });
                add_workspace_rules(workspace, trust, kind, list, &[pattern.to_owned()])?;
                !known
            } else {
                remove_workspace_rule(workspace, trust, kind, list, pattern)?
            };
            Ok((done, place))
        }
        None => {
            let path = paths.config_file();
            let mut config = StrataConfig::load(&path)?;
            let entries = config.rules.list_mut(kind, list);
            let done = if add {
                let new = !entries.iter().any(|entry| entry == pattern);
                if new {
                    entries.push(pattern.to_owned());
                }
                new
            } else {
                let before = entries.len();
                entries.retain(|entry| entry != pattern);
                entries.len() != before
            };
            if done {
                // Checks every rule (a bad pattern is refused, nothing written).
                config.save(&path)?;
            }
            Ok((done, path))
        }
    }
}

/// "Always allow": saves `proposed` (the waiting request's own proposal,
/// never rules a front end names) to the workspace's allow list. Returns
/// the file's path.
pub fn save_always_allow(
    paths: &StrataPaths,
    workspace: &Path,
    proposed: &[String],
) -> AppResult<PathBuf> {
    if proposed.is_empty() {
        return Err(invalid_input(
            "Nothing can be always allowed for this call: allow it once or for the session.",
        ));
    }
    Ok(add_workspace_rules(
        workspace,
        &paths.config,
        RuleKind::Command,
        RuleList::Allow,
        proposed,
    )?)
}
