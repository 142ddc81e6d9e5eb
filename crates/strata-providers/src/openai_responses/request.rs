//! Rendering a [`ModelRequest`] as a Responses API request body.

use serde::Serialize;
use serde_json::Value;
use strata_protocol::{ModelRequest, ResponseItem, Role, ToolChoice, ToolSpec};

use super::PROVIDER;
use crate::cache::{PromptCacheRetention, prompt_cache_key, prompt_cache_retention_for};
use crate::reasoning::reasoning_form;
use crate::render::{split_system, tools_and_choice};

/// What a stateless request asks back: reasoning items carry their
/// `encrypted_content`, so they can be sent back without server-side state.
const STATELESS_INCLUDE: &[&str] = &["reasoning.encrypted_content"];

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
    /// Whether the server keeps the response; `false` unless the profile
    /// opts in with `store = true`.
    store: bool,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    include: &'static [&'static str],
    /// Routes a session's rounds to the same prompt cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_key: Option<String>,
    /// The effort the session's setting names for this model, with its
    /// summary asked for so the thinking can be shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<Reasoning>,
    /// The profile's retention, when the model accepts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_retention: Option<PromptCacheRetention>,
}

/// `reasoning: {effort, summary: "auto"}`.
#[derive(Debug, Serialize)]
struct Reasoning {
    effort: &'static str,
    summary: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum InputItem<'a> {
    /// The API's `EasyInputMessage`: user, developer and system text as an
    /// `input_text` part; assistant text echoed back as a plain string.
    /// (Its content parts are input types, which the API refuses for the
    /// assistant role, and the other shape, `OutputMessage`, needs the
    /// server's `id` and `status`.)
    Message {
        role: &'static str,
        content: Content,
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
#[serde(untagged)]
enum Content {
    Text(String),
    Parts([Part; 1]),
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

/// The body for `POST /responses`; `store` is the profile's choice.
pub fn render_request(
    request: &ModelRequest,
    stream: bool,
    store: bool,
    retention: Option<PromptCacheRetention>,
) -> ResponsesRequest<'_> {
    let (system, items) = split_system(&request.input);
    let (tools, tool_choice) = tools_and_choice(request, render_tool, render_tool_choice);
    ResponsesRequest {
        model: &request.model,
        instructions: system,
        input: items
            .iter()
            .filter_map(|item| render_item(item, store))
            .collect(),
        stream,
        tools,
        tool_choice,
        max_output_tokens: request.max_output_tokens,
        store,
        include: if store { &[] } else { STATELESS_INCLUDE },
        prompt_cache_key: request.session_id.map(prompt_cache_key),
        reasoning: request
            .reasoning
            .and_then(|effort| reasoning_form(&request.model).effort_name(effort))
            .map(|effort| Reasoning {
                effort,
                summary: "auto",
            }),
        prompt_cache_retention: retention
            .and_then(|wanted| prompt_cache_retention_for(&request.model, wanted)),
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
    let content = if role == "assistant" {
        Content::Text(text)
    } else {
        Content::Parts([Part {
            kind: "input_text",
            text,
        }])
    };
    InputItem::Message { role, content }
}

/// One history item as input; `None` for what this API cannot take back.
fn render_item(item: &ResponseItem, store: bool) -> Option<InputItem<'_>> {
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
            // Without stored state the server can only take a reasoning item
            // back from its encrypted content (one made while `store` was on
            // has none).
            if !store && !has_encrypted_content(&reasoning.payload) {
                tracing::debug!(
                    "not sending a reasoning item without encrypted_content to a stateless request"
                );
                return None;
            }
            InputItem::Verbatim(&reasoning.payload)
        }
    })
}

fn has_encrypted_content(payload: &Value) -> bool {
    payload
        .get("encrypted_content")
        .and_then(Value::as_str)
        .is_some_and(|content| !content.is_empty())
}
