//! Rendering a [`ModelRequest`] as a Responses API request body.

use serde_json::{Value, json};
use strata_protocol::{ModelRequest, ResponseItem, Role, ToolChoice, ToolSpec};

use super::PROVIDER;
use crate::render::{insert_tools, split_system};

/// The JSON body for `POST /responses`.
pub fn render_request(request: &ModelRequest, stream: bool) -> Value {
    let (system, items) = split_system(&request.input);
    let mut body = json!({
        "model": request.model,
        "input": items.iter().filter_map(render_item).collect::<Vec<_>>(),
        "stream": stream,
    });
    if let Some(system) = system {
        body["instructions"] = json!(system);
    }
    insert_tools(&mut body, request, render_tool, render_tool_choice);
    if let Some(max) = request.max_output_tokens {
        body["max_output_tokens"] = json!(max);
    }
    body
}

fn render_tool(tool: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": false,
    })
}

fn render_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool { name } => json!({"type": "function", "name": name}),
    }
}

fn message(role: &str, text: &str) -> Value {
    let part = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    json!({
        "type": "message",
        "role": role,
        "content": [{"type": part, "text": text}],
    })
}

fn render_item(item: &ResponseItem) -> Option<Value> {
    Some(match item {
        ResponseItem::Message(m) => match m.role {
            Role::User => message("user", &m.content),
            Role::Assistant => message("assistant", &m.content),
            // Only the leading system message becomes `instructions`; a later
            // one stays in place with the role the API gives such messages.
            Role::System | Role::Developer => message("developer", &m.content),
        },
        ResponseItem::FunctionCall(call) => json!({
            "type": "function_call",
            "call_id": call.call_id,
            "name": call.name,
            "arguments": call.arguments,
        }),
        ResponseItem::FunctionCallOutput(output) => json!({
            "type": "function_call_output",
            "call_id": output.call_id,
            "output": output.output,
        }),
        ResponseItem::CompactionSummary(summary) => message("user", &summary.model_text()),
        ResponseItem::Reasoning(reasoning) => {
            if reasoning.provider != PROVIDER {
                tracing::debug!(provider = %reasoning.provider, "not sending another provider's reasoning item");
                return None;
            }
            reasoning.payload.clone()
        }
    })
}
