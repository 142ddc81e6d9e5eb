//! Rendering a [`ModelRequest`] as a Messages API request body.

use serde::Serialize;
use serde_json::Value;
use strata_protocol::{ModelRequest, ResponseItem, Role, ToolChoice, ToolSpec};

use super::PROVIDER;
use super::breakpoints::{CacheControl, place_breakpoints};
use crate::cache::CacheTtl;
use crate::reasoning::{
    ReasoningForm, adaptive_effort, fit_thinking, reasoning_form, thinking_budget,
};
use crate::render::{arguments_object, split_system, tools_and_choice};

/// The JSON body for `POST /messages`.
#[derive(Debug, Serialize)]
pub struct MessagesRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) system: Option<System>,
    pub(super) messages: Vec<Turn<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Choice<'a>>,
    /// Extended thinking, when the session asks for it and the model
    /// thinks (with a budget, or adaptively).
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    /// The effort an adaptive-thinking model is asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<OutputConfig>,
    /// Whether the request is a round of a session (and so worth caching).
    #[serde(skip)]
    pub(super) in_session: bool,
    /// For each of the request's cache anchors, the first message past it:
    /// the messages before it are a stable prefix worth a breakpoint.
    #[serde(skip)]
    pub(super) stable_before: Vec<usize>,
}

/// The system prompt: plain text, or one text block when it carries a
/// cache breakpoint.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum System {
    Text(String),
    Blocks([SystemBlock; 1]),
}

impl System {
    /// The prompt as one block, with `control` on it when given.
    pub(super) fn set_block(&mut self, control: Option<CacheControl>) {
        let text = match self {
            System::Text(text) => std::mem::take(text),
            System::Blocks([block]) => std::mem::take(&mut block.text),
        };
        *self = System::Blocks([SystemBlock {
            kind: "text",
            text,
            cache_control: control,
        }]);
    }

    /// The prompt as one block with `control` on it.
    pub(super) fn mark(&mut self, control: CacheControl) {
        self.set_block(Some(control));
    }
}

/// A text block of the system prompt.
#[derive(Debug, Serialize)]
pub(super) struct SystemBlock {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

/// One message: a role and its content blocks.
#[derive(Debug, Serialize)]
pub(super) struct Turn<'a> {
    pub(super) role: &'static str,
    pub(super) content: Vec<Block<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Block<'a> {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A thinking block of this API, sent back verbatim.
    #[serde(untagged)]
    Verbatim(&'a Value),
}

#[derive(Debug, Serialize)]
pub(super) struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) cache_control: Option<CacheControl>,
}

/// `thinking: {type: "enabled", budget_tokens}` or `{type: "adaptive"}`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Thinking {
    Enabled { budget_tokens: u32 },
    Adaptive,
}

/// `output_config: {effort}`.
#[derive(Debug, Serialize)]
struct OutputConfig {
    effort: &'static str,
}

#[derive(Debug, Serialize)]
struct Choice<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
}

/// The body for `POST /messages`, with prompt-cache breakpoints of `ttl`
/// (see [`place_breakpoints`]).
pub fn render_request(
    request: &ModelRequest,
    stream: bool,
    default_max_tokens: u32,
    ttl: CacheTtl,
) -> MessagesRequest<'_> {
    let (system, items) = split_system(&request.input);
    let mut system = system.map(str::to_string);
    let mut messages: Vec<Turn<'_>> = Vec::new();
    // The anchors as indexes into `items` (the system prompt split off).
    let offset = request.input.len() - items.len();
    let anchors: Vec<usize> = request
        .cache_anchors
        .iter()
        .filter_map(|&anchor| usize::try_from(anchor).ok()?.checked_sub(offset))
        .filter(|&anchor| anchor > 0)
        .collect();
    let mut stable_before = Vec::new();
    for (index, item) in items.iter().enumerate() {
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
                Some(Block::ToolUse {
                    id: &call.call_id,
                    name: &call.name,
                    input: arguments_object(&call.arguments),
                }),
            ),
            // Tool results are user-role content blocks.
            ResponseItem::FunctionCallOutput(output) => (
                "user",
                Some(Block::ToolResult {
                    tool_use_id: &output.call_id,
                    content: &output.output,
                    cache_control: None,
                }),
            ),
            ResponseItem::Reasoning(reasoning) if reasoning.provider == PROVIDER => {
                ("assistant", Some(Block::Verbatim(&reasoning.payload)))
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
            Some(last) if last.role == role => last.content.push(block),
            _ => messages.push(Turn {
                role,
                content: vec![block],
            }),
        }
        // The message holding the first item past an anchor (or the first
        // item sent after it) ends that stable prefix.
        let at = messages.len() - 1;
        while anchors
            .get(stable_before.len())
            .is_some_and(|&anchor| index >= anchor)
        {
            stable_before.push(at);
        }
    }
    stable_before.resize(anchors.len(), messages.len());
    for turn in &mut messages {
        if turn.role == "user" {
            // Tool results must come before any text in their message.
            turn.content
                .sort_by_key(|block| !matches!(block, Block::ToolResult { .. }));
        }
    }
    let (tools, tool_choice) = tools_and_choice(request, render_tool, render_tool_choice);
    let system = system.map(System::Text);
    let max_tokens = request.max_output_tokens.unwrap_or(default_max_tokens);
    let (thinking, output_config, max_tokens) =
        match thinking_for(request, max_tokens, default_max_tokens) {
            Some(WireThinking::Budget {
                budget_tokens,
                max_tokens,
            }) => (Some(Thinking::Enabled { budget_tokens }), None, max_tokens),
            Some(WireThinking::Adaptive { effort, max_tokens }) => (
                Some(Thinking::Adaptive),
                Some(OutputConfig { effort }),
                max_tokens,
            ),
            None => (None, None, max_tokens),
        };
    let mut body = MessagesRequest {
        model: &request.model,
        max_tokens,
        system,
        messages,
        stream,
        tools,
        tool_choice,
        thinking,
        output_config,
        in_session: request.session_id.is_some(),
        stable_before,
    };
    place_breakpoints(&mut body, &request.model, ttl);
    body
}

/// How a request thinks on the wire, with the `max_tokens` it goes with.
enum WireThinking {
    Budget {
        budget_tokens: u32,
        max_tokens: u32,
    },
    Adaptive {
        effort: &'static str,
        max_tokens: u32,
    },
}

/// The thinking for `request`, when its setting asks for thinking and its
/// model thinks: a budget with `max_tokens` raised to fit it, or adaptive
/// thinking at an effort, with `max_tokens` raised as far as that budget
/// would have been (adaptive thinking counts toward it too). A request that
/// forces a tool gets none: the API refuses thinking with a forced tool
/// choice. (Strata sends no `temperature`, `top_k` or `top_p`, which the API
/// also restricts with thinking on.)
fn thinking_for(request: &ModelRequest, max_tokens: u32, ceiling: u32) -> Option<WireThinking> {
    let adaptive = match reasoning_form(&request.model) {
        ReasoningForm::ThinkingBudget => false,
        ReasoningForm::AdaptiveEffort => true,
        ReasoningForm::None | ReasoningForm::Effort(_) | ReasoningForm::Demo => return None,
    };
    if matches!(
        request.tool_choice,
        Some(ToolChoice::Required | ToolChoice::Tool { .. })
    ) {
        return None;
    }
    if open_tool_turn_lacks_thinking(&request.input) {
        tracing::debug!("not thinking in a tool turn that began without thinking");
        return None;
    }
    let effort = request.reasoning?;
    let budget = thinking_budget(effort)?;
    let (budget_tokens, max_tokens) = fit_thinking(budget, max_tokens, ceiling.max(max_tokens))?;
    Some(if adaptive {
        WireThinking::Adaptive {
            effort: adaptive_effort(effort)?,
            max_tokens,
        }
    } else {
        WireThinking::Budget {
            budget_tokens,
            max_tokens,
        }
    })
}

/// Whether the history ends in a tool turn (calls and their results, no
/// person's message since) whose calls came without a thinking block of
/// this API: thinking switched on in the middle of such a turn would be
/// refused (the API wants the turn's thinking back first), so it starts at
/// the next turn.
fn open_tool_turn_lacks_thinking(items: &[ResponseItem]) -> bool {
    let mut calls = false;
    for item in items.iter().rev() {
        match item {
            ResponseItem::FunctionCallOutput(_) => {}
            ResponseItem::FunctionCall(_) => calls = true,
            ResponseItem::Reasoning(reasoning) if calls && reasoning.provider == PROVIDER => {
                return false;
            }
            ResponseItem::Message(message) if message.role == Role::Assistant => {}
            ResponseItem::Reasoning(_)
            | ResponseItem::Message(_)
            | ResponseItem::CompactionSummary(_) => return calls,
        }
    }
    calls
}

fn render_tool(tool: &ToolSpec) -> Tool<'_> {
    Tool {
        name: &tool.name,
        description: &tool.description,
        input_schema: &tool.parameters,
        cache_control: None,
    }
}

fn render_tool_choice(choice: &ToolChoice) -> Choice<'_> {
    let (kind, name) = match choice {
        ToolChoice::Auto => ("auto", None),
        ToolChoice::None => ("none", None),
        ToolChoice::Required => ("any", None),
        ToolChoice::Tool { name } => ("tool", Some(name.as_str())),
    };
    Choice { kind, name }
}

/// A text block, or nothing for empty text: the API rejects empty blocks.
fn text_block(text: &str) -> Option<Block<'static>> {
    (!text.is_empty()).then(|| Block::Text {
        text: text.to_string(),
        cache_control: None,
    })
}
