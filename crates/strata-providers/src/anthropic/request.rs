//! Rendering a [`ModelRequest`] as a Messages API request body.

use serde_json::{Value, json};
use strata_protocol::{ModelRequest, ResponseItem, Role, ToolChoice, ToolSpec};

use super::PROVIDER;
use crate::render::{arguments_object, insert_tools, split_system};

/// The JSON body for `POST /messages`.
pub fn render_request(request: &ModelRequest, stream: bool, default_max_tokens: u32) -> Value {
    let (system, items) = split_system(&request.input);
    let mut system = system.map(str::to_string);
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for item in items {
        let (role, block) = match item {
            ResponseItem::Message(m) => match m.role {
                Role::User => ("user", text_block(&m.content)),
                Role::Assistant => ("assistant", text_block(&m.content)),
                // Messages has no system role inside the conversation.
                Role::System | Role::Developer => {
                    let joined = match system.take() {
                        Some(existing) => format!("{existing}\n\n{}", m.content),
                        None => m.content.clone(),
                    };
                    system = Some(joined);
                    continue;
                }
            },
            ResponseItem::CompactionSummary(summary) => ("user", text_block(&summary.model_text())),
            ResponseItem::FunctionCall(call) => (
                "assistant",
                Some(json!({
                    "type": "tool_use",
                    "id": call.call_id,
                    "name": call.name,
                    "input": arguments_object(&call.arguments),
                })),
            ),
            // Tool results are user-role content blocks.
            ResponseItem::FunctionCallOutput(output) => (
                "user",
                Some(json!({
                    "type": "tool_result",
                    "tool_use_id": output.call_id,
                    "content": output.output,
                })),
            ),
            ResponseItem::Reasoning(reasoning) if reasoning.provider == PROVIDER => {
                ("assistant", Some(reasoning.payload.clone()))
            }
            ResponseItem::Reasoning(reasoning) => {
                tracing::debug!(provider = %reasoning.provider, "not sending another provider's reasoning item");
                continue;
            }
        };
        let Some(block) = block else { continue };
        // The API wants roles to alternate: consecutive items of one role
        // become one message (assistant text and its tool_use blocks, tool
        // results and the user text after them).
        match messages.last_mut() {
            Some((last_role, blocks)) if *last_role == role => blocks.push(block),
            _ => messages.push((role, vec![block])),
        }
    }
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|(role, mut blocks)| {
            if role == "user" {
                // Tool results must come before any text in their message.
                blocks.sort_by_key(|block| block["type"] != "tool_result");
            }
            json!({"role": role, "content": blocks})
        })
        .collect();
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_output_tokens.unwrap_or(default_max_tokens),
        "messages": messages,
        "stream": stream,
    });
    if let Some(system) = system {
        body["system"] = json!(system);
    }
    insert_tools(&mut body, request, render_tool, render_tool_choice);
    body
}

fn render_tool(tool: &ToolSpec) -> Value {
    json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.parameters,
    })
}

fn render_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::Tool { name } => json!({"type": "tool", "name": name}),
    }
}

/// A text block, or nothing for empty text: the API rejects empty blocks.
fn text_block(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}
