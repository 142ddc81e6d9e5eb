//! `run_shell`: `sh -c` in the workspace, in its own process group so a
//! timeout or a cancellation kills everything it started, with a scrubbed
//! environment and stdout and stderr interleaved through one pipe. Output
//! over the capture limit keeps its beginning and its end (where errors
//! usually are) around a marker saying how much of the middle was dropped.

use std::collections::VecDeque;
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
use super::output::Redactor;

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

/// Output kept in memory: at most `limit` bytes, the first half in `head`
/// and the latest half in `tail`; bytes pushed out of the middle are counted.
struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
    head_limit: usize,
    tail_limit: usize,
}

impl Capture {
    fn new(limit: usize) -> Self {
        let head_limit = limit / 2;
        Self {
            head: Vec::new(),
            tail: VecDeque::new(),
            dropped: 0,
            head_limit,
            tail_limit: limit - head_limit,
        }
    }

    fn push(&mut self, mut bytes: &[u8]) {
        let room = self
            .head_limit
            .saturating_sub(self.head.len())
            .min(bytes.len());
        self.head.extend_from_slice(&bytes[..room]);
        bytes = &bytes[room..];
        if bytes.len() >= self.tail_limit {
            // The whole tail is replaced: skip what would be dropped anyway.
            let skip = bytes.len() - self.tail_limit;
            self.dropped += (self.tail.len() + skip) as u64;
            self.tail.clear();
            bytes = &bytes[skip..];
        }
        self.tail.extend(bytes);
        let over = self.tail.len().saturating_sub(self.tail_limit);
        self.tail.drain(..over);
        self.dropped += over as u64;
    }

    /// The kept output as text. When the middle was dropped, the two ends are
    /// cut on char boundaries (the partial chars counted as dropped) and
    /// joined by `redactor`, so a secret split by the cut is not half shown.
    fn text(&self, redactor: &Redactor) -> String {
        let tail_bytes: Vec<u8> = self.tail.iter().copied().collect();
        if self.dropped == 0 {
            let mut bytes = self.head.clone();
            bytes.extend_from_slice(&tail_bytes);
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        let head_end = self.head.len() - incomplete_char_at_end(&self.head);
        let tail_start = continuation_bytes_at_start(&tail_bytes);
        let dropped = self.dropped + (self.head.len() - head_end + tail_start) as u64;
        let marker = format!("[... {dropped} bytes of output in the middle were not kept ...]");
        redactor.join_cut(
            &String::from_utf8_lossy(&self.head[..head_end]),
            &marker,
            &String::from_utf8_lossy(&tail_bytes[tail_start..]),
        )
    }
}

/// How many bytes at the end of `bytes` are the start of a UTF-8 char whose
/// rest is missing.
fn incomplete_char_at_end(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(4) {
        let byte = bytes[bytes.len() - back];
        if byte & 0b1100_0000 != 0b1000_0000 {
            // A lead byte (or ASCII): incomplete if it needs more than it has.
            let needs = match byte {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if needs > back { back } else { 0 };
        }
    }
    0
}

/// How many continuation bytes (the rest of a char cut off) `bytes` starts
/// with, at most three.
fn continuation_bytes_at_start(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|&&byte| byte & 0b1100_0000 == 0b1000_0000)
        .count()
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

    let capture = Arc::new(Mutex::new(Capture::new(capture_limit)));
    let (done_tx, mut done_rx) = oneshot::channel();
    {
        let capture = Arc::clone(&capture);
        // A plain thread, not the blocking pool: a process that escaped the
        // group may hold the pipe forever, and a runtime waits for its pool.
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
            &Redactor::default(),
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
            &Redactor::default(),
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
            &Redactor::default(),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(run.status, ToolCallStatus::Success);
        assert!(!run.text.contains(INCOMPLETE_NOTE));
        assert_eq!(run.text, "done\n[exit code: 0]");
    }

    #[tokio::test]
    async fn output_over_the_capture_limit_keeps_both_ends_and_counts_the_middle() {
        let dir = tempfile::tempdir().unwrap();
        let run = run(
            &plan("printf '0123456789'", 10_000),
            dir.path(),
            4,
            &Redactor::default(),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(
            run.text,
            "01\n[... 6 bytes of output in the middle were not kept ...]\n89\n[exit code: 0]"
        );
    }

    fn captured(limit: usize, chunks: &[&[u8]], redactor: &Redactor) -> String {
        let mut capture = Capture::new(limit);
        for chunk in chunks {
            capture.push(chunk);
        }
        capture.text(redactor)
    }

    #[test]
    fn the_tail_is_the_latest_output_whatever_the_chunk_sizes() {
        let output: Vec<u8> = (0..200u8).map(|i| b'a' + i % 26).collect();
        let expected = format!(
            "{}\n[... 180 bytes of output in the middle were not kept ...]\n{}",
            String::from_utf8_lossy(&output[..10]),
            String::from_utf8_lossy(&output[190..]),
        );
        for size in [1, 3, 7, 10, 11, 64, 200] {
            let chunks: Vec<&[u8]> = output.chunks(size).collect();
            assert_eq!(
                captured(20, &chunks, &Redactor::default()),
                expected,
                "{size}"
            );
        }
        // Within the limit nothing is cut, however it arrived.
        assert_eq!(
            captured(20, &[b"0123456789", b"abcdefghij"], &Redactor::default()),
            "0123456789abcdefghij"
        );
    }

    #[test]
    fn a_cut_inside_a_char_drops_the_partial_char_and_counts_it() {
        // "é" is two bytes: the head's cut and the tail's cut both split one.
        // 16 bytes, 6 kept: "aa" and the first byte of "é", then the second
        // byte of "é" and "bb".
        let chunks: [&[u8]; 3] = ["aaéé".as_bytes(), b"bbbbbb", "ébb".as_bytes()];
        assert_eq!(
            captured(6, &chunks, &Redactor::default()),
            "aa\n[... 12 bytes of output in the middle were not kept ...]\nbb"
        );
    }

    #[test]
    fn a_secret_split_by_the_capture_cut_is_redacted_on_both_sides() {
        let secret = "sk-live-0123456789abcdefghij";
        let redactor = Redactor::new([secret.to_owned()]);
        let output = format!("xxxx{secret}yyyy");
        for limit in 8..output.len() {
            let text = captured(limit, &[output.as_bytes()], &redactor);
            for start in 0..secret.len() - 4 {
                assert!(!text.contains(&secret[start..start + 4]), "{limit}: {text}");
            }
        }
    }
}
