//! Processes die with their `run_shell` command: every shape a command can
//! leave a process behind in (a `setsid` job, a double fork, a job with its
//! output closed, `nohup`, one that ignores SIGTERM, and one that also
//! clears its environment), on success, on timeout and on cancellation,
//! checked through `/proc`; two commands at once keep to their own
//! processes; and the app's exit signals end every running command.
//!
//! Each process a command starts records its id and start time in `pids`
//! (`lib.sh`), so "gone" means that very process is no longer listed at all:
//! killed, and reaped.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use strata_core::tools::{CancellationToken, RUN_SHELL, ToolConfig, ToolOutcome, ToolRegistry};
use strata_protocol::ToolCallStatus;

/// Helpers every command sources (`record`, `ready N`).
const LIB: &str = include_str!("../../../tests/fixtures/shell/lib.sh");
/// A process meant to outlive the command: records itself, then sleeps.
const ESCAPEE: &str = ". ./lib.sh; record; exec sleep 1000\n";
/// The same, ignoring SIGTERM (inherited through exec).
const STUBBORN: &str = "trap '' TERM; . ./lib.sh; record; exec sleep 1000\n";

fn workspace() -> (tempfile::TempDir, ToolRegistry) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("lib.sh", LIB),
        ("escapee.sh", ESCAPEE),
        ("stubborn.sh", STUBBORN),
    ] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let tools = ToolRegistry::new(dir.path(), ToolConfig::default()).unwrap();
    (dir, tools)
}

/// The command: records its own first process, starts `shape` (which
/// leaves one process behind), waits until that one recorded itself, then
/// runs `rest`.
fn command(shape: &str, rest: &str) -> String {
    format!(". ./lib.sh; record\n{shape}\nready 2; echo launched; {rest}")
}

/// The processes recorded in `dir/pids`: (id, start time).
fn recorded(dir: &Path) -> Vec<(i32, u64)> {
    let text = std::fs::read_to_string(dir.join("pids")).unwrap_or_default();
    text.lines()
        .map(|line| {
            let (pid, start) = line.split_once(' ').unwrap();
            (pid.parse().unwrap(), start.parse().unwrap())
        })
        .collect()
}

/// Field 22 (start time) and field 3 (state) of `/proc/PID/stat`, if listed.
fn listed(pid: i32) -> Option<(u64, String)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = text[text.rfind(')')? + 1..].split_whitespace().collect();
    Some((fields[19].parse().ok()?, fields[0].to_owned()))
}

/// Whether process (pid, start) is still running (listed and no zombie).
fn running(&(pid, start): &(i32, u64)) -> bool {
    listed(pid).is_some_and(|(now, state)| now == start && state != "Z")
}

/// Asserts every recorded process (`expected` of them) is no longer listed.
fn assert_all_gone(dir: &Path, expected: usize, outcome: &ToolOutcome) {
    let pids = recorded(dir);
    assert_eq!(
        pids.len(),
        expected,
        "recorded {pids:?}; {}",
        outcome.output
    );
    for (pid, start) in pids {
        let left = listed(pid).filter(|(now, _)| *now == start);
        assert!(
            left.is_none(),
            "process {pid} outlived its command ({left:?}); {}",
            outcome.output
        );
    }
}

async fn run(tools: &ToolRegistry, command: &str, timeout_ms: u64) -> ToolOutcome {
    let arguments = json!({"command": command, "timeout_ms": timeout_ms}).to_string();
    let prepared = tools.prepare(RUN_SHELL, &arguments).unwrap();
    tools.execute(&prepared, &CancellationToken::new()).await
}

/// Polls until `dir/pids` has `count` lines (ten seconds at most).
async fn until_recorded(dir: &Path, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while recorded(dir).len() < count {
        assert!(Instant::now() < deadline, "only {:?}", recorded(dir));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn dies_when_the_command_succeeds(shape: &str) {
    let (dir, tools) = workspace();
    let outcome = run(&tools, &command(shape, "exit 0"), 20_000).await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::Success,
        "{}",
        outcome.output
    );
    assert!(
        outcome.output.starts_with("launched\n"),
        "{}",
        outcome.output
    );
    assert_all_gone(dir.path(), 2, &outcome);
}

async fn dies_when_the_command_times_out(shape: &str) {
    let (dir, tools) = workspace();
    let outcome = run(&tools, &command(shape, "sleep 1000"), 3_000).await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::TimedOut,
        "{}",
        outcome.output
    );
    assert_all_gone(dir.path(), 2, &outcome);
}

async fn dies_when_the_command_is_cancelled(shape: &str) {
    let (dir, tools) = workspace();
    let arguments = json!({"command": command(shape, "sleep 1000")}).to_string();
    let prepared = tools.prepare(RUN_SHELL, &arguments).unwrap();
    let cancel = CancellationToken::new();
    let running = tokio::spawn({
        let (tools, cancel) = (tools.clone(), cancel.clone());
        async move { tools.execute(&prepared, &cancel).await }
    });
    until_recorded(dir.path(), 2).await;
    cancel.cancel();
    let outcome = running.await.unwrap();
    assert_eq!(
        outcome.status,
        ToolCallStatus::Cancelled,
        "{}",
        outcome.output
    );
    assert_all_gone(dir.path(), 2, &outcome);
}

/// One module per shape, each with a test per way the command ends.
macro_rules! shapes {
    ($($name:ident: $shape:expr;)*) => {$(
        mod $name {
            #[tokio::test]
            async fn dies_when_the_command_succeeds() {
                super::dies_when_the_command_succeeds($shape).await;
            }

            #[tokio::test]
            async fn dies_when_the_command_times_out() {
                super::dies_when_the_command_times_out($shape).await;
            }

            #[tokio::test]
            async fn dies_when_the_command_is_cancelled() {
                super::dies_when_the_command_is_cancelled($shape).await;
            }
        }
    )*};
}

shapes! {
    setsid_background_job: "setsid sh escapee.sh >/dev/null 2>&1 &";
    double_fork: "( (sh escapee.sh &) & )";
    job_with_closed_output: "sh escapee.sh >&- 2>&- &";
    nohup_job: "nohup sh escapee.sh >/dev/null 2>&1 &";
    job_ignoring_sigterm: "sh stubborn.sh &";
    env_cleared_setsid_double_fork: "env -i setsid sh -c '(sh escapee.sh &)' >/dev/null 2>&1 &";
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_ending_leaves_another_running_commands_processes_alone() {
    let (long_dir, long_tools) = workspace();
    let arguments = json!({
        "command": command("setsid sh escapee.sh >/dev/null 2>&1 &", "sleep 1000")
    })
    .to_string();
    let prepared = long_tools.prepare(RUN_SHELL, &arguments).unwrap();
    let cancel = CancellationToken::new();
    let long = tokio::spawn({
        let cancel = cancel.clone();
        async move { long_tools.execute(&prepared, &cancel).await }
    });
    until_recorded(long_dir.path(), 2).await;

    let (short_dir, short_tools) = workspace();
    let short = run(
        &short_tools,
        &command("setsid sh escapee.sh >/dev/null 2>&1 &", "exit 0"),
        20_000,
    )
    .await;
    assert_all_gone(short_dir.path(), 2, &short);
    let long_pids = recorded(long_dir.path());
    assert!(long_pids.iter().all(running), "{long_pids:?}");

    cancel.cancel();
    let long = long.await.unwrap();
    assert_eq!(long.status, ToolCallStatus::Cancelled);
    assert_all_gone(long_dir.path(), 2, &long);
}

const CHILD_WORKSPACE: &str = "STRATA_TEST_SHELL_EXIT_WORKSPACE";

/// Runs `child_test` in a fresh copy of this test binary (its process
/// exits or is killed, which must not take the test runner with it) over
/// a workspace of its own, once the child's command recorded `count`
/// processes.
fn with_child(child_test: &str, count: usize) -> (tempfile::TempDir, std::process::Child) {
    let (dir, _tools) = workspace();
    let child = Command::new(std::env::current_exe().unwrap())
        .args([child_test, "--exact", "--ignored", "--nocapture"])
        .env(CHILD_WORKSPACE, dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while recorded(dir.path()).len() < count {
        assert!(Instant::now() < deadline, "only {:?}", recorded(dir.path()));
        std::thread::sleep(Duration::from_millis(10));
    }
    (dir, child)
}

/// Waits (ten seconds at most) for `child` to end.
fn ended(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "the child did not end");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The app's side of the exit tests: ends commands on exit signals, then
/// runs a command that leaves three kinds of processes behind and never
/// ends by itself.
#[tokio::test]
#[ignore = "run by the exit signal tests in a child process"]
async fn child_app_with_a_running_command() {
    let Some(dir) = std::env::var_os(CHILD_WORKSPACE) else {
        return;
    };
    strata_core::tools::end_commands_on_signals(
        strata_core::tools::ExitSignals::TermHangupAndInterrupt,
    );
    let tools = ToolRegistry::new(dir, ToolConfig::default()).unwrap();
    let command = ". ./lib.sh; record
        setsid sh escapee.sh >/dev/null 2>&1 &
        ( (sh stubborn.sh &) & )
        ready 3; sleep 1000";
    run(&tools, command, 600_000).await;
}

fn an_exit_signal_ends_every_running_command(signal: nix::sys::signal::Signal) {
    let (dir, mut child) = with_child("child_app_with_a_running_command", 3);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pid, signal).unwrap();
    let status = ended(&mut child);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(signal as i32), "{status:?}");
    let pids = recorded(dir.path());
    assert_eq!(pids.len(), 3);
    for (pid, start) in pids {
        let left = listed(pid).filter(|(now, _)| *now == start);
        assert!(left.is_none(), "process {pid} outlived the app: {left:?}");
    }
}

#[test]
fn sigterm_ends_every_running_command_before_the_app_exits() {
    an_exit_signal_ends_every_running_command(nix::sys::signal::Signal::SIGTERM);
}

#[test]
fn sighup_ends_every_running_command_before_the_app_exits() {
    an_exit_signal_ends_every_running_command(nix::sys::signal::Signal::SIGHUP);
}

#[test]
fn sigint_ends_every_running_command_before_the_app_exits() {
    an_exit_signal_ends_every_running_command(nix::sys::signal::Signal::SIGINT);
}

/// The app's side of the parent-death test: its command's first process is
/// `sleep` itself.
#[tokio::test]
#[ignore = "run by the parent-death test in a child process"]
async fn child_app_running_one_process() {
    let Some(dir) = std::env::var_os(CHILD_WORKSPACE) else {
        return;
    };
    let tools = ToolRegistry::new(dir, ToolConfig::default()).unwrap();
    run(&tools, ". ./lib.sh; record; exec sleep 1000", 600_000).await;
}

#[test]
fn the_commands_first_process_dies_when_the_app_is_killed() {
    let (dir, mut child) = with_child("child_app_running_one_process", 1);
    child.kill().unwrap();
    ended(&mut child);
    let first = recorded(dir.path())[0];
    let deadline = Instant::now() + Duration::from_secs(5);
    while running(&first) {
        assert!(Instant::now() < deadline, "{first:?} outlived the app");
        std::thread::sleep(Duration::from_millis(10));
    }
}
