//! MCP servers for both front ends: the `[mcp_servers]` tables of
//! `config.toml` ([`config`]), the person's edits of them and a one-off
//! start to try a server ([`manage`]), and the servers a session run starts
//! and stops ([`servers`]), whose tools reach strata-core's registry through
//! its `ExternalTools` seam.

pub mod config;
pub mod import;
pub mod manage;
pub mod servers;

pub use config::{McpConfigProblem, McpServerEntry, approvals, read_servers};
pub use servers::{McpServers, McpTools, dialect_for, servers_stopped};
