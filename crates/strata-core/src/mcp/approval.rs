//! Whether an MCP tool call runs, asks, or is refused: a pure decision.
//!
//! MCP tools ask by default. The person may set `approval = "auto"` (or
//! `"ask"`) for a server and override it per tool; those settings are kept
//! under the server's [`ServerFingerprint`], so they apply only to the
//! launch spec they were made for: a renamed server keeps them, a changed
//! command under an old name asks again. "Allow for this session" is keyed
//! by the fingerprint and the tool's [`ToolDefinitionHash`], so a definition
//! changed after the person allowed it asks again. Under the session's
//! `read-only` policy only tools the person marked read-only may run: the
//! server's `readOnlyHint` is a hint from untrusted text, not a marking.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use strata_protocol::ApprovalPolicy;

use super::fingerprint::{ServerFingerprint, ToolDefinitionHash};

/// A configured approval for a server or one of its tools.
pub use strata_protocol::McpApprovalMode;

/// The person's settings for one tool of a server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpToolSettings {
    /// Overrides the server's approval for this tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<McpApprovalMode>,
    /// The person marked this tool as only reading: it may run under the
    /// `read-only` policy.
    #[serde(default)]
    pub read_only: bool,
}

/// The person's settings for one server, made for one launch spec.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSettings {
    #[serde(default)]
    pub approval: McpApprovalMode,
    /// By the tool's name as the server lists it.
    #[serde(default)]
    pub tools: BTreeMap<String, McpToolSettings>,
}

/// Every server's settings, by fingerprint (kept in the person's state,
/// never in a project).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct McpApprovals {
    pub servers: BTreeMap<ServerFingerprint, McpServerSettings>,
}

/// One MCP tool call, as far as approval is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpCallSubject<'a> {
    pub fingerprint: &'a ServerFingerprint,
    /// The tool's name as the server lists it.
    pub tool: &'a str,
    pub definition: &'a ToolDefinitionHash,
}

/// What to do with an MCP tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpApprovalCheck {
    Run,
    /// Show the call to the person (server, tool, escaped arguments, the
    /// annotations labelled as hints).
    Ask,
    /// The session is read-only and the person has not marked this tool
    /// read-only.
    RefuseReadOnly,
}

/// The tools the person allowed for the rest of the session.
#[derive(Debug, Clone, Default)]
pub struct McpSessionAllowances {
    allowed: HashSet<(ServerFingerprint, ToolDefinitionHash)>,
}

impl McpSessionAllowances {
    /// Remembers "allow for this session" for exactly this definition of
    /// this tool on this launch spec.
    pub fn allow(&mut self, call: McpCallSubject<'_>) {
        self.allowed
            .insert((call.fingerprint.clone(), call.definition.clone()));
    }

    #[must_use]
    pub fn is_allowed(&self, call: McpCallSubject<'_>) -> bool {
        self.allowed
            .contains(&(call.fingerprint.clone(), call.definition.clone()))
    }
}

impl McpApprovals {
    /// The decision for `call` under the session's `policy`.
    #[must_use]
    pub fn check(
        &self,
        policy: ApprovalPolicy,
        session: &McpSessionAllowances,
        call: McpCallSubject<'_>,
    ) -> McpApprovalCheck {
        let server = self.servers.get(call.fingerprint);
        let tool = server.and_then(|server| server.tools.get(call.tool));
        let mode = tool
            .and_then(|tool| tool.approval)
            .or(server.map(|server| server.approval))
            .unwrap_or_default();
        let marked_read_only = tool.is_some_and(|tool| tool.read_only);
        match policy {
            ApprovalPolicy::Auto => McpApprovalCheck::Run,
            ApprovalPolicy::ReadOnly if !marked_read_only => McpApprovalCheck::RefuseReadOnly,
            ApprovalPolicy::Ask | ApprovalPolicy::ReadOnly => match mode {
                McpApprovalMode::Auto => McpApprovalCheck::Run,
                McpApprovalMode::Ask if session.is_allowed(call) => McpApprovalCheck::Run,
                McpApprovalMode::Ask => McpApprovalCheck::Ask,
            },
        }
    }
}
