//! Anthropic Messages API (`POST {base_url}/messages`).

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
pub(crate) use stream::AnthropicDecoder;

/// Reasoning items (thinking blocks) tagged with this are sent back as is.
pub const PROVIDER: &str = "anthropic";

/// The API version header every request carries.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The Messages API requires `max_tokens`; this is used when a request does
/// not set `max_output_tokens`.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// A model behind the Anthropic Messages API.
#[derive(Clone, Debug)]
pub struct AnthropicGateway {
    client: HttpClient,
    endpoint: Endpoint,
    default_max_tokens: u32,
}

impl AnthropicGateway {
    pub fn new(client: HttpClient, endpoint: Endpoint) -> Self {
        Self {
            client,
            endpoint,
            default_max_tokens: DEFAULT_MAX_TOKENS,
        }
    }

    /// The output limit sent when a request sets none (the model's maximum
    /// output from the catalog is a good choice).
    pub fn with_default_max_tokens(mut self, max_tokens: u32) -> Self {
        self.default_max_tokens = max_tokens;
        self
    }

    fn prepare(&self, request: &ModelRequest, stream: bool) -> Result<PreparedRequest, ModelError> {
        let body = render_request(request, stream, self.default_max_tokens);
        let key = self.endpoint.key().cloned();
        let prepared = PreparedRequest::new(self.endpoint.url("/messages"), &body, key.clone())
            .header("anthropic-version", ANTHROPIC_VERSION)?;
        match key {
            Some(key) => prepared.header("x-api-key", key.expose()),
            None => Ok(prepared),
        }
    }
}

impl ModelGateway for AnthropicGateway {
    fn stream_response(
        &self,
        request: ModelRequest,
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
        match self.prepare(&request, true) {
            Ok(prepared) => {
                stream_with_retries(self.client.clone(), prepared, AnthropicDecoder::new)
            }
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
