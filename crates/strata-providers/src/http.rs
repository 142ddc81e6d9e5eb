//! The one [`ModelGateway`] over HTTP and the attempt loop every provider
//! uses. A [`WireProtocol`] says how a request is rendered and sent, how its
//! stream is decoded and how a whole response is parsed; [`HttpGateway`]
//! does the rest the same way for every provider: send the POST, classify
//! failures, retry with backoff while nothing of the attempt was handed on,
//! time out streams that go quiet, and end any response that outlives its
//! deadline or its byte caps. Dropping the returned stream drops the
//! in-flight request, which closes the connection.

use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{FutureExt, Stream, StreamExt};
use serde_json::Value;
use strata_core::ModelGateway;
use strata_protocol::{ModelError, ModelEvent, ModelRequest, ModelResponse};

use crate::classify::{classify_error_value, classify_http, classify_transport, redact};
use crate::client::{HttpClient, HttpOptions, PreparedRequest};
use crate::limits::{content_bytes, deadline_passed, read_capped, too_large, with_deadline};
use crate::render::Endpoint;
use crate::retry::RetryPolicy;
use crate::secret::ApiKey;
use crate::wire::{StreamDecoder, decode_events};

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

/// Sends the request once and returns the successful response, or the
/// classified failure. `idle` bounds the wait for the response headers.
/// Only the first [`crate::limits::ByteLimits::error_body`] bytes of an error body are read.
async fn open(
    client: &HttpClient,
    request: &PreparedRequest,
    idle: Duration,
) -> Result<reqwest::Response, ModelError> {
    let send = client
        .client
        .request(request.method.clone(), &request.url)
        .headers(request.headers.clone())
        .body(request.body.clone())
        .send();
    let response = match tokio::time::timeout(idle, send).await {
        Err(_) => {
            return Err(ModelError::Transient {
                message: format!("no response within {}s", idle.as_secs_f32()),
            });
        }
        Ok(Err(error)) => return Err(classify_transport(&error, false)),
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let headers = response.headers().clone();
    if status.is_redirection() {
        return Err(crate::redirect::refused(
            status.as_u16(),
            &headers,
            &request.url,
        ));
    }
    let limit = client.options.limits.error_body;
    let body = match read_capped(body_bytes(response, idle), limit).await {
        Ok((body, _)) => String::from_utf8_lossy(&body).into_owned(),
        Err(_) => String::new(),
    };
    Err(classify_http(
        status.as_u16(),
        &headers,
        &body,
        request.key.as_ref(),
    ))
}

/// The body as a byte stream that fails when no bytes arrive for `idle`.
fn body_bytes(
    response: reqwest::Response,
    idle: Duration,
) -> impl Stream<Item = Result<Bytes, ModelError>> + Send {
    async_stream::stream! {
        let mut body = std::pin::pin!(response.bytes_stream());
        loop {
            match tokio::time::timeout(idle, body.next()).await {
                Err(_) => {
                    yield Err(ModelError::StreamInterrupted {
                        message: format!("no data from the provider for {}s", idle.as_secs_f32()),
                    });
                    return;
                }
                Ok(None) => return,
                Ok(Some(Ok(bytes))) => yield Ok(bytes),
                Ok(Some(Err(error))) => {
                    yield Err(classify_transport(&error, true));
                    return;
                }
            }
        }
    }
}

/// Streams one response with retries. `make_decoder` gives each attempt a
/// fresh decoder. A failure is retried only when the policy allows it and
/// the attempt has handed nothing on; each retry is announced with
/// [`ModelEvent::Retrying`] (`attempt` is the attempt about to start, `of`
/// the most there will be).
pub(crate) fn stream_with_retries<D, F>(
    client: HttpClient,
    request: PreparedRequest,
    make_decoder: F,
) -> BoxStream<'static, Result<ModelEvent, ModelError>>
where
    D: StreamDecoder,
    F: Fn() -> D + Send + 'static,
{
    let deadline = client.options.response_deadline;
    let attempts = async_stream::stream! {
        let policy = client.options.retry.clone();
        let options = &client.options;
        let mut attempt = 1;
        loop {
            let error = match open(&client, &request, options.idle_timeout).await {
                Err(error) => error,
                Ok(response) if is_json(&response) => {
                    json_instead_of_stream(response, options).await
                }
                Ok(response) if is_html(&response) => html_instead_of_stream(&response),
                Ok(response) => {
                    let bytes = response
                        .bytes_stream()
                        .map(|chunk| chunk.map_err(|error| classify_transport(&error, true)));
                    let decoded =
                        decode_events(make_decoder(), bytes, options.limits, Some(options.idle_timeout));
                    let mut events = std::pin::pin!(decoded);
                    let mut handed_on = false;
                    let mut failure = None;
                    let mut content = 0usize;
                    while let Some(event) = events.next().await {
                        match event {
                            Ok(event) => {
                                content = content.saturating_add(content_bytes(&event));
                                if content > options.limits.response_content {
                                    failure = Some(too_large(
                                        "a response",
                                        options.limits.response_content,
                                    ));
                                    break;
                                }
                                handed_on = true;
                                yield Ok(event);
                            }
                            Err(error) => {
                                failure = Some(error);
                                break;
                            }
                        }
                    }
                    match failure {
                        None => return,
                        Some(error) if handed_on => {
                            yield Err(scrubbed(error, request.key.as_ref()));
                            return;
                        }
                        Some(error) => error,
                    }
                }
            };
            let error = scrubbed(error, request.key.as_ref());
            match retry_delay(&policy, &mut attempt, &error) {
                Some(delay) => {
                    yield Ok(ModelEvent::Retrying {
                        attempt,
                        of: policy.max_attempts,
                        delay_ms: millis(delay),
                        cause: error.to_string(),
                    });
                    tokio::time::sleep(delay).await;
                }
                None => {
                    yield Err(error);
                    return;
                }
            }
        }
    };
    with_deadline(attempts, deadline).boxed()
}

/// Sends a non-streaming request with retries and parses its JSON body
/// with `parse`; an error `parse` reports (a failed response in a 200 body)
/// is retried like any other when it is retryable.
pub(crate) async fn json_with_retries<T>(
    client: &HttpClient,
    request: &PreparedRequest,
    parse: impl Fn(&Value) -> Result<T, ModelError>,
) -> Result<T, ModelError> {
    let deadline = client.options.response_deadline;
    match tokio::time::timeout(deadline, json_attempts(client, request, parse)).await {
        Ok(result) => result,
        Err(_) => Err(deadline_passed(deadline)),
    }
}

async fn json_attempts<T>(
    client: &HttpClient,
    request: &PreparedRequest,
    parse: impl Fn(&Value) -> Result<T, ModelError>,
) -> Result<T, ModelError> {
    let policy = &client.options.retry;
    let mut attempt = 1;
    loop {
        let result = match open(client, request, client.options.response_timeout).await {
            Ok(response) if is_html(&response) => Err(html_instead_of_stream(&response)),
            Ok(response) => read_json(response, &client.options)
                .await
                .and_then(|body| parse(&body)),
            Err(error) => Err(error),
        };
        let error = match result {
            Ok(value) => return Ok(value),
            Err(error) => scrubbed(error, request.key.as_ref()),
        };
        match retry_delay(policy, &mut attempt, &error) {
            Some(delay) => tokio::time::sleep(delay).await,
            None => return Err(error),
        }
    }
}

/// How long to wait before trying again after `error`, with `attempt` moved
/// on to the attempt about to start and the retry logged; `None` when the
/// policy gives up.
fn retry_delay(policy: &RetryPolicy, attempt: &mut u32, error: &ModelError) -> Option<Duration> {
    let delay = policy.delay_after(*attempt, error)?;
    *attempt += 1;
    tracing::info!(
        attempt = *attempt,
        of = policy.max_attempts,
        delay_ms = millis(delay),
        cause = %error,
        "retrying model request"
    );
    Some(delay)
}

fn content_type_starts(response: &reqwest::Response, prefix: &str) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with(prefix))
}

fn is_json(response: &reqwest::Response) -> bool {
    content_type_starts(response, "application/json")
}

fn is_html(response: &reqwest::Response) -> bool {
    content_type_starts(response, "text/html")
}

/// A login page, a proxy's or a captive portal's answer with status 200:
/// one line naming the status, never the page.
fn html_instead_of_stream(response: &reqwest::Response) -> ModelError {
    ModelError::InvalidRequest {
        message: format!(
            "HTTP {}: the server answered with an HTML page, not the API (check the base URL)",
            response.status().as_u16()
        ),
    }
}

/// Some servers answer a streaming request that failed early with a plain
/// JSON error body and status 200; classify that error instead of reporting
/// an empty stream.
async fn json_instead_of_stream(response: reqwest::Response, options: &HttpOptions) -> ModelError {
    match read_json(response, options).await {
        Ok(body) if body.get("error").is_some_and(|e| !e.is_null()) => classify_error_value(&body),
        Ok(_) => ModelError::InvalidRequest {
            message: "the provider answered with JSON instead of an event stream".to_string(),
        },
        Err(error) => error,
    }
}

async fn read_json(
    response: reqwest::Response,
    options: &HttpOptions,
) -> Result<Value, ModelError> {
    let limit = options.limits.json_body;
    let (body, more) = read_capped(body_bytes(response, options.idle_timeout), limit).await?;
    if more {
        return Err(too_large("a response body", limit));
    }
    serde_json::from_slice(&body).map_err(|error| ModelError::Transient {
        message: format!("the provider sent a malformed response body ({error})"),
    })
}

/// Transport messages can quote URLs and provider text; scrub them once
/// more before they are shown or recorded.
fn scrubbed(error: ModelError, key: Option<&ApiKey>) -> ModelError {
    let clean = |message: String| redact(&message, key);
    match error {
        ModelError::ContextOverflow { message } => ModelError::ContextOverflow {
            message: clean(message),
        },
        ModelError::RateLimited {
            retry_after_ms,
            message,
        } => ModelError::RateLimited {
            retry_after_ms,
            message: clean(message),
        },
        ModelError::QuotaExhausted { message } => ModelError::QuotaExhausted {
            message: clean(message),
        },
        ModelError::Auth { message } => ModelError::Auth {
            message: clean(message),
        },
        ModelError::InvalidRequest { message } => ModelError::InvalidRequest {
            message: clean(message),
        },
        ModelError::Transient { message } => ModelError::Transient {
            message: clean(message),
        },
        ModelError::StreamInterrupted { message } => ModelError::StreamInterrupted {
            message: clean(message),
        },
        ModelError::Unreachable { host, message } => ModelError::Unreachable {
            host,
            message: clean(message),
        },
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
