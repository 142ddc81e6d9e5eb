use serde_json::json;
use strata_protocol::ToolSpec;

use super::*;
use crate::mcp::fingerprint::{ServerLaunch, tool_definition_hash};
use crate::tools::ToolHints;

fn tool(server: &str, command: &str, name: &str, description: &str) -> ExternalTool {
    ExternalTool {
        spec: ToolSpec {
            name: format!("mcp__{server}__{name}"),
            description: description.into(),
            parameters: json!({"type": "object"}),
        },
        server: server.into(),
        tool: name.into(),
        fingerprint: ServerLaunch {
            command,
            args: &[],
            cwd: None,
            env_names: Default::default(),
        }
        .fingerprint(),
        definition: tool_definition_hash(&json!({ "name": name, "description": description })),
        hints: ToolHints::default(),
    }
}

#[test]
fn the_catalog_groups_tools_by_server_and_keeps_the_specs_as_sent() {
    let tools = vec![
        tool("b", "node b.js", "sum", "Adds"),
        tool("a", "node a.js", "echo", "Echoes"),
        tool("b", "node b.js", "echo", "Echoes too"),
    ];
    let catalog = catalog_of(&tools);
    let specs: Vec<ToolSpec> = tools.iter().map(|tool| tool.spec.clone()).collect();
    assert_eq!(catalog.tools, specs);
    let servers: Vec<(&str, Vec<&str>)> = catalog
        .servers
        .iter()
        .map(|server| {
            let names = server.tools.iter().map(|tool| tool.tool.as_str()).collect();
            (server.name.as_str(), names)
        })
        .collect();
    assert_eq!(
        servers,
        vec![("a", vec!["echo"]), ("b", vec!["sum", "echo"])]
    );
    assert_eq!(
        catalog.servers[1].fingerprint,
        tools[0].fingerprint.as_str()
    );
    assert_eq!(
        catalog.servers[1].tools[0].definition,
        tools[0].definition.as_str()
    );
}

#[test]
fn a_catalog_is_recorded_only_when_it_differs_from_the_recorded_one() {
    let first = catalog_of(&[tool("a", "node a.js", "echo", "Echoes")]);
    assert_eq!(catalog_to_record(first.clone(), None), Some(first.clone()));
    assert_eq!(catalog_to_record(first.clone(), Some(&first)), None);
    // A changed description is a changed catalog.
    let changed = catalog_of(&[tool("a", "node a.js", "echo", "Echoes loudly")]);
    assert_eq!(
        catalog_to_record(changed.clone(), Some(&first)),
        Some(changed)
    );
    // So is the same tool from a server launched differently.
    let relaunched = catalog_of(&[tool("a", "node other.js", "echo", "Echoes")]);
    assert_eq!(
        catalog_to_record(relaunched.clone(), Some(&first)),
        Some(relaunched)
    );
}

#[test]
fn no_tools_are_recorded_only_after_a_catalog_that_had_some() {
    let empty = catalog_of(&[]);
    assert_eq!(catalog_to_record(empty.clone(), None), None);
    let first = catalog_of(&[tool("a", "node a.js", "echo", "Echoes")]);
    assert_eq!(
        catalog_to_record(empty.clone(), Some(&first)),
        Some(empty.clone())
    );
    assert_eq!(catalog_to_record(empty.clone(), Some(&empty)), None);
}
