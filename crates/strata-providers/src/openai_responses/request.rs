//! Rendering a [`ModelRequest`] as a Responses API request body.

use serde::Serialize;
use serde_json::Value;
use strata_protocol::{ModelRequest, ResponseItem, Role, ToolChoice, ToolSpec};

use super::PROVIDER;
use crate::render::{split_system, tools_and_choice};

/// The JSON body for `POST /responses`.
#[derive(Debug, Serialize)]
pub struct ResponsesRequest<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    input: Vec<InputItem<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Choice<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum InputItem<'a> {
    Message {
        role: &'static str,
        content: [Part; 1],
    },
    FunctionCall {
        call_id: &'a str,
        name: &'a str,
        arguments: &'a str,
    },
    FunctionCallOutput {
        call_id: &'a str,
        output: &'a str,
    },
    /// A reasoning item of this API, sent back verbatim.
    #[serde(untagged)]
    Verbatim(&'a Value),
}

#[derive(Debug, Serialize)]
struct Part {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

#[derive(Debug, Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    strict: bool,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Choice<'a> {
    Mode(&'static str),
    Function {
        #[serde(rename = "type")]
        kind: &'static str,
        name: &'a str,
    },
}

/// The body for `POST /responses`.
pub fn render_request(request: &ModelRequest, stream: bool) -> ResponsesRequest<'_> {
    let (system, items) = split_system(&request.input);
    let (tools, tool_choice) = tools_and_choice(request, render_tool, render_tool_choice);
    ResponsesRequest {
        model: &request.model,
        instructions: system,
        input: items.iter().filter_map(render_item).collect(),
        stream,
        tools,
        tool_choice,
        max_output_tokens: request.max_output_tokens,
    }
}

fn render_tool(tool: &ToolSpec) -> Tool<'_> {
    Tool {
        kind: "function",
        name: &tool.name,
        description: &tool.description,
        parameters: &tool.parameters,
        strict: false,
    }
}

fn render_tool_choice(choice: &ToolChoice) -> Choice<'_> {
    match choice {
        ToolChoice::Auto => Choice::Mode("auto"),
        ToolChoice::None => Choice::Mode("none"),
        ToolChoice::Required => Choice::Mode("required"),
        ToolChoice::Tool { name } => Choice::Function {
            kind: "function",
            name,
        },
    }
}

fn message(role: &'static str, text: String) -> InputItem<'static> {
    let kind = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    InputItem::Message {
        role,
        content: [Part { kind, text }],
    }
}

fn render_item(item: &ResponseItem) -> Option<InputItem<'_>> {
    Some(match item {
        ResponseItem::Message(m) => match m.role {
            Role::User => message("user", m.content.clone()),
            Role::Assistant => message("assistant", m.content.clone()),
            // Only the leading system message becomes `instructions`; a later
            // one stays in place with the role the API gives such messages.
            Role::System | Role::Developer => message("developer", m.content.clone()),
        },
        ResponseItem::FunctionCall(call) => InputItem::FunctionCall {
            call_id: &call.call_id,
            name: &call.name,
            arguments: &call.arguments,
        },
        ResponseItem::FunctionCallOutput(output) => InputItem::FunctionCallOutput {
            call_id: &output.call_id,
            output: &output.output,
        },
        ResponseItem::CompactionSummary(summary) => message("user", summary.model_text()),
        ResponseItem::Reasoning(reasoning) => {
            if reasoning.provider != PROVIDER {
                tracing::debug!(provider = %reasoning.provider, "not sending another provider's reasoning item");
                return None;
            }
            InputItem::Verbatim(&reasoning.payload)
        }
    })
}
