//! The one error type of the crate. Server-provided text in it (stderr) is
//! already escaped for a terminal by [`crate::stderr::printable`].

use std::time::Duration;

/// Why an MCP server could not be configured, started, listed or called.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("MCP server name {0:?} is not 1 to 32 characters of A-Z, a-z, 0-9, '_' and '-'")]
    InvalidServerName(String),
    #[error(
        "MCP server {server}: {name} is listed in env_vars but is not set in Strata's environment"
    )]
    MissingEnvVar { server: String, name: String },
    #[error(
        "MCP server {server}: {name} cannot be set by a server's config (it decides which programs and libraries run)"
    )]
    ProtectedEnvVar { server: String, name: String },
    #[error("MCP server {server}: {name:?} is not a valid environment variable name")]
    InvalidEnvVarName { server: String, name: String },
    #[error("MCP server {server}: the value of {name} contains a NUL byte")]
    InvalidEnvVarValue { server: String, name: String },
    #[error("MCP server {server}: could not start {command:?}: {source}")]
    Spawn {
        server: String,
        command: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "MCP server {server} did not finish starting within {timeout:?}; its stderr ends with:\n{stderr_tail}"
    )]
    StartupTimeout {
        server: String,
        timeout: Duration,
        stderr_tail: String,
    },
    #[error(
        "MCP server {server} failed the initialize handshake: {reason}; its stderr ends with:\n{stderr_tail}"
    )]
    Handshake {
        server: String,
        reason: String,
        stderr_tail: String,
    },
    #[error(
        "MCP server {server} exited or closed its output; its stderr ends with:\n{stderr_tail}"
    )]
    ServerExited { server: String, stderr_tail: String },
    #[error("MCP server {server}: {tool} sent no result and no progress for {timeout:?}")]
    CallTimeout {
        server: String,
        tool: String,
        timeout: Duration,
    },
    #[error("MCP server {server}: the call to {tool} was cancelled")]
    Cancelled { server: String, tool: String },
    #[error("MCP server {server}: tools/list went on past {pages} pages")]
    TooManyPages { server: String, pages: usize },
    #[error("MCP server {server}: tools/list sent the same cursor twice")]
    RepeatedCursor { server: String },
    #[error("MCP server {server} sent a result that is not a tool result")]
    UnexpectedResponse { server: String },
    #[error("MCP server {server}: {source}")]
    Protocol {
        server: String,
        #[source]
        source: rmcp::ServiceError,
    },
}
