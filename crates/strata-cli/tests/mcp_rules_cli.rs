//! MCP tools in the approval rules, end to end: `strata rules add
//! mcp-allow|mcp-ask|mcp-deny`, the real server-everything over stdio and a
//! scripted model over real HTTP. An allow rule is bound to the server's
//! launch command when it is added, so it stops applying when the command
//! changes; a deny rule refuses under `auto` and names itself. Without node
//! or the pinned package each test prints `SKIPPED (no npm MCP server): ...`
//! (a failure under CI=true).

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use strata_core::store::{ReadMode, read_session_file};
use strata_protocol::{
    ApprovalDecision, DecidedBy, RecordBody, RuleKind, RuleList, RuleSource, RulesListing,
};
use support::mcp::{ECHO, MESSAGE, configure, configure_leader, echo_model, output_of};
use support::procs::assert_all_gone;
use support::server::ResponsesServer;
use support::{Home, Run, announced_id, responses_run};

/// A non-interactive run under `approval` whose model calls the echo tool
/// once it is offered; the server's process groups are noted meanwhile.
fn run_echo(home: &Home, log: &Path, approval: &str) -> (Run, ResponsesServer, Groups) {
    let groups = Arc::new(Mutex::new(BTreeSet::new()));
    let server = echo_model(log.display().to_string(), groups.clone());
    let run = home.run(&responses_run(
        "echo something",
        &server.base_url,
        &["--approval", approval],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    (run, server, groups)
}

type Groups = Arc<Mutex<BTreeSet<i32>>>;

fn listing(home: &Home) -> RulesListing {
    serde_json::from_str(&home.run(&["rules", "list", "--json"]).ok()).unwrap()
}

/// The approval decisions a session recorded for the echo tool.
fn echo_decisions(home: &Home, stderr: &str) -> Vec<(ApprovalDecision, DecidedBy, Vec<String>)> {
    let id = announced_id(stderr);
    let read = read_session_file(&home.session_file(id), ReadMode::Strict).unwrap();
    read.records
        .iter()
        .filter_map(|record| match &record.body {
            RecordBody::ApprovalDecision(decision) if decision.tool == ECHO => Some((
                decision.decision,
                decision.by,
                decision.rules.iter().map(ToString::to_string).collect(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn an_mcp_allow_rule_added_by_name_runs_the_tool_without_asking_until_the_servers_command_changes()
{
    let test = "mcp_rules_cli::an_mcp_allow_rule_added_by_name_runs_the_tool_without_asking_until_the_servers_command_changes";
    let Some(entry) = strata_testkit::npm::needs_everything(test) else {
        return;
    };
    let home = Home::new();
    let log = configure(&home, &entry, "ask");
    let added = home
        .run(&["rules", "add", "mcp-allow", "everything/echo"])
        .ok();
    assert!(
        added.starts_with("added user mcp_allow `everything/echo@sha256:"),
        "{added}"
    );
    let rules = listing(&home);
    assert_eq!(rules.rules.len(), 1);
    assert_eq!(
        (rules.rules[0].kind, rules.rules[0].list),
        (RuleKind::Mcp, RuleList::Allow)
    );
    assert!(rules.no_server.is_empty(), "{rules:?}");
    let bound = rules.rules[0].pattern.clone();

    // Not interactive: without the rule, no one could allow the call.
    let (run, server, groups) = run_echo(&home, &log, "ask");
    let echoed = output_of(&server.last_round(), "call_echo").expect("no echo output");
    assert_eq!(echoed, format!("Echo: {MESSAGE}"));
    assert_eq!(
        echo_decisions(&home, &run.stderr),
        [(
            ApprovalDecision::AllowOnce,
            DecidedBy::Rule,
            vec![format!("user mcp_allow `{bound}`")]
        )]
    );
    assert_all_gone(&groups.lock().unwrap());

    // The same name now runs another command: the rule matches nothing,
    // the listing says so, and the call is not run.
    let log = configure_leader(&home, &entry, "ask", "; true");
    std::fs::remove_file(&log).ok();
    let config = home.path().join("config/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!("\n[rules]\nmcp_allow = [{bound:?}]\n"));
    std::fs::write(&config, text).unwrap();
    let rules = listing(&home);
    assert_eq!(rules.no_server.len(), 1, "{rules:?}");
    let shown = home.run(&["rules", "list"]).ok();
    assert!(shown.contains("matches nothing"), "{shown}");
    let (_run, server, groups) = run_echo(&home, &log, "ask");
    let refused = output_of(&server.last_round(), "call_echo").expect("no refusal output");
    assert!(refused.contains("no one can answer"), "{refused}");
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(!sent.contains("tools/call"), "{sent}");
    assert_all_gone(&groups.lock().unwrap());

    // Removed by the name the person wrote.
    let removed = home
        .run(&["rules", "remove", "mcp-allow", "everything/echo"])
        .ok();
    assert!(removed.starts_with("removed user mcp_allow"), "{removed}");
    assert!(listing(&home).rules.is_empty());
}

#[test]
fn an_mcp_deny_rule_refuses_the_tool_under_auto_and_the_model_is_told_which_rule() {
    let test = "mcp_rules_cli::an_mcp_deny_rule_refuses_the_tool_under_auto_and_the_model_is_told_which_rule";
    let Some(entry) = strata_testkit::npm::needs_everything(test) else {
        return;
    };
    let home = Home::new();
    let log = configure(&home, &entry, "auto");
    home.run(&["rules", "add", "mcp-deny", "*/ech*"]).ok();
    let (run, server, groups) = run_echo(&home, &log, "auto");
    let refused = output_of(&server.last_round(), "call_echo").expect("no refusal output");
    assert!(refused.contains("user mcp_deny `*/ech*`"), "{refused}");
    assert_eq!(
        echo_decisions(&home, &run.stderr),
        [(
            ApprovalDecision::Deny,
            DecidedBy::Rule,
            vec!["user mcp_deny `*/ech*`".to_owned()]
        )]
    );
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(
        sent.contains("tools/list") && !sent.contains("tools/call"),
        "{sent}"
    );
    assert_all_gone(&groups.lock().unwrap());
}

#[test]
fn an_mcp_allow_rule_for_a_server_not_configured_or_without_a_fingerprint_is_refused() {
    let home = Home::new();
    home.run(&["rules", "add", "mcp-allow", "nowhere/search"])
        .fails_with(1, "no MCP server named \"nowhere\" is configured");
    home.run(&["rules", "add", "mcp-allow", "*/search@sha256:0"])
        .fails_with(1, "server fingerprint");
    // Ask and deny rules need no server: they only ask more or refuse.
    home.run(&["rules", "add", "mcp-ask", "nowhere/*"]).ok();
    let rules = listing(&home);
    assert_eq!(rules.rules[0].source, RuleSource::User);
    assert_eq!(rules.rules[0].pattern, "nowhere/*");
    // A hand-written allow rule without its launch spec makes the config
    // refuse to load, naming the fix.
    let config = home.path().join("config/config.toml");
    std::fs::write(&config, "[rules]\nmcp_allow = [\"github/search\"]\n").unwrap();
    home.run(&["rules", "list"])
        .fails_with(1, "strata rules add mcp-allow github/search");
}
