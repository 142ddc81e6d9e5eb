//! `run_shell`: `sh -c` in the workspace, in its own process group so a
//! timeout or a cancellation kills everything it started, with a scrubbed
//! environment and stdout and stderr interleaved through one pipe.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use strata_protocol::ToolCallStatus;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::error::{ToolError, ToolResult};

/// How long output may keep flowing after the command itself exited (from
/// processes it left in the background) before the group is killed.
const AFTER_EXIT_GRACE: Duration = Duration::from_millis(250);
/// How long to wait for the pipe to close once the group was killed.
const AFTER_KILL_GRACE: Duration = Duration::from_secs(2);

#[derive(Clone, Debug)]
pub(crate) struct ShellPlan {
    pub command: String,
    pub timeout: Duration,
}

#[derive(Debug)]
pub(crate) struct ShellRun {
    pub text: String,
    pub status: ToolCallStatus,
    pub exit_code: Option<i32>,
}

/// Added when a process the command started still holds the output pipe.
const INCOMPLETE_NOTE: &str =
    "[output may be incomplete: a process the command started still holds it]";

/// Whether an environment variable looks like a credential.
pub(crate) fn is_secret_var(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    name.ends_with("_API_KEY")
        || name == "API_KEY"
        || name.ends_with("_TOKEN")
        || name == "TOKEN"
        || name.contains("SECRET")
        || name.contains("PASSWORD")
        || (name.starts_with("OPENAI_") && name.contains("KEY"))
        || (name.starts_with("ANTHROPIC_") && name.contains("KEY"))
}

/// This process's environment without anything that looks like a secret.
pub(crate) fn scrubbed_env() -> Vec<(OsString, OsString)> {
    std::env::vars_os()
        .filter(|(name, _)| !is_secret_var(&name.to_string_lossy()))
        .collect()
}

/// Output kept in memory; more than `limit` bytes are counted, not kept.
struct Capture {
    bytes: Vec<u8>,
    dropped: u64,
}

enum Ended {
    Exited(std::io::Result<std::process::ExitStatus>),
    TimedOut,
    Cancelled,
}

pub(crate) async fn run(
    plan: &ShellPlan,
    cwd: &Path,
    capture_limit: usize,
    cancel: &CancellationToken,
) -> ToolResult<ShellRun> {
    if cancel.is_cancelled() {
        return Ok(ShellRun {
            text: "[cancelled before the command started]".into(),
            status: ToolCallStatus::Cancelled,
            exit_code: None,
        });
    }
    let spawn_error = |error: std::io::Error| ToolError::Spawn {
        message: error.to_string(),
    };
    // One pipe for both streams keeps their order as the command wrote them.
    let (reader, writer) = std::io::pipe().map_err(spawn_error)?;
    let writer_err = writer.try_clone().map_err(spawn_error)?;
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(&plan.command)
        .current_dir(cwd)
        .env_clear()
        .envs(scrubbed_env())
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_err)
        .process_group(0)
        .kill_on_drop(true);
    let spawned = command.spawn();
    // The command holds our copies of the pipe's write end; drop them or the
    // reader would never see the end of the output.
    drop(command);
    let mut child = spawned.map_err(spawn_error)?;
    let group = child.id().and_then(|id| i32::try_from(id).ok());
    // If this future is dropped instead of cancelled, still kill the group.
    let mut guard = GroupGuard { group };

    let capture = Arc::new(Mutex::new(Capture {
        bytes: Vec::new(),
        dropped: 0,
    }));
    let (done_tx, mut done_rx) = oneshot::channel();
    {
        let capture = Arc::clone(&capture);
        // A plain thread, not the blocking pool: a process that escaped the
        // group may hold the pipe forever, and a runtime waits for its pool.
        std::thread::spawn(move || {
            read_all(reader, &capture, capture_limit);
            let _ = done_tx.send(());
        });
    }

    let ended = tokio::select! {
        status = child.wait() => Ended::Exited(status),
        () = tokio::time::sleep(plan.timeout) => Ended::TimedOut,
        () = cancel.cancelled() => Ended::Cancelled,
    };
    let mut complete = true;
    match &ended {
        Ended::Exited(_) => {
            if tokio::time::timeout(AFTER_EXIT_GRACE, &mut done_rx)
                .await
                .is_err()
            {
                kill_group(group);
                complete = tokio::time::timeout(AFTER_KILL_GRACE, &mut done_rx)
                    .await
                    .is_ok();
            }
        }
        Ended::TimedOut | Ended::Cancelled => {
            // Killed before it is reaped, so the group id cannot be reused.
            kill_group(group);
            let _ = child.wait().await;
            complete = tokio::time::timeout(AFTER_KILL_GRACE, &mut done_rx)
                .await
                .is_ok();
        }
    }

    // Done with the group: killing it later could hit a reused process id.
    guard.group = None;
    let (mut text, dropped) = {
        let capture = capture.lock().unwrap_or_else(PoisonError::into_inner);
        (
            String::from_utf8_lossy(&capture.bytes).into_owned(),
            capture.dropped,
        )
    };
    if text.is_empty() {
        text.push_str("(no output)");
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if dropped > 0 {
        text.push_str(&format!(
            "[... {dropped} more bytes of output were not kept]\n"
        ));
    }
    if !complete {
        text.push_str(INCOMPLETE_NOTE);
        text.push('\n');
    }
    let timeout_ms = plan.timeout.as_millis();
    let (status, exit_code) = match ended {
        Ended::Exited(Ok(status)) => match (status.code(), status.signal()) {
            (Some(code), _) => {
                text.push_str(&format!("[exit code: {code}]"));
                let status = if code == 0 {
                    ToolCallStatus::Success
                } else {
                    ToolCallStatus::Error
                };
                (status, Some(code))
            }
            (None, signal) => {
                let signal = signal.map_or_else(|| "?".to_owned(), |s| s.to_string());
                text.push_str(&format!("[killed by signal {signal}]"));
                (ToolCallStatus::Error, None)
            }
        },
        Ended::Exited(Err(error)) => {
            text.push_str(&format!("[could not wait for the command: {error}]"));
            (ToolCallStatus::Error, None)
        }
        Ended::TimedOut => {
            text.push_str(&format!(
                "[timed out after {timeout_ms} ms; the command and everything it started were killed]"
            ));
            (ToolCallStatus::TimedOut, None)
        }
        Ended::Cancelled => {
            text.push_str("[cancelled; the command and everything it started were killed]");
            (ToolCallStatus::Cancelled, None)
        }
    };
    Ok(ShellRun {
        text,
        status,
        exit_code,
    })
}

fn read_all(mut reader: std::io::PipeReader, capture: &Mutex<Capture>, limit: usize) {
    let mut buffer = [0u8; 8192];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => {
                let mut capture = capture.lock().unwrap_or_else(PoisonError::into_inner);
                let room = limit.saturating_sub(capture.bytes.len()).min(n);
                capture.bytes.extend_from_slice(&buffer[..room]);
                capture.dropped += (n - room) as u64;
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

struct GroupGuard {
    group: Option<i32>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.group);
    }
}

fn kill_group(group: Option<i32>) {
    if let Some(group) = group {
        // ESRCH (already gone) is the only expected failure; nothing to do.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(group),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(command: &str, timeout_ms: u64) -> ShellPlan {
        ShellPlan {
            command: command.into(),
            timeout: Duration::from_millis(timeout_ms),
        }
    }

    #[test]
    fn secret_looking_names_are_recognised_case_insensitively() {
        for name in [
            "OPENAI_API_KEY",
            "anthropic_api_key",
            "GITHUB_TOKEN",
            "MY_SECRET_THING",
            "client_secret",
            "OPENAI_KEY",
            "ANTHROPIC_AUTH_KEY",
            "DB_PASSWORD",
        ] {
            assert!(is_secret_var(name), "{name}");
        }
        for name in ["PATH", "HOME", "TOKENIZERS_PARALLELISM", "KEYMAP", "LANG"] {
            assert!(!is_secret_var(name), "{name}");
        }
    }

    #[tokio::test]
    async fn stdout_and_stderr_are_interleaved_and_the_exit_code_reported() {
        let dir = tempfile::tempdir().unwrap();
        let run = run(
            &plan("echo one; echo two >&2; echo three; exit 3", 10_000),
            dir.path(),
            1 << 20,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(run.text, "one\ntwo\nthree\n[exit code: 3]");
        assert_eq!(run.status, ToolCallStatus::Error);
        assert_eq!(run.exit_code, Some(3));
    }

    #[tokio::test]
    async fn a_timeout_kills_the_whole_group_so_the_output_pipe_closes() {
        let dir = tempfile::tempdir().unwrap();
        // The background sleep holds the pipe: it only closes if it is killed too.
        let run = run(
            &plan("sleep 30 & echo started; wait", 300),
            dir.path(),
            1 << 20,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(run.status, ToolCallStatus::TimedOut);
        assert!(
            !run.text.contains(INCOMPLETE_NOTE),
            "a process of the group survived"
        );
        assert_eq!(
            run.text,
            "started\n[timed out after 300 ms; the command and everything it started were killed]"
        );
    }

    #[tokio::test]
    async fn background_processes_left_behind_are_killed_after_the_command_exits() {
        let dir = tempfile::tempdir().unwrap();
        let run = run(
            &plan("sleep 30 & echo done", 10_000),
            dir.path(),
            1 << 20,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(run.status, ToolCallStatus::Success);
        assert!(!run.text.contains(INCOMPLETE_NOTE));
        assert_eq!(run.text, "done\n[exit code: 0]");
    }

    #[tokio::test]
    async fn output_over_the_capture_limit_is_counted_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let run = run(
            &plan("printf '0123456789'", 10_000),
            dir.path(),
            4,
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(
            run.text,
            "0123\n[... 6 more bytes of output were not kept]\n[exit code: 0]"
        );
    }
}
