//! The crash harness: the built `strata` against [`server::CrashServer`],
//! killed with SIGKILL mid-stream, mid-tool, mid-compaction, mid-eviction,
//! right after a chosen event or at a random moment, on the layered and the
//! base compaction policy; after each kill the session file is checked
//! ([`check::after_kill`]) and resumed to completion
//! ([`Harness::verify_resume`]).

pub mod check;
pub mod plan;
pub mod server;

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use strata_protocol::{CompactionPolicy, EventEnvelope};

use crate::support::Home;
use check::Check;
use plan::{Kill, Scenario, THRESHOLD};
use server::{CrashServer, Plan};

/// How long a targeted kill waits for its moment before giving up on it.
const MOMENT_TIMEOUT: Duration = Duration::from_secs(20);

/// How one killed process ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Processes killed by SIGKILL.
    pub kills: usize,
    /// Processes that finished before their moment came.
    pub finished_first: usize,
    /// Kills that left a torn tail, moved to a sidecar on resume.
    pub torn_tails: usize,
    /// Kills whose file did not exist yet.
    pub before_session: usize,
    /// Resumes that answered calls a kill left open with aborted outputs.
    pub aborted_calls: usize,
    /// Evictions and summaries the killed processes wrote (replay folds
    /// them; the resume must open with that history).
    pub killed_evictions: usize,
    pub killed_summaries: usize,
    /// Steps the resumes' `--json` events reported, each folded into the
    /// live history and checked against replay.
    pub evictions: usize,
    pub base_summaries: usize,
    pub layered_summaries: usize,
}

impl Tally {
    pub fn plus(self, other: Tally) -> Tally {
        Tally {
            kills: self.kills + other.kills,
            finished_first: self.finished_first + other.finished_first,
            torn_tails: self.torn_tails + other.torn_tails,
            before_session: self.before_session + other.before_session,
            aborted_calls: self.aborted_calls + other.aborted_calls,
            killed_evictions: self.killed_evictions + other.killed_evictions,
            killed_summaries: self.killed_summaries + other.killed_summaries,
            evictions: self.evictions + other.evictions,
            base_summaries: self.base_summaries + other.base_summaries,
            layered_summaries: self.layered_summaries + other.layered_summaries,
        }
    }
}

/// One session chain: a home, the session (once one exists) and the bytes
/// its file held after the last successful process.
pub struct Harness<'a> {
    pub home: Home,
    server: &'a CrashServer,
    policy: CompactionPolicy,
    session: Option<String>,
    before: Vec<u8>,
    /// Evictions and summaries the file held after the last process.
    steps_before: (usize, usize),
}

/// A spawned process: its stdout's lines arrive on `lines`.
struct Running {
    child: Child,
    lines: Receiver<String>,
    stdout: Vec<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl Running {
    /// Waits until a line satisfies `wanted`; false if the process ended or
    /// `timeout` passed first.
    fn wait_for_line(&mut self, mut wanted: impl FnMut(&str) -> bool, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let hit = wanted(&line);
                    self.stdout.push(line);
                    if hit {
                        return true;
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return false,
            }
        }
    }

    fn finish(mut self) -> (ExitStatus, Vec<String>, String) {
        let status = self.child.wait().unwrap();
        self.stdout.extend(self.lines.iter());
        let stderr = self.stderr.join().unwrap();
        (status, self.stdout, stderr)
    }
}

/// What a power loss can do that SIGKILL does not (a kill never tore a
/// record in our runs): cuts the file inside its last line, keeping
/// `keep` (0..1) of it, when that line was written by the killed process.
fn tear_last_line(file: &std::path::Path, before: usize, keep: f64) {
    let bytes = std::fs::read(file).unwrap();
    let body = &bytes[..bytes.len().saturating_sub(1)];
    let start = body
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |at| at + 1);
    if start < before || start == 0 || bytes.len() - start < 2 {
        return;
    }
    let line = bytes.len() - 1 - start;
    let cut = start + 1 + ((line - 1) as f64 * keep) as usize;
    let handle = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    handle.set_len(cut as u64).unwrap();
}

impl<'a> Harness<'a> {
    /// A new session chain run on `policy`: `layered` is the default, so
    /// the processes pass no `--compaction` for it.
    pub fn new(server: &'a CrashServer, policy: CompactionPolicy) -> Self {
        let home = Home::new();
        std::fs::write(
            home.workspace.path().join("notes.txt"),
            "alpha\nbeta\ngamma\n",
        )
        .unwrap();
        let large: String = (0..600)
            .map(|n| format!("line {n} of the large file\n"))
            .collect();
        std::fs::write(home.workspace.path().join(plan::LARGE_FILE), large).unwrap();
        Self {
            home,
            server,
            policy,
            session: None,
            before: Vec::new(),
            steps_before: (0, 0),
        }
    }

    /// Whether a killed process left a session to resume.
    pub fn session_started(&self) -> bool {
        self.session.is_some()
    }

    fn session_file(&self) -> Option<PathBuf> {
        let dir = self.home.path().join("sessions");
        std::fs::read_dir(dir)
            .ok()?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
    }

    fn spawn(&self, prompt: &str) -> Running {
        let threshold = THRESHOLD.to_string();
        let mut args: Vec<&str> = match &self.session {
            Some(id) => vec!["resume", id, "-p", prompt],
            None => vec![
                "run",
                "-p",
                prompt,
                "--provider",
                "openai-responses",
                "--model",
                "gpt-test",
            ],
        };
        args.extend([
            "--base-url",
            &self.server.base_url,
            "--approval",
            "auto",
            "--compact-threshold",
            &threshold,
            "--json",
        ]);
        // A resume keeps the recorded policy; a new session gets the default
        // unless told otherwise.
        match (self.policy, &self.session) {
            (CompactionPolicy::Layered, _) | (_, Some(_)) => {}
            (policy, None) => args.extend(["--compaction", policy.as_str()]),
        }
        let mut child = self
            .home
            .command()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Running {
            child,
            lines,
            stdout: Vec::new(),
            stderr,
        }
    }

    /// Runs one process on `plan`, kills it at `kill`'s moment, checks the
    /// file, then resumes the session to completion and checks that.
    pub fn kill_cycle(&mut self, prompt: &str, scenario: &Scenario) -> Check<Tally> {
        self.server.set_plan(scenario.plan.clone());
        let started = Instant::now();
        let mut running = self.spawn(prompt);
        let reached = match &scenario.kill {
            Kill::AfterMs(ms) => {
                running.wait_for_line(|_| false, Duration::from_millis(*ms));
                true
            }
            Kill::AtStall { extra_ms } => {
                let stalled = self.server.wait_for_stall(MOMENT_TIMEOUT);
                std::thread::sleep(Duration::from_millis(*extra_ms));
                stalled
            }
            Kill::OnEvent {
                needle,
                nth,
                delay_ms,
            } => {
                let mut seen = 0;
                let hit = running.wait_for_line(
                    |line| {
                        if line.contains(needle) {
                            seen += 1;
                        }
                        seen > *nth
                    },
                    MOMENT_TIMEOUT,
                );
                std::thread::sleep(Duration::from_millis(*delay_ms));
                hit
            }
        };
        let _ = running.child.kill();
        let at_ms = started.elapsed().as_millis();
        let (status, _, stderr) = running.finish();
        let mut tally = Tally::default();
        use std::os::unix::process::ExitStatusExt;
        if status.signal() == Some(9) {
            tally.kills += 1;
        } else if !reached || status.code() == Some(0) {
            tally.finished_first += 1;
        } else {
            return Err(format!(
                "the process failed before its kill ({status}): {stderr}"
            ));
        }
        let context = |error: String| format!("{error} (killed {at_ms} ms after spawn)");
        let Some(file) = self.session_file() else {
            tally.before_session += 1;
            return Ok(tally);
        };
        if let Some(keep) = scenario.tear {
            tear_last_line(&file, self.before.len(), keep);
        }
        let Some(killed) =
            check::after_kill(&file, &self.before, &self.server.ledger()).map_err(context)?
        else {
            tally.before_session += 1;
            return Ok(tally);
        };
        if self.session.is_none() {
            self.session = Some(killed.read.meta.session_id.to_string());
        }
        let torn = killed.read.report.torn_tail.is_some();
        tally.torn_tails += usize::from(torn);
        let replayed = killed.read.replay();
        tally.aborted_calls += replayed.history().pending_call_ids().len();
        tally.killed_evictions += replayed.evictions() - self.steps_before.0;
        tally.killed_summaries += replayed.compactions() - self.steps_before.1;
        let live = self
            .verify_resume(&file, &killed, scenario.resume.clone())
            .map_err(context)?;
        tally.evictions += live.evictions;
        tally.base_summaries += live.base_summaries;
        tally.layered_summaries += live.layered_summaries;
        Ok(tally)
    }

    /// Resumes the killed session to completion: the torn tail (if any) sits
    /// in a sidecar, the resume opens with the replayed history (plus aborted
    /// outputs), every request it sends is that history with its events
    /// folded in (pre-turn eviction and summaries included), and the history
    /// it ends with equals `strata context --json` and the replay of the file.
    fn verify_resume(
        &mut self,
        file: &std::path::Path,
        killed: &check::AfterKill,
        plan: Plan,
    ) -> Check<check::Live> {
        self.server.set_plan(plan);
        let (status, stdout, stderr) = self.spawn("after the kill").finish();
        if status.code() != Some(0) {
            return Err(format!("the resume failed ({status}): {stderr}"));
        }
        let events: Vec<EventEnvelope> = stdout
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        let bytes = std::fs::read(file).unwrap();
        let complete = killed.bytes.len()
            - killed
                .read
                .report
                .torn_tail
                .map_or(0, |torn| usize::try_from(torn.bytes).unwrap());
        if !bytes.starts_with(&killed.bytes[..complete]) {
            return Err("the resume changed the records before it".into());
        }
        if complete < killed.bytes.len()
            && check::sidecar_holding(file, &killed.bytes[complete..]).is_none()
        {
            return Err("the torn tail is in no sidecar".into());
        }
        let read = strata_core::store::read_session_file(file, strata_core::ReadMode::Strict)
            .map_err(|error| format!("the resumed session does not read: {error}"))?;
        if !read.report.is_clean() {
            return Err(format!("the resumed file is not clean: {:?}", read.report));
        }
        // The history the resume opened with: the killed records, then what
        // it wrote before any event (aborted outputs for calls left open, or
        // the preamble of a session killed before it), read back from the
        // file for the ids the store gave them.
        let opened_records = check::opened_records(&read.records, killed.read.records.len());
        let start = strata_core::store::replay(&read.meta, opened_records)
            .history()
            .items()
            .to_vec();
        let expected = check::expected_resume_prefix(&killed.read);
        let preamble_only = expected.is_empty() && start.iter().all(check::is_preamble);
        if !preamble_only && !check::same_items(&start, &expected) {
            return Err(format!(
                "the resume opened with {} items, not the replayed {} and an aborted output \
                 per open call",
                start.len(),
                expected.len()
            ));
        }
        let live = check::live_history(start, &events)?;
        let id = self.session.clone().unwrap();
        let context = self.home.run(&["context", &id, "--json"]).ok();
        let shown = serde_json::from_str::<strata_protocol::SessionContext>(context.trim())
            .unwrap()
            .items;
        if shown != live.items {
            return Err(format!(
                "`strata context --json` ({} items) differs from the live history ({} items)",
                shown.len(),
                live.items.len()
            ));
        }
        let replayed = read.replay();
        if replayed.history().items() != live.items.as_slice() || replayed.inconsistent_rounds() > 0
        {
            return Err("the replayed history differs from the live one".into());
        }
        if replayed.policy() != self.policy {
            return Err(format!(
                "the session runs the {} policy, not {}",
                replayed.policy().as_str(),
                self.policy.as_str()
            ));
        }
        let foreign_steps = match self.policy {
            CompactionPolicy::Base => live.evictions + live.layered_summaries,
            CompactionPolicy::Layered => live.base_summaries,
            CompactionPolicy::Off => live.evictions + live.layered_summaries + live.base_summaries,
        };
        if foreign_steps > 0 {
            return Err(format!(
                "the {} session took {foreign_steps} steps of another policy",
                self.policy.as_str()
            ));
        }
        self.before = bytes;
        self.steps_before = (replayed.evictions(), replayed.compactions());
        Ok(live)
    }
}
