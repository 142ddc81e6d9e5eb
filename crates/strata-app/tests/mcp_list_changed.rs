//! A running server's `notifications/tools/list_changed`: the session's MCP
//! tools are listed again, and the next read of the catalog (a round
//! boundary) offers the new tool; the fixture server is a real process.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use strata_app::mcp::{McpServerEntry, McpServers};
use strata_core::mcp::approval::McpApprovalMode;
use strata_core::tools::{CancellationToken, ExternalTools};
use strata_mcp::{SchemaDialect, StdioServerConfig};

fn offered(servers: &McpServers) -> Vec<String> {
    servers
        .tools()
        .tools()
        .into_iter()
        .map(|tool| tool.spec.name)
        .collect()
}

fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_the_server_adds_is_offered_from_the_next_catalog_read() {
    let fixture = strata_testkit::mcp_fixture::path();
    let entry = McpServerEntry {
        launch: StdioServerConfig::new("fixture", fixture.to_str().unwrap(), &[]),
        enabled: true,
        approval: McpApprovalMode::Auto,
        read_only_tools: Vec::new(),
    };
    let logs = tempfile::tempdir().unwrap();
    let servers = McpServers::start(&[entry], SchemaDialect::OpenAi, logs.path());
    tokio::task::block_in_place(|| {
        eventually("the server's tools", || !offered(&servers).is_empty());
    });
    let before = offered(&servers);
    assert!(
        before.contains(&"mcp__fixture__grow".to_owned()),
        "{before:?}"
    );
    assert!(
        !before.contains(&"mcp__fixture__grown".to_owned()),
        "{before:?}"
    );

    let tools = servers.tools();
    let grow = tools
        .tools()
        .into_iter()
        .find(|tool| tool.spec.name == "mcp__fixture__grow")
        .unwrap();
    let output = tools.call(&grow, None, &CancellationToken::new()).await;
    assert_eq!(output.text, "grown");
    tokio::task::block_in_place(|| {
        eventually("the new tool to be offered", || {
            offered(&servers).contains(&"mcp__fixture__grown".to_owned())
        });
    });
    drop(servers);
    strata_app::mcp::servers_stopped().await;
}
