//! A session's approvals: its policy, and the tool kinds the person allowed
//! for the rest of the session.
//!
//! Approval rules ([`RuleSet`]) decide before the policy: a deny rule
//! refuses under any policy, an ask rule asks even under `auto`, an allow
//! rule runs the call under `ask` (`read-only` still refuses every write and
//! command, and every MCP tool the person did not mark read-only).
//! [`Checked`] says which rules decided, for the session record.
//!
//! "Allow for this session" on a write is remembered per tool *kind*:
//! allowing one `write_file` also lets later `apply_edit` calls run. On a
//! shell command it allows only the rules "always allow" proposes for it
//! (`cargo test --workspace` allows `cargo test*`), or that exact command
//! when there is no proposal; never every later command.
//!
//! A shell command whose configured sandbox cannot be had (the kernel lacks
//! it, the launcher is missing) is asked for every time, under `auto` too
//! and after "allow for this session": it would run unconfined.

use std::collections::HashSet;

use strata_protocol::{
    ApprovalDecision, ApprovalPolicy, ApprovalRequest, RuleKind, RuleList, RuleRef, RuleSource,
};

use super::error::{ToolError, ToolResult};
use super::rules::{RuleSet, RuleVerdict, propose_mcp_rule};
use super::{AnyCall, PreparedCall, PreparedExternal, RuleSubject, SessionAllowance, ToolKind};
use crate::mcp::approval::{McpApprovalCheck, McpApprovals, McpSessionAllowances};

/// What to do with a prepared call before running it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalCheck {
    /// Run it now.
    Run,
    /// Show this to the person and pass their answer to
    /// [`SessionApprovals::resolve`].
    Ask(ApprovalRequest),
    /// Do not run it; give the model this error as the call's output
    /// (through [`super::ToolRegistry::error_outcome`]).
    Refuse(ToolError),
}

/// What [`SessionApprovals::check_with_rules`] decided and which rules
/// took part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub check: ApprovalCheck,
    /// A rule settled it without asking (a run or a refusal): the session
    /// records the decision as the rule's.
    pub by_rule: bool,
    /// The rules that decided, or that made the call ask.
    pub rules: Vec<RuleRef>,
}

impl Checked {
    fn policy(check: ApprovalCheck) -> Self {
        Self {
            check,
            by_rule: false,
            rules: Vec::new(),
        }
    }

    /// Refused by the deny rule `rule`; the model is told which.
    fn denied(rule: RuleRef, what: String) -> Self {
        Self {
            check: ApprovalCheck::Refuse(ToolError::DeniedByRule {
                what,
                rule: rule.to_string(),
            }),
            by_rule: true,
            rules: vec![rule],
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct SessionApprovals {
    policy: ApprovalPolicy,
    allowed: HashSet<ToolKind>,
    /// MCP tools allowed for the session, by server fingerprint and
    /// definition hash (a changed command or definition asks again).
    mcp: McpSessionAllowances,
    rules: RuleSet,
    /// Shell commands allowed for the session as they are, when no rule
    /// could be proposed for them.
    allowed_commands: HashSet<String>,
}

impl SessionApprovals {
    pub fn new(policy: ApprovalPolicy) -> Self {
        Self::with_rules(policy, RuleSet::default())
    }

    /// A policy with the user's and the workspace's rules.
    pub fn with_rules(policy: ApprovalPolicy, rules: RuleSet) -> Self {
        Self {
            policy,
            allowed: HashSet::new(),
            mcp: McpSessionAllowances::default(),
            rules,
            allowed_commands: HashSet::new(),
        }
    }

    /// The rules in force, the session's own included.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    pub fn policy(&self) -> ApprovalPolicy {
        self.policy
    }

    /// Changes the policy; kinds already allowed for the session stay allowed
    /// (they only matter under `ask`).
    pub fn set_policy(&mut self, policy: ApprovalPolicy) {
        self.policy = policy;
    }

    /// Whether the person allowed this kind for the rest of the session
    /// (writes; a shell command is allowed by its own rule, never by kind).
    pub fn is_allowed_for_session(&self, kind: ToolKind) -> bool {
        self.allowed.contains(&kind)
    }

    fn allowed_for_session(&self, call: &PreparedCall) -> bool {
        match call.rule_subject() {
            Some(RuleSubject::Command(command)) => self.allowed_commands.contains(command),
            Some(RuleSubject::Write(_)) | None => self.allowed.contains(&call.kind()),
        }
    }

    /// Gives again what "allow for this session" gave in the session's
    /// records ([`super::session_allowances`]), when it is resumed.
    pub fn restore(&mut self, allowances: &[SessionAllowance]) {
        for allowance in allowances {
            match allowance {
                SessionAllowance::Kind(kind) => {
                    self.allowed.insert(*kind);
                }
                // Only prefix proposals: an exact one could carry a secret
                // the live prompt redacted into later decision records.
                SessionAllowance::Command(command) => self.allow_command(
                    command,
                    super::rules::propose_rules(command)
                        .filter(|rules| rules.iter().all(|rule| rule.ends_with('*')))
                        .unwrap_or_default(),
                    RuleSource::Session,
                ),
            }
        }
    }

    /// "Allow for this session": a write's kind; a shell command's proposed
    /// rules, or the command itself when none can be proposed. "Always
    /// allow" (`source` the workspace: the front end saved the proposed
    /// rules to its file) adds the same rules as the workspace's.
    fn allow_for_session(&mut self, call: &PreparedCall, source: RuleSource) {
        let Some(RuleSubject::Command(command)) = call.rule_subject() else {
            self.allowed.insert(call.kind());
            return;
        };
        self.allow_command(command, call.proposed_rules().unwrap_or_default(), source);
    }

    /// Allows `command` by its `proposed` rules, or as it is when they do
    /// not cover it.
    fn allow_command(&mut self, command: &str, proposed: Vec<String>, source: RuleSource) {
        let added = proposed.iter().all(|rule| {
            self.rules
                .add(source, RuleKind::Command, RuleList::Allow, rule)
                .is_ok()
        });
        let covered = matches!(self.rules.judge_command(command), RuleVerdict::Allow(_));
        if proposed.is_empty() || !added || !covered {
            self.allowed_commands.insert(command.to_owned());
        }
    }

    /// The refusal of a call to the tool `name` that the policy settles
    /// before anything is prepared: under `read-only` a write or a command
    /// is refused without its target being opened or read.
    pub fn refuse_unprepared(&self, name: &str) -> Option<ToolError> {
        match (self.policy, super::tool_kind(name)) {
            (ApprovalPolicy::ReadOnly, Some((tool, ToolKind::Write | ToolKind::Shell))) => {
                Some(ToolError::ReadOnly { tool })
            }
            _ => None,
        }
    }

    pub fn check(&self, call: &PreparedCall, call_id: &str) -> ApprovalCheck {
        self.check_with_rules(call, call_id).check
    }

    /// The rules first, then the policy.
    pub fn check_with_rules(&self, call: &PreparedCall, call_id: &str) -> Checked {
        if call.kind() == ToolKind::Read {
            return Checked::policy(ApprovalCheck::Run);
        }
        let verdict = match call.rule_subject() {
            Some(RuleSubject::Command(command)) => self.rules.judge_command(command),
            Some(RuleSubject::Write(path)) => self.rules.judge_write(path),
            None => RuleVerdict::NoRule,
        };
        let ask = |rules: Vec<RuleRef>| {
            let check = match call.approval_request(call_id) {
                Some(request) => ApprovalCheck::Ask(request),
                None => ApprovalCheck::Refuse(ToolError::Denied {
                    what: call.denial_subject(),
                }),
            };
            Checked {
                check,
                by_rule: false,
                rules,
            }
        };
        match verdict {
            RuleVerdict::Deny(rule) => Checked::denied(rule, call.denial_subject()),
            _ if self.policy == ApprovalPolicy::ReadOnly => {
                Checked::policy(ApprovalCheck::Refuse(ToolError::ReadOnly {
                    tool: call.name(),
                }))
            }
            RuleVerdict::Ask { rules, .. } => ask(rules),
            // Unconfined commands wait for the person whatever allowed them.
            RuleVerdict::Allow(rules) if call.sandbox_unavailable().is_some() => ask(rules),
            RuleVerdict::Allow(rules) => Checked {
                check: ApprovalCheck::Run,
                by_rule: true,
                rules,
            },
            RuleVerdict::NoRule => Checked::policy(self.check_policy(call, call_id)),
        }
    }

    fn check_policy(&self, call: &PreparedCall, call_id: &str) -> ApprovalCheck {
        let every_time = call.sandbox_unavailable().is_some();
        match self.policy {
            ApprovalPolicy::Auto | ApprovalPolicy::Ask if every_time => {
                match call.approval_request(call_id) {
                    Some(request) => ApprovalCheck::Ask(request),
                    None => ApprovalCheck::Refuse(ToolError::Denied {
                        what: call.denial_subject(),
                    }),
                }
            }
            ApprovalPolicy::Auto => ApprovalCheck::Run,
            ApprovalPolicy::ReadOnly => {
                ApprovalCheck::Refuse(ToolError::ReadOnly { tool: call.name() })
            }
            ApprovalPolicy::Ask if self.allowed_for_session(call) => ApprovalCheck::Run,
            ApprovalPolicy::Ask => match call.approval_request(call_id) {
                Some(request) => ApprovalCheck::Ask(request),
                None => ApprovalCheck::Run,
            },
        }
    }

    /// Applies the person's answer: `Ok` means run the call; a denial is the
    /// error whose text the model sees as the call's output.
    pub fn resolve(&mut self, call: &PreparedCall, decision: ApprovalDecision) -> ToolResult<()> {
        match decision {
            ApprovalDecision::AllowOnce => Ok(()),
            ApprovalDecision::AllowForSession => {
                self.allow_for_session(call, RuleSource::Session);
                Ok(())
            }
            ApprovalDecision::AlwaysAllow => {
                self.allow_for_session(call, RuleSource::Workspace);
                Ok(())
            }
            ApprovalDecision::Deny => Err(ToolError::Denied {
                what: call.denial_subject(),
            }),
        }
    }

    /// [`Self::check`] for a call of any tool; an external one is decided
    /// by [`McpApprovals::check`] under the person's `settings` (none: every
    /// MCP tool asks, and none may run under `read-only`).
    pub fn check_call(
        &self,
        call: &AnyCall,
        settings: Option<&McpApprovals>,
        call_id: &str,
    ) -> ApprovalCheck {
        self.check_call_with_rules(call, settings, call_id).check
    }

    /// [`Self::check_with_rules`] for a call of any tool. An external one
    /// is judged by the MCP rules first (deny refuses under any policy, ask
    /// asks under `auto` too, allow runs under `ask`), then by its MCP
    /// approval settings; under `read-only` only a tool the person marked
    /// read-only may run, whatever allowed it.
    pub fn check_call_with_rules(
        &self,
        call: &AnyCall,
        settings: Option<&McpApprovals>,
        call_id: &str,
    ) -> Checked {
        match call {
            AnyCall::Builtin(call) => self.check_with_rules(call, call_id),
            AnyCall::External(call) => self.check_external(call, settings, call_id),
        }
    }

    fn check_external(
        &self,
        call: &PreparedExternal,
        settings: Option<&McpApprovals>,
        call_id: &str,
    ) -> Checked {
        let default = McpApprovals::default();
        let settings = settings.unwrap_or(&default);
        let settled = settings.check(self.policy, &self.mcp, call.subject());
        let refuse_read_only = || {
            ApprovalCheck::Refuse(ToolError::McpReadOnly {
                tool: call.tool().spec.name.clone(),
            })
        };
        match self.rules.judge_mcp(call.tool().rule_subject()) {
            RuleVerdict::Deny(rule) => Checked::denied(rule, call.denial_subject()),
            _ if settled == McpApprovalCheck::RefuseReadOnly => Checked::policy(refuse_read_only()),
            RuleVerdict::Ask { rules, .. } => Checked {
                check: ApprovalCheck::Ask(call.approval_request(call_id)),
                by_rule: false,
                rules,
            },
            RuleVerdict::Allow(rules) => Checked {
                check: ApprovalCheck::Run,
                by_rule: true,
                rules,
            },
            RuleVerdict::NoRule => Checked::policy(match settled {
                McpApprovalCheck::Run => ApprovalCheck::Run,
                McpApprovalCheck::Ask => ApprovalCheck::Ask(call.approval_request(call_id)),
                McpApprovalCheck::RefuseReadOnly => refuse_read_only(),
            }),
        }
    }

    /// [`Self::resolve`] for a call of any tool: "allow for this session"
    /// of an external tool allows exactly that definition on that server.
    pub fn resolve_call(&mut self, call: &AnyCall, decision: ApprovalDecision) -> ToolResult<()> {
        match call {
            AnyCall::Builtin(call) => self.resolve(call, decision),
            AnyCall::External(call) => self.resolve_external(call, decision),
        }
    }

    fn resolve_external(
        &mut self,
        call: &PreparedExternal,
        decision: ApprovalDecision,
    ) -> ToolResult<()> {
        match decision {
            ApprovalDecision::AllowOnce => Ok(()),
            ApprovalDecision::AllowForSession => {
                self.mcp.allow(call.subject());
                Ok(())
            }
            // The front end saved the proposed rule (this tool on this
            // launch spec) to the workspace's rules; it applies from now.
            // A tool whose name could not be proposed is allowed for the
            // session, no more.
            ApprovalDecision::AlwaysAllow => {
                let saved = propose_mcp_rule(call.tool().rule_subject()).is_some_and(|rule| {
                    self.rules
                        .add(RuleSource::Workspace, RuleKind::Mcp, RuleList::Allow, &rule)
                        .is_ok()
                });
                if !saved {
                    self.mcp.allow(call.subject());
                }
                Ok(())
            }
            ApprovalDecision::Deny => Err(ToolError::Denied {
                what: call.denial_subject(),
            }),
        }
    }
}
