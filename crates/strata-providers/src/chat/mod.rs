//! OpenAI-compatible Chat Completions (`POST {base_url}/chat/completions`):
//! OpenAI itself and the many servers that copy it (vLLM, llama.cpp, Groq,
//! DeepSeek, xAI, OpenRouter, ...).

mod request;
mod response;
mod stream;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt};
use strata_core::ModelGateway;
use strata_protocol::{ModelError, ModelEvent, ModelRequest, ModelResponse};

use crate::http::{HttpClient, PreparedRequest, json_with_retries, stream_with_retries};
use crate::render::Endpoint;

pub use request::render_request;
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
        if base_url.contains("api.openai.com") {
            MaxTokensField::MaxCompletionTokens
        } else {
            MaxTokensField::MaxTokens
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// A model behind an OpenAI-compatible Chat Completions endpoint.
#[derive(Clone, Debug)]
pub struct ChatCompletionsGateway {
    client: HttpClient,
    endpoint: Endpoint,
    max_tokens_field: MaxTokensField,
}

impl ChatCompletionsGateway {
    pub fn new(client: HttpClient, endpoint: Endpoint) -> Self {
        let max_tokens_field = MaxTokensField::for_base_url(&endpoint.base_url);
        Self {
            client,
            endpoint,
            max_tokens_field,
        }
    }

    pub fn with_max_tokens_field(mut self, field: MaxTokensField) -> Self {
        self.max_tokens_field = field;
        self
    }

    fn prepare(&self, request: &ModelRequest, stream: bool) -> Result<PreparedRequest, ModelError> {
        let body = render_request(request, stream, self.max_tokens_field);
        let key = self.endpoint.key().cloned();
        let prepared =
            PreparedRequest::new(self.endpoint.url("/chat/completions"), &body, key.clone());
        match key {
            Some(key) => prepared.header("authorization", &format!("Bearer {}", key.expose())),
            None => Ok(prepared),
        }
    }
}

impl ModelGateway for ChatCompletionsGateway {
    fn stream_response(
        &self,
        request: ModelRequest,
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
        match self.prepare(&request, true) {
            Ok(prepared) => stream_with_retries(self.client.clone(), prepared, ChatDecoder::new),
            Err(error) => futures::stream::once(async move { Err(error) }).boxed(),
        }
    }

    fn create_response(
        &self,
        request: ModelRequest,
    ) -> BoxFuture<'static, Result<ModelResponse, ModelError>> {
        let client = self.client.clone();
        let prepared = self.prepare(&request, false);
        async move {
            json_with_retries(&client, &prepared?, |body| {
                response::parse_response(body, &request.model)
            })
            .await
        }
        .boxed()
    }
}
