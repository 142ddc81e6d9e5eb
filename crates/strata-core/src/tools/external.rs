//! The seam for tools that come from outside the core: today the tools of
//! MCP servers, which `strata-app` connects and offers through
//! [`ExternalTools`].
//!
//! The registry offers their specs after Strata's own tools every round
//! (whatever is ready at that round's start), routes every `mcp__` name to
//! them, decides their approvals with [`crate::mcp::approval`], and gives
//! their outputs the same secret redaction and [`super::OutputCap`] as a
//! built-in tool's. Server text (names, descriptions, outputs) is hostile:
//! the approval request shows it escaped.

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Instant;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use strata_protocol::{ApprovalKind, ApprovalRequest, ToolCallStatus, ToolSpec};

use super::error::{ToolError, ToolResult};
use super::rules::{McpRuleSubject, propose_mcp_rule};
use super::{PreparedCall, ToolOutcome, ToolRegistry};
use crate::mcp::approval::{McpApprovals, McpCallSubject};
use crate::mcp::fingerprint::{ServerFingerprint, ToolDefinitionHash};
use tokio_util::sync::CancellationToken;

/// The prefix of every external tool's name (`mcp__<server>__<tool>`).
pub const EXTERNAL_PREFIX: &str = "mcp__";

/// What a server says about a tool (its MCP annotations): hints from
/// untrusted text, shown to the person as such and never trusted for a
/// decision (a read-only marking is the person's, not the server's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolHints {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

impl ToolHints {
    /// The hints as an approval shows them, e.g. `readOnlyHint`,
    /// `destructiveHint: false`.
    pub fn labels(&self) -> Vec<String> {
        [
            ("readOnlyHint", self.read_only),
            ("destructiveHint", self.destructive),
            ("idempotentHint", self.idempotent),
            ("openWorldHint", self.open_world),
        ]
        .into_iter()
        .filter_map(|(name, value)| match value? {
            true => Some(name.to_owned()),
            false => Some(format!("{name}: false")),
        })
        .collect()
    }
}

/// One tool from outside, as offered to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalTool {
    /// What the model sees: the `mcp__` name, the server's description and
    /// the schema as fitted for the provider.
    pub spec: ToolSpec,
    /// The server's configured name.
    pub server: String,
    /// The tool's name as the server lists it.
    pub tool: String,
    pub fingerprint: ServerFingerprint,
    pub definition: ToolDefinitionHash,
    pub hints: ToolHints,
}

impl ExternalTool {
    fn subject(&self) -> McpCallSubject<'_> {
        McpCallSubject {
            fingerprint: &self.fingerprint,
            tool: &self.tool,
            definition: &self.definition,
        }
    }

    /// The tool as approval rules see it.
    pub fn rule_subject(&self) -> McpRuleSubject<'_> {
        McpRuleSubject {
            server: &self.server,
            tool: &self.tool,
            fingerprint: &self.fingerprint,
        }
    }
}

/// What an external call returned: its text (every text part, and the
/// structured content, as the implementation renders them) and how it
/// ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalOutput {
    pub text: String,
    pub status: ToolCallStatus,
}

/// Where external tools come from and how they are called. Implementations
/// must not block: [`Self::tools`] is read at every round's start.
pub trait ExternalTools: Send + Sync + Debug {
    /// The tools ready now, sorted by name (a stable tools array keeps the
    /// provider's prompt cache warm).
    fn tools(&self) -> Vec<ExternalTool>;

    /// Calls `tool`; `cancel` ends the call at once (and tells the server).
    /// Failures are outputs with an error status.
    fn call<'a>(
        &'a self,
        tool: &'a ExternalTool,
        arguments: Option<Map<String, Value>>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ExternalOutput>;
}

/// The external tools of a registry and the person's approval settings
/// for them.
#[derive(Clone, Debug)]
pub(super) struct External {
    tools: Arc<dyn ExternalTools>,
    settings: McpApprovals,
}

/// A validated call of an external tool.
#[derive(Clone, Debug)]
pub struct PreparedExternal {
    tool: ExternalTool,
    arguments: Option<Map<String, Value>>,
    /// The arguments as an approval shows them: redacted and escaped.
    shown: String,
}

impl PreparedExternal {
    pub fn tool(&self) -> &ExternalTool {
        &self.tool
    }

    pub fn approval_request(&self, call_id: &str) -> ApprovalRequest {
        ApprovalRequest {
            call_id: call_id.to_owned(),
            tool: self.tool.spec.name.clone(),
            kind: ApprovalKind::Mcp {
                server: escaped(&self.tool.server),
                tool: escaped(&self.tool.tool),
                arguments: self.shown.clone(),
                hints: self.tool.hints.labels(),
            },
            proposed_rules: propose_mcp_rule(self.tool.rule_subject())
                .into_iter()
                .collect(),
        }
    }

    pub(crate) fn denial_subject(&self) -> String {
        format!(
            "call of {} on MCP server {}",
            escaped(&self.tool.tool),
            escaped(&self.tool.server)
        )
    }

    pub(super) fn subject(&self) -> McpCallSubject<'_> {
        self.tool.subject()
    }
}

/// A call prepared for whichever tool it names.
#[derive(Clone, Debug)]
pub enum AnyCall {
    Builtin(PreparedCall),
    External(PreparedExternal),
}

/// Control characters shown as `\u{..}`: a hostile name or argument cannot
/// move a terminal's cursor or hide text.
fn escaped(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            shown.extend(c.escape_unicode());
        } else {
            shown.push(c);
        }
    }
    shown
}

impl ToolRegistry {
    /// These tools, plus the `tools` from outside with the person's
    /// approval `settings` for them.
    #[must_use]
    pub fn with_external(mut self, tools: Arc<dyn ExternalTools>, settings: McpApprovals) -> Self {
        self.external = Some(External { tools, settings });
        self
    }

    /// The external tools ready now (none without [`Self::with_external`]).
    pub fn external_tools(&self) -> Vec<ExternalTool> {
        self.external
            .as_ref()
            .map(|external| external.tools.tools())
            .unwrap_or_default()
    }

    /// The person's approval settings for external tools.
    pub fn external_settings(&self) -> Option<&McpApprovals> {
        self.external.as_ref().map(|external| &external.settings)
    }

    /// Prepares a call of any tool: an `mcp__` name is an external tool's,
    /// every other name a built-in one's ([`Self::prepare`]).
    pub fn prepare_call(&self, name: &str, arguments: &str) -> ToolResult<AnyCall> {
        if !name.starts_with(EXTERNAL_PREFIX) {
            return self.prepare(name, arguments).map(AnyCall::Builtin);
        }
        let tools = self.external_tools();
        let Some(tool) = tools.iter().find(|tool| tool.spec.name == name) else {
            let mut available: Vec<String> = super::tool_names::ALL
                .iter()
                .map(|&name| name.to_owned())
                .collect();
            available.extend(tools.iter().map(|tool| tool.spec.name.clone()));
            return Err(ToolError::UnknownTool {
                name: name.to_owned(),
                available: available.join(", "),
            });
        };
        let arguments = match arguments.trim() {
            "" => None,
            text => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(object)) => Some(object),
                Ok(_) => {
                    return Err(ToolError::InvalidMcpArguments {
                        tool: name.to_owned(),
                        message: "the arguments must be a JSON object".into(),
                    });
                }
                Err(error) => {
                    return Err(ToolError::InvalidMcpArguments {
                        tool: name.to_owned(),
                        message: error.to_string(),
                    });
                }
            },
        };
        let shown = arguments
            .as_ref()
            .map(|object| serde_json::to_string_pretty(object).unwrap_or_default())
            .unwrap_or_else(|| "{}".to_owned());
        Ok(AnyCall::External(PreparedExternal {
            tool: tool.clone(),
            arguments,
            shown: escaped(&self.redactor.redact(&shown)),
        }))
    }

    /// Runs a prepared (and, if needed, approved) call of any tool.
    pub async fn execute_call(&self, call: &AnyCall, cancel: &CancellationToken) -> ToolOutcome {
        let call = match call {
            AnyCall::Builtin(call) => return self.execute(call, cancel).await,
            AnyCall::External(call) => call,
        };
        let started = Instant::now();
        let name = &call.tool.spec.name;
        let Some(external) = &self.external else {
            return self.finish(
                format!("{name} is not available in this session."),
                ToolCallStatus::Error,
                None,
                started,
            );
        };
        if cancel.is_cancelled() {
            return self.finish(
                format!("The {name} call was cancelled before it ran."),
                ToolCallStatus::Cancelled,
                None,
                started,
            );
        }
        let output = external
            .tools
            .call(&call.tool, call.arguments.clone(), cancel)
            .await;
        self.finish(output.text, output.status, None, started)
    }
}

#[cfg(test)]
#[path = "external_tests.rs"]
mod tests;
