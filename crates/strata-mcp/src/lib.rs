//! Strata's MCP client over stdio, Tauri-free.
//!
//! A server is a child process in its own process group, started with a
//! cleared environment plus an allow-list ([`env`]), its stderr kept in a
//! bounded ring ([`stderr`]), the lines of its stdout that are not messages
//! counted ([`stdout`]), stopped by closing stdin, then SIGTERM and
//! SIGKILL of the whole group, and always reaped ([`process`]). The protocol
//! is the official SDK's (`rmcp`): the `initialize` handshake, paginated
//! `tools/list`, and `tools/call` with an idle timeout, cancellation and
//! progress ([`client`]). The tools are named and their schemas fitted by
//! strata-core's pure rules ([`catalog`]); a crashed server's restarts back
//! off and are limited ([`restart`]).

pub mod catalog;
pub mod client;
pub mod config;
pub mod content;
pub mod env;
mod error;
pub mod leftovers;
pub mod process;
pub mod restart;
pub mod server_log;
pub mod stderr;
pub mod stdout;

pub use catalog::{OfferedTool, QuarantinedTool, ServerTools, ToolOffer, offer_tools};
pub use client::{McpClient, ToolListChanges, ToolProgress};
pub use config::{StdioServerConfig, stdio_servers};
pub use content::result_text;
pub use error::McpError;
pub use leftovers::reap_leftovers;
pub use process::kill_every_server;
pub use rmcp::model::{CallToolResult, Tool};
pub use strata_core::mcp::schema::SchemaDialect;
pub use tokio_util::sync::CancellationToken;
