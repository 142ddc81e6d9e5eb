//! Shared test helpers: recorded fixtures, chunked replays, expected-event
//! builders and a tiny local HTTP server that can stream slowly, drop the
//! connection or stall, and reports what it received.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod caching;
pub mod histories;
pub mod thinking_rule;
pub mod tls;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use strata_protocol::{
    ItemId, ModelError, ModelEvent, ModelRequest, ResponseItem, StopReason, TokenUsage,
};
use strata_providers::{
    ApiKey, Endpoint, HttpClient, HttpOptions, RetryPolicy, WireFormat, replay,
};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// The recorded provider streams and bodies with their provenance files,
/// read from `../shared/fixtures/wire` beside the repository.
pub struct Wire(PathBuf);

/// The recorded streams, or `None` (the test skipped by name, see
/// `strata_testkit`) when `../shared` is not beside the repository.
pub fn wire() -> Option<Wire> {
    strata_testkit::needs_shared(strata_testkit::WIRE).map(Wire)
}

impl Wire {
    pub fn read(&self, path: &str) -> Vec<u8> {
        let full = self.0.join(path);
        std::fs::read(&full).unwrap_or_else(|e| panic!("reading {}: {e}", full.display()))
    }

    /// Every `.sse` fixture, as `dir/name` paths.
    pub fn all_sse(&self) -> Vec<String> {
        let mut found = Vec::new();
        for dir in ["openai-responses", "chat-completions", "anthropic"] {
            for entry in std::fs::read_dir(self.0.join(dir)).unwrap() {
                let name = entry.unwrap().file_name().into_string().unwrap();
                if name.ends_with(".sse") {
                    found.push(format!("{dir}/{name}"));
                }
            }
        }
        found.sort();
        found
    }
}

/// A request for `test-model` holding a system and a user message, no
/// tools and no output limit.
pub fn simple_request(system: &str, user: &str) -> ModelRequest {
    ModelRequest {
        model: "test-model".into(),
        input: vec![ResponseItem::system(system), ResponseItem::user(user)],
        tools: vec![],
        tool_choice: None,
        max_output_tokens: None,
        session_id: None,
        reasoning: None,
        cache_anchors: Vec::new(),
    }
}

/// What one replay produced: the events and the error that ended it, if any.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub events: Vec<ModelEvent>,
    pub error: Option<ModelError>,
}

/// Reasoning items get fresh ids; a fixed one makes outcomes comparable.
pub fn normalise(event: ModelEvent) -> ModelEvent {
    match event {
        ModelEvent::Reasoning {
            item: ResponseItem::Reasoning(mut reasoning),
        } => {
            reasoning.id = ItemId::from_uuid(uuid::Uuid::nil());
            ModelEvent::Reasoning {
                item: ResponseItem::Reasoning(reasoning),
            }
        }
        other => other,
    }
}

pub async fn collect(
    stream: futures::stream::BoxStream<'static, Result<ModelEvent, ModelError>>,
) -> Outcome {
    let mut events = Vec::new();
    let mut error = None;
    let mut stream = stream;
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(normalise(event)),
            Err(e) => {
                assert!(error.is_none(), "a second error after {error:?}: {e:?}");
                error = Some(e);
            }
        }
    }
    Outcome { events, error }
}

/// Replays `bytes` cut into chunks of `size` bytes.
pub async fn replay_chunked(format: WireFormat, bytes: &[u8], size: usize) -> Outcome {
    let chunks: Vec<Result<Bytes, ModelError>> = bytes
        .chunks(size)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    collect(replay(format, futures::stream::iter(chunks))).await
}

/// Replays split at every byte and in 7-byte chunks, checks both agree, and
/// returns the outcome.
pub async fn replay_both_ways(format: WireFormat, bytes: &[u8]) -> Outcome {
    let bytewise = replay_chunked(format, bytes, 1).await;
    let sevens = replay_chunked(format, bytes, 7).await;
    let whole = replay_chunked(format, bytes, bytes.len().max(1)).await;
    assert_eq!(bytewise, sevens, "byte-wise and 7-byte replays differ");
    assert_eq!(bytewise, whole, "byte-wise and whole replays differ");
    bytewise
}

// Expected-event builders.

pub fn text(delta: &str) -> ModelEvent {
    ModelEvent::TextDelta {
        delta: delta.into(),
    }
}

pub fn started(call_id: &str, name: &str) -> ModelEvent {
    ModelEvent::ToolCallStarted {
        call_id: call_id.into(),
        name: name.into(),
    }
}

pub fn args(call_id: &str, delta: &str) -> ModelEvent {
    ModelEvent::ToolCallArgumentsDelta {
        call_id: call_id.into(),
        delta: delta.into(),
    }
}

pub fn done(call_id: &str, name: &str, arguments: &str) -> ModelEvent {
    ModelEvent::ToolCallDone {
        call_id: call_id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

pub fn usage(
    input: Option<u64>,
    cached: Option<u64>,
    output: Option<u64>,
    reasoning: Option<u64>,
    total: Option<u64>,
) -> ModelEvent {
    ModelEvent::Usage {
        usage: TokenUsage {
            input_tokens: input,
            cached_input_tokens: cached,
            cache_write_input_tokens: None,
            cache_write_5m_input_tokens: None,
            cache_write_1h_input_tokens: None,
            output_tokens: output,
            reasoning_output_tokens: reasoning,
            total_tokens: total,
        },
    }
}

/// Anthropic usage: `input` counts cache reads and writes; `split` is the
/// `cache_creation` 5m/1h split when the stream reports it.
pub fn anthropic_usage(
    input: u64,
    read: u64,
    written: u64,
    split: Option<(u64, u64)>,
    output: u64,
) -> ModelEvent {
    ModelEvent::Usage {
        usage: TokenUsage {
            input_tokens: Some(input),
            cached_input_tokens: Some(read),
            cache_write_input_tokens: Some(written),
            cache_write_5m_input_tokens: split.map(|(five, _)| five),
            cache_write_1h_input_tokens: split.map(|(_, hour)| hour),
            output_tokens: Some(output),
            ..TokenUsage::default()
        },
    }
}

pub fn finished(stop_reason: StopReason) -> ModelEvent {
    ModelEvent::Finished { stop_reason }
}

pub fn reasoning(provider: &str, payload: serde_json::Value) -> ModelEvent {
    ModelEvent::Reasoning {
        item: ResponseItem::Reasoning(strata_protocol::ReasoningItem {
            id: ItemId::from_uuid(uuid::Uuid::nil()),
            provider: provider.into(),
            payload,
        }),
    }
}

// The local HTTP server.

/// How the server answers one request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A whole response with a body.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// A 200 event stream sent as HTTP chunks, `delay` apart; `cut` drops
    /// the connection after the chunks without the closing chunk.
    Stream {
        chunks: Vec<Vec<u8>>,
        delay: Duration,
        cut: bool,
    },
    /// Sends the headers and `first` as one chunk, then waits, reading,
    /// until the client goes away, and reports that.
    Stall { first: Vec<u8> },
    /// Reads the request and never answers; reports when the client goes.
    Silent,
    /// Judges the request's JSON body as the provider would: a rule it
    /// breaks is answered with a 400 `invalid_request_error` naming it
    /// (Anthropic's error shape), else `reply` is served.
    Judged {
        rule: fn(&serde_json::Value) -> Option<String>,
        reply: Box<Reply>,
    },
}

impl Reply {
    pub fn status(status: u16, body: &str) -> Self {
        Reply::Full {
            status,
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
        }
    }

    pub fn status_with(status: u16, headers: &[(&str, &str)], body: &str) -> Self {
        Reply::Full {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.as_bytes().to_vec(),
        }
    }

    /// A stream of `bytes` in `size`-byte chunks, 1 ms apart.
    pub fn sse(bytes: &[u8], size: usize) -> Self {
        Reply::Stream {
            chunks: bytes.chunks(size).map(<[u8]>::to_vec).collect(),
            delay: Duration::from_millis(1),
            cut: false,
        }
    }

    /// The first `keep` bytes of a stream, then the connection drops.
    pub fn cut_after(bytes: &[u8], keep: usize) -> Self {
        Reply::Stream {
            chunks: vec![bytes[..keep].to_vec()],
            delay: Duration::ZERO,
            cut: true,
        }
    }
}

/// One request the server received.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

pub struct TestServer {
    pub base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
    disconnects: mpsc::UnboundedReceiver<()>,
}

impl TestServer {
    /// Serves `replies` in order, one per connection; the listener answers
    /// only as many requests as there are replies.
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let (disconnect_tx, disconnects) = mpsc::unbounded_channel();
        let log = received.clone();
        tokio::spawn(async move {
            for reply in replies {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let log = log.clone();
                let disconnect_tx = disconnect_tx.clone();
                tokio::spawn(async move {
                    serve(socket, reply, log, disconnect_tx).await;
                });
            }
        });
        Self {
            base_url: format!("http://{addr}/v1"),
            received,
            disconnects,
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until a stalled reply's client has gone away.
    pub async fn client_disconnected(&mut self) {
        tokio::time::timeout(Duration::from_secs(10), self.disconnects.recv())
            .await
            .expect("the client never closed the connection")
            .expect("the server stopped");
    }

    pub fn endpoint(&self, key: Option<&str>) -> Endpoint {
        Endpoint::new(self.base_url.clone(), key.map(ApiKey::new))
    }
}

async fn read_request(socket: &mut (impl AsyncRead + Unpin)) -> Option<Received> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_string();
    let path = request_line.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[header_end..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Received {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Status",
    }
}

async fn write_chunk(socket: &mut (impl AsyncWrite + Unpin), bytes: &[u8]) -> std::io::Result<()> {
    socket
        .write_all(format!("{:x}\r\n", bytes.len()).as_bytes())
        .await?;
    socket.write_all(bytes).await?;
    socket.write_all(b"\r\n").await?;
    socket.flush().await
}

const STREAM_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";

async fn serve(
    mut socket: impl AsyncRead + AsyncWrite + Unpin,
    reply: Reply,
    log: Arc<Mutex<Vec<Received>>>,
    disconnects: mpsc::UnboundedSender<()>,
) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    let reply = match reply {
        Reply::Judged { rule, reply } => match rule(&request.json()) {
            Some(broken) => Reply::status(
                400,
                &serde_json::json!({
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": broken},
                })
                .to_string(),
            ),
            None => *reply,
        },
        other => other,
    };
    log.lock().unwrap().push(request);
    respond(socket, reply, disconnects).await;
}

/// Answers a request already read with `reply`.
async fn respond(
    mut socket: impl AsyncRead + AsyncWrite + Unpin,
    reply: Reply,
    disconnects: mpsc::UnboundedSender<()>,
) {
    match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let typed = headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
            let mut head = format!(
                "HTTP/1.1 {status} {}\r\n{}content-length: {}\r\nconnection: close\r\n",
                reason(status),
                if typed {
                    ""
                } else {
                    "content-type: application/json\r\n"
                },
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(&body).await;
            let _ = socket.shutdown().await;
        }
        Reply::Stream { chunks, delay, cut } => {
            if socket.write_all(STREAM_HEAD).await.is_err() {
                return;
            }
            for chunk in chunks {
                if write_chunk(&mut socket, &chunk).await.is_err() {
                    return;
                }
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
            }
            if !cut {
                let _ = socket.write_all(b"0\r\n\r\n").await;
            }
            let _ = socket.shutdown().await;
        }
        Reply::Stall { first } => {
            let _ = socket.write_all(STREAM_HEAD).await;
            let _ = write_chunk(&mut socket, &first).await;
            wait_for_close(&mut socket).await;
            let _ = disconnects.send(());
        }
        Reply::Silent => {
            wait_for_close(&mut socket).await;
            let _ = disconnects.send(());
        }
        // Resolved above.
        Reply::Judged { .. } => {}
    }
}

/// Reading returns 0 (or fails) once the client closes its side.
async fn wait_for_close(socket: &mut (impl AsyncRead + Unpin)) {
    let mut sink = [0u8; 1024];
    loop {
        match socket.read(&mut sink).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

/// Sends `request` through the gateway `make` builds to a local server
/// (which answers 400, so there is one attempt) and returns the one request
/// the server saw.
pub async fn sent(
    make: impl FnOnce(&TestServer) -> Box<dyn strata_core::ModelGateway>,
    request: ModelRequest,
) -> Received {
    let server = TestServer::start(vec![Reply::status(400, "{}")]).await;
    let gateway = make(&server);
    let _ = collect(gateway.stream_response(request)).await;
    let mut received = server.received();
    assert_eq!(received.len(), 1);
    received.remove(0)
}

/// Options for tests: fast retries and a short idle timeout.
pub fn fast_options(max_attempts: u32) -> HttpOptions {
    HttpOptions {
        retry: RetryPolicy {
            max_attempts,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(200),
        },
        idle_timeout: Duration::from_secs(5),
        response_timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(5),
        response_deadline: Duration::from_secs(30),
        ..HttpOptions::default()
    }
}

pub fn client(options: HttpOptions) -> HttpClient {
    HttpClient::new(options).unwrap()
}
