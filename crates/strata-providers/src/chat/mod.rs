//! OpenAI-compatible Chat Completions (`POST {base_url}/chat/completions`):
//! OpenAI itself and the many servers that copy it (vLLM, llama.cpp, Groq,
//! DeepSeek, xAI, OpenRouter, ...).

mod events;
mod request;
mod response;
mod stream;

use serde_json::Value;
use strata_protocol::{ModelError, ModelRequest, ModelResponse};

use crate::cache::PromptCacheRetention;
use crate::client::{HttpClient, PreparedRequest};
use crate::http::{HttpGateway, WireProtocol};
use crate::render::Endpoint;

pub use request::{ChatRequest, render_request};
pub(crate) use stream::ChatDecoder;

/// Reasoning items this API produces (DeepSeek/xAI `reasoning_content`) are
/// shown but not sent back: those APIs reject or ignore them as input.
pub const PROVIDER: &str = "openai-chat";

/// Which field carries the output limit. OpenAI's reasoning models accept
/// only `max_completion_tokens`; many compatible servers know only
/// `max_tokens`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxTokensField {
    MaxTokens,
    MaxCompletionTokens,
}

impl MaxTokensField {
    /// `max_completion_tokens` for OpenAI's own API, `max_tokens` elsewhere.
    pub fn for_base_url(base_url: &str) -> Self {
        if is_openai(base_url) {
            MaxTokensField::MaxCompletionTokens
        } else {
            MaxTokensField::MaxTokens
        }
    }
}

/// Whether `base_url` is OpenAI's own API.
fn is_openai(base_url: &str) -> bool {
    base_url.contains("api.openai.com")
}

/// A model behind an OpenAI-compatible Chat Completions endpoint.
pub type ChatCompletionsGateway = HttpGateway<ChatProtocol>;

/// How [`ChatCompletionsGateway`] speaks to the API.
#[derive(Clone, Copy, Debug)]
pub struct ChatProtocol {
    max_tokens_field: MaxTokensField,
    /// Whether requests carry `prompt_cache_key` (OpenAI's own API).
    prompt_cache_key: bool,
    /// The profile's `prompt_cache_retention`, sent with the key.
    retention: Option<PromptCacheRetention>,
}

impl ChatCompletionsGateway {
    pub fn new(client: HttpClient, endpoint: Endpoint) -> Self {
        let max_tokens_field = MaxTokensField::for_base_url(&endpoint.base_url);
        let prompt_cache_key = is_openai(&endpoint.base_url);
        HttpGateway {
            client,
            endpoint,
            protocol: ChatProtocol {
                max_tokens_field,
                prompt_cache_key,
                retention: None,
            },
        }
    }

    /// Whether requests carry a per-session `prompt_cache_key`: on for
    /// OpenAI's own API, off for compatible servers unless asked for.
    pub fn with_prompt_cache_key(mut self, send: bool) -> Self {
        self.protocol.prompt_cache_key = send;
        self
    }

    /// The profile's `prompt_cache_retention`: sent with the cache key (to
    /// OpenAI's own API), where the model accepts it.
    pub fn with_prompt_cache_retention(mut self, retention: Option<PromptCacheRetention>) -> Self {
        self.protocol.retention = retention;
        self
    }

    pub fn with_max_tokens_field(mut self, field: MaxTokensField) -> Self {
        self.protocol.max_tokens_field = field;
        self
    }
}

impl WireProtocol for ChatProtocol {
    type Decoder = ChatDecoder;

    fn prepare(
        &self,
        endpoint: &Endpoint,
        request: &ModelRequest,
        stream: bool,
    ) -> Result<PreparedRequest, ModelError> {
        let body = render_request(
            request,
            stream,
            self.max_tokens_field,
            self.prompt_cache_key.then_some(self.retention),
        );
        PreparedRequest::post(endpoint, "/chat/completions", &body)?.bearer_auth()
    }

    fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
        response::parse_response(body, model)
    }
}
