//! Every process a `run_shell` command starts dies with the command.
//!
//! - While any command runs, Strata is a child subreaper: a process whose
//!   parent exits (a double fork, `setsid … &`, `nohup … &`) is reparented to
//!   Strata instead of init, so it stays findable and Strata reaps it.
//! - Each command's environment carries a marker ([`MARKER_VAR`]) that its
//!   processes inherit; with the process group and the parent links in
//!   `/proc` it tells which processes are whose when several sessions run
//!   commands at once ([`super::tree::members`]).
//! - When the command ends (exit, timeout, cancellation, a dropped future,
//!   or [`end_all_commands`] as the app exits) every such process is killed
//!   with SIGKILL, again and again until none is left, and those reparented
//!   to Strata are reaped by their id: never `waitpid(-1)`, which would steal
//!   the exit status of children other code (Tokio) waits for.
//! - The first process is started through `setpriv --pdeathsig KILL` where
//!   that exists, by a thread that lives until it is reaped, so it dies if
//!   Strata dies.

use std::collections::{BTreeMap, HashSet};
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use tokio::sync::oneshot;

use super::procs;
use super::tree::{self, Me, Tree};

/// The environment variable marking a command's processes.
pub(super) const MARKER_VAR: &str = "STRATA_SHELL_RUN";

/// How long killing one command's processes may take before giving up (a
/// process in uninterruptible sleep dies only when it wakes).
const TERMINATE_LIMIT: Duration = Duration::from_secs(3);
/// How long [`end_all_commands`] waits for a killed first process to be
/// reaped by its waiter.
const ROOT_REAP_LIMIT: Duration = Duration::from_secs(1);
/// Between two sweeps of `/proc` while processes are still dying.
const SWEEP_PAUSE: Duration = Duration::from_millis(2);

/// Which signals end the app, for [`end_commands_on_signals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitSignals {
    /// SIGTERM and SIGHUP (a front end that handles Ctrl+C itself).
    TermAndHangup,
    /// SIGTERM, SIGHUP and SIGINT.
    TermHangupAndInterrupt,
}

struct Registry {
    next: u64,
    /// Commands started and not yet ended, by number.
    running: BTreeMap<u64, Arc<Running>>,
    /// Commands being started or running: Strata is a subreaper while any is.
    active: usize,
    /// Set by [`end_all_commands`]: no command starts any more.
    closing: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    running: BTreeMap::new(),
    active: 0,
    closing: false,
});

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Running {
    tree: Tree,
    /// The first process was reaped by its waiter: its id may be reused.
    root_reaped: Arc<AtomicBool>,
    /// Processes (id, start) found to belong so far.
    known: Mutex<HashSet<(i32, u64)>>,
}

/// A running command's processes. Dropping it kills them all.
pub(super) struct Supervised {
    id: u64,
    running: Arc<Running>,
    exit: Option<oneshot::Receiver<io::Result<ExitStatus>>>,
    ended: bool,
}

/// Starts `command` (whose stdio and environment are set) under
/// supervision.
pub(super) async fn spawn(mut command: Command) -> io::Result<Supervised> {
    let id = {
        let mut registry = registry();
        if registry.closing {
            return Err(io::Error::other("Strata is exiting"));
        }
        registry.next += 1;
        registry.active += 1;
        if registry.active == 1 {
            set_subreaper(true);
        }
        registry.next
    };
    let marker = format!("{}.{}.{id}", std::process::id(), own_start());
    command.env(MARKER_VAR, &marker);
    command.process_group(0);

    let root_reaped = Arc::new(AtomicBool::new(false));
    let (started_tx, started_rx) = oneshot::channel();
    let (exit_tx, exit_rx) = oneshot::channel();
    {
        let root_reaped = Arc::clone(&root_reaped);
        // The parent-death signal follows the thread that started the child,
        // so that thread lives until the child is reaped.
        let spawned = std::thread::Builder::new()
            .name("strata-shell".into())
            .spawn(move || match command.spawn() {
                Ok(mut child) => {
                    let pid = i32::try_from(child.id()).unwrap_or(i32::MAX);
                    // Unreaped, it is still listed even if it already exited.
                    let start = procs::stat(pid).map_or(0, |p| p.start);
                    drop(command);
                    let _ = started_tx.send(Ok((pid, start)));
                    let status = child.wait();
                    root_reaped.store(true, Ordering::SeqCst);
                    if registry().closing {
                        // The app is exiting: the command's end is not
                        // reported, so nothing races the exit (and a signal
                        // still ends the app as that signal).
                        loop {
                            std::thread::park();
                        }
                    }
                    let _ = exit_tx.send(status);
                }
                Err(error) => {
                    let _ = started_tx.send(Err(error));
                }
            });
        if let Err(error) = spawned {
            release(None);
            return Err(error);
        }
    }
    let (root, root_start) = match started_rx.await {
        Ok(Ok(started)) => started,
        Ok(Err(error)) => {
            release(None);
            return Err(error);
        }
        Err(_) => {
            release(None);
            return Err(io::Error::other("the thread starting the command ended"));
        }
    };
    let running = Arc::new(Running {
        tree: Tree {
            marker: marker.into_bytes(),
            root,
            root_start,
        },
        root_reaped,
        known: Mutex::new(HashSet::new()),
    });
    let closing = {
        let mut registry = registry();
        registry.running.insert(id, Arc::clone(&running));
        registry.closing
    };
    let mut supervised = Supervised {
        id,
        running,
        exit: Some(exit_rx),
        ended: false,
    };
    if closing {
        supervised.end().await;
        return Err(io::Error::other("Strata is exiting"));
    }
    Ok(supervised)
}

impl Supervised {
    /// The first process's exit status, once it exited (or was killed).
    pub(super) async fn wait(&mut self) -> io::Result<ExitStatus> {
        match self.exit.as_mut() {
            Some(exit) => {
                let status = exit
                    .await
                    .unwrap_or_else(|_| Err(io::Error::other("the command's waiter ended")));
                self.exit = None;
                status
            }
            None => Err(io::Error::other("the command was already waited for")),
        }
    }

    /// Kills every process of the command and reaps those reparented to
    /// Strata. False if some could not be killed in time.
    pub(super) async fn end(&mut self) -> bool {
        if self.ended {
            return true;
        }
        let running = Arc::clone(&self.running);
        let (done_tx, done_rx) = oneshot::channel();
        // A plain thread: it sleeps between sweeps and must finish even if
        // the runtime is shutting down.
        let spawned = std::thread::Builder::new()
            .name("strata-shell-end".into())
            .spawn(move || {
                let _ = done_tx.send(terminate(&running));
            });
        let all_gone = match spawned {
            Ok(_) => done_rx.await.unwrap_or(false),
            Err(_) => terminate(&self.running),
        };
        self.ended = true;
        release(Some(self.id));
        all_gone
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        if !self.ended {
            terminate(&self.running);
            release(Some(self.id));
        }
    }
}

/// Forgets command `id` (if it was registered); the last one to go turns
/// the subreaper off again, so unrelated orphans go to init as usual.
fn release(id: Option<u64>) {
    let mut registry = registry();
    if let Some(id) = id {
        registry.running.remove(&id);
    }
    registry.active = registry.active.saturating_sub(1);
    if registry.active == 0 {
        set_subreaper(false);
    }
}

/// Kills every process of every running command, waiting (a few seconds at
/// most) until they are gone. Front ends call this as the app exits: from
/// then on commands are refused, and the end of a killed command is never
/// reported (its tool call stays pending until the app is gone).
pub fn end_all_commands() {
    let running: Vec<Arc<Running>> = {
        let mut registry = registry();
        registry.closing = true;
        registry.running.values().cloned().collect()
    };
    for running in running {
        terminate(&running);
        // Its waiter reaps the first process: leave no zombie behind.
        let deadline = Instant::now() + ROOT_REAP_LIMIT;
        while !running.root_reaped.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(SWEEP_PAUSE);
        }
    }
}

fn exit_hooks() -> MutexGuard<'static, Vec<fn()>> {
    static HOOKS: Mutex<Vec<fn()>> = Mutex::new(Vec::new());
    HOOKS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `hook` too when an exit signal ends the app (after the running
/// commands are ended): for processes other crates start, such as MCP
/// servers, which must not outlive Strata either. A hook must be quick
/// and must not block.
pub fn also_on_exit_signal(hook: fn()) {
    let mut hooks = exit_hooks();
    if !hooks.contains(&hook) {
        hooks.push(hook);
    }
}

/// Ends every running command ([`end_all_commands`]) and runs every hook
/// of [`also_on_exit_signal`]: what an app does right before it exits
/// without running destructors.
pub fn end_all_children() {
    end_all_commands();
    for hook in exit_hooks().iter() {
        hook();
    }
}

/// From now on, the given signals first end every running command (see
/// [`end_all_commands`]) and then end the app as they would have. Call once,
/// early; later calls do nothing.
pub fn end_commands_on_signals(signals: ExitSignals) {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut wanted = vec![SIGTERM, SIGHUP];
        if signals == ExitSignals::TermHangupAndInterrupt {
            wanted.push(SIGINT);
        }
        let mut incoming = match signal_hook::iterator::Signals::new(&wanted) {
            Ok(incoming) => incoming,
            Err(error) => {
                tracing::warn!(%error, "exit signals will not end running commands");
                return;
            }
        };
        let spawned = std::thread::Builder::new()
            .name("strata-exit-signals".into())
            .spawn(move || {
                if let Some(signal) = incoming.forever().next() {
                    end_all_children();
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "exit signals will not end running commands");
        }
    });
}

/// Kills the command's processes until none is left (or the limit passes),
/// reaping those whose parent is now Strata. The first process is left to
/// its waiter.
fn terminate(running: &Running) -> bool {
    let tree = &running.tree;
    if !running.root_reaped.load(Ordering::SeqCst) {
        // Not reaped, so the group id is not reused: stops the group at once
        // (and is all there is where `/proc` is not).
        let _ = killpg(Pid::from_raw(tree.root), Signal::SIGKILL);
    }
    let me = Me {
        pid: nix::unistd::getpid().as_raw(),
        sid: nix::unistd::getsid(None).map_or(0, Pid::as_raw),
    };
    let deadline = Instant::now() + TERMINATE_LIMIT;
    loop {
        let snapshot = procs::all();
        let found = {
            let mut known = running.known.lock().unwrap_or_else(PoisonError::into_inner);
            tree::members(
                tree,
                me,
                &snapshot,
                &mut |pid| procs::env_var(pid, MARKER_VAR),
                &mut known,
            )
        };
        let live: HashSet<i32> = found.iter().filter(|p| !p.zombie).map(|p| p.pid).collect();
        let mut pending = false;
        for p in &found {
            if !p.zombie {
                let _ = kill(Pid::from_raw(p.pid), Signal::SIGKILL);
                pending = true;
            }
            if p.pid == tree.root {
                // Its waiter reaps it.
                continue;
            }
            if p.ppid == me.pid {
                let reaped = waitpid(Pid::from_raw(p.pid), Some(WaitPidFlag::WNOHANG));
                pending |= matches!(reaped, Ok(WaitStatus::StillAlive));
            } else if p.zombie && live.contains(&p.ppid) {
                // Reparented to Strata once its dying parent is gone.
                pending = true;
            }
        }
        if !pending {
            return true;
        }
        if Instant::now() >= deadline {
            tracing::warn!(
                left = live.len(),
                "processes of a shell command could not be killed"
            );
            return false;
        }
        std::thread::sleep(SWEEP_PAUSE);
    }
}

fn set_subreaper(on: bool) {
    #[cfg(target_os = "linux")]
    if let Err(error) = nix::sys::prctl::set_child_subreaper(on) {
        tracing::warn!(%error, "could not change whether Strata is a child subreaper");
    }
    #[cfg(not(target_os = "linux"))]
    let _ = on;
}

/// When this process started, so markers of an earlier Strata that had the
/// same process id differ.
fn own_start() -> u64 {
    procs::stat(nix::unistd::getpid().as_raw()).map_or(0, |p| p.start)
}

/// `setpriv`, which sets the parent-death signal before running the
/// command, where it is installed.
pub(super) fn pdeathsig_wrapper() -> Option<&'static str> {
    static FOUND: OnceLock<Option<&'static str>> = OnceLock::new();
    *FOUND.get_or_init(|| {
        ["/usr/bin/setpriv", "/bin/setpriv"]
            .into_iter()
            .find(|path| std::path::Path::new(path).is_file())
    })
}
