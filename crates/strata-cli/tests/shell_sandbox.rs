//! `strata run --sandbox MODE`: the built binary runs the model's shell
//! command through the sandbox launcher beside it, and the model reads which
//! rule refused what; where the sandbox cannot be had the session says so
//! and no command runs without approval, under `--approval auto` too.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use strata_protocol::{RecordBody, SandboxMode};
use support::server::{Reply, ResponsesServer, sse_call, sse_text};
use support::{Home, announced_id, has_output, responses_run};

/// The launcher cargo built beside `strata`, if it did.
fn launcher(test: &str) -> Option<PathBuf> {
    let beside = Path::new(env!("CARGO_BIN_EXE_strata")).with_file_name("strata-sandbox-exec");
    if beside.is_file() {
        Some(beside)
    } else {
        eprintln!("SKIPPED (strata-sandbox-exec not built; cargo build -p strata-sandbox): {test}");
        None
    }
}

/// A model that runs `command` once a turn, then says it is done.
fn server_running(command: String) -> ResponsesServer {
    ResponsesServer::start(move |_, body| {
        if answers_an_output(body) {
            Reply::Sse(sse_text("Done.", 400, 3))
        } else {
            Reply::Sse(sse_call(
                "call_s",
                "run_shell",
                &json!({ "command": command }),
                380,
                12,
            ))
        }
    })
}

/// Whether the request's newest item is a tool output (not the turn's
/// user message).
fn answers_an_output(body: &Value) -> bool {
    body["input"]
        .as_array()
        .and_then(|items| items.last())
        .is_some_and(|item| item["type"] == "function_call_output")
}

/// The shell call's output as the model read it.
fn tool_output(server: &ResponsesServer) -> String {
    let requests = server.requests();
    let body: &Value = requests
        .iter()
        .find(|body| has_output(body))
        .expect("no tool output sent");
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call_output")
        .and_then(|item| item["output"].as_str())
        .unwrap()
        .to_owned()
}

/// A run under `--approval auto` and `flags` whose command writes in the
/// workspace and outside it, checked to be confined to the workspace: the
/// header names the sandbox, the inside file exists, the outside one not.
fn confined_run(flags: &[&str]) -> (Home, ResponsesServer, support::Run) {
    let home = Home::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped");
    let server = server_running(format!("echo in > made; echo x > '{}'", target.display()));
    let mut args = vec!["--approval", "auto"];
    args.extend_from_slice(flags);
    let run = home.run(&responses_run("go", &server.base_url, &args));
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(
        run.stderr
            .contains("· sandbox workspace-write, network off ·"),
        "{}",
        run.stderr
    );
    assert!(home.workspace.path().join("made").is_file());
    assert!(!target.exists(), "the command wrote outside the workspace");
    (home, server, run)
}

#[test]
fn a_sandboxed_run_writes_in_the_workspace_and_the_model_reads_why_the_outside_write_failed() {
    let test =
        "a_sandboxed_run_writes_in_the_workspace_and_the_model_reads_why_the_outside_write_failed";
    if launcher(test).is_none() {
        return;
    }
    let (_home, server, _run) = confined_run(&["--sandbox", "workspace-write"]);
    let output = tool_output(&server);
    assert!(
        output.contains("[sandbox: writes outside the workspace are refused (workspace-write)]"),
        "{output}"
    );
}

#[test]
fn without_a_kernel_sandbox_auto_runs_no_command_and_the_session_says_why() {
    let test = "without_a_kernel_sandbox_auto_runs_no_command_and_the_session_says_why";
    if launcher(test).is_none() {
        return;
    }
    let home = Home::new();
    let server = server_running("echo in > made".to_owned());
    let run = home.run_with(
        &responses_run(
            "go",
            &server.base_url,
            &["--approval", "auto", "--sandbox", "workspace-write"],
        ),
        &[("STRATA_SANDBOX_FORCE_UNSUPPORTED", "1")],
    );
    assert!(
        run.stderr.contains(
            "the workspace-write sandbox is unavailable (this kernel lacks Landlock ABI 3"
        ) && run.stderr.contains("every shell command asks first"),
        "{}",
        run.stderr
    );
    // No terminal to ask on: the command waits for a person who is not
    // there, so it is refused and never runs.
    assert!(!home.workspace.path().join("made").exists(), "{run:#?}");
    assert!(
        !tool_output(&server).contains("[exit code"),
        "{}",
        tool_output(&server)
    );
}

/// The `sandbox_set` records of session `id`, in order.
fn sandbox_sets(home: &Home, id: strata_protocol::SessionId) -> Vec<strata_protocol::SandboxSet> {
    home.store()
        .open_reader(id, strata_core::ReadMode::Strict)
        .unwrap()
        .records
        .into_iter()
        .filter_map(|record| match record.body {
            RecordBody::SandboxSet(set) => Some(set),
            _ => None,
        })
        .collect()
}

/// The modes of session `id`'s `sandbox_set` records.
fn sandbox_records(home: &Home, id: strata_protocol::SessionId) -> Vec<SandboxMode> {
    sandbox_sets(home, id)
        .into_iter()
        .map(|set| set.mode)
        .collect()
}

#[test]
fn without_a_flag_or_a_config_a_new_session_is_confined_to_its_workspace_and_records_it() {
    let test =
        "without_a_flag_or_a_config_a_new_session_is_confined_to_its_workspace_and_records_it";
    if launcher(test).is_none() {
        return;
    }
    let (home, _server, run) = confined_run(&[]);
    let id = announced_id(&run.stderr);
    assert_eq!(sandbox_records(&home, id), [SandboxMode::WorkspaceWrite]);
}

#[test]
fn the_configured_sandbox_is_recorded_and_a_resume_keeps_it_until_a_flag_changes_it() {
    let test = "the_configured_sandbox_is_recorded_and_a_resume_keeps_it_until_a_flag_changes_it";
    if launcher(test).is_none() {
        return;
    }
    let home = Home::new();
    let config = home.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[tools]\nsandbox = \"read-only\"\n",
    )
    .unwrap();
    let server = server_running("echo in > made".to_owned());
    let run = home.run(&responses_run(
        "go",
        &server.base_url,
        &["--approval", "auto"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(
        run.stderr.contains("· sandbox read-only, network off ·"),
        "{}",
        run.stderr
    );
    assert!(!home.workspace.path().join("made").exists());
    let id = announced_id(&run.stderr);
    assert_eq!(sandbox_records(&home, id), [SandboxMode::ReadOnly]);

    // The config changes; the session keeps the mode it recorded.
    std::fs::write(config.join("config.toml"), "[tools]\nsandbox = \"off\"\n").unwrap();
    let again = server_running("echo in > made".to_owned());
    let resumed = home.run(&[
        "resume",
        &id.to_string(),
        "-p",
        "again",
        "--base-url",
        &again.base_url,
        "--approval",
        "auto",
    ]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert!(
        resumed
            .stderr
            .contains("· sandbox read-only, network off ·"),
        "{}",
        resumed.stderr
    );
    assert!(!home.workspace.path().join("made").exists());
    assert_eq!(sandbox_records(&home, id), [SandboxMode::ReadOnly]);

    // A flag changes it, and the change is recorded for the next resume.
    let third = server_running("echo in > made".to_owned());
    let widened = home.run(&[
        "resume",
        &id.to_string(),
        "-p",
        "write now",
        "--base-url",
        &third.base_url,
        "--approval",
        "auto",
        "--sandbox",
        "workspace-write",
    ]);
    assert_eq!(widened.code, 0, "{widened:#?}");
    assert!(home.workspace.path().join("made").is_file());
    assert_eq!(
        sandbox_records(&home, id),
        [SandboxMode::ReadOnly, SandboxMode::WorkspaceWrite]
    );
}

/// The network and domains of session `id`'s `sandbox_set` records.
fn network_records(
    home: &Home,
    id: strata_protocol::SessionId,
) -> Vec<(strata_protocol::SandboxNetwork, Vec<String>)> {
    sandbox_sets(home, id)
        .into_iter()
        .map(|set| (set.network, set.allow_domains))
        .collect()
}

#[test]
fn the_configured_allow_list_refuses_an_unlisted_host_and_network_off_on_resume_is_recorded() {
    use strata_protocol::SandboxNetwork::{AllowList, Off};
    let test =
        "the_configured_allow_list_refuses_an_unlisted_host_and_network_off_on_resume_is_recorded";
    if launcher(test).is_none() {
        return;
    }
    let home = Home::new();
    let config = home.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[tools]\nsandbox = \"workspace-write\"\nsandbox_network = \"allow-list\"\n\
         sandbox_allow_domains = [\"crates.io\"]\n",
    )
    .unwrap();
    let server = server_running("curl -sSf https://example.com/ || echo curl-failed".to_owned());
    let run = home.run(&responses_run(
        "go",
        &server.base_url,
        &["--approval", "auto"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(
        run.stderr
            .contains("· sandbox workspace-write, network allow-list ·"),
        "{}",
        run.stderr
    );
    let id = announced_id(&run.stderr);
    assert_eq!(
        network_records(&home, id),
        [(AllowList, vec!["crates.io".to_owned()])]
    );
    let output = tool_output(&server);
    if output.contains("curl: not found") || output.contains("curl: command not found") {
        eprintln!("SKIPPED (no curl installed): {test}");
        return;
    }
    assert!(
        output.contains("[sandbox: network to example.com is not on the allow-list]"),
        "{output}"
    );

    let again = server_running("echo resumed".to_owned());
    let resumed = home.run(&[
        "resume",
        &id.to_string(),
        "-p",
        "again",
        "--base-url",
        &again.base_url,
        "--approval",
        "auto",
        "--network",
        "off",
    ]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert!(
        resumed
            .stderr
            .contains("· sandbox workspace-write, network off ·"),
        "{}",
        resumed.stderr
    );
    assert_eq!(
        network_records(&home, id),
        [
            (AllowList, vec!["crates.io".to_owned()]),
            (Off, vec!["crates.io".to_owned()])
        ]
    );
}

#[test]
fn an_unknown_network_choice_is_refused_naming_the_choices() {
    let home = Home::new();
    let run = home.run(&["run", "-p", "hi", "--network", "sometimes"]);
    assert_ne!(run.code, 0, "{run:#?}");
    assert!(
        run.stderr
            .contains("is not a network choice (off, allow-list, on)"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_workspace_network_saved_by_strata_applies_and_one_edited_outside_does_not_widen() {
    use strata_protocol::SandboxNetwork::{AllowList, Off};
    let test = "a_workspace_network_saved_by_strata_applies_and_one_edited_outside_does_not_widen";
    if launcher(test).is_none() {
        return;
    }
    let home = Home::new();
    let workspace = home.workspace.path().to_str().unwrap().to_owned();
    let saved = home.run(&[
        "rules",
        "network",
        "allow-list",
        "crates.io",
        "--workspace",
        &workspace,
    ]);
    assert_eq!(saved.code, 0, "{saved:#?}");
    assert!(
        saved.stdout.contains("saved network allow-list"),
        "{}",
        saved.stdout
    );
    let server = server_running("echo hi".to_owned());
    let run = home.run(&responses_run(
        "go",
        &server.base_url,
        &["--sandbox", "workspace-write"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    let id = announced_id(&run.stderr);
    assert_eq!(
        network_records(&home, id),
        [(AllowList, vec!["crates.io".to_owned()])]
    );
    // The same file written by something else: widening stops.
    let file = home.workspace.path().join(".strata/network.toml");
    std::fs::write(&file, "network = \"on\"\n").unwrap();
    let again = server_running("echo hi".to_owned());
    let run = home.run(&responses_run(
        "go",
        &again.base_url,
        &["--sandbox", "workspace-write"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    let id = announced_id(&run.stderr);
    assert_eq!(network_records(&home, id), [(Off, Vec::new())]);
}

#[test]
fn strata_rules_network_refuses_a_domain_that_is_not_one_and_writes_nothing() {
    let home = Home::new();
    let workspace = home.workspace.path().to_str().unwrap().to_owned();
    let refused = home.run(&[
        "rules",
        "network",
        "allow-list",
        "crates.io",
        "not a domain",
        "--workspace",
        &workspace,
    ]);
    assert_ne!(refused.code, 0, "{refused:#?}");
    // The CLI starts its one line in lower case.
    assert!(
        refused.stderr.contains(
            "strata: error: nothing was saved: \"not a domain\" is not a domain, a *.domain or an IP address."
        ),
        "{}",
        refused.stderr
    );
    assert!(!home.workspace.path().join(".strata/network.toml").exists());
}
