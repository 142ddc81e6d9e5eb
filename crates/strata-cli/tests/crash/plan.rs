//! Seeded scenarios: what the server answers a process, and when the
//! process is killed.

use serde_json::json;

use super::server::{Answer, Plan, Stall};

/// The `--compact-threshold` every process runs with.
pub const THRESHOLD: u64 = 2_000;
const HIGH_USAGE: u64 = 2_600;
const LOW_USAGE: u64 = 300;

/// A workspace file whose reads the layered policy can evict.
pub const LARGE_FILE: &str = "large.txt";

/// The moment a process is killed.
#[derive(Clone, Debug)]
pub enum Kill {
    /// A random moment: this long after spawning.
    AfterMs(u64),
    /// When the server reaches the plan's stall (mid-stream or
    /// mid-compaction), plus a little.
    AtStall { extra_ms: u64 },
    /// When the `nth` (0-based) `--json` line containing `needle` arrives,
    /// plus `delay_ms`.
    OnEvent {
        needle: &'static str,
        nth: usize,
        delay_ms: u64,
    },
}

/// One killed process and the resume after it.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub label: &'static str,
    pub plan: Plan,
    pub kill: Kill,
    /// After the kill, cut the last line short (keeping this fraction of
    /// it), as a power loss could.
    pub tear: Option<f64>,
    pub resume: Plan,
}

/// Events a kill can follow: each is emitted right after a record is written.
const EVENTS: [&str; 8] = [
    r#""kind":"message_committed""#,
    r#""kind":"usage_reported""#,
    r#""kind":"round_started""#,
    r#""kind":"tool_call_finished""#,
    r#""kind":"history_compacted""#,
    r#""kind":"turn_started""#,
    r#""kind":"tool_outputs_evicted""#,
    r#""kind":"layered_compacted""#,
];

/// Makes unique call ids and texts, so the ledger identifies each response.
pub struct Names {
    next: u64,
}

impl Names {
    pub fn new(seed: u64) -> Self {
        Self {
            next: seed.wrapping_mul(1_000),
        }
    }

    fn next(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    fn call(&mut self, rng: &mut fastrand::Rng, shell: Option<&str>) -> Answer {
        let n = self.next();
        let call_id = format!("call_{n}");
        let (name, arguments) = match (shell, rng.u8(0..5)) {
            (Some(command), _) => ("run_shell", json!({"command": command})),
            (None, 0) => ("read_file", json!({"path": "notes.txt"})),
            // Outputs far longer than a placeholder, for the layered
            // policy to evict.
            (None, 4) => ("read_file", json!({"path": LARGE_FILE})),
            (None, 1) => ("list_directory", json!({"path": "."})),
            (None, 2) => ("run_shell", json!({"command": format!("echo ran {n}")})),
            (None, _) => (
                "write_file",
                json!({"path": format!("w{n}.txt"), "content": format!("written by call {n}\n")}),
            ),
        };
        Answer::Call {
            call_id,
            name,
            arguments,
        }
    }

    fn large_read(&mut self) -> Answer {
        Answer::Call {
            call_id: format!("call_{}", self.next()),
            name: "read_file",
            arguments: json!({"path": LARGE_FILE}),
        }
    }

    fn text(&mut self) -> Answer {
        let n = self.next();
        Answer::Text(format!("answer {n}: the notes hold alpha, beta and gamma"))
    }
}

fn usage(rng: &mut fastrand::Rng) -> u64 {
    if rng.u8(0..100) < 35 {
        HIGH_USAGE
    } else {
        LOW_USAGE
    }
}

/// A few calls then a text, with random usage (some above the threshold,
/// so compactions happen).
fn answers(rng: &mut fastrand::Rng, names: &mut Names, calls: usize) -> Vec<(Answer, u64)> {
    let mut answers: Vec<(Answer, u64)> = (0..calls)
        .map(|_| (names.call(rng, None), usage(rng)))
        .collect();
    answers.push((names.text(), usage(rng)));
    answers
}

/// A large read, three small rounds, then a round whose usage is above the
/// threshold: the read is then older than the rounds eviction keeps.
fn eviction_rounds(rng: &mut fastrand::Rng, names: &mut Names) -> Vec<(Answer, u64)> {
    let mut rounds = vec![(names.large_read(), LOW_USAGE)];
    rounds.extend((0..3).map(|_| (names.call(rng, None), LOW_USAGE)));
    rounds.push((names.call(rng, None), HIGH_USAGE));
    rounds
}

fn plan(seed: u64, answers: Vec<(Answer, u64)>, stall: Option<Stall>, max_delay_ms: u64) -> Plan {
    Plan {
        answers,
        stall,
        summaries: Vec::new(),
        max_delay_ms,
        seed,
    }
}

/// Puts a `run_shell` of `command` at a random round; the kill comes
/// `delay_ms` after it starts.
fn shell_call(
    rng: &mut fastrand::Rng,
    names: &mut Names,
    answers: &mut Vec<(Answer, u64)>,
    command: &str,
    delay_ms: u64,
) -> Kill {
    let at = rng.usize(0..answers.len());
    let call = names.call(rng, Some(command));
    answers.insert(at, (call, usage(rng)));
    Kill::OnEvent {
        needle: r#""kind":"tool_call_started""#,
        nth: at,
        delay_ms,
    }
}

/// The scenario for `seed`: one of seven kinds of moment.
pub fn scenario(seed: u64, names: &mut Names) -> Scenario {
    let mut rng = fastrand::Rng::with_seed(seed);
    let calls = rng.usize(0..=3);
    let mut answers = answers(&mut rng, names, calls);
    let (label, stall, kill, max_delay_ms) = match rng.u8(0..7) {
        0 => {
            let stall = Stall::Stream {
                round: rng.usize(0..answers.len()),
                event: rng.usize(0..5),
            };
            let kill = Kill::AtStall {
                extra_ms: rng.u64(0..15),
            };
            ("mid-stream", Some(stall), kill, 1)
        }
        1 => {
            // Two calls and a usage above the threshold after the second:
            // at least four items, so the round boundary compacts.
            answers.insert(0, (names.call(&mut rng, None), LOW_USAGE));
            answers.insert(1, (names.call(&mut rng, None), HIGH_USAGE));
            let kill = Kill::AtStall {
                extra_ms: rng.u64(0..15),
            };
            ("mid-compaction", Some(Stall::Summary { index: 0 }), kill, 1)
        }
        2 => {
            let delay_ms = rng.u64(0..200);
            let kill = shell_call(
                &mut rng,
                names,
                &mut answers,
                "sleep 0.3; echo slept",
                delay_ms,
            );
            ("mid-tool", None, kill, 1)
        }
        3 => {
            // A multi-megabyte output record: a kill during its one write
            // can leave a torn line.
            let delay_ms = rng.u64(0..40);
            let command = "head -c 3000000 /dev/zero | tr '\\0' x";
            let kill = shell_call(&mut rng, names, &mut answers, command, delay_ms);
            ("mid-write", None, kill, 1)
        }
        4 => {
            // A large read, three small rounds, then a usage above the
            // threshold: the layered policy evicts the read (and may go on
            // to a summary); killed right after the eviction or mid-summary.
            answers.splice(0..0, eviction_rounds(&mut rng, names));
            let (stall, kill) = if rng.bool() {
                let kill = Kill::OnEvent {
                    needle: r#""kind":"tool_outputs_evicted""#,
                    nth: 0,
                    delay_ms: rng.u64(0..3),
                };
                (None, kill)
            } else {
                let kill = Kill::AtStall {
                    extra_ms: rng.u64(0..15),
                };
                (Some(Stall::Summary { index: 0 }), kill)
            };
            ("mid-eviction", stall, kill, 1)
        }
        5 => {
            let kill = Kill::OnEvent {
                needle: EVENTS[rng.usize(0..EVENTS.len())],
                nth: rng.usize(0..2),
                delay_ms: rng.u64(0..3),
            };
            ("after-event", None, kill, 2)
        }
        _ => ("random", None, Kill::AfterMs(rng.u64(0..300)), 8),
    };
    let resume_calls = rng.usize(0..=1);
    let mut resume_answers = self::answers(&mut rng, names, resume_calls);
    if rng.u8(0..3) == 0 {
        // Some resumes evict too, so their events fold evictions.
        resume_answers.splice(0..0, eviction_rounds(&mut rng, names));
    }
    let resume = plan(seed ^ 0x5eed, resume_answers, None, 0);
    let tear = (rng.u8(0..5) == 0).then(|| rng.f64());
    Scenario {
        label,
        plan: plan(seed, answers, stall, max_delay_ms),
        kill,
        tear,
        resume,
    }
}
