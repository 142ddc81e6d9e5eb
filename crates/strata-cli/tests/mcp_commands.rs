//! `strata mcp list|get|add|remove|enable|disable|test` on the real binary,
//! and the normal end of a run stopping its servers the MCP way (stdin
//! closed, the server exits on its own). The tests that start the real npm
//! `@modelcontextprotocol/server-everything` print `SKIPPED (no npm MCP
//! server): ...` without it (a failure under CI=true).

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use serde_json::Value;
use strata_protocol::{
    McpApprovalMode, McpImportReport, McpServerListing, McpServerTest, McpServerView,
    McpTestPhaseKind, OutputKind,
};
use support::server::{Reply, ResponsesServer, sse_call, sse_text};
use support::{Home, responses_run};

fn config_text(home: &Home) -> String {
    std::fs::read_to_string(home.path().join("config/config.toml")).unwrap_or_default()
}

fn listing(home: &Home, args: &[&str]) -> McpServerListing {
    let out = home.run(args).ok();
    let listing: McpServerListing = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(listing.kind, OutputKind::McpServers);
    listing
}

#[test]
fn mcp_add_list_get_disable_enable_remove_edit_config_toml_and_never_print_a_value() {
    let home = Home::new();
    let out = home
        .run(&[
            "mcp",
            "add",
            "docs",
            "--env",
            "DOCS_TOKEN=secret-value-123",
            "--env-var",
            "DOCS_REGION",
            "--approval",
            "auto",
            "--tool-timeout",
            "90",
            "--",
            "docs-server",
            "--stdio",
            "two words",
        ])
        .ok();
    assert!(out.starts_with("added docs"), "{out}");
    let text = config_text(&home);
    assert!(text.contains("[mcp_servers.docs]"), "{text}");
    assert!(text.contains("tool_timeout_sec = 90"), "{text}");

    let listed = listing(&home, &["mcp", "list", "--json"]);
    assert_eq!(listed.servers.len(), 1);
    let docs = &listed.servers[0];
    assert_eq!(docs.name, "docs");
    assert!(docs.enabled);
    assert_eq!(docs.command, "docs-server");
    assert_eq!(docs.args, ["--stdio", "two words"]);
    assert_eq!(docs.env, ["DOCS_TOKEN"]);
    assert_eq!(docs.env_vars, ["DOCS_REGION"]);
    assert_eq!(docs.approval, McpApprovalMode::Auto);
    assert_eq!(docs.tool_timeout_ms, 90_000);
    assert_eq!(docs.startup_timeout_ms, 10_000);
    assert!(docs.fingerprint.starts_with("sha256:"), "{docs:?}");

    // The text views quote what a shell would need and hide every value.
    let shown = home.run(&["mcp", "list"]).ok();
    assert!(shown.contains("docs-server --stdio 'two words'"), "{shown}");
    let got = home.run(&["mcp", "get", "docs"]).ok();
    assert!(got.contains("DOCS_TOKEN (values not shown)"), "{got}");
    let got_json: McpServerView =
        serde_json::from_str(home.run(&["mcp", "get", "docs", "--json"]).ok().trim()).unwrap();
    assert_eq!(&got_json, docs);
    for view in [&shown, &got, &serde_json::to_string(&listed).unwrap()] {
        assert!(!view.contains("secret-value-123"), "{view}");
    }

    let out = home.run(&["mcp", "disable", "docs"]).ok();
    assert!(out.starts_with("disabled docs"), "{out}");
    assert!(config_text(&home).contains("enabled = false"));
    assert!(!listing(&home, &["mcp", "list", "--json"]).servers[0].enabled);
    let again = home.run(&["mcp", "disable", "docs"]).ok();
    assert!(again.starts_with("docs was disabled already"), "{again}");
    assert!(home.run(&["mcp", "list"]).ok().contains("docs (disabled)"));
    let enabled = listing(&home, &["mcp", "enable", "docs", "--json"]);
    assert!(enabled.servers[0].enabled);
    assert!(!config_text(&home).contains("enabled"));

    let removed = listing(&home, &["mcp", "remove", "docs", "--json"]);
    assert!(removed.servers.is_empty());
    assert!(!config_text(&home).contains("mcp_servers"));
    home.run(&["mcp", "remove", "docs"])
        .fails_with(1, "no MCP server named \"docs\"");
    home.run(&["mcp", "enable", "docs"])
        .fails_with(1, "no MCP server named \"docs\"");
}

#[test]
fn mcp_add_refuses_a_taken_name_a_bad_name_and_a_bad_timeout_and_writes_nothing() {
    let home = Home::new();
    home.run(&["mcp", "add", "one", "--", "server"]).ok();
    let before = config_text(&home);
    home.run(&["mcp", "add", "one", "--", "other"])
        .fails_with(1, "configured already");
    home.run(&["mcp", "add", "has.dot", "--", "server"])
        .fails_with(1, "1 to 32 characters");
    home.run(&[
        "mcp",
        "add",
        "two",
        "--startup-timeout",
        "0",
        "--",
        "server",
    ])
    .fails_with(1, "not a timeout");
    assert_eq!(config_text(&home), before);
    // A table someone broke by hand is listed by name, not started, and the
    // others are still listed.
    let broken = format!("{before}\n[mcp_servers.typo]\ncomand = \"x\"\n");
    std::fs::write(home.path().join("config/config.toml"), broken).unwrap();
    let listed = listing(&home, &["mcp", "list", "--json"]);
    assert_eq!(listed.servers.len(), 1);
    assert_eq!(listed.problems.len(), 1);
    assert_eq!(listed.problems[0].name, "typo");
    assert!(listed.problems[0].message.contains("comand"));
    let shown = home.run(&["mcp", "list"]).ok();
    assert!(shown.contains("typo  not started:"), "{shown}");
}

#[test]
fn mcp_test_starts_the_server_once_times_each_phase_and_counts_what_each_definition_costs() {
    let test = "mcp_commands::mcp_test_starts_the_server_once_times_each_phase_and_counts_what_each_definition_costs";
    let Some(entry) = strata_testkit::npm::needs_everything(test) else {
        return;
    };
    let home = Home::new();
    let entry = entry.display().to_string();
    // Disabled servers can be tested too: that is how one is tried first.
    home.run(&[
        "mcp",
        "add",
        "everything",
        "--disabled",
        "--",
        "node",
        &entry,
        "stdio",
    ])
    .ok();
    let run = home.run(&["mcp", "test", "everything", "--json"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let report: McpServerTest = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(report.kind, OutputKind::McpTest);
    assert!(report.ok, "{report:#?}");
    let phases: Vec<McpTestPhaseKind> = report.phases.iter().map(|phase| phase.phase).collect();
    assert_eq!(
        phases,
        [
            McpTestPhaseKind::Initialize,
            McpTestPhaseKind::ListTools,
            McpTestPhaseKind::Stop
        ]
    );
    assert!(
        report
            .server_info
            .as_deref()
            .is_some_and(|info| info.contains("everything")),
        "{report:#?}"
    );
    let echo = report
        .tools
        .iter()
        .find(|tool| tool.name == "mcp__everything__echo")
        .expect("no echo tool");
    assert_eq!(echo.tool, "echo");
    assert!(echo.tokens > 10, "{echo:?}");
    assert_eq!(
        report.definition_tokens,
        report.tools.iter().map(|tool| tool.tokens).sum::<u64>()
    );
    assert!(!report.stderr_tail.is_empty(), "{report:#?}");

    let text = home.run(&["mcp", "test", "everything"]).ok();
    assert!(text.contains("started and initialized"), "{text}");
    assert!(text.contains("mcp__everything__echo"), "{text}");
    assert!(
        text.contains(&format!(
            "{} tools, {} tokens in every request",
            report.tools.len(),
            report.definition_tokens
        )),
        "{text}"
    );
}

#[test]
fn mcp_test_of_a_server_that_dies_shows_its_stderr_escaped_and_exits_1() {
    let home = Home::new();
    home.run(&[
        "mcp",
        "add",
        "dies",
        "--",
        "sh",
        "-c",
        r"printf 'cannot open the database\033[2J\n' >&2; exit 3",
    ])
    .ok();
    let run = home.run(&["mcp", "test", "dies", "--json"]);
    assert_eq!(run.code, 1, "{run:#?}");
    let report: McpServerTest = serde_json::from_str(run.stdout.trim()).unwrap();
    assert!(!report.ok);
    assert!(report.phases.is_empty(), "{report:#?}");
    let error = report.error.unwrap();
    assert!(error.contains("cannot open the database"), "{error}");
    assert!(
        run.stderr.contains("MCP server dies failed its test"),
        "{run:#?}"
    );

    let text = home.run(&["mcp", "test", "dies"]);
    assert_eq!(text.code, 1);
    assert!(
        text.stdout.contains("cannot open the database"),
        "{text:#?}"
    );
    assert!(
        !text.stdout.contains('\u{1b}'),
        "an escape reached the terminal: {text:#?}"
    );

    // Both tries are in its log, each under its own header, escaped.
    let logs = home.run(&["mcp", "logs", "dies"]).ok();
    assert_eq!(logs.matches("tested: did not start").count(), 2, "{logs}");
    assert!(logs.contains("cannot open the database"), "{logs}");
    assert!(
        !logs.contains('\u{1b}'),
        "an escape reached the terminal: {logs}"
    );
    let none = home.run(&["mcp", "logs", "never-ran"]).ok();
    assert!(none.starts_with("no log of never-ran yet"), "{none}");
}

/// A model that answers in text as soon as an `mcp__` tool is offered
/// (the server is ready), making harmless rounds until then.
fn answers_once_the_server_is_ready() -> ResponsesServer {
    ResponsesServer::start(move |n, body: &Value| {
        let offered = body["tools"].as_array().is_some_and(|tools| {
            tools.iter().any(|tool| {
                tool["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("mcp__"))
            })
        });
        if offered {
            return Reply::Sse(sse_text("The server is there.", 300, 8));
        }
        std::thread::sleep(Duration::from_millis(300));
        Reply::Sse(sse_call(
            &format!("call_wait_{n}"),
            "list_directory",
            &serde_json::json!({}),
            300,
            8,
        ))
    })
}

#[test]
fn a_finished_run_closes_the_servers_stdin_and_the_server_exits_on_its_own() {
    let test =
        "mcp_commands::a_finished_run_closes_the_servers_stdin_and_the_server_exits_on_its_own";
    let Some(entry) = strata_testkit::npm::needs_everything(test) else {
        return;
    };
    let home = Home::new();
    let marker = home.path().join("exited");
    // The shell writes the marker only when node ended on its own and the
    // shell was not signalled: a SIGKILL or SIGTERM of the group ends the
    // shell first.
    let script = r#"node "$1" stdio; echo "node exited $?" > "$0""#;
    let (marker_arg, entry_arg) = (marker.display().to_string(), entry.display().to_string());
    home.run(&[
        "mcp",
        "add",
        "everything",
        "--approval",
        "auto",
        "--startup-timeout",
        "30",
        "--",
        "sh",
        "-c",
        script,
        &marker_arg,
        &entry_arg,
    ])
    .ok();
    let server = answers_once_the_server_is_ready();
    let run = home.run(&responses_run("hello", &server.base_url, &[]));
    assert_eq!(run.code, 0, "{run:#?}");
    let written = std::fs::read_to_string(&marker).unwrap_or_else(|_| {
        panic!("the server was stopped by a signal, not by its stdin closing: {run:#?}")
    });
    assert_eq!(written.trim(), "node exited 0");
    // Its stderr is kept past the run.
    let logs = home.run(&["mcp", "logs", "everything"]).ok();
    assert!(logs.contains("stopped: exit status: 0"), "{logs}");
    assert!(logs.contains("Starting default (STDIO) server"), "{logs}");
}

#[test]
fn mcp_import_adds_other_tools_stdio_servers_disabled_and_leaves_their_files_as_they_were() {
    let home = Home::new();
    let user_home = tempfile::tempdir().unwrap();
    let claude_dir = user_home.path().join(".config/Claude");
    let codex_dir = user_home.path().join(".codex");
    std::fs::create_dir_all(&claude_dir).unwrap();
    std::fs::create_dir_all(&codex_dir).unwrap();
    let project = r#"{"mcpServers": {"fs": {"command": "fs-server", "args": ["."]}, "web": {"type": "http", "url": "https://mcp.example.com/mcp"}}}"#;
    let claude = "{\"mcpServers\": {\"notes\": {\"command\": \"notes-mcp\"}, \"bad\\u001b[2Jname\": {\"command\": \"x\"}}}";
    let codex = "[mcp_servers.search]\ncommand = \"search-mcp\"\nenabled = true\n";
    let files = [
        (home.workspace.path().join(".mcp.json"), project),
        (claude_dir.join("claude_desktop_config.json"), claude),
        (codex_dir.join("config.toml"), codex),
    ];
    for (path, text) in &files {
        std::fs::write(path, text).unwrap();
    }
    let user = user_home.path().to_str().unwrap();
    let env = [("HOME", user), ("XDG_CONFIG_HOME", ""), ("CODEX_HOME", "")];
    let run = home.run_with(&["mcp", "import", "--json"], &env);
    assert_eq!(run.code, 0, "{run:#?}");
    let report: McpImportReport = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(report.kind, OutputKind::McpImport);
    assert_eq!(report.read.len(), 3, "{report:#?}");
    let imported: Vec<&str> = report.imported.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(imported, ["fs", "notes", "search"]);
    let skipped: Vec<&str> = report.skipped.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(skipped, ["web", "bad\u{1b}[2Jname"]);

    let listed = listing(&home, &["mcp", "list", "--json"]);
    assert!(
        listed.servers.iter().all(|server| !server.enabled),
        "{listed:#?}"
    );
    assert_eq!(listed.servers.len(), 3);
    for (path, text) in &files {
        assert_eq!(
            &std::fs::read_to_string(path).unwrap(),
            text,
            "{} was changed",
            path.display()
        );
    }

    // Again, as text: everything is there already; the odd name reaches the
    // terminal escaped.
    let again = home.run_with(&["mcp", "import"], &env);
    assert_eq!(again.code, 0, "{again:#?}");
    assert!(again.stdout.contains("skipped fs from"), "{again:#?}");
    assert!(again.stdout.contains("configured already"), "{again:#?}");
    assert!(
        !again.stdout.contains('\u{1b}'),
        "an escape reached the terminal: {again:#?}"
    );
}
