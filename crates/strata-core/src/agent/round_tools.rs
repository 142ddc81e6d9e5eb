//! The tools a round offers, and the `mcp_catalog` record written before a
//! round whose external tools differ from the last recorded catalog.

use strata_protocol::{RecordBody, ToolSpec};

use super::Agent;
use crate::error::Result;
use crate::mcp::catalog::{catalog_of, catalog_to_record};
use crate::tools::ExternalTool;

impl Agent {
    /// Every tool a round offers: the workspace's, then the session's own
    /// (recall where offered, `update_plan` under every policy), then the
    /// external (MCP) tools ready now, sorted by name.
    pub(super) fn round_tool_specs(&self) -> Vec<ToolSpec> {
        self.round_tool_specs_with(&self.tools.external_tools())
    }

    /// [`Self::round_tool_specs`] with the `external` tools read at the
    /// round's start (the ones its catalog record names).
    pub(super) fn round_tool_specs_with(&self, external: &[ExternalTool]) -> Vec<ToolSpec> {
        let mut tools = self.tools.specs();
        if self.offers_recall() {
            tools.push(crate::recall::recall_spec());
        }
        tools.push(crate::plan::update_plan_spec());
        tools.extend(external.iter().map(|tool| tool.spec.clone()));
        tools
    }

    /// The external tools ready at a round's start; before returning them,
    /// an `mcp_catalog` record when they differ from the recorded catalog,
    /// so the round that first sends them follows their record.
    pub(super) fn round_external_tools(&mut self) -> Result<Vec<ExternalTool>> {
        let external = self.tools.external_tools();
        if let Some(catalog) =
            catalog_to_record(catalog_of(&external), self.session.state().mcp_catalog())
        {
            self.session.append(RecordBody::McpCatalog(catalog))?;
        }
        Ok(external)
    }
}
