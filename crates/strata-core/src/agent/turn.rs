//! The turn loop: rounds until the model stops calling tools, with the
//! compaction check at each round boundary. Each round's response is
//! streamed, forwarded as it arrives, and collected so it is committed
//! whole once the stream finished.

use std::time::Duration;

use futures::StreamExt;
use strata_protocol::{
    CompactionPolicy, DebugEvent, ErrorRecord, FunctionCall, ItemId, MainlineEvent, ModelError,
    ModelEvent, ModelRequest, RecordBody, ResponseItem, RetryRecord, RoundId, RoundRecord,
    TokenUsage, ToolChoice, TurnFinished, TurnId, TurnOutcome, TurnStarted,
};

use super::overflow::{MAX_OVERFLOW_RECOVERIES, Recovery};
use super::{Agent, CompactOutcome, TurnReport};
use crate::compaction::cache_anchors;
use crate::error::{CoreError, Result};
use crate::tools::{CancellationToken, ExternalTool};

/// How the rounds ended.
struct Ending {
    outcome: TurnOutcome,
    error: Option<ModelError>,
    /// Why the turn deadline stopped the turn, when it did.
    deadline: Option<String>,
}

impl Ending {
    fn with(outcome: TurnOutcome) -> Self {
        Self {
            outcome,
            error: None,
            deadline: None,
        }
    }
}

/// What a round's stream ended with.
#[derive(Debug)]
enum Streamed {
    Finished(Collected),
    Failed(ModelError),
    Cancelled,
}

/// A finished response, not yet committed.
#[derive(Debug, Default)]
struct Collected {
    pub text: String,
    pub reasoning: Vec<ResponseItem>,
    pub calls: Vec<FunctionCall>,
    /// Calls the stream cut short: `(call_id, name)`. Reported, never run.
    pub incomplete: Vec<(String, String)>,
    pub usage: Option<TokenUsage>,
}

/// Counters of the turn in progress.
struct Progress {
    turn_id: TurnId,
    /// `round` records written.
    rounds: u32,
    /// Rounds whose response was committed, the limit's measure.
    completed: u32,
    compactions: u32,
    /// Rounds sent again after an overflow recovery.
    overflow_recoveries: u32,
}

impl Agent {
    /// Runs one turn of the person's `user_text`. Cancelling `cancel` stops
    /// it cleanly at any point (see the module docs). `Err` only when the
    /// session could not be written.
    pub async fn run_turn(
        &mut self,
        user_text: impl Into<String>,
        cancel: CancellationToken,
    ) -> Result<TurnReport> {
        let turn_id = TurnId::new();
        let user_text = user_text.into();
        let result = match self.pre_turn_check(turn_id, &user_text, &cancel).await {
            Ok(()) => self.turn(turn_id, user_text, &cancel).await,
            Err(error) => Err(error),
        };
        if let Err(error) = &result {
            let message = match error {
                CoreError::MessageTooLong { .. } => format!("the message was not sent: {error}"),
                _ => format!("the session could not be written, so the turn stopped: {error}"),
            };
            self.events.mainline(MainlineEvent::Error {
                turn_id: Some(turn_id),
                message,
                model_error: None,
            });
        }
        result
    }

    async fn turn(
        &mut self,
        turn_id: TurnId,
        user_text: String,
        cancel: &CancellationToken,
    ) -> Result<TurnReport> {
        self.session
            .append(RecordBody::TurnStarted(TurnStarted { turn_id }))?;
        let user_message = ResponseItem::user(user_text);
        self.session.commit_item(user_message.clone())?;
        self.events.mainline(MainlineEvent::TurnStarted {
            turn_id,
            user_message,
        });
        let mut progress = Progress {
            turn_id,
            rounds: 0,
            completed: 0,
            compactions: 0,
            overflow_recoveries: 0,
        };
        let ending = self.rounds_within_deadline(&mut progress, cancel).await?;
        if let Some(message) = &ending.deadline {
            self.session.append(RecordBody::Error(ErrorRecord {
                turn_id: Some(turn_id),
                message: message.clone(),
                model_error: None,
            }))?;
            self.events.mainline(MainlineEvent::Error {
                turn_id: Some(turn_id),
                message: message.clone(),
                model_error: None,
            });
        }
        if let Some(error) = &ending.error {
            self.session.append(RecordBody::Error(ErrorRecord {
                turn_id: Some(turn_id),
                message: error.to_string(),
                model_error: Some(error.clone()),
            }))?;
            self.events.mainline(MainlineEvent::Error {
                turn_id: Some(turn_id),
                message: error.to_string(),
                model_error: Some(error.clone()),
            });
        }
        self.session.append(RecordBody::TurnFinished(TurnFinished {
            turn_id,
            outcome: ending.outcome,
            rounds: progress.rounds,
        }))?;
        self.events.mainline(MainlineEvent::TurnFinished {
            turn_id,
            outcome: ending.outcome,
            rounds: progress.rounds,
        });
        Ok(TurnReport {
            turn_id,
            outcome: ending.outcome,
            rounds: progress.rounds,
            compactions: progress.compactions,
            error: ending.error,
            deadline: ending.deadline,
        })
    }

    /// The rounds, stopped through a child of `cancel` once the turn
    /// deadline passes: the stop is a cancellation in every respect (calls
    /// get cancelled outputs, a half-streamed response is dropped), then
    /// the turn fails with an error naming the deadline.
    async fn rounds_within_deadline(
        &mut self,
        progress: &mut Progress,
        cancel: &CancellationToken,
    ) -> Result<Ending> {
        let deadline = self.config.turn_deadline;
        let deadline_at = tokio::time::Instant::now() + deadline;
        self.turn_deadline_at = Some(deadline_at);
        let stop = cancel.child_token();
        let ending = {
            let rounds = self.rounds(progress, &stop);
            tokio::pin!(rounds);
            tokio::select! {
                ending = &mut rounds => ending,
                () = tokio::time::sleep_until(deadline_at) => {
                    stop.cancel();
                    rounds.await
                }
            }
        };
        self.turn_deadline_at = None;
        let mut ending = ending?;
        // `stop` is cancelled only by the person's token or the deadline.
        if stop.is_cancelled() && !cancel.is_cancelled() && ending.outcome == TurnOutcome::Cancelled
        {
            ending.outcome = TurnOutcome::Failed;
            ending.deadline = Some(format!(
                "the turn passed its deadline of {} and was stopped (network.turn_deadline_ms)",
                describe(deadline)
            ));
        }
        Ok(ending)
    }

    async fn rounds(
        &mut self,
        progress: &mut Progress,
        cancel: &CancellationToken,
    ) -> Result<Ending> {
        let turn_id = progress.turn_id;
        // What the overflow recovery of this round did, once it was sent
        // again after one.
        let mut overflow_retried: Option<String> = None;
        loop {
            if cancel.is_cancelled() {
                return Ok(Ending::with(TurnOutcome::Cancelled));
            }
            let round_id = RoundId::new();
            let (request, estimated) = self.begin_round(turn_id, round_id)?;
            progress.rounds += 1;
            let collected = match self
                .stream_round(turn_id, round_id, request, cancel)
                .await?
            {
                Streamed::Finished(collected) => collected,
                Streamed::Cancelled => return Ok(Ending::with(TurnOutcome::Cancelled)),
                Streamed::Failed(ModelError::ContextOverflow { message }) => {
                    if let Some(tried) = &overflow_retried {
                        return Ok(failed(self.overflow_after_retry(&message, tried)));
                    }
                    if progress.overflow_recoveries >= MAX_OVERFLOW_RECOVERIES {
                        let tried = format!(
                            "already recovered from {MAX_OVERFLOW_RECOVERIES} overflows in this \
                             turn and stopped trying"
                        );
                        return Ok(failed(self.overflow_error(&message, Some(&tried))));
                    }
                    progress.overflow_recoveries += 1;
                    match self
                        .recover_from_overflow(turn_id, &message, estimated, cancel)
                        .await?
                    {
                        Recovery::Retry { tried, compacted } => {
                            progress.compactions += u32::from(compacted);
                            overflow_retried = Some(tried);
                            continue;
                        }
                        Recovery::Cancelled => return Ok(Ending::with(TurnOutcome::Cancelled)),
                        Recovery::Failed(error) => return Ok(failed(error)),
                    }
                }
                Streamed::Failed(error) => return Ok(failed(error)),
            };
            overflow_retried = None;
            let usage = collected.usage.clone();
            let calls = self.commit_response(turn_id, round_id, collected)?;
            if self.run_calls(turn_id, &calls, cancel).await? {
                return Ok(Ending::with(TurnOutcome::Cancelled));
            }
            progress.completed += 1;
            match self
                .compaction_check(turn_id, usage.as_ref(), cancel)
                .await?
            {
                Some(CompactOutcome::Compacted(_)) => progress.compactions += 1,
                Some(CompactOutcome::Cancelled) => {
                    return Ok(Ending::with(TurnOutcome::Cancelled));
                }
                // A failed summary was reported; the turn goes on uncompacted.
                Some(
                    CompactOutcome::NothingToCompact { .. }
                    | CompactOutcome::SummaryFailed { .. }
                    | CompactOutcome::Refused { .. },
                )
                | None => {}
            }
            if calls.is_empty() {
                return Ok(Ending::with(TurnOutcome::Completed));
            }
            if progress.completed >= self.config.max_rounds {
                return Ok(Ending::with(TurnOutcome::RoundLimit));
            }
        }
    }

    /// Builds the round's request, appends its `round` record (before any of
    /// its items, so replay can check `input_items`) and announces it.
    /// Returns the request with its estimate (what the round record keeps;
    /// none under `base`).
    fn begin_round(
        &mut self,
        turn_id: TurnId,
        round_id: RoundId,
    ) -> Result<(ModelRequest, Option<u64>)> {
        let external = self.round_external_tools()?;
        let request = self.round_request(&external);
        self.cache_anchor = request.cache_anchors.last().copied();
        // Base sessions write today's round records exactly.
        let base = self.policy() == CompactionPolicy::Base;
        let estimated = (!base).then(|| self.estimated_request_tokens(&request));
        self.session.append(RecordBody::Round(RoundRecord {
            turn_id,
            round_id,
            provider_kind: self.config.provider_kind.clone(),
            model: request.model.clone(),
            tools: request.tools.clone(),
            tool_choice: request.tool_choice.clone(),
            max_output_tokens: request.max_output_tokens,
            input_items: u32::try_from(request.input.len()).unwrap_or(u32::MAX),
            estimated_input_tokens: estimated,
            reasoning: request.reasoning,
            cache_anchors: if base {
                Vec::new()
            } else {
                request.cache_anchors.clone()
            },
        }))?;
        self.events.debug(DebugEvent::RoundStarted {
            turn_id,
            round_id,
            request: request.clone(),
        });
        Ok((request, estimated))
    }

    /// The request a round sends now, over the whole history with the
    /// `external` tools: also what an in-context summary extends, so the
    /// two share their prompt-cache prefix byte for byte.
    pub(super) fn round_request(&self, external: &[ExternalTool]) -> ModelRequest {
        let tools = self.round_tool_specs_with(external);
        let tool_choice = (!tools.is_empty()).then_some(ToolChoice::Auto);
        let input = self.session.history().items().to_vec();
        let cache_anchors = cache_anchors(&input, self.cache_anchor);
        ModelRequest {
            model: self.config.model.clone(),
            input,
            tools,
            tool_choice,
            max_output_tokens: self.config.max_output_tokens,
            session_id: Some(self.session.id()),
            reasoning: self.reasoning(),
            cache_anchors,
        }
    }

    /// The estimate of a request's input as sent (its items and tool specs)
    /// through the agent's calibrated estimator: what its round record
    /// keeps, so the console's drift compares the estimate the agent made.
    fn estimated_request_tokens(&self, request: &ModelRequest) -> u64 {
        let specs =
            serde_json::to_string(&request.tools).map_or(0, |specs| self.estimator.count(&specs));
        self.estimate().items(&request.input) + self.calibration.apply(specs)
    }

    /// Streams `request`, forwarding text deltas and retries as they come.
    /// Nothing is committed here; only `retry` records are written.
    async fn stream_round(
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
                ModelEvent::ReasoningDelta { delta } => {
                    self.events.mainline(MainlineEvent::ReasoningDelta {
                        turn_id,
                        round_id,
                        delta,
                    });
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

    /// Commits a finished response: reasoning first (providers expect it
    /// back before the items it led to), then the assistant message, then
    /// the calls; then the usage. Returns the calls to run.
    fn commit_response(
        &mut self,
        turn_id: TurnId,
        round_id: RoundId,
        collected: Collected,
    ) -> Result<Vec<FunctionCall>> {
        let Collected {
            text,
            reasoning,
            calls,
            incomplete,
            usage,
        } = collected;
        let mut items = reasoning;
        if !text.is_empty() {
            items.push(ResponseItem::assistant(text));
        }
        items.extend(calls.iter().cloned().map(ResponseItem::FunctionCall));
        for item in items {
            self.session.commit_item(item.clone())?;
            self.events
                .mainline(MainlineEvent::MessageCommitted { turn_id, item });
        }
        for (call_id, name) in incomplete {
            self.events.mainline(MainlineEvent::Error {
                turn_id: Some(turn_id),
                message: format!(
                    "the model's call to {name} ({call_id}) was cut off before its arguments \
                     were complete; it was not run"
                ),
                model_error: None,
            });
        }
        if let Some(usage) = usage {
            let context_tokens = usage.context_tokens();
            if let Some(reported) = context_tokens {
                self.calibrate(reported);
            }
            self.session.record_priced_usage(
                usage.clone(),
                Some(round_id),
                self.config.price.as_ref(),
            )?;
            self.events.debug(DebugEvent::UsageReported {
                turn_id,
                round_id,
                usage,
                context_tokens,
                threshold: self.threshold(),
            });
        }
        Ok(calls)
    }
}

fn failed(error: ModelError) -> Ending {
    Ending {
        outcome: TurnOutcome::Failed,
        error: Some(error),
        deadline: None,
    }
}

/// A deadline as a person reads it: `2 h`, `90 s`, `200 ms`.
fn describe(deadline: Duration) -> String {
    let ms = deadline.as_millis();
    for (unit, name) in [(3_600_000, "h"), (60_000, "min"), (1000, "s")] {
        if ms >= unit && ms.is_multiple_of(unit) {
            return format!("{} {name}", ms / unit);
        }
    }
    format!("{ms} ms")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_are_named_in_their_largest_whole_unit() {
        let ms = Duration::from_millis;
        assert_eq!(describe(ms(7_200_000)), "2 h");
        assert_eq!(describe(ms(5_400_000)), "90 min");
        assert_eq!(describe(ms(90_000)), "90 s");
        assert_eq!(describe(ms(1_500)), "1500 ms");
        assert_eq!(describe(ms(200)), "200 ms");
    }
}
