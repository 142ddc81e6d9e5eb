//! A local HTTP server speaking the OpenAI Responses wire format: recorded-
//! style SSE streams for streamed rounds, a JSON body for the (non-streamed)
//! compaction summary, every request body captured.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// How the server answers one request.
pub enum Reply {
    /// A 200 `text/event-stream` body.
    Sse(String),
    /// A JSON body with this status.
    Json(u16, Value),
    /// Sends the stream's headers and first event, then holds the
    /// connection until the client goes away.
    Stall,
    /// Like [`Reply::Stall`], after streaming this text.
    StallAfterText(String),
    /// A 307 redirect (the method and body are kept) to this URL.
    Redirect(String),
}

/// Decides the reply to the `n`th request (0-based) from its JSON body.
pub type Script = dyn Fn(usize, &Value) -> Reply + Send + Sync;

pub struct ResponsesServer {
    pub base_url: String,
    state: Arc<(Mutex<Vec<Value>>, Condvar)>,
    /// The request line and headers of every request, in order.
    heads: Arc<Mutex<Vec<String>>>,
}

impl ResponsesServer {
    pub fn start(script: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let state: Arc<(Mutex<Vec<Value>>, Condvar)> = Arc::default();
        let script: Arc<Script> = Arc::new(script);
        let heads: Arc<Mutex<Vec<String>>> = Arc::default();
        let (shared, shared_heads) = (state.clone(), heads.clone());
        std::thread::spawn(move || {
            for socket in listener.incoming() {
                let Ok(socket) = socket else { return };
                let state = shared.clone();
                let heads = shared_heads.clone();
                let script = script.clone();
                std::thread::spawn(move || serve(socket, &state, &heads, &*script));
            }
        });
        Self {
            base_url,
            state,
            heads,
        }
    }

    /// The request line and headers of every request received so far.
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }

    /// Every request body received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.state.0.lock().unwrap().clone()
    }

    /// Waits (up to a minute) until `count` requests arrived.
    pub fn wait_for_requests(&self, count: usize) -> Vec<Value> {
        let (lock, arrived) = &*self.state;
        let (requests, timeout) = arrived
            .wait_timeout_while(lock.lock().unwrap(), Duration::from_secs(60), |r| {
                r.len() < count
            })
            .unwrap();
        assert!(
            !timeout.timed_out(),
            "only {} requests arrived",
            requests.len()
        );
        requests.clone()
    }

    /// The streamed (round) requests, without the summary requests.
    pub fn round_requests(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|body| body["stream"] == true)
            .collect()
    }

    /// The last streamed (round) request.
    pub fn last_round(&self) -> Value {
        self.round_requests()
            .pop()
            .expect("no round request arrived")
    }
}

fn serve(
    mut socket: TcpStream,
    state: &(Mutex<Vec<Value>>, Condvar),
    heads: &Mutex<Vec<String>>,
    script: &Script,
) {
    let Some(body) = read_request(&mut socket, heads) else {
        return;
    };
    let index = {
        let mut requests = state.0.lock().unwrap();
        requests.push(body.clone());
        state.1.notify_all();
        requests.len() - 1
    };
    match script(index, &body) {
        Reply::Sse(text) => respond(&mut socket, 200, "text/event-stream", text.as_bytes()),
        Reply::Json(status, value) => respond(
            &mut socket,
            status,
            "application/json",
            value.to_string().as_bytes(),
        ),
        Reply::Stall => stall(&mut socket, ""),
        Reply::StallAfterText(text) => stall(&mut socket, &text),
        Reply::Redirect(location) => {
            let head = format!(
                "HTTP/1.1 307 Temporary Redirect\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            );
            let _ = socket.write_all(head.as_bytes());
        }
    }
}

fn stall(socket: &mut TcpStream, text: &str) {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    let mut first = event(
        "response.created",
        json!({"type": "response.created", "response": {"status": "in_progress"}}),
    );
    if !text.is_empty() {
        first.push_str(&event(
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "delta": text}),
        ));
    }
    let chunk = format!("{:x}\r\n{first}\r\n", first.len());
    if socket.write_all(head.as_bytes()).is_err()
        || socket.write_all(chunk.as_bytes()).is_err()
        || socket.flush().is_err()
    {
        return;
    }
    // Holds the stream open until the client closes it.
    let mut sink = [0u8; 256];
    while matches!(socket.read(&mut sink), Ok(n) if n > 0) {}
}

/// Reads one HTTP request (its head goes to `heads`) and parses its body as
/// JSON.
pub fn read_request(socket: &mut TcpStream, heads: &Mutex<Vec<String>>) -> Option<Value> {
    let mut reader = BufReader::new(socket.try_clone().ok()?);
    let mut length = 0usize;
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        head.push_str(&line);
        let line = line.trim_end();
        if line.is_empty() {
            heads.lock().unwrap().push(head);
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn respond(socket: &mut TcpStream, status: u16, content_type: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        if status == 200 { "OK" } else { "Error" },
        body.len()
    );
    let _ = socket.write_all(head.as_bytes());
    let _ = socket.write_all(body);
    let _ = socket.flush();
}

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn usage(input: u64, output: u64) -> Value {
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + output,
    })
}

fn created() -> String {
    event(
        "response.created",
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_test", "status": "in_progress", "output": [], "usage": null}}),
    )
}

fn completed(output: Value, input_tokens: u64, output_tokens: u64) -> String {
    event(
        "response.completed",
        json!({"type": "response.completed", "response": {"id": "resp_test", "status": "completed", "model": "gpt-test", "output": output, "usage": usage(input_tokens, output_tokens)}}),
    )
}

/// A streamed answer: the text in a few deltas, then the usage.
pub fn sse_text(text: &str, input_tokens: u64, output_tokens: u64) -> String {
    let mut sse = created();
    let message = json!({"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]});
    sse.push_str(&event(
        "response.output_item.added",
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}}),
    ));
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    for chunk in words.chunks(3) {
        sse.push_str(&event(
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": chunk.concat()}),
        ));
    }
    sse.push_str(&event(
        "response.output_item.done",
        json!({"type": "response.output_item.done", "output_index": 0, "item": message.clone()}),
    ));
    sse.push_str(&completed(json!([message]), input_tokens, output_tokens));
    sse
}

/// A streamed function call, then the usage.
pub fn sse_call(
    call_id: &str,
    name: &str,
    arguments: &Value,
    input_tokens: u64,
    output_tokens: u64,
) -> String {
    let arguments = arguments.to_string();
    let mut sse = created();
    let item = json!({"id": "fc_1", "type": "function_call", "status": "completed", "call_id": call_id, "name": name, "arguments": arguments});
    sse.push_str(&event(
        "response.output_item.added",
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "fc_1", "type": "function_call", "status": "in_progress", "call_id": call_id, "name": name, "arguments": ""}}),
    ));
    let (head, tail) = arguments.split_at(arguments.len() / 2);
    for delta in [head, tail] {
        sse.push_str(&event(
            "response.function_call_arguments.delta",
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": delta}),
        ));
    }
    sse.push_str(&event(
        "response.output_item.done",
        json!({"type": "response.output_item.done", "output_index": 0, "item": item.clone()}),
    ));
    sse.push_str(&completed(json!([item]), input_tokens, output_tokens));
    sse
}

/// A non-streamed answer (what a compaction summary request gets).
pub fn json_text(text: &str, input_tokens: u64, output_tokens: u64) -> Reply {
    Reply::Json(
        200,
        json!({
            "id": "resp_summary",
            "object": "response",
            "status": "completed",
            "model": "gpt-test",
            "output": [{"id": "msg_s", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            "usage": usage(input_tokens, output_tokens),
        }),
    )
}

/// The text of a Responses input message (its `input_text` parts).
pub fn message_text(item: &Value) -> String {
    item["content"]
        .as_array()
        .map(|parts| {
            parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<String>()
        })
        .unwrap_or_default()
}

/// The texts of a Responses request's input items, in order.
pub fn input_texts(request: &Value) -> Vec<String> {
    request["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(message_text)
        .collect()
}

/// A streamed Chat Completions answer (`POST /chat/completions` with
/// `stream: true`): the text in one delta, the finish reason, the usage
/// chunk and `[DONE]`.
pub fn sse_chat_text(text: &str, prompt_tokens: u64, completion_tokens: u64) -> String {
    let chunk = |body: Value| format!("data: {body}\n\n");
    let mut sse = chunk(
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "qwen3-coder", "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": null}]}),
    );
    sse.push_str(&chunk(
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "qwen3-coder", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ));
    sse.push_str(&chunk(
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "qwen3-coder", "choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens}}),
    ));
    sse.push_str("data: [DONE]\n\n");
    sse
}

/// A server whose model makes `calls` one per round, then says "done".
pub fn model_calling(calls: Vec<(&'static str, Value)>) -> ResponsesServer {
    ResponsesServer::start(move |n, _| match calls.get(n) {
        Some((name, arguments)) => {
            Reply::Sse(sse_call(&format!("call_{n}"), name, arguments, 100, 10))
        }
        None => Reply::Sse(sse_text("done", 100, 5)),
    })
}
