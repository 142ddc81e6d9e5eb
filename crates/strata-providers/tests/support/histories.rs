//! Session histories for request-body tests: an agent session's rounds (a
//! system prompt, the user's ask, then per round assistant text, a tool call
//! and its output), long enough for prompt caching to apply.

use serde_json::{Value, json};
use strata_protocol::{
    FunctionCall, FunctionCallOutput, ItemId, Message, ModelRequest, ReasoningItem, ResponseItem,
    Role, SessionId, ToolChoice, ToolSpec,
};

fn id(n: u128) -> ItemId {
    ItemId::from_uuid(uuid::Uuid::from_u128(n))
}

/// A fixed session, so keys derived from it are the same in every run.
pub fn session() -> SessionId {
    "019a0000-0000-7000-8000-000000000022".parse().unwrap()
}

/// A system prompt of about 1,500 tokens (chars ÷ 4): above the 1,024-token
/// minimum for Sonnet/Opus on its own.
pub fn long_system() -> String {
    let rule = "Read the files a change touches before editing them; keep diffs small and run the tests after each edit. ";
    format!(
        "You are Strata, a careful coding agent. {}",
        rule.repeat(56)
    )
}

pub fn read_file_tool() -> ToolSpec {
    ToolSpec {
        name: "read_file".into(),
        description: "Read a file in the workspace.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        }),
    }
}

pub fn tools() -> Vec<ToolSpec> {
    vec![
        read_file_tool(),
        ToolSpec {
            name: "run_shell".into(),
            description: "Run a shell command in the workspace.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            }),
        },
    ]
}

fn message(n: u128, role: Role, content: &str) -> ResponseItem {
    ResponseItem::Message(Message {
        id: id(n),
        role,
        content: content.into(),
    })
}

/// The items one finished round adds: the assistant's text, its tool call
/// and the call's output (about 600 tokens of file content).
fn round_items(round: u128) -> Vec<ResponseItem> {
    let base = 100 + round * 10;
    let call_id = format!("call_{round}");
    let body = format!("fn step_{round}() -> u32 {{ {round} }}\n").repeat(80);
    vec![
        message(base, Role::Assistant, &format!("Reading part {round}.")),
        ResponseItem::FunctionCall(FunctionCall {
            id: id(base + 1),
            call_id: call_id.clone(),
            name: "read_file".into(),
            arguments: format!(r#"{{"path":"src/part_{round}.rs"}}"#),
        }),
        ResponseItem::FunctionCallOutput(FunctionCallOutput {
            id: id(base + 2),
            call_id,
            output: body,
        }),
    ]
}

/// The request of round `round` (1-based) of a session on `model`: round 1
/// is the system prompt and the ask; each later round adds the previous
/// round's items. `tools` says whether tools are offered.
pub fn round_request(model: &str, round: u128, tools_offered: bool) -> ModelRequest {
    let mut input = vec![
        message(1, Role::System, &long_system()),
        message(
            2,
            Role::User,
            "Walk through the parts of the parser and sum them up.",
        ),
    ];
    for done in 1..round {
        input.extend(round_items(done));
    }
    ModelRequest {
        model: model.into(),
        input,
        tools: if tools_offered { tools() } else { Vec::new() },
        tool_choice: tools_offered.then_some(ToolChoice::Auto),
        max_output_tokens: Some(4096),
        session_id: Some(session()),
        reasoning: None,
        cache_anchors: Vec::new(),
    }
}

/// A short request, below every model's minimum cacheable size.
pub fn short_request(model: &str) -> ModelRequest {
    ModelRequest {
        model: model.into(),
        input: vec![
            message(1, Role::System, "Be brief."),
            message(2, Role::User, "Hi."),
        ],
        tools: tools(),
        tool_choice: Some(ToolChoice::Auto),
        max_output_tokens: Some(256),
        session_id: Some(session()),
        reasoning: None,
        cache_anchors: Vec::new(),
    }
}

/// `request` with `payload` (a reasoning item of `provider`) inserted before
/// the first assistant message, as the stream delivered it.
pub fn with_reasoning(mut request: ModelRequest, provider: &str, payload: Value) -> ModelRequest {
    let at = request
        .input
        .iter()
        .position(|item| matches!(item, ResponseItem::Message(m) if m.role == Role::Assistant))
        .unwrap_or(request.input.len());
    request.input.insert(
        at,
        ResponseItem::Reasoning(ReasoningItem {
            id: id(9000),
            provider: provider.into(),
            payload,
        }),
    );
    request
}

/// `body` without its `cache_control` fields, and with a breakpointed
/// system prompt back as plain text: what the model reads.
pub fn without_breakpoints(body: &Value) -> Value {
    match body {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (key, value) in map {
                if key == "cache_control" {
                    continue;
                }
                out.insert(key.clone(), without_breakpoints(value));
            }
            if let Some(Value::Array(blocks)) = out.get("system")
                && let [block] = blocks.as_slice()
                && let Some(text) = block.get("text")
            {
                let text = text.clone();
                out.insert("system".into(), text);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(without_breakpoints).collect()),
        other => other.clone(),
    }
}
