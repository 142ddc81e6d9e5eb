//! A server's process: spawned in its own process group with exactly the
//! environment [`crate::env`] decides, stopped group-wide, always reaped.
//!
//! Stopping follows the MCP stdio rules and then makes sure: close stdin,
//! wait briefly, SIGTERM the group, wait, SIGKILL the group, reap the
//! leader; members left behind by a leader that exited on its own (an `npx`
//! wrapper's `node`) are sent SIGTERM then SIGKILL through the group too.
//! Dropping a [`ServerProcess`] that was not stopped SIGKILLs the group.
//! When Strata itself is killed outright, the leader dies with it and the
//! rest is reaped by the next Strata ([`crate::leftovers`]).

use std::collections::BTreeMap;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::stderr::StderrRing;
use crate::{McpError, StdioServerConfig};

/// After stdin closes, how long a server may take to exit on its own.
pub const EXIT_GRACE: Duration = Duration::from_millis(1_000);
/// After SIGTERM, how long the group may take to exit.
pub const TERM_GRACE: Duration = Duration::from_millis(2_000);
/// How long a stop waits for the rest of stderr once the group is gone (a
/// process outside the group may still hold the pipe open).
const STDERR_DRAIN: Duration = Duration::from_millis(500);
/// How long a Drop waits for the SIGKILLed leader to be reaped.
const DROP_REAP_LIMIT: Duration = Duration::from_millis(500);
const POLL: Duration = Duration::from_millis(10);

/// A running server process and its stderr ring.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    /// The group's id: the leader's pid, as spawned with `process_group(0)`.
    group: Pid,
    stderr: StderrRing,
    /// The task reading stderr into the ring; awaited (briefly) once the group
    /// is gone, so the ring holds the server's last words before anyone reads it.
    stderr_read: Option<tokio::task::JoinHandle<()>>,
    /// The leader was reaped with this status.
    exit: Option<ExitStatus>,
    /// The group was ended after its leader was reaped. Once every member is
    /// gone its id is free for reuse, so it is never signalled again.
    group_ended: bool,
}

/// The two pipes the protocol runs over.
#[derive(Debug)]
pub struct ServerPipes {
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

impl ServerProcess {
    /// Starts `config`'s command with `environment` (and nothing else).
    pub fn spawn(
        config: &StdioServerConfig,
        environment: &BTreeMap<String, String>,
    ) -> Result<(Self, ServerPipes), McpError> {
        let spawn_error = |source| McpError::Spawn {
            server: config.name.clone(),
            command: config.command.clone(),
            source,
        };
        let mut command = Command::new(&config.command);
        command
            .args(&config.args)
            .env_clear()
            .envs(environment)
            // Last, so no config can change it: how a later Strata finds
            // what this one left if it is killed outright.
            .env(
                crate::leftovers::OWNER_ENV,
                crate::leftovers::owner_marker(),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            // Strata stops the group itself; tokio's kill would reach only the leader.
            .kill_on_drop(false);
        if let Some(cwd) = &config.cwd {
            command.current_dir(cwd);
        }
        die_with_strata(&mut command);
        let mut child = command.spawn().map_err(spawn_error)?;
        let missing = || spawn_error(std::io::Error::other("a standard stream was not piped"));
        let pid = child.id().ok_or_else(missing)?;
        let group = Pid::from_raw(i32::try_from(pid).map_err(|_| missing())?);
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let mut process = Self {
                child,
                group,
                stderr: StderrRing::default(),
                stderr_read: None,
                exit: None,
                group_ended: false,
            };
            process.kill_now();
            return Err(missing());
        };
        let ring = StderrRing::default();
        let stderr_read = tokio::spawn(ring.clone().collect(stderr));
        live_groups().insert(group.as_raw());
        let process = Self {
            child,
            group,
            stderr: ring,
            stderr_read: Some(stderr_read),
            exit: None,
            group_ended: false,
        };
        Ok((process, ServerPipes { stdin, stdout }))
    }

    /// The leader's pid, which is also the group's id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.group.as_raw().unsigned_abs()
    }

    /// The server's stderr so far.
    #[must_use]
    pub fn stderr(&self) -> &StderrRing {
        &self.stderr
    }

    /// Whether the leader has exited (and so was reaped); its status if so.
    /// A leader found exited (a crash) takes what is left of its group
    /// with it: SIGKILL, at once, while the group's id is surely its own.
    pub fn try_exit(&mut self) -> Option<ExitStatus> {
        if self.exit.is_none() {
            self.exit = self.child.try_wait().ok().flatten();
            if self.exit.is_some() {
                self.signal_group(Signal::SIGKILL);
                self.mark_ended();
            }
        }
        self.exit
    }

    /// Stops the group. The caller has closed stdin (by closing the
    /// protocol's transport) first. Returns the leader's exit status.
    pub async fn stop(&mut self) -> Option<ExitStatus> {
        if self.exit.is_none() {
            self.exit = wait_for(&mut self.child, EXIT_GRACE).await;
        }
        if self.exit.is_none() {
            self.signal_group(Signal::SIGTERM);
            self.exit = wait_for(&mut self.child, TERM_GRACE).await;
        }
        if self.exit.is_none() {
            self.signal_group(Signal::SIGKILL);
            self.exit = self.child.wait().await.ok();
        }
        self.sweep_group().await;
        self.mark_ended();
        // Every writer of the pipe is gone: what is left in it comes at once.
        if let Some(reading) = self.stderr_read.take() {
            let _ = tokio::time::timeout(STDERR_DRAIN, reading).await;
        }
        self.exit
    }

    /// Members still in the group after the leader is gone get SIGTERM, then
    /// SIGKILL after [`TERM_GRACE`] at most.
    async fn sweep_group(&self) {
        if !self.group_exists() {
            return;
        }
        self.signal_group(Signal::SIGTERM);
        let deadline = Instant::now() + TERM_GRACE;
        while self.group_exists() && Instant::now() < deadline {
            tokio::time::sleep(POLL).await;
        }
        self.signal_group(Signal::SIGKILL);
    }

    fn mark_ended(&mut self) {
        self.group_ended = true;
        live_groups().remove(&self.group.as_raw());
    }

    fn group_exists(&self) -> bool {
        !self.group_ended && killpg(self.group, None).is_ok()
    }

    fn signal_group(&self, signal: Signal) {
        if self.group_ended {
            return;
        }
        match killpg(self.group, signal) {
            Ok(()) | Err(Errno::ESRCH) => {}
            Err(error) => {
                tracing::warn!(%error, group = self.group.as_raw(), "signalling an MCP server's group")
            }
        }
    }

    /// SIGKILLs the group and reaps the leader, waiting a little at most
    /// (a process in uninterruptible sleep dies when it wakes; Tokio reaps
    /// it then).
    fn kill_now(&mut self) {
        self.signal_group(Signal::SIGKILL);
        let deadline = Instant::now() + DROP_REAP_LIMIT;
        while self.try_exit().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The leader gets SIGKILL when Strata dies, however it dies. Linux ties
/// the parent-death signal to the thread that forked: servers are spawned
/// from the async runtime's worker threads, which live as long as the
/// runtime (never from a blocking-pool thread, which may end when idle).
#[cfg(target_os = "linux")]
fn die_with_strata(command: &mut Command) {
    let strata = nix::unistd::getpid();
    #[allow(unsafe_code)]
    // SAFETY: the closure runs in the forked child before exec; it makes
    // two system calls (prctl, getppid), allocates nothing and takes no lock.
    unsafe {
        command.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from)?;
            // Strata died between the fork and the prctl: no signal will come.
            if nix::unistd::getppid() != strata {
                return Err(std::io::Error::other(
                    "Strata exited while the server was starting",
                ));
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_strata(_command: &mut Command) {}

async fn wait_for(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    tokio::time::timeout(limit, child.wait()).await.ok()?.ok()
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if !self.group_ended {
            self.kill_now();
        }
        live_groups().remove(&self.group.as_raw());
    }
}

/// The groups of the servers running now, for [`kill_every_server`].
fn live_groups() -> std::sync::MutexGuard<'static, std::collections::BTreeSet<i32>> {
    static LIVE: std::sync::Mutex<std::collections::BTreeSet<i32>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// SIGKILLs the group of every server still running: for an app ending on
/// a signal, where no destructor runs (hand it to
/// `strata_core::tools::also_on_exit_signal`). Only groups whose leader
/// has not been reaped are signalled, so no reused id is hit.
pub fn kill_every_server() {
    for group in live_groups().iter() {
        let _ = killpg(Pid::from_raw(*group), Signal::SIGKILL);
    }
}
