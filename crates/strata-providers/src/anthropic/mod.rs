//! Anthropic Messages API (`POST {base_url}/messages`).

mod breakpoints;
mod events;
mod request;
mod response;
mod stream;

use serde_json::Value;
use strata_protocol::{ModelError, ModelRequest, ModelResponse};

use crate::cache::CacheTtl;
use crate::client::{HttpClient, PreparedRequest};
use crate::http::{HttpGateway, WireProtocol};
use crate::render::Endpoint;

pub use breakpoints::MAX_BREAKPOINTS;
pub use request::{MessagesRequest, render_request};
pub(crate) use stream::AnthropicDecoder;

/// Reasoning items (thinking blocks) tagged with this are sent back as is.
pub const PROVIDER: &str = "anthropic";

/// The API version header every request carries.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The Messages API requires `max_tokens`; this is used when a request does
/// not set `max_output_tokens`.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// A model behind the Anthropic Messages API.
pub type AnthropicGateway = HttpGateway<AnthropicProtocol>;

/// How [`AnthropicGateway`] speaks to the API.
#[derive(Clone, Copy, Debug)]
pub struct AnthropicProtocol {
    default_max_tokens: u32,
    cache_ttl: CacheTtl,
}

impl AnthropicGateway {
    pub fn new(client: HttpClient, endpoint: Endpoint) -> Self {
        HttpGateway {
            client,
            endpoint,
            protocol: AnthropicProtocol {
                default_max_tokens: DEFAULT_MAX_TOKENS,
                cache_ttl: CacheTtl::default(),
            },
        }
    }

    /// The output limit sent when a request sets none (the model's maximum
    /// output from the catalog is a good choice).
    pub fn with_default_max_tokens(mut self, max_tokens: u32) -> Self {
        self.protocol.default_max_tokens = max_tokens;
        self
    }

    /// How long the prompt-cache entries this gateway's breakpoints write
    /// live (the profile's `cache_ttl`).
    pub fn with_cache_ttl(mut self, ttl: CacheTtl) -> Self {
        self.protocol.cache_ttl = ttl;
        self
    }
}

impl WireProtocol for AnthropicProtocol {
    type Decoder = AnthropicDecoder;

    fn prepare(
        &self,
        endpoint: &Endpoint,
        request: &ModelRequest,
        stream: bool,
    ) -> Result<PreparedRequest, ModelError> {
        let body = render_request(request, stream, self.default_max_tokens, self.cache_ttl);
        PreparedRequest::post(endpoint, "/messages", &body)?
            .header("anthropic-version", ANTHROPIC_VERSION)?
            .key_header("x-api-key")
    }

    fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
        response::parse_response(body, model)
    }
}
