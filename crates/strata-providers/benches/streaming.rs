//! Streaming latency: a local Chat Completions server writes text deltas
//! at 2,000 a second; each delta's latency runs from the moment its bytes
//! are written to the loopback socket (what the provider's SSE parser then
//! reads) to the moment the agent's event subscriber receives its
//! `text_delta` event: HTTP client, SSE decoder, chunk parser, gateway
//! stream, agent loop, event channel. Beside it, in the same run, the same
//! server read by a bare TCP client: the floor the loopback and the
//! scheduler set. Prints p50, p99 and max of each (target: p99 < 1 ms).
//!
//! `cargo bench -p strata-providers --bench streaming` (part of `make bench`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use strata_core::{Agent, ApprovalBroker, CancellationToken, SessionApprovals, SessionStore};
use strata_core::{EventReceiver, ToolRegistry};
use strata_protocol::{AgentEvent, ApprovalPolicy, MainlineEvent};
use strata_providers::{
    HttpOptions, ProfileFlags, ProviderKind, ResolvedProfile, StrataConfig, agent_parts,
    config::resolve_profile, tool_config,
};

const DELTAS: usize = 4_000;
const PER_SECOND: u64 = 2_000;

/// When each delta was written, in nanoseconds after `origin`.
struct Sent {
    origin: Instant,
    at: Vec<AtomicU64>,
}

impl Sent {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            origin: Instant::now(),
            at: (0..DELTAS).map(|_| AtomicU64::new(0)).collect(),
        })
    }

    fn now(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }

    /// Latency of delta `n` received now, in nanoseconds.
    fn latency(&self, n: usize) -> u64 {
        self.now()
            .saturating_sub(self.at[n].load(Ordering::Acquire))
    }
}

fn chunk(delta: &str) -> String {
    let body = serde_json::json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "bench-model",
        "choices": [{"index": 0, "delta": {"content": delta}, "finish_reason": null}],
    });
    format!("data: {body}\n\n")
}

/// Reads one HTTP request (headers and a Content-Length body).
fn read_request(stream: &mut TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap();
        }
        if line == "\r\n" || line.is_empty() {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
}

/// Serves one streamed response on `listener`: the deltas `d0 `, `d1 `, ...
/// paced at [`PER_SECOND`], each write's time kept in `sent`.
fn serve(listener: TcpListener, sent: Arc<Sent>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream.set_nodelay(true).unwrap();
        read_request(&mut stream);
        stream
            .write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
            )
            .unwrap();
        let interval = Duration::from_nanos(1_000_000_000 / PER_SECOND);
        let start = Instant::now();
        for n in 0..DELTAS {
            let due = start + interval * n as u32;
            // Sleep most of the wait, spin the rest: the pace stays exact.
            while let Some(left) = due.checked_duration_since(Instant::now()) {
                if left > Duration::from_micros(200) {
                    std::thread::sleep(left - Duration::from_micros(150));
                } else {
                    std::hint::spin_loop();
                }
            }
            let bytes = chunk(&format!("d{n} "));
            sent.at[n].store(sent.now(), Ordering::Release);
            stream.write_all(bytes.as_bytes()).unwrap();
        }
        let finish = serde_json::json!({
            "id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
            "model": "bench-model",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 20, "completion_tokens": DELTAS, "total_tokens": DELTAS + 20},
        });
        let _ = stream.write_all(format!("data: {finish}\n\ndata: [DONE]\n\n").as_bytes());
        let _ = stream.shutdown(std::net::Shutdown::Both);
    })
}

/// The delta number in a `d{n} ` text.
fn delta_number(text: &str) -> Option<usize> {
    text.trim().strip_prefix('d')?.parse().ok()
}

/// Latencies through the whole agent: a real session in a temporary folder.
fn through_the_agent() -> Vec<u64> {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let sent = Sent::new();
    let server = serve(listener, Arc::clone(&sent));
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let flags = ProfileFlags {
        kind: Some(ProviderKind::OpenaiChat),
        base_url: Some(format!("http://{address}/v1")),
        model: Some("bench-model".into()),
        profile: None,
    };
    let profile = resolve_profile(&StrataConfig::default(), &flags, &|_| None).unwrap();
    let resolved = ResolvedProfile {
        profile,
        api_key: None,
        http: HttpOptions::default(),
        shell_env: Vec::new(),
        allow_secret_files: Vec::new(),
        sandbox: None,
        sandbox_network: None,
        sandbox_allow_domains: Vec::new(),
        key_file: None,
        turn_deadline: Duration::from_secs(120),
        rules: Default::default(),
    };
    let tools = ToolRegistry::new(workspace.path(), tool_config(&resolved, &|_| None)).unwrap();
    let (parts, events) = agent_parts(
        &resolved,
        tools,
        SessionApprovals::new(ApprovalPolicy::ReadOnly),
        ApprovalBroker::non_interactive(),
    )
    .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let store = SessionStore::new(home.path().join("sessions"));
    let latencies = runtime.block_on(async move {
        let subscriber = tokio::spawn(subscribe(events, Arc::clone(&sent)));
        let mut agent = Agent::start(&store, parts).unwrap();
        let report = agent
            .run_turn("go", CancellationToken::new())
            .await
            .unwrap();
        assert!(report.error.is_none(), "{report:?}");
        drop(agent);
        subscriber.await.unwrap()
    });
    server.join().unwrap();
    latencies
}

async fn subscribe(mut events: EventReceiver, sent: Arc<Sent>) -> Vec<u64> {
    let mut latencies = Vec::with_capacity(DELTAS);
    while let Some(envelope) = events.recv().await {
        if let AgentEvent::Mainline(MainlineEvent::TextDelta { delta, .. }) = &envelope.event
            && let Some(n) = delta_number(delta)
        {
            latencies.push(sent.latency(n));
        }
    }
    latencies
}

/// Latencies to a bare TCP reader of the same server: no HTTP, no parsing
/// beyond finding each delta's number.
fn bare_socket() -> Vec<u64> {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let sent = Sent::new();
    let server = serve(listener, Arc::clone(&sent));
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .write_all(b"POST /v1/chat/completions HTTP/1.1\r\ncontent-length: 0\r\n\r\n")
        .unwrap();
    let mut latencies = Vec::with_capacity(DELTAS);
    let mut pending = Vec::new();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let read = stream.read(&mut buffer).unwrap();
        if read == 0 {
            break;
        }
        pending.extend_from_slice(&buffer[..read]);
        while let Some(end) = pending.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = pending.drain(..end + 2).collect();
            let text = String::from_utf8_lossy(&event);
            if let Some(at) = text.find(r#""content":"d"#) {
                let rest = &text[at + 11..];
                if let Some(n) = rest.split('"').next().and_then(delta_number) {
                    latencies.push(sent.latency(n));
                }
            }
        }
    }
    server.join().unwrap();
    latencies
}

fn percentile(sorted: &[u64], percent: usize) -> u64 {
    sorted[(sorted.len() * percent / 100).min(sorted.len() - 1)]
}

fn micros(ns: u64) -> String {
    format!("{:.1} µs", ns as f64 / 1e3)
}

fn main() {
    // `cargo bench` passes --bench; a filter naming another bench skips this.
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    if filter.is_some_and(|filter| !"streaming".contains(&filter)) {
        return;
    }
    let mut floor = bare_socket();
    let mut agent = through_the_agent();
    assert_eq!(floor.len(), DELTAS, "the bare reader missed deltas");
    assert_eq!(agent.len(), DELTAS, "the subscriber missed deltas");
    floor.sort_unstable();
    agent.sort_unstable();
    println!("\nStreaming latency, {DELTAS} deltas at {PER_SECOND} per second");
    println!("| path | p50 | p99 | max | target |");
    println!("|---|---|---|---|---|");
    println!(
        "| server write → agent subscriber | {} | {} | {} | p99 < 1 ms |",
        micros(percentile(&agent, 50)),
        micros(percentile(&agent, 99)),
        micros(*agent.last().unwrap()),
    );
    println!(
        "| server write → bare TCP reader (floor) | {} | {} | {} | – |",
        micros(percentile(&floor, 50)),
        micros(percentile(&floor, 99)),
        micros(*floor.last().unwrap()),
    );
    println!(
        "p99 through the agent is {:.2}× the floor's",
        percentile(&agent, 99) as f64 / percentile(&floor, 99).max(1) as f64
    );
}
