//! The fault matrix, end to end: the built `strata run` against a local
//! server that injects one fault per case, for each of the three wire
//! formats. Every case ends retried-and-succeeded or as one `strata: error:`
//! line within the response deadline, with the child's peak memory bounded,
//! no trace of the API key in its output, and the session resuming cleanly
//! afterwards. The timeouts, deadline and backoff are set short through the
//! config file's `[network]` table.
//!
//! Run with `--nocapture` to see the measured table (docs/RELIABILITY.md).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "support/fault_server.rs"]
mod fault_server;
mod support;

use std::io::Read;
use std::process::{Child, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fault_server::{Fault, FaultServer, Wire};
use support::{Home, announced_id};

const KEY: &str = "sk-fault-matrix-secret-0123456789abcdef";

/// Short settings so the whole matrix takes seconds.
const NETWORK: &str = "[network]\nidle_timeout_ms = 700\nresponse_deadline_ms = 4000\n\
connect_timeout_ms = 2000\nmax_attempts = 3\nretry_base_delay_ms = 20\nretry_max_delay_ms = 1500\n";

/// Every run ends well within this: the deadline plus start-up and slack
/// for a loaded machine.
const WITHIN: Duration = Duration::from_secs(15);

/// No run may grow past this; the largest buffers (a 16 MiB line cap, a
/// 32 MiB response cap) fit well inside it.
const PEAK_RSS_LIMIT_KB: u64 = 256 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Exit 0 with the successful answer after at least this many requests.
    Recovers { requests: usize },
    /// Exit 1 with one error line containing one of these.
    Fails(&'static [&'static str]),
}

struct Case {
    name: &'static str,
    script: fn(Wire) -> Vec<Fault>,
    expect: Expect,
}

fn rate_limit(wire: Wire) -> String {
    wire.error_body(
        "rate_limit_error",
        "rate_limit_exceeded",
        "Rate limit reached for requests",
    )
}

fn status_then_ok(status: u16, body: String) -> Vec<Fault> {
    vec![Fault::status(status, body), Fault::Ok]
}

fn cases() -> Vec<Case> {
    use Expect::{Fails, Recovers};
    vec![
        Case {
            name: "429 with retry-after: 1",
            script: |wire| {
                vec![
                    Fault::Status {
                        status: 429,
                        content_type: "application/json",
                        headers: vec![("retry-after", "1".into())],
                        body: rate_limit(wire),
                    },
                    Fault::Ok,
                ]
            },
            expect: Recovers { requests: 2 },
        },
        Case {
            name: "429 without retry-after",
            script: |wire| status_then_ok(429, rate_limit(wire)),
            expect: Recovers { requests: 2 },
        },
        Case {
            name: "500 once",
            script: |wire| {
                status_then_ok(500, wire.error_body("api_error", "server_error", "boom"))
            },
            expect: Recovers { requests: 2 },
        },
        Case {
            name: "502 once",
            script: |_| status_then_ok(502, "bad gateway".into()),
            expect: Recovers { requests: 2 },
        },
        Case {
            name: "503 once",
            script: |_| status_then_ok(503, "unavailable".into()),
            expect: Recovers { requests: 2 },
        },
        Case {
            name: "529 overloaded once",
            script: |wire| {
                status_then_ok(
                    529,
                    wire.error_body("overloaded_error", "overloaded", "Overloaded"),
                )
            },
            expect: Recovers { requests: 2 },
        },
        Case {
            name: "503 every time",
            script: |_| vec![Fault::status(503, "unavailable".into())],
            expect: Fails(&["HTTP 503: unavailable"]),
        },
        Case {
            name: "reset before the headers",
            script: |_| vec![Fault::ResetBeforeHeaders, Fault::Ok],
            expect: Recovers { requests: 2 },
        },
        Case {
            name: "reset mid-stream",
            script: |_| vec![Fault::ResetMidStream],
            expect: Fails(&["the response stream ended early"]),
        },
        Case {
            name: "stall after the first event",
            script: |_| vec![Fault::Stall],
            expect: Fails(&["no data from the provider for 0.7s"]),
        },
        Case {
            name: "keep-alive comments forever",
            script: |_| vec![Fault::KeepAliveForever],
            expect: Fails(&["no data from the provider for 0.7s"]),
        },
        Case {
            name: "malformed event",
            script: |_| vec![Fault::Malformed],
            expect: Fails(&["malformed"]),
        },
        Case {
            name: "truncated JSON event",
            script: |_| vec![Fault::TruncatedJson],
            expect: Fails(&["malformed"]),
        },
        Case {
            name: "HTML page with 200",
            script: |_| vec![Fault::html(200)],
            expect: Fails(&["HTTP 200: the server answered with an HTML page"]),
        },
        Case {
            name: "HTML page with 502",
            script: |_| vec![Fault::html(502)],
            expect: Fails(&["HTTP 502: Bad Gateway; the server answered with an HTML page"]),
        },
        Case {
            name: "4 GB event without a line end",
            script: |_| vec![Fault::HugeEvent],
            expect: Fails(&["an event-stream line larger than 16 MiB"]),
        },
        Case {
            name: "endless text",
            script: |_| vec![Fault::EndlessText],
            // Whichever comes first: the content cap or the deadline; on a
            // loaded machine this matrix's short idle timeout can fire
            // first (a reader starved of CPU sees no event for 0.7 s). All
            // three end the stream with one line, in time, memory bounded.
            expect: Fails(&[
                "a response larger than 32 MiB",
                "no complete response within the 4s response deadline",
                "no data from the provider for 0.7s",
            ]),
        },
        Case {
            name: "auth error (key echoed back)",
            script: |wire| {
                let message = format!("Incorrect API key provided: {KEY}.");
                vec![Fault::status(
                    401,
                    wire.error_body("authentication_error", "invalid_api_key", &message),
                )]
            },
            expect: Fails(&["the provider rejected the credentials"]),
        },
        Case {
            name: "quota exhausted",
            script: |wire| {
                let body = wire.error_body(
                    "insufficient_quota",
                    "insufficient_quota",
                    "You exceeded your current quota; your credit balance is too low",
                );
                vec![Fault::status(429, body)]
            },
            expect: Fails(&["the provider account has no quota left"]),
        },
        Case {
            name: "context overflow",
            script: |wire| {
                let body = wire.error_body(
                    "invalid_request_error",
                    "context_length_exceeded",
                    "prompt is too long: 250000 tokens > 200000 maximum",
                );
                vec![Fault::status(400, body)]
            },
            expect: Fails(&["too long for the model's context window"]),
        },
    ]
}

/// What one case measured.
struct Measured {
    case: &'static str,
    wire: Wire,
    code: i32,
    took: Duration,
    peak_rss_kb: u64,
    requests: usize,
    most_sent: u64,
    last_line: String,
    problems: Vec<String>,
}

/// Runs the child to its end, sampling its peak resident memory (VmHWM)
/// every few milliseconds until it exits.
fn run_measured(mut child: Child) -> (i32, String, String, u64) {
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = Vec::new();
        stdout.read_to_end(&mut text).unwrap();
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).unwrap();
        text
    });
    let mut peak = 0;
    let status = loop {
        peak = peak.max(vm_hwm_kb(pid).unwrap_or(0));
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = String::from_utf8_lossy(&out.join().unwrap()).into_owned();
    (
        status.code().unwrap_or(-1),
        stdout,
        err.join().unwrap(),
        peak,
    )
}

fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn run_case(case: &Case, wire: Wire) -> Measured {
    let home = Home::new();
    let config = home.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), NETWORK).unwrap();
    let server = FaultServer::start(wire, (case.script)(wire));
    let env_key = match wire {
        Wire::Anthropic => "ANTHROPIC_API_KEY",
        Wire::Responses | Wire::Chat => "OPENAI_API_KEY",
    };
    let args = [
        "run",
        "-p",
        "Say hello.",
        "--provider",
        wire.provider(),
        "--base-url",
        &server.base_url,
        "--model",
        "test-model",
    ];
    let started = Instant::now();
    let child = home
        .command()
        .args(args)
        .env(env_key, KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (code, stdout, stderr, peak_rss_kb) = run_measured(child);
    let took = started.elapsed();
    let requests = server.requests();
    let last_line = stderr.lines().last().unwrap_or_default().to_owned();
    let mut problems = Vec::new();
    let mut check = |ok: bool, problem: String| {
        if !ok {
            problems.push(problem);
        }
    };
    match case.expect {
        Expect::Recovers { requests: wanted } => {
            check(code == 0, format!("exit {code}, stderr {stderr:?}"));
            check(
                stdout == "All good.\n",
                format!("stdout {:?}", trim(&stdout)),
            );
            check(requests >= wanted, format!("{requests} requests"));
        }
        Expect::Fails(needles) => {
            check(
                code == 1,
                format!("exit {code}, stderr {:?}", trim(&stderr)),
            );
            // The last line says what happened in a sentence; the
            // provider's own words are on the error's `details:` line.
            let details = stderr
                .lines()
                .find_map(|line| line.strip_prefix("  details: "))
                .unwrap_or_default();
            check(
                last_line.starts_with("strata: error: the turn failed: ")
                    && needles
                        .iter()
                        .any(|needle| last_line.contains(needle) || details.contains(needle)),
                format!(
                    "last line {:?} and details {:?} lack {needles:?}",
                    trim(&last_line),
                    trim(details)
                ),
            );
            check(
                last_line.len() < 1200,
                format!("a {}-byte error line", last_line.len()),
            );
        }
    }
    check(took < WITHIN, format!("took {took:?}"));
    check(
        peak_rss_kb > 0 && peak_rss_kb < PEAK_RSS_LIMIT_KB,
        format!("peak RSS {peak_rss_kb} kB"),
    );
    check(
        !stdout.contains(KEY) && !stderr.contains(KEY),
        "the key was shown".into(),
    );

    // The session resumes cleanly on a healed server.
    server.heal();
    let id = announced_id(&stderr).to_string();
    let resumed = home.run_with(
        &[
            "resume",
            &id,
            "-p",
            "Are you there?",
            "--base-url",
            &server.base_url,
        ],
        &[(env_key, KEY)],
    );
    check(
        resumed.code == 0 && resumed.stdout == "All good.\n",
        format!("resume: {resumed:?}"),
    );
    for entry in std::fs::read_dir(home.path().join("sessions")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        check(!text.contains(KEY), "the key is in a session file".into());
    }
    Measured {
        case: case.name,
        wire,
        code,
        took,
        peak_rss_kb,
        requests,
        most_sent: server.most_sent(),
        last_line,
        problems,
    }
}

fn trim(text: &str) -> &str {
    let end = text
        .char_indices()
        .nth(300)
        .map_or(text.len(), |(at, _)| at);
    &text[..end]
}

#[test]
fn every_fault_ends_recovered_or_as_one_error_line_in_time_with_bounded_memory_and_resumes() {
    let cases = cases();
    let jobs: Mutex<Vec<(usize, Wire)>> = Mutex::new(
        (0..cases.len())
            .flat_map(|index| Wire::ALL.map(|wire| (index, wire)))
            .rev()
            .collect(),
    );
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..6 {
            scope.spawn(|| {
                while let Some((index, wire)) = jobs.lock().unwrap().pop() {
                    let measured = run_case(&cases[index], wire);
                    results.lock().unwrap().push((index, measured));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(index, measured)| (*index, measured.wire.provider()));
    println!("| Case | Provider | Outcome | Requests | Time | Peak RSS |");
    println!("|---|---|---|---|---|---|");
    let mut failures = Vec::new();
    for (_, m) in &results {
        let outcome = if m.code == 0 {
            "retried, succeeded".to_owned()
        } else {
            m.last_line.trim_start_matches("strata: error: ").to_owned()
        };
        let sent = if m.most_sent > 1 << 20 {
            format!(" (server sent {} MiB)", m.most_sent >> 20)
        } else {
            String::new()
        };
        println!(
            "| {} | {} | {}{} | {} | {:.2} s | {} MiB |",
            m.case,
            m.wire.provider(),
            outcome.replace('|', "\\|"),
            sent,
            m.requests,
            m.took.as_secs_f64(),
            m.peak_rss_kb / 1024,
        );
        for problem in &m.problems {
            failures.push(format!("{} / {}: {problem}", m.case, m.wire.provider()));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
