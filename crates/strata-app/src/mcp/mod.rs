//! MCP servers for both front ends: the `[mcp_servers]` tables of
//! `config.toml` ([`config`]).

pub mod config;

pub use config::{McpConfigProblem, McpServerEntry, approvals, read_servers};
