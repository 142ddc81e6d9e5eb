//! MCP tools in a real session, end to end: the `strata` binary, the real
//! `@modelcontextprotocol/server-everything` over stdio (configured in
//! `config.toml`), and a scripted model over real HTTP on 127.0.0.1. The
//! server runs behind `tee`, so the test sees every message Strata sent it,
//! and every process of its group is found while the run goes on and must
//! be gone once the CLI exited. Without node or the pinned package each
//! test prints `SKIPPED (no npm MCP server): ...` (a failure under CI=true).

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use strata_app::console::ConsoleFold;
use strata_core::store::{ReadMode, read_session_file, round_requests};
use strata_protocol::{
    McpCatalog, RecordBody, ResponseItem, RoundRecord, SessionForkView, SessionId, ToolSpec,
};
use support::mcp::{ECHO, MESSAGE, configure, configure_leader, echo_model, offered, output_of};
use support::procs::{assert_all_gone, groups_mentioning};
use support::pty::{OnTerminal, PROMPT, pty};
use support::server::{Reply, ResponsesServer, sse_call};
use support::{Home, announced_id, responses_run};

#[test]
fn the_model_calls_an_mcp_tool_its_output_reaches_the_next_request_and_no_server_outlives_strata() {
    let test = "mcp_cli::the_model_calls_an_mcp_tool_its_output_reaches_the_next_request_and_no_server_outlives_strata";
    let Some(entry) = strata_testkit::npm::needs_everything(test) else {
        return;
    };
    let home = Home::new();
    let log = configure(&home, &entry, "auto");
    let groups = Arc::new(Mutex::new(BTreeSet::new()));
    let marker = log.display().to_string();
    let server = echo_model(marker, groups.clone());
    let run = home.run(&responses_run(
        "echo something",
        &server.base_url,
        &["--approval", "ask"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");

    // The broken table was named; the good server started anyway.
    assert!(
        run.stderr.contains("MCP server \"broken\"") && run.stderr.contains("comand"),
        "{}",
        run.stderr
    );
    let rounds = server.round_requests();
    let echoed = output_of(rounds.last().unwrap(), "call_echo").expect("no echo output");
    assert_eq!(echoed, format!("Echo: {MESSAGE}"));
    // Offered after Strata's own tools.
    let names: Vec<&str> = rounds.last().unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    let first_mcp = names
        .iter()
        .position(|name| name.starts_with("mcp__"))
        .unwrap();
    assert!(names[..first_mcp].contains(&"read_file"), "{names:?}");
    assert!(
        names[first_mcp..]
            .iter()
            .all(|name| name.starts_with("mcp__")),
        "{names:?}"
    );

    // The session file records the call and its output.
    let id = announced_id(&run.stderr);
    let file = std::fs::read_to_string(home.session_file(id)).unwrap();
    let records: Vec<Value> = file
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let text = |record: &Value| record.to_string();
    assert!(
        records
            .iter()
            .any(|r| text(r).contains("\"function_call\"") && text(r).contains(ECHO)),
        "no function_call record for {ECHO}"
    );
    assert!(
        records
            .iter()
            .any(|r| text(r).contains("\"function_call_output\"")
                && text(r).contains(&format!("Echo: {MESSAGE}"))),
        "no output record with the echo"
    );
    // Strata really called the server.
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(
        sent.contains("tools/call") && sent.contains(MESSAGE),
        "{sent}"
    );
    assert_all_gone(&groups.lock().unwrap());
    // With the server gone and no longer configured, the records alone
    // rebuild what each round offered and which server offered it.
    configure_none(&home);
    assert_the_catalog_is_recorded_once_and_replays_without_the_server(&home, id, &rounds);
}

/// Rewrites the config with no MCP server at all.
fn configure_none(home: &Home) {
    std::fs::write(home.path().join("config/config.toml"), "").unwrap();
}

/// The `mcp__` tools of a request (as the wire or a [`ToolSpec`] names
/// their fields).
fn mcp_tools(tools: &[Value]) -> Vec<Value> {
    tools
        .iter()
        .filter(|tool| {
            tool["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("mcp__"))
        })
        .map(|tool| {
            json!({
                "name": tool["name"],
                "description": tool["description"],
                "parameters": tool["parameters"],
            })
        })
        .collect()
}

fn assert_the_catalog_is_recorded_once_and_replays_without_the_server(
    home: &Home,
    id: SessionId,
    sent: &[Value],
) {
    let read = read_session_file(&home.session_file(id), ReadMode::Strict).unwrap();
    // Every round offers exactly the catalog recorded last before it, and a
    // catalog is only written when it differs from the one before.
    let mut catalogs: Vec<&McpCatalog> = Vec::new();
    let mut rounds_per_catalog: Vec<usize> = Vec::new();
    let mut rounds: Vec<&RoundRecord> = Vec::new();
    for (index, record) in read.records.iter().enumerate() {
        match &record.body {
            RecordBody::McpCatalog(catalog) => {
                assert_ne!(
                    catalogs.last(),
                    Some(&catalog),
                    "an unchanged catalog was recorded again"
                );
                assert!(
                    matches!(
                        read.records.get(index + 1).map(|r| &r.body),
                        Some(RecordBody::Round(_))
                    ),
                    "a catalog must come right before the round that first sends it"
                );
                catalogs.push(catalog);
                rounds_per_catalog.push(0);
            }
            RecordBody::Round(round) => {
                let offered: Vec<ToolSpec> = round
                    .tools
                    .iter()
                    .filter(|tool| tool.name.starts_with("mcp__"))
                    .cloned()
                    .collect();
                let recorded = catalogs.last().map(|c| c.tools.clone()).unwrap_or_default();
                assert_eq!(
                    offered,
                    recorded,
                    "round {} offered another catalog",
                    rounds.len() + 1
                );
                if let Some(count) = rounds_per_catalog.last_mut() {
                    *count += 1;
                }
                rounds.push(round);
            }
            _ => {}
        }
    }
    assert_eq!(rounds.len(), sent.len());
    let last = catalogs.last().expect("no mcp_catalog record");
    // The echo round and the one after it share one catalog, written once.
    assert!(
        rounds_per_catalog.last().is_some_and(|&n| n >= 2),
        "{rounds_per_catalog:?}"
    );
    let server = last
        .servers
        .iter()
        .find(|s| s.name == "everything")
        .expect("no everything server");
    assert!(server.fingerprint.starts_with("sha256:") && server.fingerprint.len() == 71);
    assert!(
        server
            .tools
            .iter()
            .any(|tool| tool.name == ECHO && tool.tool == "echo")
    );
    assert_eq!(server.tools.len(), last.tools.len());

    // A fork at the echo call, with no server running or configured,
    // rebuilds the exact tools array that round sent.
    let call = read
        .records
        .iter()
        .find_map(|record| match &record.body {
            RecordBody::ResponseItem(ResponseItem::FunctionCall(call))
                if call.call_id == "call_echo" =>
            {
                Some(call.id)
            }
            _ => None,
        })
        .expect("no echo call");
    let forked = home.run(&["fork", &id.to_string(), "--at", &call.to_string(), "--json"]);
    assert_eq!(forked.code, 0, "{forked:#?}");
    let fork: SessionForkView = serde_json::from_str(forked.stdout.trim()).unwrap();
    let fork_read =
        read_session_file(&home.session_file(fork.session_id), ReadMode::Strict).unwrap();
    let page = round_requests(&fork_read.meta, &fork_read.records, 0, usize::MAX);
    let echo_round = page.rounds.last().expect("the fork has no round");
    let number = echo_round.number as usize;
    let rebuilt: Vec<Value> = echo_round
        .request
        .tools
        .iter()
        .map(|tool| serde_json::to_value(tool).unwrap())
        .collect();
    let wire = sent[number - 1]["tools"].as_array().unwrap();
    assert!(offered(&sent[number - 1], ECHO));
    assert_eq!(mcp_tools(&rebuilt), mcp_tools(wire));
    let names = |tools: &[Value]| -> Vec<String> {
        tools
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&rebuilt), names(wire));
    assert_eq!(fork_read.replay().mcp_catalog(), Some(*last));

    // The console names the server, its tool count and what its definitions
    // cost in every request (≈ characters ÷ 4 of the specs as sent).
    let console = ConsoleFold::of_records(&fork_read.records, 100_000, None);
    let row = console
        .rows()
        .iter()
        .find(|row| row.title == "MCP catalog")
        .expect("no MCP catalog row");
    let sent_chars: usize = last
        .tools
        .iter()
        .map(|spec| {
            serde_json::to_string(spec)
                .unwrap()
                .chars()
                .count()
                .div_ceil(4)
        })
        .sum();
    let cost = match sent_chars {
        0..1000 => sent_chars.to_string(),
        _ => format!("{},{:03}", sent_chars / 1000, sent_chars % 1000),
    };
    assert_eq!(
        row.detail,
        format!(
            "everything ({} tools, ≈ {cost} tokens a request) from here on",
            server.tools.len()
        )
    );
}

#[test]
fn under_ask_the_cli_asks_before_an_mcp_call_and_a_refusal_leaves_the_server_untouched() {
    let test = "mcp_cli::under_ask_the_cli_asks_before_an_mcp_call_and_a_refusal_leaves_the_server_untouched";
    let Some(entry) = strata_testkit::npm::needs_everything(test) else {
        return;
    };
    let home = Home::new();
    let log = configure(&home, &entry, "ask");
    let groups = Arc::new(Mutex::new(BTreeSet::new()));
    let server = echo_model(log.display().to_string(), groups.clone());
    let (master, slave) = pty();
    let args = responses_run("echo something", &server.base_url, &["--approval", "ask"]);
    let mut terminal = OnTerminal::start_with(&home, &args, master, slave);
    terminal.wait_for_count(PROMPT, 1);
    terminal.type_keys("n\n");
    let (code, shown) = terminal.finish();
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("approval needed: call echo on MCP server everything"),
        "{shown}"
    );
    assert!(shown.contains(MESSAGE), "the arguments are shown: {shown}");
    assert!(shown.contains("approval: denied"), "{shown}");
    let denial = output_of(&server.last_round(), "call_echo").expect("no denial output");
    assert!(denial.contains("denied"), "{denial}");
    // The server was started and listed, never called.
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(sent.contains("tools/list"), "{sent}");
    assert!(!sent.contains("tools/call"), "{sent}");
    assert_all_gone(&groups.lock().unwrap());
}

/// A model that holds its answer open once the echo tool is offered (the
/// server is then up), having noted the server's groups.
fn stalling_model(marker: String, groups: Arc<Mutex<BTreeSet<i32>>>) -> ResponsesServer {
    ResponsesServer::start(move |n, body| {
        if offered(body, ECHO) {
            groups.lock().unwrap().extend(groups_mentioning(&marker));
            return Reply::Stall;
        }
        std::thread::sleep(Duration::from_millis(300));
        Reply::Sse(sse_call(
            &format!("call_wait_{n}"),
            "list_directory",
            &json!({}),
            300,
            8,
        ))
    })
}

/// Runs strata until its server is up and the model stalls, sends it
/// `signals` (by `kill -NAME`), and returns its home and the server's groups
/// once the CLI exited.
fn signalled_run(test: &str, signals: &[&str]) -> Option<(Home, BTreeSet<i32>)> {
    let entry = strata_testkit::npm::needs_everything(test)?;
    let home = Home::new();
    // A leader that outlives its server's input: only a signal ends it.
    let log = configure_leader(&home, &entry, "auto", "; exec sleep 600");
    let groups = Arc::new(Mutex::new(BTreeSet::new()));
    let server = stalling_model(log.display().to_string(), groups.clone());
    let mut child = home
        .command()
        .args(responses_run("echo something", &server.base_url, &[]))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while groups.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the server never came up");
        std::thread::sleep(Duration::from_millis(20));
    }
    for signal in signals {
        let status = std::process::Command::new("sh")
            .args(["-c", &format!("kill -{signal} {}", child.id())])
            .status()
            .unwrap();
        assert!(status.success());
        std::thread::sleep(Duration::from_millis(200));
    }
    let status = child.wait().unwrap();
    assert!(!status.success(), "strata went on after {signals:?}");
    let groups = groups.lock().unwrap().clone();
    Some((home, groups))
}

#[test]
fn sigterm_of_the_cli_leaves_no_server_process() {
    let Some((_, groups)) = signalled_run(
        "mcp_cli::sigterm_of_the_cli_leaves_no_server_process",
        &["TERM"],
    ) else {
        return;
    };
    assert_all_gone(&groups);
}

#[test]
fn ctrl_c_at_the_cli_leaves_no_server_process() {
    let Some((_, groups)) = signalled_run(
        "mcp_cli::ctrl_c_at_the_cli_leaves_no_server_process",
        &["INT", "INT"],
    ) else {
        return;
    };
    assert_all_gone(&groups);
}

#[test]
fn a_sigkill_of_the_cli_takes_the_server_with_it_and_the_next_strata_reaps_what_is_left() {
    let test = "mcp_cli::a_sigkill_of_the_cli_takes_the_server_with_it_and_the_next_strata_reaps_what_is_left";
    let Some((home, groups)) = signalled_run(test, &["KILL"]) else {
        return;
    };
    // No handler ran: the leader (the `sh`) got SIGKILL with Strata, but its
    // `sleep 600` is still there, as a child of init.
    let leaders: Vec<u32> = groups.iter().map(|group| group.unsigned_abs()).collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    while leaders
        .iter()
        .any(|pid| Path::new(&format!("/proc/{pid}/cmdline")).exists() && !is_zombie(*pid))
    {
        assert!(Instant::now() < deadline, "the leader outlived strata");
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = support::procs::members_of(&groups);
    assert!(
        !left.is_empty(),
        "nothing was left to reap: the test proves nothing"
    );
    // The next Strata that starts servers reaps them first.
    let tested = home.run(&["mcp", "test", "everything"]);
    assert_eq!(tested.code, 0, "{tested:#?}");
    assert_all_gone(&groups);
}

fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .is_some_and(|at| stat[at + 1..].trim_start().starts_with('Z'))
    })
}
