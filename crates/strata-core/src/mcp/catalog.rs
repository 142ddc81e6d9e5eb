//! The `mcp_catalog` decision: which external tools a round offers, with
//! their servers, and whether that differs from what the session last
//! recorded. Pure: the agent reads the tools at the round's start and
//! writes the record this returns.

use strata_protocol::{McpCatalog, McpCatalogServer, McpCatalogTool};

use crate::tools::ExternalTool;

/// The catalog of `tools` (as [`crate::tools::ExternalTools::tools`] lists
/// them): their specs in order, and each server with the tools it offered,
/// servers sorted by name.
#[must_use]
pub fn catalog_of(tools: &[ExternalTool]) -> McpCatalog {
    let mut servers: Vec<McpCatalogServer> = Vec::new();
    for tool in tools {
        let entry = McpCatalogTool {
            name: tool.spec.name.clone(),
            tool: tool.tool.clone(),
            definition: tool.definition.as_str().to_owned(),
        };
        match servers.iter_mut().find(|server| {
            server.name == tool.server && server.fingerprint == tool.fingerprint.as_str()
        }) {
            Some(server) => server.tools.push(entry),
            None => servers.push(McpCatalogServer {
                name: tool.server.clone(),
                fingerprint: tool.fingerprint.as_str().to_owned(),
                tools: vec![entry],
            }),
        }
    }
    servers.sort_by(|a, b| (&a.name, &a.fingerprint).cmp(&(&b.name, &b.fingerprint)));
    McpCatalog {
        tools: tools.iter().map(|tool| tool.spec.clone()).collect(),
        servers,
    }
}

/// The catalog to record before a round that offers `current`, given the
/// `recorded` one in force: `None` when nothing changed. A session that
/// never offered an external tool records none; one whose servers stopped
/// offering tools records the empty catalog once.
#[must_use]
pub fn catalog_to_record(current: McpCatalog, recorded: Option<&McpCatalog>) -> Option<McpCatalog> {
    let unchanged = match recorded {
        None => current.tools.is_empty() && current.servers.is_empty(),
        Some(recorded) => *recorded == current,
    };
    (!unchanged).then_some(current)
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
