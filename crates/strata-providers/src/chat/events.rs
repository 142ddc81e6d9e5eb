//! Chat Completions chunks and whole completions as serde types. Unknown
//! fields are tolerated and missing ones default: compatible servers differ
//! (usage on the finish chunk, on a last chunk without choices, or in
//! Groq's `x_groq`; tool-call indexes that start at 1 or are absent; text
//! fields that some servers send as `null` or as arrays).

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use strata_protocol::TokenUsage;

/// A streamed chunk, or a whole (non-streaming) completion.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Completion {
    /// An error reported in place of a chunk; classified from the raw body.
    #[serde(default)]
    pub error: Option<Value>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub choices: Vec<Choice>,
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub x_groq: Option<XGroq>,
}

impl Completion {
    /// The error, unless it is absent or `null`.
    pub fn has_error(&self) -> bool {
        self.error.as_ref().is_some_and(|error| !error.is_null())
    }

    /// Usage wherever this server puts it.
    pub fn usage(&self) -> Option<&Usage> {
        self.usage
            .as_ref()
            .or_else(|| self.x_groq.as_ref()?.usage.as_ref())
    }

    /// Choice 0 (Strata never asks for more), taken out of the chunk.
    pub fn into_first_choice(self) -> Option<Choice> {
        self.choices
            .into_iter()
            .find(|choice| choice.index.unwrap_or(0) == 0)
    }
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct XGroq {
    #[serde(default)]
    pub usage: Option<Usage>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct Choice {
    #[serde(default)]
    pub index: Option<u64>,
    /// Streamed chunks.
    #[serde(default)]
    pub delta: Option<Message>,
    /// Whole completions.
    #[serde(default)]
    pub message: Option<Message>,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// A message or a chunk's delta of one.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Message {
    #[serde(default, deserialize_with = "text")]
    pub content: Option<String>,
    #[serde(default, deserialize_with = "text")]
    pub refusal: Option<String>,
    /// DeepSeek and xAI.
    #[serde(default, deserialize_with = "text")]
    pub reasoning_content: Option<String>,
    /// OpenRouter and others.
    #[serde(default, deserialize_with = "text")]
    pub reasoning: Option<String>,
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCall>>,
}

/// A tool call, or a streamed fragment of one.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ToolCall {
    #[serde(default)]
    pub index: Option<u64>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub function: Option<FunctionCall>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct FunctionCall {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub arguments: Option<String>,
}

/// Chat usage. `completion_tokens` normally includes reasoning; xAI counts
/// reasoning only in `total_tokens`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Usage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
    #[serde(default)]
    total_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

impl Usage {
    /// When total = prompt + completion + reasoning (xAI), reasoning is
    /// added so output still includes it. The provider's total is kept
    /// verbatim.
    pub fn tokens(&self) -> TokenUsage {
        let input = self.prompt_tokens;
        let completion = self.completion_tokens;
        let reasoning = self
            .completion_tokens_details
            .as_ref()
            .and_then(|d| d.reasoning_tokens);
        let total = self.total_tokens;
        let output = match (input, completion, reasoning, total) {
            (Some(i), Some(c), Some(r), Some(t))
                if r > 0 && i.checked_add(c).and_then(|s| s.checked_add(r)) == Some(t) =>
            {
                Some(c + r)
            }
            _ => completion,
        };
        TokenUsage {
            input_tokens: input,
            cached_input_tokens: self
                .prompt_tokens_details
                .as_ref()
                .and_then(|d| d.cached_tokens),
            cache_write_input_tokens: None,
            cache_write_5m_input_tokens: None,
            cache_write_1h_input_tokens: None,
            output_tokens: output,
            reasoning_output_tokens: reasoning,
            total_tokens: total,
        }
    }
}

/// A text field: a string, or nothing for `null` and for shapes Strata
/// does not read (content-part arrays, reasoning objects).
fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::String(text) => Some(text),
        _ => None,
    })
}
