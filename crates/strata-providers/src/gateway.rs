//! The one [`ModelGateway`] over HTTP: a [`WireProtocol`] says how a request
//! is rendered and sent, how its stream is decoded and how a whole response
//! is parsed; [`HttpGateway`] does the rest (retries, timeouts, errors) the
//! same way for every provider.

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt};
use serde_json::Value;
use strata_core::ModelGateway;
use strata_protocol::{ModelError, ModelEvent, ModelRequest, ModelResponse};

use crate::http::{HttpClient, PreparedRequest, json_with_retries, stream_with_retries};
use crate::render::Endpoint;
use crate::wire::StreamDecoder;

/// What one provider's API needs beyond the shared HTTP handling.
pub(crate) trait WireProtocol: Send + Sync + 'static {
    /// Decodes one streamed attempt; each attempt gets a fresh default one.
    type Decoder: StreamDecoder + Default;

    /// The POST for `request` (streaming or not) to `endpoint`.
    fn prepare(
        &self,
        endpoint: &Endpoint,
        request: &ModelRequest,
        stream: bool,
    ) -> Result<PreparedRequest, ModelError>;

    /// A non-streaming response body; `model` is the requested model, for
    /// bodies that do not name one.
    fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError>;
}

/// A model behind an HTTP API spoken with protocol `P`. Use the aliases
/// [`OpenAiResponsesGateway`](crate::OpenAiResponsesGateway),
/// [`ChatCompletionsGateway`](crate::ChatCompletionsGateway) and
/// [`AnthropicGateway`](crate::AnthropicGateway).
#[derive(Clone, Debug)]
pub struct HttpGateway<P> {
    pub(crate) client: HttpClient,
    pub(crate) endpoint: Endpoint,
    pub(crate) protocol: P,
}

impl<P: WireProtocol> ModelGateway for HttpGateway<P> {
    fn stream_response(
        &self,
        request: ModelRequest,
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
        match self.protocol.prepare(&self.endpoint, &request, true) {
            Ok(prepared) => stream_with_retries(self.client.clone(), prepared, P::Decoder::default),
            Err(error) => futures::stream::once(async move { Err(error) }).boxed(),
        }
    }

    fn create_response(
        &self,
        request: ModelRequest,
    ) -> BoxFuture<'static, Result<ModelResponse, ModelError>> {
        let client = self.client.clone();
        let prepared = self.protocol.prepare(&self.endpoint, &request, false);
        async move {
            json_with_retries(&client, &prepared?, |body| {
                P::parse_response(body, &request.model)
            })
            .await
        }
        .boxed()
    }
}
