//! Rendering a [`ModelRequest`] as a Chat Completions request body.

use serde_json::{Value, json};
use strata_protocol::{ModelRequest, ResponseItem, Role, ToolChoice, ToolSpec};

use super::MaxTokensField;
use crate::render::{insert_tools, split_system};

/// The JSON body for `POST /chat/completions`.
pub fn render_request(request: &ModelRequest, stream: bool, max_tokens: MaxTokensField) -> Value {
    let mut body = json!({
        "model": request.model,
        "messages": render_messages(&request.input),
        "stream": stream,
    });
    if stream {
        body["stream_options"] = json!({"include_usage": true});
    }
    insert_tools(&mut body, request, render_tool, render_tool_choice);
    if let Some(max) = request.max_output_tokens {
        body[max_tokens.as_str()] = json!(max);
    }
    body
}

fn render_tool(tool: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    })
}

fn render_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool { name } => json!({"type": "function", "function": {"name": name}}),
    }
}

fn render_messages(input: &[ResponseItem]) -> Vec<Value> {
    let (system, items) = split_system(input);
    let mut messages = Vec::new();
    if let Some(system) = system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for item in items {
        match item {
            ResponseItem::Message(m) => match m.role {
                Role::User => push_text(&mut messages, "user", &m.content),
                Role::Assistant => push_text(&mut messages, "assistant", &m.content),
                // `developer` is OpenAI-only; compatible servers know `system`.
                Role::System | Role::Developer => push_text(&mut messages, "system", &m.content),
            },
            ResponseItem::CompactionSummary(summary) => {
                push_text(&mut messages, "user", &summary.model_text());
            }
            ResponseItem::FunctionCall(call) => {
                let tool_call = json!({
                    "id": call.call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                });
                // A call belongs to the assistant message just before it, so
                // text and calls of one reply stay one message.
                match messages.last_mut() {
                    Some(last) if last["role"] == "assistant" => {
                        match last.get_mut("tool_calls").and_then(Value::as_array_mut) {
                            Some(calls) => calls.push(tool_call),
                            None => last["tool_calls"] = json!([tool_call]),
                        }
                    }
                    _ => messages.push(json!({
                        "role": "assistant",
                        "content": null,
                        "tool_calls": [tool_call],
                    })),
                }
            }
            ResponseItem::FunctionCallOutput(output) => messages.push(json!({
                "role": "tool",
                "tool_call_id": output.call_id,
                "content": output.output,
            })),
            ResponseItem::Reasoning(_) => {
                tracing::debug!("reasoning items are not sent to Chat Completions");
            }
        }
    }
    messages
}

/// Appends text, merging it into the previous message when that has the
/// same role and is plain text: several chat templates (Mistral, Llama
/// via llama.cpp) reject two user or two assistant messages in a row.
fn push_text(messages: &mut Vec<Value>, role: &str, text: &str) {
    if let Some(last) = messages.last_mut() {
        let plain = last.get("tool_calls").is_none();
        if last["role"] == role
            && plain
            && let Some(content) = last["content"].as_str()
        {
            last["content"] = json!(format!("{content}\n\n{text}"));
            return;
        }
    }
    messages.push(json!({"role": role, "content": text}));
}
