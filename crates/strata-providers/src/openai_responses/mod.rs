//! OpenAI Responses API (`POST {base_url}/responses`).

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
pub(crate) use stream::ResponsesDecoder;

/// What reasoning items from this API are tagged with, so only they are sent
/// back to it.
pub const PROVIDER: &str = "openai-responses";

/// A model behind the OpenAI Responses API.
#[derive(Clone, Debug)]
pub struct OpenAiResponsesGateway {
    client: HttpClient,
    endpoint: Endpoint,
}

impl OpenAiResponsesGateway {
    pub fn new(client: HttpClient, endpoint: Endpoint) -> Self {
        Self { client, endpoint }
    }

    fn prepare(&self, request: &ModelRequest, stream: bool) -> Result<PreparedRequest, ModelError> {
        let body = render_request(request, stream);
        let key = self.endpoint.key().cloned();
        let prepared = PreparedRequest::new(self.endpoint.url("/responses"), &body, key.clone());
        match key {
            Some(key) => prepared.header("authorization", &format!("Bearer {}", key.expose())),
            None => Ok(prepared),
        }
    }
}

impl ModelGateway for OpenAiResponsesGateway {
    fn stream_response(
        &self,
        request: ModelRequest,
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
        match self.prepare(&request, true) {
            Ok(prepared) => {
                stream_with_retries(self.client.clone(), prepared, ResponsesDecoder::new)
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
