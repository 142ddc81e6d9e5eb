//! `strata` on a pseudo-terminal of its own, for the tests of what it asks
//! a person.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use super::server::ResponsesServer;
use super::{Home, responses_run};

/// The approval question.
pub const PROMPT: &str = "allow? [y] once";

/// `strata run` on a pseudo-terminal of its own (standard input, output and
/// error all on it), against `server`, with `--approval ask`.
pub struct OnTerminal {
    master: std::fs::File,
    child: std::process::Child,
    shown: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

impl OnTerminal {
    pub fn start(
        home: &Home,
        server: &ResponsesServer,
        master: std::fs::File,
        slave: std::fs::File,
    ) -> Self {
        Self::start_with(
            home,
            &responses_run("clean up", &server.base_url, &[]),
            master,
            slave,
        )
    }

    /// `strata ARGS` on the terminal.
    pub fn start_with(
        home: &Home,
        args: &[&str],
        master: std::fs::File,
        slave: std::fs::File,
    ) -> Self {
        use std::io::Read;
        let mut command = home.command();
        command
            .args(args)
            .env("NO_COLOR", "1")
            .stdin(slave.try_clone().unwrap())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave);
        let child = command.spawn().unwrap();
        // Only the child holds the terminal's other end now, so reading
        // ends when it exits.
        drop(command);
        let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut output = master.try_clone().unwrap();
        let sink = shown.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // A pty master reports EIO once the last slave is closed.
            while let Ok(n @ 1..) = output.read(&mut buf) {
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Self {
            master,
            child,
            shown,
            reader,
        }
    }

    pub fn shown(&self) -> String {
        String::from_utf8_lossy(&self.shown.lock().unwrap()).into_owned()
    }

    /// Waits (up to a minute) until the terminal showed `needle` `count`
    /// times.
    pub fn wait_for_count(&self, needle: &str, count: usize) {
        let start = std::time::Instant::now();
        while self.shown().matches(needle).count() < count {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(60),
                "the terminal never showed {needle:?}: {}",
                self.shown()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    pub fn type_keys(&mut self, keys: &str) {
        use std::io::Write;
        self.master.write_all(keys.as_bytes()).unwrap();
    }

    pub fn finish(mut self) -> (i32, String) {
        let code = self.child.wait().unwrap().code().unwrap();
        drop(self.master);
        self.reader.join().unwrap();
        let shown = String::from_utf8_lossy(&self.shown.lock().unwrap()).into_owned();
        (code, shown)
    }
}

pub fn pty() -> (std::fs::File, std::fs::File) {
    let pty = nix::pty::openpty(None, None).unwrap();
    (pty.master.into(), pty.slave.into())
}
