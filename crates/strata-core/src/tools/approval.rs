//! A session's approvals: its policy, and the tool kinds the person allowed
//! for the rest of the session.
//!
//! "Allow for this session" is remembered per tool *kind*, not per tool
//! name: allowing one `write_file` also lets later `apply_edit` calls run,
//! since both change files; allowing a shell command allows later commands.
//!
//! A shell command whose configured sandbox cannot be had (the kernel lacks
//! it, the launcher is missing) is asked for every time, under `auto` too
//! and after "allow for this session": it would run unconfined.

use std::collections::HashSet;

use strata_protocol::{ApprovalDecision, ApprovalPolicy, ApprovalRequest};

use super::error::{ToolError, ToolResult};
use super::{AnyCall, PreparedCall, PreparedExternal, ToolKind};
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

#[derive(Clone, Debug, Default)]
pub struct SessionApprovals {
    policy: ApprovalPolicy,
    allowed: HashSet<ToolKind>,
    /// MCP tools allowed for the session, by server fingerprint and
    /// definition hash (a changed command or definition asks again).
    mcp: McpSessionAllowances,
}

impl SessionApprovals {
    pub fn new(policy: ApprovalPolicy) -> Self {
        Self {
            policy,
            allowed: HashSet::new(),
            mcp: McpSessionAllowances::default(),
        }
    }

    pub fn policy(&self) -> ApprovalPolicy {
        self.policy
    }

    /// Changes the policy; kinds already allowed for the session stay allowed
    /// (they only matter under `ask`).
    pub fn set_policy(&mut self, policy: ApprovalPolicy) {
        self.policy = policy;
    }

    /// Whether the person allowed this kind for the rest of the session.
    pub fn is_allowed_for_session(&self, kind: ToolKind) -> bool {
        self.allowed.contains(&kind)
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
        if call.kind() == ToolKind::Read {
            return ApprovalCheck::Run;
        }
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
            ApprovalPolicy::Ask if self.allowed.contains(&call.kind()) => ApprovalCheck::Run,
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
                self.allowed.insert(call.kind());
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
        let call = match call {
            AnyCall::Builtin(call) => return self.check(call, call_id),
            AnyCall::External(call) => call,
        };
        let default = McpApprovals::default();
        let settings = settings.unwrap_or(&default);
        match settings.check(self.policy, &self.mcp, call.subject()) {
            McpApprovalCheck::Run => ApprovalCheck::Run,
            McpApprovalCheck::Ask => ApprovalCheck::Ask(call.approval_request(call_id)),
            McpApprovalCheck::RefuseReadOnly => ApprovalCheck::Refuse(ToolError::McpReadOnly {
                tool: call.tool().spec.name.clone(),
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
            ApprovalDecision::Deny => Err(ToolError::Denied {
                what: call.denial_subject(),
            }),
        }
    }
}
