//! The person's MCP servers as `strata mcp list|get|test --json` (and,
//! later, the desktop's Settings) show them: each `[mcp_servers.NAME]`
//! table of `config.toml`, the tables that could not be read, and what
//! starting one server once found. Environment values are never shown:
//! they are where servers' secrets live; only their names are.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How calls of a server's tools are approved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum McpApprovalMode {
    /// Each call waits for the person.
    #[default]
    Ask,
    /// Calls run without asking.
    Auto,
}

impl std::fmt::Display for McpApprovalMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Ask => "ask",
            Self::Auto => "auto",
        })
    }
}

/// One configured server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpServerView {
    pub name: String,
    /// `false`: kept in the config, not started.
    pub enabled: bool,
    pub command: String,
    pub args: Vec<String>,
    /// The server's working directory; Strata's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Names of the variables the config sets (their values are not shown).
    pub env: Vec<String>,
    /// Names of the variables copied from Strata's environment.
    pub env_vars: Vec<String>,
    pub approval: McpApprovalMode,
    /// Tools (by the server's own names) the person marked read-only.
    pub read_only_tools: Vec<String>,
    #[ts(type = "number")]
    pub startup_timeout_ms: u64,
    #[ts(type = "number")]
    pub tool_timeout_ms: u64,
    /// What approvals are keyed by: the launch spec's digest (command,
    /// arguments, working directory, variable names), not the name.
    pub fingerprint: String,
}

/// A `[mcp_servers.NAME]` table that could not be read: it is not started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpServerProblem {
    pub name: String,
    pub message: String,
}

/// `strata mcp list|get|add|remove|enable|disable --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpServerListing {
    /// [`crate::CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// Always `mcp_servers`.
    pub kind: crate::OutputKind,
    /// The config file the servers are in.
    pub config: String,
    /// In name order.
    pub servers: Vec<McpServerView>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<McpServerProblem>,
}

/// A step of starting a server once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum McpTestPhaseKind {
    /// From spawning the process to the end of the `initialize` handshake.
    Initialize,
    /// Every page of `tools/list`.
    ListTools,
    /// Closing stdin until the process group is gone.
    Stop,
}

/// How long one phase took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpTestPhase {
    pub phase: McpTestPhaseKind,
    #[ts(type = "number")]
    pub millis: u64,
}

/// A tool the server lists, as the model would be offered it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpTestTool {
    /// The name the model sees (`mcp__server__tool`).
    pub name: String,
    /// The server's own name for it.
    pub tool: String,
    pub description: String,
    /// The tokens its definition (name, description, parameters) costs in
    /// every request, as [`McpServerTest::estimator`] counts.
    #[ts(type = "number")]
    pub tokens: u64,
}

/// A listed tool that cannot be offered, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpLeftOutTool {
    pub tool: String,
    pub reason: String,
}

/// `strata mcp test NAME --json`: what starting the server once found.
/// Every string from the server is escaped (control characters shown as
/// escapes), never raw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpServerTest {
    /// [`crate::CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// Always `mcp_test`.
    pub kind: crate::OutputKind,
    pub server: String,
    /// The server started, listed its tools and stopped.
    pub ok: bool,
    /// The phases reached, in order.
    pub phases: Vec<McpTestPhase>,
    /// The name and version the server gave in its handshake.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<String>,
    pub tools: Vec<McpTestTool>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<McpLeftOutTool>,
    /// What counted the tokens (`o200k_base`).
    pub estimator: String,
    /// Every offered definition together: what the server adds to each
    /// request.
    #[ts(type = "number")]
    pub definition_tokens: u64,
    /// The last lines the server wrote to stderr.
    pub stderr_tail: Vec<String>,
    /// Lines on stdout that were not protocol messages.
    #[ts(type = "number")]
    pub stray_stdout_lines: u64,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `list_mcp_servers`: every configured server (what `strata mcp list
/// --json` prints).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListMcpServers {}

/// `add_mcp_server`: a stdio server started by `command_line` (split as a
/// POSIX shell splits words, without running one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AddMcpServer {
    pub name: String,
    pub command_line: String,
    /// Variables copied from Strata's environment at start.
    #[serde(default)]
    pub env_vars: Vec<String>,
    #[serde(default)]
    pub approval: McpApprovalMode,
}

/// `remove_mcp_server`: takes a server out of config.toml.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RemoveMcpServer {
    pub name: String,
}

/// `test_mcp_server`: starts a server once (what `strata mcp test` does).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TestMcpServer {
    pub name: String,
}

/// `set_mcp_server_enabled`: whether sessions start the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SetMcpServerEnabled {
    pub name: String,
    pub enabled: bool,
}

/// A server `strata mcp import` added (disabled, for the person to enable).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpImportedServer {
    pub name: String,
    /// The file it came from.
    pub source: String,
}

/// A server `strata mcp import` found and did not add, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpImportSkipped {
    pub name: String,
    pub source: String,
    pub reason: String,
}

/// `strata mcp import --json`: what other tools' MCP configs held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpImportReport {
    /// [`crate::CONTRACT_FORMAT_VERSION`].
    pub v: u32,
    /// Always `mcp_import`.
    pub kind: crate::OutputKind,
    /// The config file the servers were added to.
    pub config: String,
    /// The files read, in order.
    pub read: Vec<String>,
    pub imported: Vec<McpImportedServer>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<McpImportSkipped>,
    /// Files that exist but could not be read or parsed: `{ name: path, source: path, reason }`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<McpImportSkipped>,
}

/// `mcp_server_log`: the last lines of a server's kept stderr.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetMcpServerLog {
    pub name: String,
    /// How many lines from the end (at most 2,000).
    #[ts(type = "number")]
    pub lines: u32,
}

/// A server's log as `strata mcp logs` shows it: each run under a line
/// starting `=== `; every line escaped (control characters as escapes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct McpServerLog {
    pub name: String,
    pub lines: Vec<String>,
}
