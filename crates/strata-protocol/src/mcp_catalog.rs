//! `mcp_catalog` record: the tools the session's MCP servers offered, as
//! sent to the model, and which server offered which. Written at a round
//! boundary when the catalog differs from the last recorded one, before the
//! round that first sends it, so replay, a fork and the console know what
//! each server offered with no server running.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::model::ToolSpec;

/// The external (MCP) tool catalog from here on; the last one wins. An empty
/// catalog says the servers offer no tools any more.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct McpCatalog {
    /// The external tool specs exactly as the requests send them, in their
    /// order (sorted by name).
    pub tools: Vec<ToolSpec>,
    /// Every server that offered a tool, sorted by name.
    pub servers: Vec<McpCatalogServer>,
}

/// One server of an [`McpCatalog`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpCatalogServer {
    /// The server's configured name.
    pub name: String,
    /// Its launch spec's fingerprint (`sha256:` and 64 hex digits).
    pub fingerprint: String,
    /// The tools it offered, in the catalog's order.
    pub tools: Vec<McpCatalogTool>,
}

/// One tool a server offered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpCatalogTool {
    /// The name the model sees (`mcp__<server>__<tool>`), as in `tools`.
    pub name: String,
    /// The name the server lists it under.
    pub tool: String,
    /// The hash of its definition as listed (`sha256:` and 64 hex digits).
    pub definition: String,
}

impl McpCatalog {
    /// How many tools the catalog offers.
    #[must_use]
    pub fn tool_count(&self) -> usize {
        self.tools.len()
    }
}
