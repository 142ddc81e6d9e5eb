//! From bytes to [`ModelEvent`]s: the SSE layer feeds one provider-specific
//! decoder, the same way for a live HTTP body and for a recorded fixture.

use std::time::Duration;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use serde_json::Value;
use strata_protocol::{
    ItemId, ModelError, ModelEvent, ReasoningItem, ResponseItem, StopReason, TokenUsage,
};

use crate::limits::ByteLimits;
use crate::sse::{SseEvent, sse_stream};

/// The three wire protocols spoken over HTTP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WireFormat {
    OpenAiResponses,
    ChatCompletions,
    AnthropicMessages,
}

impl WireFormat {
    /// The format a provider kind speaks; `None` for the offline demo model.
    pub fn of(kind: strata_protocol::ProviderKind) -> Option<Self> {
        use strata_protocol::ProviderKind;
        match kind {
            ProviderKind::OpenaiResponses => Some(Self::OpenAiResponses),
            ProviderKind::OpenaiChat => Some(Self::ChatCompletions),
            ProviderKind::Anthropic => Some(Self::AnthropicMessages),
            ProviderKind::Demo => None,
        }
    }
}

/// Whether a decoder has seen its stream's terminal event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Done,
}

/// Turns one provider's SSE events into model events.
pub(crate) trait StreamDecoder: Send + 'static {
    /// Handles one event, pushing what it yields to `out`.
    fn on_event(&mut self, event: &SseEvent, out: &mut Vec<ModelEvent>)
    -> Result<Flow, ModelError>;

    /// The bytes ended before the terminal event: a lenient finish where the
    /// protocol allows one, else [`ModelError::StreamInterrupted`].
    fn on_end(&mut self, out: &mut Vec<ModelEvent>) -> Result<(), ModelError>;
}

pub(crate) fn decoder_for(format: WireFormat) -> Box<dyn StreamDecoder> {
    match format {
        WireFormat::OpenAiResponses => Box::new(crate::openai_responses::ResponsesDecoder::new()),
        WireFormat::ChatCompletions => Box::new(crate::chat::ChatDecoder::new()),
        WireFormat::AnthropicMessages => Box::new(crate::anthropic::AnthropicDecoder::new()),
    }
}

impl StreamDecoder for Box<dyn StreamDecoder> {
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<ModelEvent>,
    ) -> Result<Flow, ModelError> {
        (**self).on_event(event, out)
    }

    fn on_end(&mut self, out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        (**self).on_end(out)
    }
}

/// Decodes a byte stream (an HTTP body or a recorded fixture cut into any
/// chunks) into the events of one response. Used by every provider and by
/// tests that replay recorded streams.
pub fn replay(
    format: WireFormat,
    bytes: impl Stream<Item = Result<Bytes, ModelError>> + Send + 'static,
) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
    decode_events(decoder_for(format), bytes, ByteLimits::default(), None).boxed()
}

/// Decodes `bytes` with `decoder` within `limits`. With `idle` set, the
/// stream fails when no event arrives for that long: only dispatched events
/// count, so comments (keep-alives) cannot hold a dead stream open.
pub(crate) fn decode_events<D, S>(
    mut decoder: D,
    bytes: S,
    limits: ByteLimits,
    idle: Option<Duration>,
) -> impl Stream<Item = Result<ModelEvent, ModelError>> + Send
where
    D: StreamDecoder,
    S: Stream<Item = Result<Bytes, ModelError>> + Send,
{
    async_stream::stream! {
        let mut events = std::pin::pin!(sse_stream(bytes, limits));
        let mut out = Vec::new();
        // Only data counts as progress: comments never reach here, and
        // `ping` events (Anthropic's keep-alives) do not move this on.
        let mut progress = tokio::time::Instant::now();
        loop {
            let next = match idle {
                Some(idle) => match tokio::time::timeout_at(progress + idle, events.next()).await {
                    Ok(next) => next,
                    Err(_) => {
                        yield Err(ModelError::StreamInterrupted {
                            message: format!(
                                "no data from the provider for {}s (keep-alives do not count)",
                                idle.as_secs_f32()
                            ),
                        });
                        return;
                    }
                },
                None => events.next().await,
            };
            let Some(event) = next else { break };
            let event = match event {
                Ok(event) => event,
                Err(error) => {
                    yield Err(error);
                    return;
                }
            };
            if !is_keep_alive(&event) {
                progress = tokio::time::Instant::now();
            }
            let flow = decoder.on_event(&event, &mut out);
            for item in std::mem::take(&mut out) {
                yield Ok(item);
            }
            match flow {
                Ok(Flow::Continue) => {}
                Ok(Flow::Done) => return,
                Err(error) => {
                    yield Err(error);
                    return;
                }
            }
        }
        let end = decoder.on_end(&mut out);
        for item in std::mem::take(&mut out) {
            yield Ok(item);
        }
        if let Err(error) = end {
            yield Err(error);
        }
    }
}

/// An event sent only to keep the connection open.
fn is_keep_alive(event: &SseEvent) -> bool {
    event.event == "ping"
}

/// Parses an event's JSON payload; a malformed payload ends the stream, as
/// skipping it could silently lose text or corrupt a tool call's arguments.
pub(crate) fn parse_json(event: &SseEvent) -> Result<Value, ModelError> {
    serde_json::from_str(&event.data).map_err(|error| ModelError::StreamInterrupted {
        message: format!(
            "the provider sent a malformed {:?} event ({error})",
            event.event
        ),
    })
}

/// An event whose JSON parses but does not have its type's shape (a text
/// delta that is a number, say).
pub(crate) fn malformed(event: &SseEvent, error: &serde_json::Error) -> ModelError {
    ModelError::StreamInterrupted {
        message: format!(
            "the provider sent a malformed {:?} event ({error})",
            event.event
        ),
    }
}

/// A whole response body that does not have the API's shape.
pub(crate) fn malformed_body(error: &serde_json::Error) -> ModelError {
    ModelError::Transient {
        message: format!("the provider sent a malformed response body ({error})"),
    }
}

/// Ends a response: its usage, when known, right before `Finished`.
pub(crate) fn push_finish(
    out: &mut Vec<ModelEvent>,
    usage: Option<TokenUsage>,
    stop_reason: StopReason,
) {
    if let Some(usage) = usage {
        out.push(ModelEvent::Usage { usage });
    }
    out.push(ModelEvent::Finished { stop_reason });
}

/// A reasoning item with a fresh id, tagged with the provider that made it
/// so it is sent back only there.
pub(crate) fn reasoning_item(provider: &str, payload: Value) -> ResponseItem {
    ResponseItem::Reasoning(ReasoningItem {
        id: ItemId::new(),
        provider: provider.to_string(),
        payload,
    })
}

pub(crate) fn interrupted(what: &str) -> ModelError {
    ModelError::StreamInterrupted {
        message: format!("the stream ended {what}"),
    }
}

/// `""` and whitespace become `"{}"`: a tool called with no arguments.
pub(crate) fn arguments_or_empty_object(arguments: &str) -> String {
    if arguments.trim().is_empty() {
        "{}".to_string()
    } else {
        arguments.to_string()
    }
}

/// Runs a decoder over SSE text synchronously, for unit tests.
#[cfg(test)]
pub(crate) fn run_decoder(
    mut decoder: impl StreamDecoder,
    sse: &str,
) -> (Vec<ModelEvent>, Option<ModelError>) {
    let mut sse_decoder = crate::sse::SseDecoder::new();
    let mut events = sse_decoder.push(sse.as_bytes()).unwrap_or_default();
    events.extend(sse_decoder.finish().unwrap_or_default());
    let mut out = Vec::new();
    for event in events {
        match decoder.on_event(&event, &mut out) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Done) => return (out, None),
            Err(error) => return (out, Some(error)),
        }
    }
    let end = decoder.on_end(&mut out);
    (out, end.err())
}
