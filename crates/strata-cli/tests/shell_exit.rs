//! The built `strata` binary, told to exit while a `run_shell` command runs
//! (SIGTERM, SIGHUP), first ends every process the command
//! started, including those that left its session or were double-forked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use serde_json::json;
use support::server::{Reply, ResponsesServer, sse_call, sse_text};
use support::{Home, has_output, responses_run};

/// The command the model runs: records itself, leaves a `setsid` job and a
/// double-forked job behind (each records itself), then never ends.
const COMMAND: &str = ". ./lib.sh; record
setsid sh escapee.sh >/dev/null 2>&1 &
( (sh escapee.sh &) & )
ready 3; sleep 1000";

/// The processes recorded in `pids`: (id, start time).
fn recorded(dir: &Path) -> Vec<(i32, u64)> {
    let text = std::fs::read_to_string(dir.join("pids")).unwrap_or_default();
    text.lines()
        .map(|line| {
            let (pid, start) = line.split_once(' ').unwrap();
            (pid.parse().unwrap(), start.parse().unwrap())
        })
        .collect()
}

/// Whether process `pid` that started at `start` is still listed.
fn listed(pid: i32, start: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|text| {
        let fields: Vec<&str> = text[text.rfind(')').unwrap() + 1..]
            .split_whitespace()
            .collect();
        fields[19].parse() == Ok(start)
    })
}

/// Runs a turn whose model calls `run_shell` with [`COMMAND`], sends
/// `signals` to the CLI once the command's three processes recorded
/// themselves, and checks none of them is left. Returns how the CLI ended.
fn cli_told_to_exit_mid_command(signals: &[Signal]) -> ExitStatus {
    let home = Home::new();
    let workspace = home.workspace.path();
    std::fs::write(
        workspace.join("lib.sh"),
        include_str!("../../../tests/fixtures/shell/lib.sh"),
    )
    .unwrap();
    std::fs::write(
        workspace.join("escapee.sh"),
        ". ./lib.sh; record; exec sleep 1000\n",
    )
    .unwrap();
    let server = ResponsesServer::start(|_, body| {
        if has_output(body) {
            Reply::Sse(sse_text("Done.", 400, 3))
        } else {
            let arguments = json!({"command": COMMAND, "timeout_ms": 600_000});
            Reply::Sse(sse_call("call_s", "run_shell", &arguments, 380, 12))
        }
    });
    let mut cli = home
        .command()
        .args(responses_run(
            "go",
            &server.base_url,
            &["--approval", "auto"],
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while recorded(workspace).len() < 3 {
        assert!(Instant::now() < deadline, "only {:?}", recorded(workspace));
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = nix::unistd::Pid::from_raw(i32::try_from(cli.id()).unwrap());
    for &signal in signals {
        nix::sys::signal::kill(pid, signal).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = cli.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the CLI did not exit");
        std::thread::sleep(Duration::from_millis(10));
    };
    for (pid, start) in recorded(workspace) {
        assert!(!listed(pid, start), "process {pid} outlived the CLI");
    }
    status
}

#[test]
fn sigterm_ends_the_running_commands_processes_then_the_cli() {
    let status = cli_told_to_exit_mid_command(&[Signal::SIGTERM]);
    assert_eq!(status.signal(), Some(Signal::SIGTERM as i32), "{status:?}");
}

#[test]
fn sighup_ends_the_running_commands_processes_then_the_cli() {
    let status = cli_told_to_exit_mid_command(&[Signal::SIGHUP]);
    assert_eq!(status.signal(), Some(Signal::SIGHUP as i32), "{status:?}");
}
