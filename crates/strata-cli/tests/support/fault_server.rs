//! A local server that speaks one provider's wire format (OpenAI Responses,
//! Chat Completions or Anthropic Messages) and injects one fault per
//! request: error statuses, resets, stalls, keep-alives forever, malformed
//! or truncated events, HTML pages, a 4 GB event, endless text, a slow
//! drip of text forever. Once
//! healed it answers every request with a short, successful reply.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

/// The wire format the server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Responses,
    Chat,
    Anthropic,
}

impl Wire {
    pub const ALL: [Wire; 3] = [Wire::Responses, Wire::Chat, Wire::Anthropic];

    /// The `--provider` value.
    pub fn provider(self) -> &'static str {
        match self {
            Wire::Responses => "openai-responses",
            Wire::Chat => "openai-chat",
            Wire::Anthropic => "anthropic",
        }
    }

    /// The provider's error body shape.
    pub fn error_body(self, kind: &str, code: &str, message: &str) -> String {
        match self {
            Wire::Anthropic => {
                json!({"type": "error", "error": {"type": kind, "message": message}})
            }
            Wire::Responses | Wire::Chat => {
                json!({"error": {"message": message, "type": kind, "code": code}})
            }
        }
        .to_string()
    }

    fn event(self, name: &str, data: Value) -> String {
        match self {
            Wire::Anthropic | Wire::Responses => format!("event: {name}\ndata: {data}\n\n"),
            Wire::Chat => format!("data: {data}\n\n"),
        }
    }

    /// An event that opens a stream and carries no text.
    fn opening(self) -> String {
        match self {
            Wire::Responses => self.event(
                "response.created",
                json!({"type": "response.created", "response": {"status": "in_progress"}}),
            ),
            Wire::Chat => self.event(
                "",
                json!({"choices": [{"index": 0, "delta": {"role": "assistant"}}]}),
            ),
            Wire::Anthropic => {
                let start = self.event(
                    "message_start",
                    json!({"type": "message_start", "message": {"usage": {"input_tokens": 20, "output_tokens": 1}}}),
                );
                let block = self.event(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                );
                start + &block
            }
        }
    }

    fn text(self, text: &str) -> String {
        match self {
            Wire::Responses => self.event(
                "response.output_text.delta",
                json!({"type": "response.output_text.delta", "item_id": "msg_1", "delta": text}),
            ),
            Wire::Chat => self.event(
                "",
                json!({"choices": [{"index": 0, "delta": {"content": text}}]}),
            ),
            Wire::Anthropic => self.event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            ),
        }
    }

    fn closing(self) -> String {
        match self {
            Wire::Responses => self.event(
                "response.completed",
                json!({"type": "response.completed", "response": {"status": "completed", "usage": {"input_tokens": 20, "output_tokens": 3, "total_tokens": 23}}}),
            ),
            Wire::Chat => {
                self.event("", json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
                    + &self.event(
                        "",
                        json!({"choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23}}),
                    )
                    + "data: [DONE]\n\n"
            }
            Wire::Anthropic => {
                self.event("content_block_stop", json!({"type": "content_block_stop", "index": 0}))
                    + &self.event(
                        "message_delta",
                        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
                    )
                    + &self.event("message_stop", json!({"type": "message_stop"}))
            }
        }
    }

    /// A whole successful stream saying `text`.
    pub fn ok_stream(self, text: &str) -> String {
        self.opening() + &self.text(text) + &self.closing()
    }
}

/// What the server does with one request.
#[derive(Clone, Debug)]
pub enum Fault {
    /// A successful stream saying "All good."
    Ok,
    /// A whole response with this status, content type, extra headers and body.
    Status {
        status: u16,
        content_type: &'static str,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// Reads the request and closes the connection without a word.
    ResetBeforeHeaders,
    /// Streams some text, then drops the connection mid-stream.
    ResetMidStream,
    /// Streams the opening event, then sends nothing while the client waits.
    Stall,
    /// Streams the opening event, then keep-alive comments forever.
    KeepAliveForever,
    /// An event whose data is not JSON.
    Malformed,
    /// The stream ends inside an event's JSON.
    TruncatedJson,
    /// One event 4 GB long, sent without a line end.
    HugeEvent,
    /// Text deltas, as fast as the client reads, forever.
    EndlessText,
    /// A short text delta and a keep-alive comment every 50 ms, forever:
    /// real data, so no idle timeout fires.
    Drip,
}

impl Fault {
    pub fn status(status: u16, body: String) -> Self {
        Fault::Status {
            status,
            content_type: "application/json",
            headers: Vec::new(),
            body,
        }
    }

    pub fn html(status: u16) -> Self {
        Fault::Status {
            status,
            content_type: "text/html",
            headers: Vec::new(),
            body: "<!DOCTYPE html>\n<html><head><title>Bad Gateway</title></head>\n<body><h1>502 Bad Gateway</h1>\n<hr><center>nginx</center>\n</body></html>\n".into(),
        }
    }
}

pub struct FaultServer {
    pub base_url: String,
    requests: Arc<AtomicUsize>,
    healed: Arc<AtomicBool>,
    /// Body bytes sent by the fault that sent the most.
    most_sent: Arc<AtomicU64>,
}

struct Shared {
    wire: Wire,
    script: Vec<Fault>,
    requests: Arc<AtomicUsize>,
    healed: Arc<AtomicBool>,
    most_sent: Arc<AtomicU64>,
}

impl FaultServer {
    /// Answers request `n` with `script[n]`, the last fault repeating.
    pub fn start(wire: Wire, script: Vec<Fault>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let shared = Arc::new(Shared {
            wire,
            script,
            requests: Arc::default(),
            healed: Arc::default(),
            most_sent: Arc::default(),
        });
        let server = Self {
            base_url,
            requests: shared.requests.clone(),
            healed: shared.healed.clone(),
            most_sent: shared.most_sent.clone(),
        };
        std::thread::spawn(move || {
            for socket in listener.incoming() {
                let Ok(socket) = socket else { return };
                let shared = shared.clone();
                std::thread::spawn(move || serve(socket, &shared));
            }
        });
        server
    }

    /// From now on every request succeeds.
    pub fn heal(&self) {
        self.healed.store(true, Ordering::SeqCst);
    }

    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// The most body bytes one faulty reply got out before the client left.
    pub fn most_sent(&self) -> u64 {
        self.most_sent.load(Ordering::SeqCst)
    }
}

fn serve(mut socket: TcpStream, shared: &Shared) {
    if !read_request(&mut socket) {
        return;
    }
    let index = shared.requests.fetch_add(1, Ordering::SeqCst);
    let fault = if shared.healed.load(Ordering::SeqCst) {
        Fault::Ok
    } else {
        shared.script[index.min(shared.script.len() - 1)].clone()
    };
    let mut out = Counted {
        socket: &mut socket,
        sent: 0,
    };
    let _ = answer(&mut out, shared.wire, fault);
    shared.most_sent.fetch_max(out.sent, Ordering::SeqCst);
}

/// A socket that counts the body bytes written through it.
struct Counted<'a> {
    socket: &'a mut TcpStream,
    sent: u64,
}

impl Counted<'_> {
    fn head(&mut self, status: u16, content_type: &str, extra: &str) -> std::io::Result<()> {
        let head = format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\n{extra}connection: close\r\n\r\n",
            reason(status)
        );
        self.socket.write_all(head.as_bytes())
    }

    fn stream_head(&mut self) -> std::io::Result<()> {
        self.head(200, "text/event-stream", "transfer-encoding: chunked\r\n")
    }

    fn chunk(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.socket
            .write_all(format!("{:x}\r\n", bytes.len()).as_bytes())?;
        self.socket.write_all(bytes)?;
        self.socket.write_all(b"\r\n")?;
        self.socket.flush()?;
        self.sent += bytes.len() as u64;
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        self.socket.write_all(b"0\r\n\r\n")?;
        self.socket.flush()
    }

    /// Blocks until the client closes its side.
    fn wait_for_close(&mut self) {
        let mut sink = [0u8; 256];
        while matches!(self.socket.read(&mut sink), Ok(n) if n > 0) {}
    }
}

fn answer(out: &mut Counted<'_>, wire: Wire, fault: Fault) -> std::io::Result<()> {
    match fault {
        Fault::Ok => {
            out.stream_head()?;
            out.chunk(wire.ok_stream("All good.").as_bytes())?;
            out.end()
        }
        Fault::Status {
            status,
            content_type,
            headers,
            body,
        } => {
            let mut extra = format!("content-length: {}\r\n", body.len());
            for (name, value) in headers {
                extra.push_str(&format!("{name}: {value}\r\n"));
            }
            out.head(status, content_type, &extra)?;
            out.socket.write_all(body.as_bytes())?;
            out.socket.flush()
        }
        Fault::ResetBeforeHeaders => Ok(()),
        Fault::ResetMidStream => {
            out.stream_head()?;
            out.chunk((wire.opening() + &wire.text("Half an ans")).as_bytes())
            // Dropped without the closing chunk.
        }
        Fault::Stall => {
            out.stream_head()?;
            out.chunk(wire.opening().as_bytes())?;
            out.wait_for_close();
            Ok(())
        }
        Fault::KeepAliveForever => {
            out.stream_head()?;
            out.chunk(wire.opening().as_bytes())?;
            loop {
                out.chunk(b": keep-alive\n\n")?;
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Fault::Malformed => {
            out.stream_head()?;
            out.chunk(b"data: {\"type\": this is not json}\n\n")?;
            out.end()
        }
        Fault::TruncatedJson => {
            out.stream_head()?;
            let text = wire.opening() + &wire.text("Hello there");
            let cut = &text[..text.len() - 12];
            out.chunk(cut.as_bytes())?;
            out.end()
        }
        Fault::HugeEvent => {
            out.stream_head()?;
            out.chunk(b"data: {\"type\":\"")?;
            let block = vec![b'x'; 1 << 20];
            // 4096 blocks of 1 MiB: 4 GiB, never a line end.
            for _ in 0..4096 {
                out.chunk(&block)?;
            }
            out.end()
        }
        Fault::Drip => {
            out.stream_head()?;
            out.chunk(wire.opening().as_bytes())?;
            let drop = wire.text("drip ") + ": keep-alive\n\n";
            loop {
                out.chunk(drop.as_bytes())?;
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Fault::EndlessText => {
            out.stream_head()?;
            out.chunk(wire.opening().as_bytes())?;
            let delta = wire.text(&"endless text ".repeat(5000));
            loop {
                out.chunk(delta.as_bytes())?;
            }
        }
    }
}

fn read_request(socket: &mut TcpStream) -> bool {
    let Ok(clone) = socket.try_clone() else {
        return false;
    };
    let mut reader = BufReader::new(clone);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return false,
            Ok(_) => {}
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).is_ok()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}
