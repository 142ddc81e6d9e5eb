//! Approval rules that say what they allow: `allow`, `ask` and `deny` lists
//! of command patterns, of write path patterns and of MCP tools, from the
//! user's config and the workspace's `.strata/rules.toml`.
//!
//! Decisions are pure ([`RuleSet::judge_command`], [`RuleSet::judge_write`],
//! [`RuleSet::judge_mcp`]):
//! deny always wins; a compound command is allowed only when every part is
//! (and every file it redirects into is an allowed write); a command line
//! the parser cannot follow is asked (or denied, when a deny rule matches
//! a part it did follow).

mod file;
mod lex;
mod mcp_pattern;
mod network_file;
mod parse;
mod pattern;
mod propose;

pub use file::{
    WORKSPACE_RULES_FILE, WorkspaceRules, add_workspace_rules, load_workspace_rules,
    remove_workspace_rule, save_workspace_rules,
};
pub use mcp_pattern::{
    McpPattern, McpRuleSubject, bind_mcp_rule, mcp_rule_server, propose_mcp_rule,
};
pub use network_file::{
    WORKSPACE_NETWORK_FILE, WorkspaceNetwork, load_workspace_network, save_workspace_network,
};
pub use parse::{Classified, RedirOp, Redirection, SimpleCommand, classify};
pub use pattern::{CommandPattern, PathPattern, relative_target};
pub use propose::{propose_rule, propose_rules, quote as shell_word};

use strata_protocol::{RuleKind, RuleList, RuleRef, RuleSource, RulesConfig};

/// What the rules say about one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleVerdict {
    /// No rule applies: the approval policy decides.
    NoRule,
    /// Run it without asking; the rules that allowed each part.
    Allow(Vec<RuleRef>),
    /// Ask the person, whatever the policy (but `read-only`); the ask rules
    /// that matched, or why the command could not be judged.
    Ask {
        rules: Vec<RuleRef>,
        reason: Option<&'static str>,
    },
    /// Refuse it; the deny rule.
    Deny(RuleRef),
}

/// The compiled rules of a session.
#[derive(Clone, Debug, Default)]
pub struct RuleSet {
    commands: Vec<(RuleRef, CommandPattern)>,
    paths: Vec<(RuleRef, PathPattern)>,
    mcp: Vec<(RuleRef, McpPattern)>,
}

impl RuleSet {
    /// Compiles every list of every source. A pattern that does not parse
    /// is an error naming it, so a typo never silently allows or denies
    /// something else.
    pub fn from_configs(sources: &[(RuleSource, &RulesConfig)]) -> Result<Self, String> {
        let mut set = Self::default();
        let mut problems = Vec::new();
        for (source, config) in sources {
            for (kind, list, patterns) in config.lists() {
                for pattern in patterns {
                    if let Err(problem) = set.add(*source, kind, list, pattern) {
                        problems.push(problem);
                    }
                }
            }
        }
        if problems.is_empty() {
            Ok(set)
        } else {
            Err(problems.join("; "))
        }
    }

    /// Adds one rule (e.g. a session's "allow for this session").
    pub fn add(
        &mut self,
        source: RuleSource,
        kind: RuleKind,
        list: RuleList,
        pattern: &str,
    ) -> Result<(), String> {
        match kind {
            RuleKind::Command => {
                let compiled = CommandPattern::parse(pattern)?;
                let rule = rule_ref(source, kind, list, compiled.text());
                if !self.commands.iter().any(|(known, _)| *known == rule) {
                    self.commands.push((rule, compiled));
                }
            }
            RuleKind::Write => {
                let compiled = PathPattern::parse(pattern)?;
                let rule = rule_ref(source, kind, list, compiled.text());
                if !self.paths.iter().any(|(known, _)| *known == rule) {
                    self.paths.push((rule, compiled));
                }
            }
            RuleKind::Mcp => {
                let compiled = McpPattern::parse(pattern, list)?;
                let rule = rule_ref(source, kind, list, compiled.text());
                if !self.mcp.iter().any(|(known, _)| *known == rule) {
                    self.mcp.push((rule, compiled));
                }
            }
        }
        Ok(())
    }

    /// Every rule, in the order they were added.
    pub fn rules(&self) -> impl Iterator<Item = &RuleRef> {
        self.commands
            .iter()
            .map(|(rule, _)| rule)
            .chain(self.paths.iter().map(|(rule, _)| rule))
            .chain(self.mcp.iter().map(|(rule, _)| rule))
    }

    fn command_rule(
        &self,
        list: RuleList,
        hit: impl Fn(&CommandPattern) -> bool,
    ) -> Option<&RuleRef> {
        self.commands
            .iter()
            .find(|(rule, pattern)| rule.list == list && hit(pattern))
            .map(|(rule, _)| rule)
    }

    fn path_rule(&self, list: RuleList, path: &str) -> Option<&RuleRef> {
        self.paths
            .iter()
            .find(|(rule, pattern)| rule.list == list && pattern.matches(path))
            .map(|(rule, _)| rule)
    }

    /// A shell command line, as the shell would run it in the workspace.
    pub fn judge_command(&self, line: &str) -> RuleVerdict {
        let (parts, unclassifiable) = match classify(line) {
            Classified::Commands(parts) => (parts, None),
            Classified::Unclassifiable { reason, seen } => (seen, Some(reason)),
        };
        let written = |part: &SimpleCommand| -> Vec<Option<String>> {
            part.redirections
                .iter()
                .filter_map(|r| {
                    r.written_file()
                        .map(|target| relative_target(target, r.target_expands))
                })
                .collect()
        };
        for part in &parts {
            if let Some(rule) = self.command_rule(RuleList::Deny, |p| p.catches(part)) {
                return RuleVerdict::Deny(rule.clone());
            }
            for path in written(part).iter().flatten() {
                if let Some(rule) = self.path_rule(RuleList::Deny, path) {
                    return RuleVerdict::Deny(rule.clone());
                }
            }
        }
        if self.commands.is_empty() && self.paths.is_empty() {
            return RuleVerdict::NoRule;
        }
        if let Some(reason) = unclassifiable {
            return RuleVerdict::Ask {
                rules: Vec::new(),
                reason: Some(reason),
            };
        }
        let mut asked = Vec::new();
        for part in &parts {
            if let Some(rule) = self.command_rule(RuleList::Ask, |p| p.catches(part)) {
                push_unique(&mut asked, rule);
            }
            for path in written(part).iter().flatten() {
                if let Some(rule) = self.path_rule(RuleList::Ask, path) {
                    push_unique(&mut asked, rule);
                }
            }
        }
        if !asked.is_empty() {
            return RuleVerdict::Ask {
                rules: asked,
                reason: None,
            };
        }
        if parts.is_empty() {
            return RuleVerdict::NoRule;
        }
        let mut used = Vec::new();
        for part in &parts {
            if part.words.is_empty() {
                // Only assignments or redirections: assignments change what
                // later commands do, so no allow rule covers them.
                if !part.assignments.is_empty() {
                    return RuleVerdict::NoRule;
                }
            } else {
                match self.command_rule(RuleList::Allow, |p| p.allows(part)) {
                    Some(rule) => push_unique(&mut used, rule),
                    None => return RuleVerdict::NoRule,
                }
            }
            for path in written(part) {
                match path.and_then(|path| self.path_rule(RuleList::Allow, &path)) {
                    Some(rule) => push_unique(&mut used, rule),
                    None => return RuleVerdict::NoRule,
                }
            }
        }
        RuleVerdict::Allow(used)
    }

    /// A write (`write_file`, `apply_edit`) to the workspace-relative `path`.
    pub fn judge_write(&self, path: &str) -> RuleVerdict {
        if let Some(rule) = self.path_rule(RuleList::Deny, path) {
            return RuleVerdict::Deny(rule.clone());
        }
        if let Some(rule) = self.path_rule(RuleList::Ask, path) {
            return RuleVerdict::Ask {
                rules: vec![rule.clone()],
                reason: None,
            };
        }
        match self.path_rule(RuleList::Allow, path) {
            Some(rule) => RuleVerdict::Allow(vec![rule.clone()]),
            None => RuleVerdict::NoRule,
        }
    }
}

impl RuleSet {
    /// A call of an MCP tool: deny, then ask, then allow, each list's first
    /// match deciding.
    pub fn judge_mcp(&self, call: McpRuleSubject<'_>) -> RuleVerdict {
        let rule = |list: RuleList| {
            self.mcp
                .iter()
                .find(|(rule, pattern)| rule.list == list && pattern.matches(call))
                .map(|(rule, _)| rule.clone())
        };
        if let Some(rule) = rule(RuleList::Deny) {
            return RuleVerdict::Deny(rule);
        }
        if let Some(rule) = rule(RuleList::Ask) {
            return RuleVerdict::Ask {
                rules: vec![rule],
                reason: None,
            };
        }
        match rule(RuleList::Allow) {
            Some(rule) => RuleVerdict::Allow(vec![rule]),
            None => RuleVerdict::NoRule,
        }
    }
}

fn rule_ref(source: RuleSource, kind: RuleKind, list: RuleList, pattern: &str) -> RuleRef {
    RuleRef {
        source,
        list,
        kind,
        pattern: pattern.to_owned(),
    }
}

fn push_unique(rules: &mut Vec<RuleRef>, rule: &RuleRef) {
    if !rules.contains(rule) {
        rules.push(rule.clone());
    }
}

#[cfg(test)]
mod mcp_rules_tests;
#[cfg(test)]
mod parse_tests;
#[cfg(test)]
mod rules_tests;
