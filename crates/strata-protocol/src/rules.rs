//! Approval rules: what a person allowed, asked for or denied, by pattern,
//! and which rule decided an approval.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The `[rules]` table of the config file, and the workspace's
/// `.strata/rules.toml`: command patterns (`cargo test*`, `git status`),
/// workspace-relative path globs for writes (`src/**`, `*.md`) and MCP
/// tools (`github/search_*`; an allow rule is bound to the server's launch
/// spec: `github/search_*@sha256:…`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct RulesConfig {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ask: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_allow: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_ask: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_deny: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_allow: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_ask: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_deny: Vec<String>,
}

impl RulesConfig {
    pub fn is_empty(&self) -> bool {
        self.lists().iter().all(|(_, _, list)| list.is_empty())
    }

    /// Every list with what it says and what it is about.
    pub fn lists(&self) -> [(RuleKind, RuleList, &Vec<String>); 9] {
        [
            (RuleKind::Command, RuleList::Allow, &self.allow),
            (RuleKind::Command, RuleList::Ask, &self.ask),
            (RuleKind::Command, RuleList::Deny, &self.deny),
            (RuleKind::Write, RuleList::Allow, &self.write_allow),
            (RuleKind::Write, RuleList::Ask, &self.write_ask),
            (RuleKind::Write, RuleList::Deny, &self.write_deny),
            (RuleKind::Mcp, RuleList::Allow, &self.mcp_allow),
            (RuleKind::Mcp, RuleList::Ask, &self.mcp_ask),
            (RuleKind::Mcp, RuleList::Deny, &self.mcp_deny),
        ]
    }

    /// The list for `kind` and `list`, to change.
    pub fn list_mut(&mut self, kind: RuleKind, list: RuleList) -> &mut Vec<String> {
        match (kind, list) {
            (RuleKind::Command, RuleList::Allow) => &mut self.allow,
            (RuleKind::Command, RuleList::Ask) => &mut self.ask,
            (RuleKind::Command, RuleList::Deny) => &mut self.deny,
            (RuleKind::Write, RuleList::Allow) => &mut self.write_allow,
            (RuleKind::Write, RuleList::Ask) => &mut self.write_ask,
            (RuleKind::Write, RuleList::Deny) => &mut self.write_deny,
            (RuleKind::Mcp, RuleList::Allow) => &mut self.mcp_allow,
            (RuleKind::Mcp, RuleList::Ask) => &mut self.mcp_ask,
            (RuleKind::Mcp, RuleList::Deny) => &mut self.mcp_deny,
        }
    }
}

/// Where a rule was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleSource {
    /// The `[rules]` table of the user's config file.
    User,
    /// The workspace's `.strata/rules.toml`.
    Workspace,
    /// "Allow for this session" on an approval; gone with the session.
    Session,
}

/// What a rule says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleList {
    Allow,
    Ask,
    Deny,
}

/// What a rule's pattern is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// A shell command pattern.
    Command,
    /// A workspace-relative path glob for writes (and shell redirections).
    Write,
    /// An MCP tool: `SERVER/TOOL`, `*` matching any run of characters in
    /// either part; an allow rule also names the launch spec it was made
    /// for (`@sha256:…`, the server's fingerprint).
    Mcp,
}

/// One rule, named where it is used: in a recorded decision, a listing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
pub struct RuleRef {
    pub source: RuleSource,
    pub list: RuleList,
    pub kind: RuleKind,
    pub pattern: String,
}

impl std::fmt::Display for RuleRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = match (self.kind, self.list) {
            (RuleKind::Command, RuleList::Allow) => "allow",
            (RuleKind::Command, RuleList::Ask) => "ask",
            (RuleKind::Command, RuleList::Deny) => "deny",
            (RuleKind::Write, RuleList::Allow) => "write_allow",
            (RuleKind::Write, RuleList::Ask) => "write_ask",
            (RuleKind::Write, RuleList::Deny) => "write_deny",
            (RuleKind::Mcp, RuleList::Allow) => "mcp_allow",
            (RuleKind::Mcp, RuleList::Ask) => "mcp_ask",
            (RuleKind::Mcp, RuleList::Deny) => "mcp_deny",
        };
        let source = match self.source {
            RuleSource::User => "user",
            RuleSource::Workspace => "workspace",
            RuleSource::Session => "session",
        };
        write!(f, "{source} {list} `{}`", self.pattern)
    }
}

/// Who made an approval decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The person answered a prompt (files written before rules existed).
    #[default]
    Person,
    /// A rule settled it without asking.
    Rule,
}

impl DecidedBy {
    pub fn is_person(&self) -> bool {
        *self == DecidedBy::Person
    }
}

/// `strata rules list|add|remove --json`: the rules of each source shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct RulesListing {
    /// [`crate::CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// Always `rules`.
    pub kind: crate::OutputKind,
    /// The rules that apply, user's first.
    pub rules: Vec<RuleRef>,
    /// A workspace file's allow rules that do not apply: the file changed
    /// since Strata saved it (or Strata never did).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_applied: Vec<RuleRef>,
    /// MCP allow rules (in `rules`) bound to a launch spec that no
    /// configured server has now (its command changed, or it was removed):
    /// they match nothing until added again for the server as it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_server: Vec<RuleRef>,
}

impl RulesConfig {
    /// Every rule of every list, as coming from `source`.
    pub fn refs(&self, source: RuleSource) -> Vec<RuleRef> {
        self.lists()
            .into_iter()
            .flat_map(|(kind, list, patterns)| {
                patterns.iter().map(move |pattern| RuleRef {
                    source,
                    list,
                    kind,
                    pattern: pattern.clone(),
                })
            })
            .collect()
    }
}

/// `list_rules`: the user's rules and, when `workspace` is given, that
/// workspace's (what `strata rules list --workspace DIR --json` prints).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListRules {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub workspace: Option<String>,
}

/// `add_rule`: adds `pattern` to a list of the user's rules (no
/// `workspace`) or of that workspace's `.strata/rules.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AddRule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub workspace: Option<String>,
    pub kind: RuleKind,
    pub list: RuleList,
    pub pattern: String,
}

/// `remove_rule`: removes `pattern` from a list, like [`AddRule`] names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RemoveRule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub workspace: Option<String>,
    pub kind: RuleKind,
    pub list: RuleList,
    pub pattern: String,
}
