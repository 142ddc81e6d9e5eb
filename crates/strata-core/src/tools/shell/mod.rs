//! `run_shell`: `sh -c` in the workspace under a supervisor that kills
//! every process the command started when it ends (`supervisor.rs`), with
//! an allow-listed environment (`env.rs`) and stdout and stderr interleaved
//! through one pipe. Output over the capture limit keeps its beginning and
//! its end (where errors usually are) around a marker saying how much of
//! the middle was dropped (`capture.rs`).

mod capture;
mod env;
mod procs;
mod sandbox;
mod supervisor;
mod tree;

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
use super::output::Redactor;
use capture::Capture;
pub use env::SHELL_ENV_ALLOWED;
pub(crate) use sandbox::Confinement;
pub use sandbox::{SANDBOX_EXEC_VAR, ShellSandbox, sandbox_unavailable_here};
pub use supervisor::{
    ExitSignals, also_on_exit_signal, end_all_children, end_all_commands, end_commands_on_signals,
};

/// How long output may keep flowing after the command itself exited (from
/// processes it left in the background) before they are killed.
const AFTER_EXIT_GRACE: Duration = Duration::from_millis(250);
/// How long to wait for the pipe to close once they were killed.
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
/// Added when some process of the command could not be killed in time.
const SURVIVORS_NOTE: &str = "[some processes the command started could not be stopped]";

enum Ended {
    Exited(std::io::Result<std::process::ExitStatus>),
    TimedOut,
    Cancelled,
}

pub(crate) async fn run(
    plan: &ShellPlan,
    confinement: &Confinement,
    cwd: &Path,
    env_names: &[String],
    capture_limit: usize,
    redactor: &Redactor,
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
    let mut command =
        match confinement {
            // The launcher sets the parent-death signal itself.
            Confinement::Sandboxed {
                launcher, policy, ..
            } => strata_sandbox::launcher_command(launcher, policy, &plan.command).map_err(
                |error| ToolError::Spawn {
                    message: error.to_string(),
                },
            )?,
            Confinement::Off | Confinement::Unavailable { .. } => {
                let mut command = match supervisor::pdeathsig_wrapper() {
                    Some(setpriv) => {
                        let mut command = std::process::Command::new(setpriv);
                        command.args(["--pdeathsig", "KILL", "--", "sh"]);
                        command
                    }
                    None => std::process::Command::new("sh"),
                };
                command.arg("-c").arg(&plan.command);
                command
            }
        };
    command
        .current_dir(cwd)
        .env_clear()
        .envs(env::allowed_env(std::env::vars_os(), env_names))
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_err);
    if let Confinement::Sandboxed { policy, .. } = confinement {
        // The session's own temp folder, the one place besides the
        // workspace the sandbox lets it write.
        command.env("TMPDIR", &policy.temp_dir);
    }
    let proxy_mark = match confinement {
        Confinement::Sandboxed {
            proxy: Some(proxy), ..
        } => Some((proxy, proxy.mark())),
        Confinement::Sandboxed { proxy: None, .. }
        | Confinement::Off
        | Confinement::Unavailable { .. } => None,
    };
    // Dropped (with our copies of the pipe's write end) once started, or
    // the reader would never see the end of the output.
    let mut child = supervisor::spawn(command).await.map_err(spawn_error)?;

    let capture = Arc::new(Mutex::new(Capture::new(capture_limit)));
    let (done_tx, mut done_rx) = oneshot::channel();
    {
        let capture = Arc::clone(&capture);
        // A plain thread, not the blocking pool: a process out of reach (one
        // started through another daemon) may hold the pipe forever, and a
        // runtime waits for its pool.
        std::thread::spawn(move || {
            read_all(reader, &capture);
            let _ = done_tx.send(());
        });
    }

    let ended = tokio::select! {
        status = child.wait() => Ended::Exited(status),
        () = tokio::time::sleep(plan.timeout) => Ended::TimedOut,
        () = cancel.cancelled() => Ended::Cancelled,
    };
    // Whether the output pipe closed: every process holding it is gone.
    let mut closed = false;
    let all_killed = match &ended {
        Ended::Exited(_) => {
            // Output still flowing from what it left behind gets a moment,
            // then everything left behind is killed.
            closed = tokio::time::timeout(AFTER_EXIT_GRACE, &mut done_rx)
                .await
                .is_ok();
            child.end().await
        }
        Ended::TimedOut | Ended::Cancelled => {
            let all_killed = child.end().await;
            let _ = child.wait().await;
            all_killed
        }
    };
    let complete = closed
        || tokio::time::timeout(AFTER_KILL_GRACE, &mut done_rx)
            .await
            .is_ok();

    let mut text = capture
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .text(redactor);
    if text.is_empty() {
        text.push_str("(no output)");
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if !complete {
        text.push_str(INCOMPLETE_NOTE);
        text.push('\n');
    }
    if !all_killed {
        text.push_str(SURVIVORS_NOTE);
        text.push('\n');
    }
    let exited_code = match &ended {
        Ended::Exited(Ok(status)) => status.code(),
        Ended::Exited(Err(_)) | Ended::TimedOut | Ended::Cancelled => None,
    };
    match confinement {
        Confinement::Sandboxed { policy, .. } => {
            // The proxy's refusals name the host; they come first.
            let refused = proxy_mark
                .map(|(proxy, mark)| proxy.explanations_since(mark))
                .unwrap_or_default();
            let explained = strata_sandbox::explain_refusal(policy, cwd, &text, exited_code);
            for line in refused.into_iter().chain(explained) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        Confinement::Unavailable { .. } => {
            if let Some(reason) = confinement.unavailable() {
                text.push_str(&format!(
                    "[sandbox: {reason}; this command ran unconfined because the person allowed it]\n"
                ));
            }
        }
        Confinement::Off => {}
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

fn read_all(mut reader: std::io::PipeReader, capture: &Mutex<Capture>) {
    let mut buffer = [0u8; 8192];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => capture
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(&buffer[..n]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `command` in a fresh folder with no extra variables.
    async fn run_in_temp(command: &str, timeout_ms: u64, capture_limit: usize) -> ShellRun {
        let dir = tempfile::tempdir().unwrap();
        let plan = ShellPlan {
            command: command.into(),
            timeout: Duration::from_millis(timeout_ms),
        };
        let cancel = CancellationToken::new();
        run(
            &plan,
            &Confinement::Off,
            dir.path(),
            &[],
            capture_limit,
            &Redactor::default(),
            &cancel,
        )
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn stdout_and_stderr_are_interleaved_and_the_exit_code_reported() {
        let run = run_in_temp(
            "echo one; echo two >&2; echo three; exit 3",
            10_000,
            1 << 20,
        )
        .await;
        assert_eq!(run.text, "one\ntwo\nthree\n[exit code: 3]");
        assert_eq!(run.status, ToolCallStatus::Error);
        assert_eq!(run.exit_code, Some(3));
    }

    #[tokio::test]
    async fn a_timeout_kills_the_whole_group_so_the_output_pipe_closes() {
        // The background sleep holds the pipe: it only closes if it is killed too.
        let run = run_in_temp("sleep 30 & echo started; wait", 300, 1 << 20).await;
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
        let run = run_in_temp("sleep 30 & echo done", 10_000, 1 << 20).await;
        assert_eq!(run.status, ToolCallStatus::Success);
        assert!(!run.text.contains(INCOMPLETE_NOTE));
        assert_eq!(run.text, "done\n[exit code: 0]");
    }

    #[tokio::test]
    async fn output_over_the_capture_limit_keeps_both_ends_and_counts_the_middle() {
        let run = run_in_temp("printf '0123456789'", 10_000, 4).await;
        assert_eq!(
            run.text,
            "01\n[... 6 bytes of output in the middle were not kept ...]\n89\n[exit code: 0]"
        );
    }
}
