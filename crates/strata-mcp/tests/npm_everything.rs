//! The client against the reference server `@modelcontextprotocol/server-everything`
//! over stdio, installed by scripts/mcp-npm-servers.sh (the Makefile's test
//! set-up runs it). Without node or the package each test prints why it
//! skipped; under CI=true it fails instead.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;

use serde_json::json;
use strata_mcp::{CancellationToken, McpClient, StdioServerConfig};
use support::{arguments, is_reaped, text_of};
use tokio::sync::mpsc;

/// The server's config, or `None` after saying why the test skips.
fn config_or_skip(test: &str) -> Option<StdioServerConfig> {
    let entry = strata_testkit::npm::needs_everything(test)?;
    Some(StdioServerConfig::new(
        "everything",
        "node",
        &[entry.to_str().unwrap(), "stdio"],
    ))
}

#[tokio::test]
async fn server_everything_lists_its_tools_and_echoes() {
    let Some(config) = config_or_skip("server_everything_lists_its_tools_and_echoes") else {
        return;
    };
    let client = McpClient::start(&config).await.unwrap();
    let (name, _version) = client.server_version().unwrap();
    assert!(name.contains("everything"), "{name}");
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    for expected in [
        "echo",
        "get-sum",
        "get-env",
        "trigger-long-running-operation",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let offer = strata_mcp::offer_tools(
        &[strata_mcp::ServerTools {
            server: "everything".into(),
            tools,
        }],
        strata_mcp::SchemaDialect::OpenAi,
    );
    assert!(
        offer
            .offered
            .iter()
            .any(|tool| tool.name.name == "mcp__everything__echo"),
        "{:?}",
        offer
            .offered
            .iter()
            .map(|tool| &tool.name.name)
            .collect::<Vec<_>>()
    );

    let never = CancellationToken::new();
    let echoed = client
        .call_tool(
            "echo",
            arguments(json!({"message": "hello from Strata"})),
            &never,
            None,
        )
        .await
        .unwrap();
    assert_eq!(text_of(&echoed), "Echo: hello from Strata");
    let pid = i32::try_from(client.pid()).unwrap();
    client.stop().await;
    assert!(is_reaped(pid), "node outlived the stop");
}

#[tokio::test]
async fn server_everything_never_sees_a_secret_from_stratas_environment() {
    let Some(config) =
        config_or_skip("server_everything_never_sees_a_secret_from_stratas_environment")
    else {
        return;
    };
    let mut parent: BTreeMap<String, String> = strata_mcp::env::current_environment();
    parent.insert(
        "ANTHROPIC_API_KEY".into(),
        "sk-ant-strata-test-secret".into(),
    );
    let client = McpClient::start_with_parent_env(&config, &parent)
        .await
        .unwrap();
    let never = CancellationToken::new();
    let result = client
        .call_tool("get-env", None, &never, None)
        .await
        .unwrap();
    let shown = text_of(&result);
    assert!(
        shown.contains("HOME"),
        "get-env shows the environment: {shown}"
    );
    assert!(!shown.contains("sk-ant-strata-test-secret"), "{shown}");
    assert!(!shown.contains("ANTHROPIC_API_KEY"), "{shown}");
    client.stop().await;
}

#[tokio::test]
async fn server_everything_reports_progress_of_a_long_operation() {
    let Some(config) = config_or_skip("server_everything_reports_progress_of_a_long_operation")
    else {
        return;
    };
    let client = McpClient::start(&config).await.unwrap();
    let (progress, mut updates) = mpsc::unbounded_channel();
    let never = CancellationToken::new();
    client
        .call_tool(
            "trigger-long-running-operation",
            arguments(json!({"duration": 0.6, "steps": 3})),
            &never,
            Some(progress),
        )
        .await
        .unwrap();
    let mut steps = Vec::new();
    while let Ok(update) = updates.try_recv() {
        steps.push((update.progress, update.total));
    }
    // In order and none missing, but the last may race the result (the SDK
    // handles each notification in a task of its own).
    let expected = [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))];
    assert!(steps.len() >= 2, "{steps:?}");
    assert_eq!(steps, expected[..steps.len()]);
    client.stop().await;
}

#[tokio::test]
async fn dropping_the_client_leaves_no_node_process() {
    let Some(config) = config_or_skip("dropping_the_client_leaves_no_node_process") else {
        return;
    };
    let client = McpClient::start(&config).await.unwrap();
    let pid = i32::try_from(client.pid()).unwrap();
    drop(client);
    assert!(is_reaped(pid), "node {pid} outlived its client");
}
