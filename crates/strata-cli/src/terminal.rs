//! The terminal side of a running agent: Ctrl+C (once cancels the turn,
//! twice exits), lines typed on standard input (prompts and approval
//! answers), and whether anyone is there to ask.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use nix::sys::termios::FlushArg;

use strata_core::CancellationToken;
use tokio::sync::mpsc;

use crate::style::{Output, WARN, paint};

/// Whether a person can answer prompts: standard input and standard error
/// are both terminals.
pub fn is_interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Ctrl+C handling shared by the turn runner and the signal task.
#[derive(Clone)]
pub struct Interrupts {
    inner: Arc<InterruptState>,
}

struct InterruptState {
    /// Presses since the current turn (or prompt) began.
    presses: AtomicU32,
    /// What runs now, if anything: the token its questions wait on, and
    /// how to stop it.
    current: Mutex<Option<(CancellationToken, Arc<Stop>)>>,
}

/// Stops what runs (the app's stop, as the desktop's Stop button).
pub type Stop = Box<dyn Fn() + Send + Sync>;

impl Interrupts {
    /// Installs the Ctrl+C handler on the current runtime (call it inside one).
    pub fn install(out: Output) -> Self {
        let interrupts = Self {
            inner: Arc::new(InterruptState {
                presses: AtomicU32::new(0),
                current: Mutex::new(None),
            }),
        };
        let handler = interrupts.clone();
        // Registered before this returns, so a Ctrl+C right after is seen.
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            match signal(SignalKind::interrupt()) {
                Ok(mut presses) => {
                    tokio::spawn(async move {
                        while presses.recv().await.is_some() {
                            handler.pressed(out);
                        }
                    });
                }
                Err(error) => out.warn(format!("Ctrl+C cannot cancel turns: {error}")),
            }
        }
        #[cfg(not(unix))]
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                handler.pressed(out);
            }
        });
        interrupts
    }

    fn pressed(&self, out: Output) {
        let presses = self.inner.presses.fetch_add(1, Ordering::SeqCst) + 1;
        if presses >= 2 {
            let _ = writeln!(out.stderr(), "\nstrata: error: interrupted");
            // Commands and MCP servers: nothing Strata started outlives it.
            strata_core::tools::end_all_children();
            std::process::exit(1);
        }
        let current = self
            .inner
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let message = match current {
            Some((token, stop)) => {
                token.cancel();
                stop();
                "cancelling the turn… (Ctrl+C again to exit)"
            }
            None => "press Ctrl+C again to exit",
        };
        let _ = writeln!(out.stderr(), "\n{}", paint(WARN, message));
    }

    /// A turn about to run: Ctrl+C calls `stop` and cancels the token
    /// returned (which a question on the terminal waits on).
    pub fn begin(&self, stop: Stop) -> CancellationToken {
        let token = CancellationToken::new();
        self.inner.presses.store(0, Ordering::SeqCst);
        *self
            .inner
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some((token.clone(), Arc::new(stop)));
        token
    }

    /// The turn ended; Ctrl+C no longer has a turn to cancel.
    pub fn end(&self) {
        *self
            .inner
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
    }
}

/// Lines typed on standard input, read on their own thread so waiting for
/// one never blocks the runtime. A line is read only when one is asked
/// for, so what is typed meanwhile stays in the terminal's buffer, where a
/// question can discard it ([`Self::discard_typed_ahead`]); each line also
/// carries when it was read, for a read begun before the question.
#[derive(Debug)]
pub struct Lines {
    /// Asks the reading thread for one more line.
    wanted: std::sync::mpsc::Sender<()>,
    rx: mpsc::UnboundedReceiver<(Instant, String)>,
    /// A line was asked for and has not arrived (its wait was cancelled).
    pending: bool,
}

impl Lines {
    pub fn spawn() -> Self {
        let (wanted, asks) = std::sync::mpsc::channel::<()>();
        let (tx, rx) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            let mut lines = stdin.lock().lines();
            while asks.recv().is_ok() {
                // The end of input or a read error ends the lines.
                let Some(Ok(line)) = lines.next() else { break };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Self {
            wanted,
            rx,
            pending: false,
        }
    }

    /// The next line and when it was read; `None` at end of input.
    async fn receive(&mut self) -> Option<(Instant, String)> {
        if !self.pending {
            // A reader that ended closes `rx` too, which answers below.
            let _ = self.wanted.send(());
            self.pending = true;
        }
        let line = self.rx.recv().await;
        self.pending = false;
        line
    }

    /// The next line; `None` at end of input.
    pub async fn next(&mut self) -> Option<String> {
        self.receive().await.map(|(_, line)| line)
    }

    /// Forgets everything typed so far, so only an answer typed after this
    /// call (made just before the question is shown) counts: input still in
    /// the terminal's buffer is discarded (`tcflush(TCIFLUSH)`), and a line
    /// read before now is skipped by [`Self::next_typed_after`].
    pub fn discard_typed_ahead(&mut self) -> Instant {
        if std::io::stdin().is_terminal() {
            // Best effort: when it fails, lines read before `asked` are
            // still skipped below.
            let _ = nix::sys::termios::tcflush(std::io::stdin(), FlushArg::TCIFLUSH);
        }
        Instant::now()
    }

    /// The next line read after `asked`; `None` at end of input.
    pub async fn next_typed_after(&mut self, asked: Instant) -> Option<String> {
        loop {
            let (read, line) = self.receive().await?;
            if read >= asked {
                return Some(line);
            }
        }
    }
}
