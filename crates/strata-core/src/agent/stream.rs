//! One round's response: streamed, forwarded as it arrives, and collected so
//! it can be committed whole once the stream finished.

use futures::StreamExt;
use strata_protocol::{
    DebugEvent, FunctionCall, ItemId, MainlineEvent, ModelError, ModelEvent, ModelRequest,
    RecordBody, ResponseItem, RetryRecord, RoundId, TokenUsage, TurnId,
};

use super::Agent;
use crate::error::Result;
use crate::tools::CancellationToken;

/// What a round's stream ended with.
#[derive(Debug)]
pub(super) enum Streamed {
    Finished(Collected),
    Failed(ModelError),
    Cancelled,
}

/// A finished response, not yet committed.
#[derive(Debug, Default)]
pub(super) struct Collected {
    pub text: String,
    pub reasoning: Vec<ResponseItem>,
    pub calls: Vec<FunctionCall>,
    /// Calls the stream cut short: `(call_id, name)`. Reported, never run.
    pub incomplete: Vec<(String, String)>,
    pub usage: Option<TokenUsage>,
}

impl Agent {
    /// Streams `request`, forwarding text deltas and retries as they come.
    /// Nothing is committed here; only `retry` records are written.
    pub(super) async fn stream_round(
        &mut self,
        turn_id: TurnId,
        round_id: RoundId,
        request: ModelRequest,
        cancel: &CancellationToken,
    ) -> Result<Streamed> {
        let mut stream = self.gateway.stream_response(request);
        let mut collected = Collected::default();
        loop {
            // Biased: a cancellation wins over a stream that always has more.
            let next = tokio::select! {
                biased;
                () = cancel.cancelled() => return Ok(Streamed::Cancelled),
                next = stream.next() => next,
            };
            let event = match next {
                Some(Ok(event)) => event,
                Some(Err(error)) => return Ok(Streamed::Failed(error)),
                None => {
                    return Ok(Streamed::Failed(ModelError::StreamInterrupted {
                        message: "the response stream ended before the response finished".into(),
                    }));
                }
            };
            match event {
                ModelEvent::TextDelta { delta } => {
                    collected.text.push_str(&delta);
                    self.events.mainline(MainlineEvent::TextDelta {
                        turn_id,
                        round_id,
                        delta,
                    });
                }
                // Only a completed call counts; the partial states are
                // provider detail.
                ModelEvent::ToolCallStarted { .. } | ModelEvent::ToolCallArgumentsDelta { .. } => {}
                ModelEvent::ToolCallDone {
                    call_id,
                    name,
                    arguments,
                } => collected.calls.push(FunctionCall {
                    id: ItemId::new(),
                    call_id,
                    name,
                    arguments,
                }),
                ModelEvent::ToolCallIncomplete { call_id, name, .. } => {
                    collected.incomplete.push((call_id, name));
                }
                ModelEvent::Reasoning { item } => collected.reasoning.push(item),
                ModelEvent::Usage { usage } => collected.usage = Some(usage),
                ModelEvent::Retrying {
                    attempt,
                    of,
                    delay_ms,
                    cause,
                } => {
                    self.session.append(RecordBody::Retry(RetryRecord {
                        round_id: Some(round_id),
                        attempt,
                        of,
                        delay_ms,
                        cause: cause.clone(),
                    }))?;
                    self.events.debug(DebugEvent::Retrying {
                        turn_id: Some(turn_id),
                        round_id: Some(round_id),
                        attempt,
                        of,
                        delay_ms,
                        cause,
                    });
                    // The next attempt answers from scratch: whatever the
                    // failed one produced must not be committed twice.
                    collected = Collected::default();
                }
                // The stop reason adds nothing the items do not show: calls
                // mean tool use, none means the answer is complete.
                ModelEvent::Finished { .. } => return Ok(Streamed::Finished(collected)),
            }
        }
    }
}
