//! The model gateway's vocabulary: one request shape, one event set and one
//! error type for every provider.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::SessionId;
use crate::items::ResponseItem;
use crate::reasoning::ReasoningEffort;
use crate::usage::TokenUsage;

/// A tool the model may call, described by a JSON schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: serde_json::Value,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoice {
    Auto,
    None,
    Required,
    Tool { name: String },
}

/// What is sent to a model. `input` is the whole model-visible history,
/// starting with the leading system message when there is one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ModelRequest {
    pub model: String,
    pub input: Vec<ResponseItem>,
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Omitted from the wire when `tools` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// The session the request belongs to, when it is a round of one:
    /// providers derive a stable, non-reversible prompt-cache key from it
    /// (OpenAI's `prompt_cache_key`). Never sent as is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<SessionId>,
    /// How hard to think, when the session or profile says: each provider
    /// renders it in its own form for models that reason. `None` sends
    /// nothing (the server's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningEffort>,
    /// Where the context manager keeps the history byte-identical, as counts
    /// of leading `input` items, oldest first: the prefix the previous round
    /// cached up to, and the one the next eviction will leave alone. A
    /// provider with explicit cache breakpoints (Anthropic) marks them, so an
    /// eviction rewrites its cache only after the first. Empty for requests
    /// outside a session's rounds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cache_anchors: Vec<u32>,
}

/// Why a response ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", content = "detail", rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its answer.
    EndTurn,
    /// The model stopped to have its tool calls run.
    ToolUse,
    /// The output limit cut the response.
    MaxTokens,
    /// The provider filtered the content.
    ContentFilter,
    /// A stop reason this version does not know, verbatim.
    Other(String),
}

/// One streamed event from a model, the same for every provider.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ModelEvent {
    TextDelta {
        delta: String,
    },
    ToolCallStarted {
        call_id: String,
        name: String,
    },
    ToolCallArgumentsDelta {
        call_id: String,
        delta: String,
    },
    ToolCallDone {
        call_id: String,
        name: String,
        arguments: String,
    },
    /// A tool call the stream cut short (e.g. at max tokens inside its JSON).
    /// It is reported so it can be shown, and never executed.
    ToolCallIncomplete {
        call_id: String,
        name: String,
        partial_arguments: String,
    },
    /// Readable thinking as it streams (a summary, thinking text); the
    /// whole item follows as [`ModelEvent::Reasoning`].
    ReasoningDelta {
        delta: String,
    },
    Reasoning {
        item: ResponseItem,
    },
    Usage {
        usage: TokenUsage,
    },
    /// A failed attempt will be retried after `delay_ms`; `attempt` is the
    /// attempt about to be made (the first retry is attempt 2 of `of`).
    Retrying {
        attempt: u32,
        of: u32,
        delay_ms: u64,
        cause: String,
    },
    Finished {
        stop_reason: StopReason,
    },
}

/// A whole (non-streamed) response, as used for compaction summaries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ModelResponse {
    pub model: String,
    /// Assistant messages, function calls and reasoning items, in order.
    pub items: Vec<ResponseItem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    pub stop_reason: StopReason,
}

impl ModelResponse {
    /// The concatenated text of the assistant messages.
    pub fn text(&self) -> String {
        self.items
            .iter()
            .filter_map(|item| match item {
                ResponseItem::Message(m) if m.role == crate::items::Role::Assistant => {
                    Some(m.content.as_str())
                }
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }
}

/// A classified model failure. Messages never contain API keys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelError {
    #[error("the conversation is too long for the model's context window: {message}")]
    ContextOverflow { message: String },
    #[error("rate limited by the provider: {message}")]
    RateLimited {
        retry_after_ms: Option<u64>,
        message: String,
    },
    #[error("the provider account has no quota left: {message}")]
    QuotaExhausted { message: String },
    #[error("the provider rejected the credentials: {message}")]
    Auth { message: String },
    #[error("the provider rejected the request: {message}")]
    InvalidRequest { message: String },
    #[error("temporary provider failure: {message}")]
    Transient { message: String },
    /// Nothing answered at the endpoint: the connection was refused, the
    /// host is unknown or has no route. `host` is `host[:port]` as the
    /// profile names it.
    #[error("could not connect to {host}: {message}")]
    Unreachable { host: String, message: String },
    #[error("the response stream ended early: {message}")]
    StreamInterrupted { message: String },
}

impl ModelError {
    /// Whether sending the same request again may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::RateLimited { .. }
            | ModelError::Transient { .. }
            | ModelError::Unreachable { .. }
            | ModelError::StreamInterrupted { .. } => true,
            ModelError::ContextOverflow { .. }
            | ModelError::QuotaExhausted { .. }
            | ModelError::Auth { .. }
            | ModelError::InvalidRequest { .. } => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_transient_kinds_are_retryable() {
        let msg = || "m".to_string();
        assert!(
            ModelError::RateLimited {
                retry_after_ms: Some(10),
                message: msg()
            }
            .is_retryable()
        );
        assert!(ModelError::Transient { message: msg() }.is_retryable());
        assert!(ModelError::StreamInterrupted { message: msg() }.is_retryable());
        assert!(!ModelError::QuotaExhausted { message: msg() }.is_retryable());
        assert!(!ModelError::Auth { message: msg() }.is_retryable());
        assert!(!ModelError::InvalidRequest { message: msg() }.is_retryable());
        assert!(!ModelError::ContextOverflow { message: msg() }.is_retryable());
    }

    #[test]
    fn errors_serialize_with_their_kind() {
        let err = ModelError::RateLimited {
            retry_after_ms: Some(2000),
            message: "slow".into(),
        };
        let value = serde_json::to_value(&err).unwrap();
        assert_eq!(value["kind"], "rate_limited");
        assert_eq!(value["retry_after_ms"], 2000);
    }

    #[test]
    fn response_text_joins_assistant_messages() {
        let response = ModelResponse {
            model: "m".into(),
            items: vec![
                ResponseItem::assistant("Hello, "),
                ResponseItem::function_call("c", "f", "{}"),
                ResponseItem::assistant("world"),
            ],
            usage: None,
            stop_reason: StopReason::EndTurn,
        };
        assert_eq!(response.text(), "Hello, world");
    }
}
