//! The tools offered to the model from every connected server: named by
//! strata-core's `name_tools` (stable, unique, at most 64 bytes) and each
//! schema fitted to the provider by `adapt`; a tool whose schema cannot be
//! fitted is quarantined with its reason, never the whole request.

use std::collections::BTreeMap;

use serde_json::Value;
use strata_core::mcp::naming::{McpToolName, name_tools};
use strata_core::mcp::schema::{Quarantine, SchemaDialect, adapt};

use crate::Tool;

/// One server's listed tools.
#[derive(Debug, Clone)]
pub struct ServerTools {
    pub server: String,
    pub tools: Vec<Tool>,
}

/// A tool as the model is offered it. The description is the server's text:
/// untrusted, to be shown escaped.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedTool {
    pub name: McpToolName,
    pub description: String,
    pub input_schema: Value,
}

/// A tool left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct QuarantinedTool {
    pub server: String,
    pub tool: String,
    pub reason: Quarantine,
}

/// What is offered, sorted by name so the tools array stays stable.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOffer {
    pub offered: Vec<OfferedTool>,
    pub quarantined: Vec<QuarantinedTool>,
}

/// Names and fits every listed tool for `dialect`. A tool a server lists
/// twice is offered once, with its first definition.
#[must_use]
pub fn offer_tools(servers: &[ServerTools], dialect: SchemaDialect) -> ToolOffer {
    let mut definitions: BTreeMap<(&str, &str), &Tool> = BTreeMap::new();
    for server in servers {
        for tool in &server.tools {
            definitions
                .entry((server.server.as_str(), tool.name.as_ref()))
                .or_insert(tool);
        }
    }
    let mut offer = ToolOffer::default();
    for name in name_tools(definitions.keys().copied()) {
        let Some(tool) = definitions.get(&(name.server.as_str(), name.tool.as_str())) else {
            continue;
        };
        let schema = Value::Object(tool.input_schema.as_ref().clone());
        match adapt(&schema, dialect) {
            Ok(input_schema) => offer.offered.push(OfferedTool {
                description: tool.description.as_deref().unwrap_or_default().to_owned(),
                input_schema,
                name,
            }),
            Err(reason) => offer.quarantined.push(QuarantinedTool {
                server: name.server,
                tool: name.tool,
                reason,
            }),
        }
    }
    offer
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    fn tool(name: &str, schema: Value) -> Tool {
        let Value::Object(schema) = schema else {
            panic!("a schema object")
        };
        Tool::new(name.to_owned(), format!("{name} tool"), Arc::new(schema))
    }

    fn listed() -> Vec<ServerTools> {
        vec![
            ServerTools {
                server: "zeta".into(),
                tools: vec![tool("search", json!({"type": "object"}))],
            },
            ServerTools {
                server: "alpha".into(),
                tools: vec![
                    tool(
                        "read file",
                        json!({"properties": {"path": {"type": "string"}}}),
                    ),
                    tool("either", json!({"anyOf": [{"type": "object"}]})),
                    tool(
                        "read file",
                        json!({"type": "object", "description": "second"}),
                    ),
                ],
            },
        ]
    }

    #[test]
    fn tools_are_named_sorted_and_fitted() {
        let offer = offer_tools(&listed(), SchemaDialect::OpenAi);
        let names: Vec<&str> = offer.offered.iter().map(|t| t.name.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "mcp__alpha__either",
                "mcp__alpha__read_file",
                "mcp__zeta__search"
            ]
        );
        let read = &offer.offered[1];
        assert_eq!(
            read.name.tool, "read file",
            "the call uses the server's own name"
        );
        // The first definition wins; the missing type was filled in.
        assert_eq!(read.input_schema["type"], "object");
        assert!(read.input_schema.get("description").is_none());
        assert!(offer.quarantined.is_empty());
    }

    #[test]
    fn a_schema_the_provider_refuses_quarantines_only_that_tool() {
        let offer = offer_tools(&listed(), SchemaDialect::Anthropic);
        assert_eq!(offer.offered.len(), 2);
        assert_eq!(
            offer.quarantined,
            [QuarantinedTool {
                server: "alpha".into(),
                tool: "either".into(),
                reason: Quarantine::TopLevelCombinator("anyOf"),
            }]
        );
    }
}
