//! The client against a real server process: the fixture server built on
//! the SDK's server role (tests/fixture/server.rs).

// Test helpers outside #[test] functions: a failed set-up panics the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;
use strata_mcp::{CancellationToken, McpClient, McpError};
use support::{arguments, eventually, fixture_config, has_exited, is_reaped, text_of};
use tokio::sync::mpsc;

#[tokio::test]
async fn echo_round_trips_through_a_real_server_process() {
    let client = McpClient::start(&fixture_config("fixture", &[]))
        .await
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["echo", "slow", "crash", "env", "grow"]);

    let never = CancellationToken::new();
    let result = client
        .call_tool(
            "echo",
            arguments(json!({"text": "hello, server"})),
            &never,
            None,
        )
        .await
        .unwrap();
    assert_eq!(text_of(&result), "hello, server");
    assert_eq!(result.is_error, Some(false));
    let pid = i32::try_from(client.pid()).unwrap();
    client.stop().await;
    assert!(is_reaped(pid), "the server process was not reaped");
}

#[tokio::test]
async fn listing_follows_next_cursor_across_pages() {
    let config = fixture_config("fixture", &["--many", "25", "--page-size", "4"]);
    let client = McpClient::start(&config).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    // 5 fixed tools and 25 more, 4 to a page: 8 pages.
    assert_eq!(tools.len(), 30);
    assert_eq!(
        tools.last().map(|tool| tool.name.as_ref()),
        Some("many_024")
    );
    client.stop().await;
}

#[tokio::test]
async fn progress_notifications_reach_the_caller_in_order() {
    let client = McpClient::start(&fixture_config("fixture", &[]))
        .await
        .unwrap();
    let (progress, mut updates) = mpsc::unbounded_channel();
    let never = CancellationToken::new();
    let result = client
        .call_tool(
            "slow",
            arguments(json!({"steps": 4, "interval_ms": 20})),
            &never,
            Some(progress),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&result), "done after 4 steps");
    let mut seen = Vec::new();
    while let Ok(update) = updates.try_recv() {
        seen.push((update.progress, update.total, update.message));
    }
    let expected: Vec<_> = (1..=4)
        .map(|step| (f64::from(step), Some(4.0), Some(format!("step {step}"))))
        .collect();
    // In order and none missing, but the last may race the result: the SDK
    // handles each notification in a task of its own.
    assert!(seen.len() >= 3, "{seen:?}");
    assert_eq!(seen, expected[..seen.len()]);
    client.stop().await;
}

#[tokio::test]
async fn cancelling_a_call_tells_the_server_with_notifications_cancelled() {
    let events = tempfile::NamedTempFile::new().unwrap();
    let mut config = fixture_config("fixture", &[]);
    config.env.insert(
        "FIXTURE_EVENTS_FILE".into(),
        events.path().to_str().unwrap().into(),
    );
    let client = McpClient::start(&config).await.unwrap();
    let cancel = CancellationToken::new();
    let (progress, mut updates) = mpsc::unbounded_channel();
    let call = client.call_tool(
        "slow",
        arguments(json!({"steps": 1000, "interval_ms": 20})),
        &cancel,
        Some(progress),
    );
    let cancel_after_first_progress = async {
        updates.recv().await;
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(call, cancel_after_first_progress);
    assert!(
        matches!(&result, Err(McpError::Cancelled { tool, .. }) if tool == "slow"),
        "{result:?}"
    );
    let path = events.path().to_owned();
    let heard = eventually(Duration::from_secs(5), || {
        std::fs::read_to_string(&path).is_ok_and(|text| text == "cancelled")
    })
    .await;
    assert!(heard, "the server never saw the cancellation");
    // The connection is still usable after a cancelled call.
    let never = CancellationToken::new();
    let echo = client
        .call_tool(
            "echo",
            arguments(json!({"text": "still here"})),
            &never,
            None,
        )
        .await
        .unwrap();
    assert_eq!(text_of(&echo), "still here");
    client.stop().await;
}

#[tokio::test]
async fn a_call_times_out_without_progress_and_progress_keeps_it_alive() {
    let events = tempfile::NamedTempFile::new().unwrap();
    let mut config = fixture_config("fixture", &[]);
    config.call_timeout = Duration::from_millis(1000);
    config.env.insert(
        "FIXTURE_EVENTS_FILE".into(),
        events.path().to_str().unwrap().into(),
    );
    let client = McpClient::start(&config).await.unwrap();
    let never = CancellationToken::new();

    let silent = client
        .call_tool(
            "slow",
            arguments(json!({"steps": 1, "interval_ms": 5000})),
            &never,
            None,
        )
        .await;
    assert!(
        matches!(&silent, Err(McpError::CallTimeout { timeout, .. }) if *timeout == Duration::from_millis(1000)),
        "{silent:?}"
    );

    // The server is told to stop the abandoned call.
    let path = events.path().to_owned();
    let heard = eventually(Duration::from_secs(5), || {
        std::fs::read_to_string(&path).is_ok_and(|text| text == "cancelled")
    })
    .await;
    assert!(
        heard,
        "the server never heard the timed-out call was cancelled"
    );

    // Ten steps 250 ms apart take 2.5 s, more than twice the timeout, but
    // every step's progress resets it.
    let busy = client
        .call_tool(
            "slow",
            arguments(json!({"steps": 10, "interval_ms": 250})),
            &never,
            None,
        )
        .await
        .unwrap();
    assert_eq!(text_of(&busy), "done after 10 steps");
    client.stop().await;
}

#[tokio::test]
async fn a_crash_mid_call_is_an_error_that_quotes_stderr_not_a_hang() {
    let mut client = McpClient::start(&fixture_config("fixture", &[]))
        .await
        .unwrap();
    let never = CancellationToken::new();
    let result = tokio::time::timeout(
        Duration::from_secs(10),
        client.call_tool("crash", None, &never, None),
    )
    .await
    .expect("a crash must end the call, not hang it");
    assert!(
        matches!(result, Err(McpError::ServerExited { .. })),
        "{result:?}"
    );
    let said = eventually(Duration::from_secs(5), || {
        client
            .stderr()
            .tail(5)
            .contains("fixture: crashing on purpose")
    })
    .await;
    assert!(said, "stderr: {}", client.stderr().tail(5));
    // The crash is there to see, with the server's own exit code.
    let mut status = None;
    let exited = eventually(Duration::from_secs(5), || {
        status = client.exit_status();
        status.is_some()
    })
    .await;
    assert!(exited);
    assert_eq!(status.and_then(|status| status.code()), Some(3));
    // Later calls fail the same way at once.
    let again = client.call_tool("echo", None, &never, None).await;
    assert!(
        matches!(again, Err(McpError::ServerExited { .. })),
        "{again:?}"
    );
    let pid = i32::try_from(client.pid()).unwrap();
    client.stop().await;
    assert!(is_reaped(pid));
}

fn config_recording_pids(
    args: &[&str],
) -> (strata_mcp::StdioServerConfig, tempfile::NamedTempFile) {
    let pids = tempfile::NamedTempFile::new().unwrap();
    let mut config = fixture_config("grandparent", args);
    config.env.insert(
        "FIXTURE_PID_FILE".into(),
        pids.path().to_str().unwrap().into(),
    );
    (config, pids)
}

fn recorded_pids(file: &tempfile::NamedTempFile) -> (i32, i32) {
    let text = std::fs::read_to_string(file.path()).unwrap();
    let pids: Vec<i32> = text
        .split_whitespace()
        .map(|pid| pid.parse().unwrap())
        .collect();
    (pids[0], pids[1])
}

#[tokio::test]
async fn stop_kills_a_group_that_ignores_sigterm_grandchild_and_all() {
    let (config, pids) = config_recording_pids(&["--stubborn"]);
    let client = McpClient::start(&config).await.unwrap();
    let (server, grandchild) = recorded_pids(&pids);
    assert_eq!(u32::try_from(server).unwrap(), client.pid());
    assert!(!has_exited(grandchild), "the grandchild should be running");

    let status = client.stop().await;
    // Only SIGKILL could end it.
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status.unwrap()),
        Some(9)
    );
    assert!(is_reaped(server), "the server was left a zombie");
    assert!(
        eventually(Duration::from_secs(5), || has_exited(grandchild)).await,
        "the grandchild {grandchild} outlived the stop"
    );
}

#[tokio::test]
async fn dropping_the_client_kills_the_whole_group() {
    let (config, pids) = config_recording_pids(&["--stubborn"]);
    let client = McpClient::start(&config).await.unwrap();
    let (server, grandchild) = recorded_pids(&pids);
    drop(client);
    assert!(
        eventually(Duration::from_secs(5), || is_reaped(server)).await,
        "the server {server} outlived its client"
    );
    assert!(
        eventually(Duration::from_secs(5), || has_exited(grandchild)).await,
        "the grandchild {grandchild} outlived its client"
    );
}

#[tokio::test]
async fn a_server_that_never_answers_is_a_startup_timeout_with_its_stderr() {
    let mut config = fixture_config("silent", &["--silent"]);
    config.startup_timeout = Duration::from_millis(2000);
    let error = McpClient::start(&config).await.unwrap_err();
    match &error {
        McpError::StartupTimeout {
            server,
            timeout,
            stderr_tail,
        } => {
            assert_eq!(server, "silent");
            assert_eq!(*timeout, Duration::from_millis(2000));
            assert!(stderr_tail.contains("fixture: started"), "{stderr_tail}");
        }
        other => panic!("expected a startup timeout, got {other}"),
    }
}

#[tokio::test]
async fn the_server_sees_only_the_allow_list_and_what_its_config_names() {
    let mut parent: BTreeMap<String, String> = strata_mcp::env::current_environment();
    parent.insert("OPENAI_API_KEY".into(), "sk-not-for-servers".into());
    parent.insert("DOCS_TOKEN".into(), "docs-token".into());
    let mut config = fixture_config("fixture", &[]);
    config.env_vars = vec!["DOCS_TOKEN".into()];
    config.env.insert("DOCS_REGION".into(), "eu".into());
    let client = McpClient::start_with_parent_env(&config, &parent)
        .await
        .unwrap();
    let never = CancellationToken::new();
    let result = client.call_tool("env", None, &never, None).await.unwrap();
    let seen: BTreeMap<String, String> = serde_json::from_str(&text_of(&result)).unwrap();
    assert!(!seen.contains_key("OPENAI_API_KEY"), "{seen:?}");
    assert_eq!(
        seen.get("DOCS_TOKEN").map(String::as_str),
        Some("docs-token")
    );
    assert_eq!(seen.get("DOCS_REGION").map(String::as_str), Some("eu"));
    // Which Strata started it, for reaping it should that Strata be killed.
    assert_eq!(
        seen.get(strata_mcp::leftovers::OWNER_ENV)
            .map(String::as_str),
        Some(strata_mcp::leftovers::owner_marker())
    );
    for name in seen.keys() {
        assert!(
            strata_mcp::env::is_inherited(name)
                || name.starts_with("DOCS_")
                || name == strata_mcp::leftovers::OWNER_ENV,
            "{name} reached the server"
        );
    }
    client.stop().await;
}

#[tokio::test]
async fn a_server_flooding_stderr_costs_a_bounded_ring() {
    let config = fixture_config("noisy", &["--stderr-lines", "5000"]);
    let client = McpClient::start(&config).await.unwrap();
    let all_read = eventually(Duration::from_secs(5), || {
        client.stderr().lines_seen() == 5001
    })
    .await;
    assert!(all_read, "read {} lines", client.stderr().lines_seen());
    let kept = client.stderr().lines();
    assert_eq!(kept.len(), strata_mcp::stderr::MAX_LINES);
    assert!(kept.iter().map(String::len).sum::<usize>() <= strata_mcp::stderr::MAX_BYTES);
    assert_eq!(kept.last().map(String::as_str), Some("fixture: started"));
    client.stop().await;
}

#[tokio::test]
async fn a_missing_command_is_a_spawn_error_naming_it() {
    let config = strata_mcp::StdioServerConfig::new("ghost", "strata-no-such-mcp-server", &[]);
    let error = McpClient::start(&config).await.unwrap_err();
    assert!(matches!(error, McpError::Spawn { .. }), "{error}");
    assert!(
        error.to_string().contains("strata-no-such-mcp-server"),
        "{error}"
    );
}

#[tokio::test]
async fn a_server_that_ignores_stdins_end_is_ended_by_sigterm() {
    let client = McpClient::start(&fixture_config("lingering", &["--linger"]))
        .await
        .unwrap();
    let pid = i32::try_from(client.pid()).unwrap();
    let started = std::time::Instant::now();
    let status = client.stop().await.unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(15)
    );
    // It was given its grace after stdin closed, and no SIGKILL was needed.
    let took = started.elapsed();
    assert!(took >= strata_mcp::process::EXIT_GRACE, "{took:?}");
    assert!(
        took < strata_mcp::process::EXIT_GRACE + strata_mcp::process::TERM_GRACE,
        "{took:?}"
    );
    assert!(is_reaped(pid));
}

#[tokio::test]
async fn a_grandchild_left_behind_by_an_exiting_server_is_ended_too() {
    let (config, pids) = config_recording_pids(&["--leave-grandchild"]);
    let client = McpClient::start(&config).await.unwrap();
    let (server, grandchild) = recorded_pids(&pids);
    let status = client.stop().await.unwrap();
    assert!(status.success(), "the server exits on its own: {status:?}");
    assert!(is_reaped(server));
    assert!(
        eventually(Duration::from_secs(5), || has_exited(grandchild)).await,
        "the grandchild {grandchild} outlived its server"
    );
}

#[tokio::test]
async fn lines_on_stdout_that_are_not_messages_are_counted_and_kept() {
    let client = McpClient::start(&fixture_config("chatty", &["--stdout-noise"]))
        .await
        .unwrap();
    // The protocol still works around them.
    assert_eq!(client.list_tools().await.unwrap().len(), 5);
    assert_eq!(client.stray_stdout().count(), 2);
    let lines = client.stray_stdout().lines();
    assert_eq!(lines[0], "Fixture server v0 - listening on stdio");
    // Kept as printed; shown through `stderr::printable`.
    assert_eq!(
        strata_mcp::stderr::printable(&lines[1]),
        "\\u{1b}[31mready\\u{1b}[0m"
    );
    client.stop().await;
}

#[tokio::test]
async fn a_crashed_servers_grandchild_is_ended_when_the_crash_is_seen() {
    let (config, pids) = config_recording_pids(&["--leave-grandchild"]);
    let mut client = McpClient::start(&config).await.unwrap();
    let (_, grandchild) = recorded_pids(&pids);
    let never = CancellationToken::new();
    let crashed = client.call_tool("crash", None, &never, None).await;
    assert!(
        matches!(crashed, Err(McpError::ServerExited { .. })),
        "{crashed:?}"
    );
    let seen = eventually(Duration::from_secs(5), || client.exit_status().is_some()).await;
    assert!(seen, "the crash was never seen");
    // The client is still held (showing the failure), and nothing of the
    // server runs any more.
    assert!(
        eventually(Duration::from_secs(5), || has_exited(grandchild)).await,
        "the grandchild {grandchild} outlived the crash"
    );
    drop(client);
}

#[tokio::test]
async fn a_servers_tools_list_changed_is_heard_and_the_new_list_has_the_tool() {
    let client = McpClient::start(&fixture_config("fixture", &[]))
        .await
        .unwrap();
    let changes = client.tool_list_changes();
    let names = |tools: Vec<rmcp::model::Tool>| -> Vec<String> {
        tools
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect()
    };
    let before = names(client.list_tools().await.unwrap());
    assert!(!before.contains(&"grown".to_owned()), "{before:?}");
    let never = CancellationToken::new();
    client.call_tool("grow", None, &never, None).await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), changes.changed())
        .await
        .expect("no tools/list_changed was heard");
    let after = names(client.list_tools().await.unwrap());
    assert!(after.contains(&"grown".to_owned()), "{after:?}");
    client.stop().await;
}
