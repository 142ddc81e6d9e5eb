//! A local server that answers all three wire protocols (Anthropic Messages,
//! OpenAI Responses, Chat Completions) like the real APIs do about prompt
//! caching: it keeps what earlier requests cached and bills each request by
//! the providers' rules (`strata_testkit::prompt_cache`), on a clock the
//! test moves. A request with more than four `cache_control` markers is a
//! 400, as on the real API. Rounds (streamed) play a script of answers; a
//! non-streamed request (a compaction summary) gets a summary.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::{Value, json};
use strata_testkit::prompt_cache::{AnthropicCache, Block, CacheUsage, OpenAiCache, Ttl};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::{Reply, read_request, respond};

/// Which API the server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    Anthropic,
    Responses,
    Chat,
}

/// What the scripted model does in one round.
#[derive(Clone, Debug)]
pub enum Answer {
    Call { name: String, arguments: Value },
    Text(String),
}

impl Answer {
    pub fn read(path: &str) -> Self {
        Answer::Call {
            name: "read_file".into(),
            arguments: json!({ "path": path }),
        }
    }
}

/// One request the server billed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Billed {
    /// Whether it was streamed (a round) rather than a summary request.
    pub streamed: bool,
    pub usage: CacheUsage,
    pub output: u64,
    /// When it arrived on the server's clock, in seconds.
    pub at: u64,
}

/// The text every summary request is answered with.
pub const SUMMARY: &str = "Summary: the files were read; nothing else happened.";

struct State {
    api: Api,
    clock: u64,
    anthropic: AnthropicCache,
    openai: OpenAiCache,
    script: VecDeque<Answer>,
    billed: Vec<Billed>,
    calls: usize,
}

pub struct CachingServer {
    pub base_url: String,
    state: Arc<Mutex<State>>,
}

impl CachingServer {
    /// Serves `api` for a model whose minimum cacheable prefix is
    /// `anthropic_minimum` tokens, with OpenAI entries kept `retention`
    /// seconds after their last use; rounds play `script`.
    pub async fn start(
        api: Api,
        anthropic_minimum: u64,
        retention: u64,
        script: Vec<Answer>,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            api,
            clock: 0,
            anthropic: AnthropicCache::new(anthropic_minimum),
            openai: OpenAiCache::new(retention),
            script: script.into(),
            billed: Vec::new(),
            calls: 0,
        }));
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let state = shared.clone();
                tokio::spawn(async move {
                    let Some(request) = read_request(&mut socket).await else {
                        return;
                    };
                    let reply = answer(&state, &request.body);
                    let (disconnects, _) = mpsc::unbounded_channel();
                    respond(socket, reply, disconnects).await;
                });
            }
        });
        Self {
            base_url: format!("http://{addr}/v1"),
            state,
        }
    }

    pub fn endpoint(&self) -> strata_providers::Endpoint {
        strata_providers::Endpoint::new(
            self.base_url.clone(),
            Some(strata_providers::ApiKey::new("k")),
        )
    }

    /// Moves the server's clock on (a person reading, a coffee break).
    pub fn advance(&self, seconds: u64) {
        self.state.lock().unwrap().clock += seconds;
    }

    /// Every request billed, in order.
    pub fn billed(&self) -> Vec<Billed> {
        self.state.lock().unwrap().billed.clone()
    }
}

/// Tokens of a block: its JSON's characters ÷ 4.
fn block(bytes: String, breakpoint: Option<Ttl>) -> Block {
    Block {
        tokens: bytes.chars().count().div_ceil(4) as u64,
        bytes: bytes.into_bytes(),
        breakpoint,
    }
}

/// A value without its `cache_control`, and the TTL that marker asked for.
fn unmarked(mut value: Value) -> (Value, Option<Ttl>) {
    let control = value
        .as_object_mut()
        .and_then(|map| map.remove("cache_control"));
    let ttl = control.map(|control| match control.get("ttl").and_then(Value::as_str) {
        Some("1h") => Ttl::OneHour,
        _ => Ttl::FiveMinutes,
    });
    (value, ttl)
}

#[derive(Deserialize)]
struct MessagesBody {
    #[serde(default)]
    tools: Vec<Value>,
    #[serde(default)]
    system: Option<Value>,
    messages: Vec<MessageIn>,
    #[serde(default)]
    stream: bool,
}

#[derive(Deserialize)]
struct MessageIn {
    role: String,
    content: Value,
}

/// Tools, system blocks, then each message's blocks, in the order the API
/// reads the prompt.
fn anthropic_blocks(body: &MessagesBody) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut push = |value: &Value, tag: &str| {
        let (value, ttl) = unmarked(value.clone());
        blocks.push(block(format!("{tag}{value}"), ttl));
    };
    for tool in &body.tools {
        push(tool, "tool:");
    }
    match &body.system {
        Some(Value::Array(parts)) => parts.iter().for_each(|part| push(part, "system:")),
        Some(text) => push(text, "system:"),
        None => {}
    }
    for message in &body.messages {
        let tag = format!("{}:", message.role);
        match &message.content {
            Value::Array(parts) => parts.iter().for_each(|part| push(part, &tag)),
            text => push(text, &tag),
        }
    }
    blocks
}

#[derive(Deserialize)]
struct OpenAiBody {
    #[serde(default)]
    instructions: Option<String>,
    #[serde(default)]
    tools: Vec<Value>,
    /// Responses.
    #[serde(default)]
    input: Vec<Value>,
    /// Chat Completions.
    #[serde(default)]
    messages: Vec<Value>,
    #[serde(default)]
    prompt_cache_key: Option<String>,
    #[serde(default)]
    stream: bool,
}

fn openai_blocks(body: &OpenAiBody) -> Vec<Block> {
    let instructions = body
        .instructions
        .iter()
        .map(|text| Value::from(text.as_str()));
    instructions
        .chain(body.tools.iter().cloned())
        .chain(body.input.iter().cloned())
        .chain(body.messages.iter().cloned())
        .map(|value| block(value.to_string(), None))
        .collect()
}

/// Bills the request and builds the reply.
fn answer(state: &Mutex<State>, body: &[u8]) -> Reply {
    let mut state = state.lock().unwrap();
    let now = state.clock;
    let (usage, streamed) = match state.api {
        Api::Anthropic => {
            let body: MessagesBody = serde_json::from_slice(body).unwrap();
            match state.anthropic.request(now, &anthropic_blocks(&body)) {
                Ok(usage) => (usage, body.stream),
                Err(error) => {
                    let error = json!({
                        "type": "error",
                        "error": {"type": "invalid_request_error", "message": error.to_string()},
                    });
                    return Reply::status(400, &error.to_string());
                }
            }
        }
        Api::Responses | Api::Chat => {
            let body: OpenAiBody = serde_json::from_slice(body).unwrap();
            let key = body.prompt_cache_key.as_deref();
            let usage = state.openai.request(now, key, &openai_blocks(&body));
            (usage, body.stream)
        }
    };
    let answer = if streamed {
        state.script.pop_front().expect("the script ran out")
    } else {
        Answer::Text(SUMMARY.into())
    };
    let output = match &answer {
        Answer::Call { name, arguments } => (name.len() + arguments.to_string().len()).div_ceil(4),
        Answer::Text(text) => text.len().div_ceil(4),
    } as u64;
    state.billed.push(Billed {
        streamed,
        usage,
        output,
        at: now,
    });
    state.calls += 1;
    let call_id = format!("call_{}", state.calls);
    let reply = Wire {
        usage,
        output,
        answer,
        call_id,
    };
    match (state.api, streamed) {
        (Api::Anthropic, true) => Reply::sse(reply.anthropic_stream().as_bytes(), 4096),
        (Api::Anthropic, false) => Reply::status(200, &reply.anthropic_message().to_string()),
        (Api::Responses, true) => Reply::sse(reply.responses_stream().as_bytes(), 4096),
        (Api::Responses, false) => Reply::status(200, &reply.responses_object().to_string()),
        (Api::Chat, true) => Reply::sse(reply.chat_stream().as_bytes(), 4096),
        (Api::Chat, false) => Reply::status(200, &reply.chat_object().to_string()),
    }
}

/// One answer in each API's shape.
struct Wire {
    usage: CacheUsage,
    output: u64,
    answer: Answer,
    call_id: String,
}

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn data(data: &Value) -> String {
    format!("data: {data}\n\n")
}

impl Wire {
    fn anthropic_usage(&self) -> Value {
        json!({
            "input_tokens": self.usage.uncached,
            "cache_read_input_tokens": self.usage.read,
            "cache_creation_input_tokens": self.usage.written(),
            "cache_creation": {
                "ephemeral_5m_input_tokens": self.usage.written_5m,
                "ephemeral_1h_input_tokens": self.usage.written_1h,
            },
            "output_tokens": self.output,
        })
    }

    fn anthropic_stop(&self) -> &'static str {
        match self.answer {
            Answer::Call { .. } => "tool_use",
            Answer::Text(_) => "end_turn",
        }
    }

    fn anthropic_stream(&self) -> String {
        let mut usage = self.anthropic_usage();
        usage["output_tokens"] = json!(1);
        let mut out = event(
            "message_start",
            &json!({"type": "message_start", "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                "content": [], "stop_reason": null, "usage": usage,
            }}),
        );
        let (start, delta) = match &self.answer {
            Answer::Call { name, arguments } => (
                json!({"type": "tool_use", "id": self.call_id, "name": name, "input": {}}),
                json!({"type": "input_json_delta", "partial_json": arguments.to_string()}),
            ),
            Answer::Text(text) => (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": text}),
            ),
        };
        out += &event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 0, "content_block": start}),
        );
        out += &event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        );
        out += &event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": 0}),
        );
        out += &event(
            "message_delta",
            &json!({"type": "message_delta", "delta": {"stop_reason": self.anthropic_stop()},
                "usage": {"output_tokens": self.output}}),
        );
        out + &event("message_stop", &json!({"type": "message_stop"}))
    }

    fn anthropic_message(&self) -> Value {
        let Answer::Text(text) = &self.answer else {
            unreachable!("summaries are text")
        };
        json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "usage": self.anthropic_usage(),
        })
    }

    fn openai_usage(&self) -> (u64, u64) {
        (self.usage.input(), self.usage.read)
    }

    fn responses_item(&self) -> Value {
        match &self.answer {
            Answer::Call { name, arguments } => json!({
                "id": "fc_1", "type": "function_call", "status": "completed",
                "call_id": self.call_id, "name": name, "arguments": arguments.to_string(),
            }),
            Answer::Text(text) => json!({
                "id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }),
        }
    }

    fn responses_object(&self) -> Value {
        let (input, cached) = self.openai_usage();
        json!({
            "id": "resp_1", "object": "response", "status": "completed", "model": "m",
            "output": [self.responses_item()],
            "usage": {
                "input_tokens": input,
                "input_tokens_details": {"cached_tokens": cached},
                "output_tokens": self.output,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": input + self.output,
            },
        })
    }

    fn responses_stream(&self) -> String {
        data(
            &json!({"type": "response.output_item.done", "output_index": 0,
            "item": self.responses_item()}),
        ) + &data(&json!({"type": "response.completed", "response": self.responses_object()}))
    }

    fn chat_usage(&self) -> Value {
        let (input, cached) = self.openai_usage();
        json!({
            "prompt_tokens": input,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens": self.output,
            "total_tokens": input + self.output,
        })
    }

    fn chat_object(&self) -> Value {
        let Answer::Text(text) = &self.answer else {
            unreachable!("summaries are text")
        };
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                "finish_reason": "stop"}],
            "usage": self.chat_usage(),
        })
    }

    fn chat_stream(&self) -> String {
        let (delta, finish) = match &self.answer {
            Answer::Call { name, arguments } => (
                json!({"role": "assistant", "tool_calls": [{"index": 0, "id": self.call_id,
                    "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}]}),
                "tool_calls",
            ),
            Answer::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
        };
        let chunk = |choices: Value| json!({"id": "c1", "object": "chat.completion.chunk", "choices": choices});
        data(&chunk(json!([{"index": 0, "delta": delta}])))
            + &data(&chunk(
                json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
            ))
            + &data(
                &json!({"id": "c1", "object": "chat.completion.chunk", "choices": [],
                "usage": self.chat_usage()}),
            )
            + "data: [DONE]\n\n"
    }
}
