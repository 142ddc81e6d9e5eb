//! Approval rules as both front ends list and edit them: the user's
//! `[rules]` in config.toml and a workspace's `.strata/rules.toml` (saved
//! through strata-core, so Strata trusts the allow rules it wrote), and
//! "always allow" on an approval, which saves the request's proposal.

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;
use strata_core::StrataPaths;
use strata_core::agent::ProposedRules;

use strata_core::mcp::fingerprint::ServerFingerprint;
use strata_core::tools::rules::{
    McpPattern, WORKSPACE_RULES_FILE, add_workspace_rules, bind_mcp_rule, load_workspace_rules,
    mcp_rule_server, remove_workspace_rule,
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
    let config = StrataConfig::load(&paths.config_file())?;
    if user {
        rules.extend(config.rules.refs(RuleSource::User));
    }
    let mut not_applied = Vec::new();
    if let Some(workspace) = workspace {
        let loaded = load_workspace_rules(workspace, &paths.config)?;
        rules.extend(loaded.rules.refs(RuleSource::Workspace));
        not_applied = loaded.untrusted_allow.refs(RuleSource::Workspace);
    }
    let configured = server_fingerprints(&config);
    let no_server = rules
        .iter()
        .filter(|rule| rule.kind == RuleKind::Mcp)
        .filter(|rule| {
            McpPattern::parse(&rule.pattern, rule.list)
                .ok()
                .and_then(|pattern| pattern.fingerprint().cloned())
                .is_some_and(|fingerprint| !configured.values().any(|known| *known == fingerprint))
        })
        .cloned()
        .collect();
    Ok(RulesListing {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::Rules,
        rules,
        not_applied,
        no_server,
    })
}

/// Each configured MCP server's launch fingerprint, by name.
fn server_fingerprints(config: &StrataConfig) -> BTreeMap<String, ServerFingerprint> {
    let (entries, _) = crate::mcp::config::read_servers(&config.mcp_servers);
    entries
        .iter()
        .map(|entry| (entry.launch.name.clone(), entry.launch.fingerprint()))
        .collect()
}

/// The pattern to store for an added rule: an MCP allow rule written by
/// name (`github/search_*`) is bound to the launch spec of the server it
/// names as configured now, so a later change of that server's command
/// does not inherit it.
fn stored_pattern(
    paths: &StrataPaths,
    kind: RuleKind,
    list: RuleList,
    pattern: &str,
) -> AppResult<String> {
    if kind != RuleKind::Mcp || list != RuleList::Allow || pattern.contains('@') {
        return Ok(pattern.to_owned());
    }
    let config = StrataConfig::load(&paths.config_file())?;
    let server = mcp_rule_server(pattern).unwrap_or_default();
    match server_fingerprints(&config).get(server) {
        Some(fingerprint) => Ok(bind_mcp_rule(pattern, fingerprint)),
        None => Err(invalid_input(format!(
            "No MCP server named {server:?} is configured: an MCP allow rule is bound to a configured \
             server's launch command (`strata mcp list` shows them)."
        ))),
    }
}

/// The stored entry `pattern` names in `entries`: itself, or for an MCP
/// rule written without its fingerprint the one bound entry with that name
/// part (so `remove mcp-allow github/search_*` finds it).
fn stored_entry(entries: &[String], kind: RuleKind, pattern: &str) -> String {
    if entries.iter().any(|entry| entry == pattern)
        || kind != RuleKind::Mcp
        || pattern.contains('@')
    {
        return pattern.to_owned();
    }
    let mut bound = entries.iter().filter(|entry| {
        entry
            .split_once('@')
            .is_some_and(|(names, _)| names == pattern)
    });
    match (bound.next(), bound.next()) {
        (Some(only), None) => only.clone(),
        _ => pattern.to_owned(),
    }
}

/// What [`edit`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleEdited {
    /// An added rule already there, a removed one that was not: `false`.
    pub changed: bool,
    /// The file the rule is in.
    pub file: PathBuf,
    /// The pattern as stored (an MCP allow rule with its fingerprint).
    pub pattern: String,
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
/// An MCP allow rule is stored bound to its server's launch spec.
pub fn edit(paths: &StrataPaths, edit: RuleEdit<'_>, add: bool) -> AppResult<RuleEdited> {
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
    let stored = if add {
        stored_pattern(paths, kind, list, pattern)?
    } else {
        let entries = match workspace {
            Some(workspace) => load_workspace_rules(workspace, &paths.config)?.rules,
            None => StrataConfig::load(&paths.config_file())?.rules,
        };
        let entries = entries
            .lists()
            .into_iter()
            .find(|(k, l, _)| *k == kind && *l == list)
            .map(|(_, _, entries)| entries.clone())
            .unwrap_or_default();
        stored_entry(&entries, kind, pattern)
    };
    let pattern = stored.as_str();
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
            Ok(RuleEdited {
                changed: done,
                file: place,
                pattern: pattern.to_owned(),
            })
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
            Ok(RuleEdited {
                changed: done,
                file: path,
                pattern: pattern.to_owned(),
            })
        }
    }
}

/// "Always allow": saves `proposed` (the waiting request's own proposal,
/// never rules a front end names) to the workspace's allow list. Returns
/// the file's path.
pub fn save_always_allow(
    paths: &StrataPaths,
    workspace: &Path,
    proposed: &ProposedRules,
) -> AppResult<PathBuf> {
    if proposed.patterns.is_empty() {
        return Err(invalid_input(
            "Nothing can be always allowed for this call: allow it once or for the session.",
        ));
    }
    Ok(add_workspace_rules(
        workspace,
        &paths.config,
        proposed.kind,
        RuleList::Allow,
        &proposed.patterns,
    )?)
}
