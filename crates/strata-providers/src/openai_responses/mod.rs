//! OpenAI Responses API (`POST {base_url}/responses`).

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

pub use request::{ResponsesRequest, render_request};
pub(crate) use stream::ResponsesDecoder;

/// What reasoning items from this API are tagged with, so only they are sent
/// back to it.
pub const PROVIDER: &str = "openai-responses";

/// A model behind the OpenAI Responses API.
pub type OpenAiResponsesGateway = HttpGateway<ResponsesProtocol>;

/// How [`OpenAiResponsesGateway`] speaks to the API.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResponsesProtocol {
    store: bool,
    retention: Option<PromptCacheRetention>,
}

impl OpenAiResponsesGateway {
    pub fn new(client: HttpClient, endpoint: Endpoint) -> Self {
        HttpGateway {
            client,
            endpoint,
            protocol: ResponsesProtocol::default(),
        }
    }

    /// Whether the server may keep responses (`store`); off by default, and
    /// then reasoning is carried as `encrypted_content` instead.
    pub fn with_store(mut self, store: bool) -> Self {
        self.protocol.store = store;
        self
    }

    /// The profile's `prompt_cache_retention`, sent where the model accepts
    /// it ([`prompt_cache_retention_for`](crate::prompt_cache_retention_for)).
    pub fn with_prompt_cache_retention(mut self, retention: Option<PromptCacheRetention>) -> Self {
        self.protocol.retention = retention;
        self
    }
}

impl WireProtocol for ResponsesProtocol {
    type Decoder = ResponsesDecoder;

    fn prepare(
        &self,
        endpoint: &Endpoint,
        request: &ModelRequest,
        stream: bool,
    ) -> Result<PreparedRequest, ModelError> {
        PreparedRequest::post(
            endpoint,
            "/responses",
            &render_request(request, stream, self.store, self.retention),
        )?
        .bearer_auth()
    }

    fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
        response::parse_response(body, model)
    }
}
