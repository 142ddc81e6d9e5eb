//! The Messages API's extended-thinking rules, as a local server enforces
//! them (from Anthropic's extended-thinking guide): with `thinking` enabled,
//! `budget_tokens` is at least 1024 and below `max_tokens`, the tool choice
//! is `auto` or `none`, and when the last message carries tool results the
//! assistant message that made the calls starts with its thinking block
//! (`thinking` with its signature, or `redacted_thinking`) as it was
//! received. A body that breaks one is refused with the reason.

use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Body {
    max_tokens: u32,
    #[serde(default)]
    thinking: Option<Thinking>,
    #[serde(default)]
    tool_choice: Option<Choice>,
    messages: Vec<Message>,
}

#[derive(Deserialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    budget_tokens: Option<u32>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct Message {
    role: String,
    content: Content,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Content {
    Text(#[allow(dead_code)] String),
    Blocks(Vec<Block>),
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Thinking {
        #[serde(default)]
        signature: String,
    },
    RedactedThinking,
    ToolUse,
    ToolResult,
    #[serde(other)]
    Other,
}

impl Message {
    fn blocks(&self) -> &[Block] {
        match &self.content {
            Content::Blocks(blocks) => blocks,
            Content::Text(_) => &[],
        }
    }
}

/// The rule `body` breaks, as the API's message would say it; `None` when
/// it keeps them all (or has no thinking on).
pub fn thinking_rule(body: &Value) -> Option<String> {
    let body = match Body::deserialize(body) {
        Ok(body) => body,
        Err(error) => return Some(format!("malformed request body: {error}")),
    };
    let thinking = body.thinking.as_ref()?;
    match thinking.kind.as_str() {
        "enabled" => {
            let budget = thinking.budget_tokens.unwrap_or(0);
            if budget < 1024 {
                return Some(
                    "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
                        .into(),
                );
            }
            if budget >= body.max_tokens {
                return Some("`max_tokens` must be greater than `thinking.budget_tokens`".into());
            }
        }
        // Adaptive thinking has no budget, and the same rules otherwise.
        "adaptive" => {}
        _ => return None,
    }
    if let Some(choice) = &body.tool_choice
        && !matches!(choice.kind.as_str(), "auto" | "none")
    {
        return Some("Thinking may not be enabled when tool_choice forces tool use.".into());
    }
    let last = body.messages.last()?;
    let answers_tools = last.role == "user"
        && last
            .blocks()
            .iter()
            .any(|block| matches!(block, Block::ToolResult));
    if !answers_tools {
        return None;
    }
    let assistant = body.messages.iter().rev().nth(1)?;
    let calls = assistant
        .blocks()
        .iter()
        .any(|block| matches!(block, Block::ToolUse));
    if assistant.role != "assistant" || !calls {
        return None;
    }
    match assistant.blocks().first() {
        Some(Block::Thinking { signature }) if !signature.is_empty() => None,
        Some(Block::Thinking { .. }) => {
            Some("messages: thinking block is missing its signature".into())
        }
        Some(Block::RedactedThinking) => None,
        _ => Some(
            "messages: Expected `thinking` or `redacted_thinking`, but found another block. \
             When `thinking` is enabled, a final `assistant` message must start with a thinking \
             block (preceding the lastmost set of `tool_use` and `tool_result` blocks)."
                .into(),
        ),
    }
}
