//! Rendering a [`ModelRequest`] as a Chat Completions request body.

use serde::Serialize;
use serde_json::Value;
use strata_protocol::{ModelRequest, ResponseItem, Role, ToolChoice, ToolSpec};

use super::{MaxTokensField, PROVIDER};
use crate::cache::{PromptCacheRetention, prompt_cache_key, prompt_cache_retention_for};
use crate::reasoning::reasoning_form;
use crate::render::{split_system, tools_and_choice};

/// The JSON body for `POST /chat/completions`.
#[derive(Debug, Serialize)]
pub struct ChatRequest<'a> {
    model: &'a str,
    messages: Vec<ChatMessage<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Choice<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    /// Routes a session's rounds to the same prompt cache (OpenAI's API;
    /// compatible servers do not document it, so they are not sent it).
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_key: Option<String>,
    /// The effort the session's setting names, for models the catalog
    /// says take one (OpenAI's reasoning models, xAI's grok-3-mini).
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_retention: Option<PromptCacheRetention>,
}

#[derive(Debug, Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// One message; `content` is always sent, `null` for an assistant message
/// that only calls tools.
#[derive(Debug, Serialize)]
struct ChatMessage<'a> {
    role: &'static str,
    content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<ToolCall<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    /// The round's reasoning, on an assistant message that called tools
    /// only: DeepSeek's thinking-mode guide requires it back for tool-call
    /// turns and ignores it (older reasoners refused it) elsewhere. An
    /// extension of compatible servers; only their reasoning items carry it.
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<String>,
}

#[derive(Debug, Serialize)]
struct ToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionCall<'a>,
}

#[derive(Debug, Serialize)]
struct FunctionCall<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Debug, Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

#[derive(Debug, Serialize)]
struct Function<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Choice<'a> {
    Mode(&'static str),
    Function {
        #[serde(rename = "type")]
        kind: &'static str,
        function: ChoiceName<'a>,
    },
}

#[derive(Debug, Serialize)]
struct ChoiceName<'a> {
    name: &'a str,
}

/// The body for `POST /chat/completions`. `cache` is `None` when the server
/// takes no `prompt_cache_key` (a compatible server), else the profile's
/// `prompt_cache_retention` (sent where the model accepts it).
pub fn render_request(
    request: &ModelRequest,
    stream: bool,
    max_tokens: MaxTokensField,
    cache: Option<Option<PromptCacheRetention>>,
) -> ChatRequest<'_> {
    let (tools, tool_choice) = tools_and_choice(request, render_tool, render_tool_choice);
    let limit = |field| request.max_output_tokens.filter(|_| max_tokens == field);
    ChatRequest {
        model: &request.model,
        messages: render_messages(&request.input),
        stream,
        stream_options: stream.then_some(StreamOptions {
            include_usage: true,
        }),
        tools,
        tool_choice,
        max_tokens: limit(MaxTokensField::MaxTokens),
        max_completion_tokens: limit(MaxTokensField::MaxCompletionTokens),
        prompt_cache_key: request
            .session_id
            .filter(|_| cache.is_some())
            .map(prompt_cache_key),
        reasoning_effort: request
            .reasoning
            .and_then(|effort| reasoning_form(&request.model).effort_name(effort)),
        prompt_cache_retention: cache
            .flatten()
            .and_then(|wanted| prompt_cache_retention_for(&request.model, wanted)),
    }
}

fn render_tool(tool: &ToolSpec) -> Tool<'_> {
    Tool {
        kind: "function",
        function: Function {
            name: &tool.name,
            description: &tool.description,
            parameters: &tool.parameters,
        },
    }
}

fn render_tool_choice(choice: &ToolChoice) -> Choice<'_> {
    match choice {
        ToolChoice::Auto => Choice::Mode("auto"),
        ToolChoice::None => Choice::Mode("none"),
        ToolChoice::Required => Choice::Mode("required"),
        ToolChoice::Tool { name } => Choice::Function {
            kind: "function",
            function: ChoiceName { name },
        },
    }
}

fn render_messages(input: &[ResponseItem]) -> Vec<ChatMessage<'_>> {
    let (system, items) = split_system(input);
    let mut messages = Vec::new();
    // The reasoning of the reply being rendered, until its calls take it.
    let mut reasoning: Option<String> = None;
    if let Some(system) = system {
        messages.push(text_message("system", system.to_string()));
    }
    for item in items {
        match item {
            ResponseItem::Message(m) => match m.role {
                Role::User => {
                    // A reply without calls: its reasoning is not sent.
                    reasoning = None;
                    push_text(&mut messages, "user", &m.content);
                }
                Role::Assistant => push_text(&mut messages, "assistant", &m.content),
                // `developer` is OpenAI-only; compatible servers know `system`.
                Role::System | Role::Developer => push_text(&mut messages, "system", &m.content),
            },
            ResponseItem::CompactionSummary(summary) => {
                push_text(&mut messages, "user", &summary.model_text());
            }
            ResponseItem::FunctionCall(call) => {
                let tool_call = ToolCall {
                    id: &call.call_id,
                    kind: "function",
                    function: FunctionCall {
                        name: &call.name,
                        arguments: &call.arguments,
                    },
                };
                // A call belongs to the assistant message just before it, so
                // text and calls of one reply stay one message.
                match messages.last_mut() {
                    Some(last) if last.role == "assistant" => {
                        last.tool_calls.get_or_insert_with(Vec::new).push(tool_call);
                        if let Some(text) = reasoning.take() {
                            last.reasoning_content = Some(text);
                        }
                    }
                    _ => messages.push(ChatMessage {
                        role: "assistant",
                        content: None,
                        tool_calls: Some(vec![tool_call]),
                        tool_call_id: None,
                        reasoning_content: reasoning.take(),
                    }),
                }
            }
            ResponseItem::FunctionCallOutput(output) => messages.push(ChatMessage {
                role: "tool",
                content: Some(output.output.clone()),
                tool_calls: None,
                tool_call_id: Some(&output.call_id),
                reasoning_content: None,
            }),
            ResponseItem::Reasoning(item) if item.provider == PROVIDER => {
                reasoning = item.readable_text();
            }
            ResponseItem::Reasoning(_) => {
                tracing::debug!("not sending another provider's reasoning to Chat Completions");
            }
        }
    }
    messages
}

fn text_message(role: &'static str, text: String) -> ChatMessage<'static> {
    ChatMessage {
        role,
        content: Some(text),
        tool_calls: None,
        tool_call_id: None,
        reasoning_content: None,
    }
}

/// Appends text, merging it into the previous message when that has the
/// same role and is plain text: several chat templates (Mistral, Llama
/// via llama.cpp) reject two user or two assistant messages in a row.
fn push_text(messages: &mut Vec<ChatMessage<'_>>, role: &'static str, text: &str) {
    if let Some(last) = messages.last_mut()
        && last.role == role
        && last.tool_calls.is_none()
        && let Some(content) = &mut last.content
    {
        content.push_str("\n\n");
        content.push_str(text);
        return;
    }
    messages.push(text_message(role, text.to_string()));
}
