//! The rollout records as Codex writes them
//! (`openai/codex:codex-rs/protocol/src/protocol.rs`, `models.rs`): only
//! the fields the reader uses, each optional where Codex versions differ.

use serde::Deserialize;
use serde_json::Value;
use strata_protocol::TokenUsage;

#[derive(Deserialize)]
pub(super) struct SessionMeta {
    #[serde(default)]
    pub(super) id: Option<String>,
    #[serde(default)]
    pub(super) timestamp: Option<String>,
    #[serde(default)]
    pub(super) cwd: Option<String>,
    #[serde(default)]
    pub(super) cli_version: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct TurnContext {
    #[serde(default)]
    pub(super) model: Option<String>,
    #[serde(default)]
    pub(super) cwd: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct ContentPart {
    #[serde(default)]
    pub(super) text: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct Message {
    pub(super) role: String,
    #[serde(default)]
    pub(super) content: Vec<ContentPart>,
}

#[derive(Deserialize)]
pub(super) struct Reasoning {
    #[serde(default)]
    pub(super) summary: Vec<ContentPart>,
    #[serde(default)]
    pub(super) content: Option<Vec<ContentPart>>,
    #[serde(default)]
    pub(super) encrypted_content: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct ToolCall {
    #[serde(default)]
    pub(super) call_id: Option<String>,
    #[serde(default)]
    pub(super) id: Option<String>,
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) namespace: Option<String>,
    /// `function_call`'s JSON text.
    #[serde(default)]
    pub(super) arguments: Option<String>,
    /// `custom_tool_call`'s free-form input.
    #[serde(default)]
    pub(super) input: Option<String>,
    /// `local_shell_call` and `web_search_call`'s structured request.
    #[serde(default)]
    pub(super) action: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct ToolOutput {
    #[serde(default)]
    pub(super) call_id: String,
    #[serde(default)]
    pub(super) output: Value,
}

#[derive(Deserialize)]
pub(super) struct Compacted {
    #[serde(default)]
    pub(super) message: String,
    #[serde(default)]
    pub(super) replacement_history: Option<Vec<Value>>,
}

#[derive(Deserialize)]
pub(super) struct TokenCount {
    #[serde(default)]
    pub(super) info: Option<TokenInfo>,
}

#[derive(Deserialize)]
pub(super) struct TokenInfo {
    #[serde(default)]
    pub(super) total_token_usage: Option<CodexUsage>,
    #[serde(default)]
    pub(super) last_token_usage: Option<CodexUsage>,
    #[serde(default)]
    pub(super) model_context_window: Option<u64>,
}

#[derive(Clone, Copy, Deserialize)]
pub(super) struct CodexUsage {
    #[serde(default)]
    pub(super) input_tokens: u64,
    #[serde(default)]
    pub(super) cached_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_write_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) output_tokens: u64,
    #[serde(default)]
    pub(super) reasoning_output_tokens: Option<u64>,
    #[serde(default)]
    pub(super) total_tokens: Option<u64>,
}

impl CodexUsage {
    pub(super) fn usage(self) -> TokenUsage {
        TokenUsage {
            input_tokens: Some(self.input_tokens),
            cached_input_tokens: self.cached_input_tokens,
            cache_write_input_tokens: self.cache_write_input_tokens,
            output_tokens: Some(self.output_tokens),
            reasoning_output_tokens: self.reasoning_output_tokens,
            total_tokens: self.total_tokens,
            ..TokenUsage::default()
        }
    }

    /// Codex's own context size: `total_tokens`, else input plus output.
    pub(super) fn context(self) -> u64 {
        self.total_tokens
            .unwrap_or(self.input_tokens.saturating_add(self.output_tokens))
    }
}
