//! The crash harness's mock provider: the OpenAI Responses wire format,
//! answering each process from a scripted [`Plan`], one SSE event at a time
//! with small random delays, able to stall at a chosen event or on the
//! (non-streamed) summary request and say so. It keeps a ledger of every
//! response it sent in full, the reference a session file is checked against.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::support::server::{Reply, json_text, read_request, sse_call, sse_text};

/// What one streamed round answers.
#[derive(Clone, Debug)]
pub enum Answer {
    Text(String),
    Call {
        call_id: String,
        name: &'static str,
        arguments: Value,
    },
}

/// Where a plan holds its connection open until the client is gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stall {
    /// Before event `event` (0-based) of streamed round `round`.
    Stream { round: usize, event: usize },
    /// On the `index`th summary request.
    Summary { index: usize },
}

/// How the server answers one process.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Streamed rounds in order; rounds past the end answer plain text.
    pub answers: Vec<(Answer, u64)>,
    pub stall: Option<Stall>,
    /// Summary texts, one per summary request (past the end: a fresh one).
    pub summaries: Vec<String>,
    /// The longest pause between two events, in milliseconds.
    pub max_delay_ms: u64,
    pub seed: u64,
}

/// Every response the server sent in full (recorded just before its last
/// byte, so nothing the client could commit is missing).
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub texts: HashSet<String>,
    pub calls: HashSet<(String, String, String)>,
    pub summaries: HashSet<String>,
}

#[derive(Default)]
struct State {
    plan: Option<Plan>,
    rounds: usize,
    summary_requests: usize,
    /// Set when a planned stall was reached.
    stalled: bool,
    ledger: Ledger,
}

pub struct CrashServer {
    pub base_url: String,
    shared: Arc<(Mutex<State>, Condvar)>,
}

impl CrashServer {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let shared: Arc<(Mutex<State>, Condvar)> = Arc::default();
        let state = shared.clone();
        std::thread::spawn(move || {
            for socket in listener.incoming() {
                let Ok(socket) = socket else { return };
                let state = state.clone();
                std::thread::spawn(move || serve(socket, &state));
            }
        });
        Self { base_url, shared }
    }

    /// Answers the next process from `plan`.
    pub fn set_plan(&self, plan: Plan) {
        let mut state = self.shared.0.lock().unwrap();
        state.plan = Some(plan);
        state.rounds = 0;
        state.summary_requests = 0;
        state.stalled = false;
    }

    /// Waits up to `timeout` for the plan's stall; whether it was reached.
    pub fn wait_for_stall(&self, timeout: Duration) -> bool {
        let (lock, changed) = &*self.shared;
        let (state, _) = changed
            .wait_timeout_while(lock.lock().unwrap(), timeout, |state| !state.stalled)
            .unwrap();
        state.stalled
    }

    pub fn ledger(&self) -> Ledger {
        self.shared.0.lock().unwrap().ledger.clone()
    }
}

/// What the server is about to send, and what the ledger gains with its
/// last byte.
enum Sent {
    Text(String),
    Call(String, String, String),
    Summary(String),
}

fn serve(mut socket: TcpStream, shared: &(Mutex<State>, Condvar)) {
    let Some(body) = read_request(&mut socket, &Mutex::new(Vec::new())) else {
        return;
    };
    let streamed = body["stream"] == true;
    let (plan, index) = {
        let mut state = shared.0.lock().unwrap();
        let Some(plan) = state.plan.clone() else {
            return;
        };
        let counter = if streamed {
            &mut state.rounds
        } else {
            &mut state.summary_requests
        };
        *counter += 1;
        (plan, *counter - 1)
    };
    let mut rng =
        fastrand::Rng::with_seed(plan.seed ^ ((index as u64) << 32) ^ u64::from(streamed));
    let stall_at = |event: usize| match plan.stall {
        Some(Stall::Stream { round, event: at }) => streamed && round == index && at == event,
        Some(Stall::Summary { index: at }) => !streamed && at == index && event == 0,
        None => false,
    };
    let (events, sent) = if streamed {
        let (answer, input_tokens) = plan
            .answers
            .get(index)
            .cloned()
            .unwrap_or((Answer::Text(format!("done {}", plan.seed)), 100));
        match answer {
            Answer::Text(text) => (
                split_events(&sse_text(&text, input_tokens, 10)),
                Sent::Text(text),
            ),
            Answer::Call {
                call_id,
                name,
                arguments,
            } => (
                split_events(&sse_call(&call_id, name, &arguments, input_tokens, 10)),
                Sent::Call(call_id, name.to_owned(), arguments.to_string()),
            ),
        }
    } else {
        let text = plan
            .summaries
            .get(index)
            .cloned()
            .unwrap_or_else(|| format!("SUMMARY {}-{index}", plan.seed));
        let Reply::Json(_, value) = json_text(&text, 500, 20) else {
            unreachable!("json_text answers JSON")
        };
        (vec![value.to_string()], Sent::Summary(text))
    };
    let head = if streamed {
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n".to_owned()
    } else {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            events[0].len()
        )
    };
    if socket.write_all(head.as_bytes()).is_err() {
        return;
    }
    let last = events.len() - 1;
    for (number, event) in events.iter().enumerate() {
        if stall_at(number) {
            let _ = socket.flush();
            {
                let mut state = shared.0.lock().unwrap();
                state.stalled = true;
                shared.1.notify_all();
            }
            // Holds the connection until the client is gone.
            let mut sink = [0u8; 256];
            while matches!(socket.read(&mut sink), Ok(n) if n > 0) {}
            return;
        }
        if plan.max_delay_ms > 0 {
            std::thread::sleep(Duration::from_millis(rng.u64(0..=plan.max_delay_ms)));
        }
        if number == last {
            record(shared, &sent);
        }
        let bytes = if streamed {
            format!("{:x}\r\n{event}\r\n", event.len())
        } else {
            event.clone()
        };
        if socket.write_all(bytes.as_bytes()).is_err() || socket.flush().is_err() {
            return;
        }
    }
    if streamed {
        let _ = socket.write_all(b"0\r\n\r\n");
        let _ = socket.flush();
    }
}

fn record(shared: &(Mutex<State>, Condvar), sent: &Sent) {
    let ledger = &mut shared.0.lock().unwrap().ledger;
    match sent {
        Sent::Text(text) => {
            ledger.texts.insert(text.clone());
        }
        Sent::Call(call_id, name, arguments) => {
            ledger
                .calls
                .insert((call_id.clone(), name.clone(), arguments.clone()));
        }
        Sent::Summary(text) => {
            ledger.summaries.insert(text.clone());
        }
    }
}

/// An SSE body cut into its events, each with its blank line.
fn split_events(sse: &str) -> Vec<String> {
    sse.split_inclusive("\n\n").map(str::to_owned).collect()
}
