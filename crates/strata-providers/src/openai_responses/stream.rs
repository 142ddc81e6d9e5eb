//! Decoding a Responses API event stream.

use std::collections::HashMap;

use serde_json::Value;
use strata_protocol::{ModelError, ModelEvent, StopReason, TokenUsage};

use super::PROVIDER;
use crate::classify::classify_error_value;
use crate::limits::{check_arguments, push_arguments};
use crate::sse::SseEvent;
use crate::wire::{
    Flow, StreamDecoder, arguments_or_empty_object, interrupted, parse_json, push_finish,
    reasoning_item, str_field, u64_field,
};

#[derive(Debug)]
struct Call {
    call_id: String,
    name: String,
    arguments: String,
    done: bool,
}

/// State of one streamed response.
#[derive(Debug, Default)]
pub(crate) struct ResponsesDecoder {
    /// Function calls by output item id, in the order they started.
    calls: HashMap<String, Call>,
    order: Vec<String>,
    /// Message items whose text arrived as deltas.
    streamed_messages: Vec<String>,
}

impl ResponsesDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn start_call(&mut self, item_id: &str, item: &Value, out: &mut Vec<ModelEvent>) {
        if self.calls.contains_key(item_id) {
            return;
        }
        let call = Call {
            call_id: str_field(item, "call_id").unwrap_or(item_id).to_string(),
            name: str_field(item, "name").unwrap_or_default().to_string(),
            arguments: String::new(),
            done: false,
        };
        out.push(ModelEvent::ToolCallStarted {
            call_id: call.call_id.clone(),
            name: call.name.clone(),
        });
        self.calls.insert(item_id.to_string(), call);
        self.order.push(item_id.to_string());
    }

    fn on_item_done(&mut self, item: &Value, out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        let item_id = str_field(item, "id").unwrap_or_default();
        match str_field(item, "type") {
            Some("function_call") => {
                self.start_call(item_id, item, out);
                if let Some(call) = self.calls.get_mut(item_id) {
                    // The finished item's arguments are authoritative.
                    if let Some(arguments) = str_field(item, "arguments") {
                        check_arguments(arguments.len())?;
                        call.arguments = arguments.to_string();
                    }
                    call.done = true;
                    out.push(ModelEvent::ToolCallDone {
                        call_id: call.call_id.clone(),
                        name: call.name.clone(),
                        arguments: arguments_or_empty_object(&call.arguments),
                    });
                }
            }
            Some("reasoning") => out.push(ModelEvent::Reasoning {
                item: reasoning_item(PROVIDER, item.clone()),
            }),
            Some("message") => {
                // A proxy that sends only finished items still gets its text shown.
                if !self.streamed_messages.iter().any(|id| id == item_id) {
                    let text = message_text(item);
                    if !text.is_empty() {
                        out.push(ModelEvent::TextDelta { delta: text });
                    }
                }
            }
            other => tracing::debug!(item_type = ?other, "ignoring an unknown output item"),
        }
        Ok(())
    }

    fn finish(&mut self, response: &Value, stop: StopReason, out: &mut Vec<ModelEvent>) {
        for item_id in &self.order {
            if let Some(call) = self.calls.get(item_id).filter(|call| !call.done) {
                out.push(ModelEvent::ToolCallIncomplete {
                    call_id: call.call_id.clone(),
                    name: call.name.clone(),
                    partial_arguments: call.arguments.clone(),
                });
            }
        }
        push_finish(out, response.get("usage").and_then(parse_usage), stop);
    }

    fn any_call_done(&self) -> bool {
        self.calls.values().any(|call| call.done)
    }
}

impl StreamDecoder for ResponsesDecoder {
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<ModelEvent>,
    ) -> Result<Flow, ModelError> {
        let data = parse_json(event)?;
        let kind = str_field(&data, "type").unwrap_or(event.event.as_str());
        let empty = Value::Null;
        let response = data.get("response").unwrap_or(&empty);
        match kind {
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(item_id) = str_field(&data, "item_id")
                    && !self.streamed_messages.iter().any(|id| id == item_id)
                {
                    self.streamed_messages.push(item_id.to_string());
                }
                if let Some(delta) = str_field(&data, "delta").filter(|d| !d.is_empty()) {
                    out.push(ModelEvent::TextDelta {
                        delta: delta.to_string(),
                    });
                }
            }
            "response.output_item.added" => {
                let item = data.get("item").unwrap_or(&empty);
                if str_field(item, "type") == Some("function_call") {
                    let item_id = str_field(item, "id").unwrap_or_default().to_string();
                    self.start_call(&item_id, item, out);
                }
            }
            "response.function_call_arguments.delta" => {
                let item_id = str_field(&data, "item_id").unwrap_or_default();
                let delta = str_field(&data, "delta").unwrap_or_default();
                match self.calls.get_mut(item_id) {
                    Some(call) if !delta.is_empty() => {
                        push_arguments(&mut call.arguments, delta)?;
                        out.push(ModelEvent::ToolCallArgumentsDelta {
                            call_id: call.call_id.clone(),
                            delta: delta.to_string(),
                        });
                    }
                    Some(_) => {}
                    None => tracing::debug!(item_id, "arguments for an unknown function call"),
                }
            }
            "response.output_item.done" => {
                self.on_item_done(data.get("item").unwrap_or(&empty), out)?;
            }
            "response.completed" => {
                let stop = if self.any_call_done() {
                    StopReason::ToolUse
                } else {
                    StopReason::EndTurn
                };
                self.finish(response, stop, out);
                return Ok(Flow::Done);
            }
            "response.incomplete" => {
                self.finish(response, incomplete_reason(response), out);
                return Ok(Flow::Done);
            }
            "response.failed" => return Err(failure(response)),
            "error" => return Err(classify_error_value(&data)),
            "response.created"
            | "response.in_progress"
            | "response.queued"
            | "response.content_part.added"
            | "response.content_part.done"
            | "response.output_text.done"
            | "response.refusal.done"
            | "response.output_text.annotation.added"
            | "response.function_call_arguments.done"
            | "response.reasoning_summary_part.added"
            | "response.reasoning_summary_part.done"
            | "response.reasoning_summary_text.delta"
            | "response.reasoning_summary_text.done"
            | "response.reasoning_text.delta"
            | "response.reasoning_text.done" => {}
            other => tracing::debug!(event = other, "ignoring an unknown Responses event"),
        }
        Ok(Flow::Continue)
    }

    fn on_end(&mut self, _out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        Err(interrupted("before response.completed"))
    }
}

/// The error of a failed response (`response.failed`, or a whole body with
/// status `failed`).
pub(crate) fn failure(response: &Value) -> ModelError {
    classify_error_value(response.get("error").unwrap_or(&Value::Null))
}

/// Why an incomplete response (`response.incomplete`, or a whole body with
/// status `incomplete`) stopped.
pub(crate) fn incomplete_reason(response: &Value) -> StopReason {
    let reason = response
        .get("incomplete_details")
        .and_then(|d| str_field(d, "reason"))
        .unwrap_or("unknown");
    match reason {
        "max_output_tokens" => StopReason::MaxTokens,
        "content_filter" => StopReason::ContentFilter,
        other => StopReason::Other(other.to_string()),
    }
}

/// `output_text` parts of a message item, joined.
pub(crate) fn message_text(item: &Value) -> String {
    item.get("content")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter_map(|part| str_field(part, "text").or_else(|| str_field(part, "refusal")))
                .collect::<String>()
        })
        .unwrap_or_default()
}

/// Responses usage: `input_tokens` already includes cached ones and
/// `output_tokens` includes reasoning, as [`TokenUsage`] wants.
pub(crate) fn parse_usage(usage: &Value) -> Option<TokenUsage> {
    if !usage.is_object() {
        return None;
    }
    Some(TokenUsage {
        input_tokens: u64_field(usage, "input_tokens"),
        cached_input_tokens: usage
            .get("input_tokens_details")
            .and_then(|d| u64_field(d, "cached_tokens")),
        output_tokens: u64_field(usage, "output_tokens"),
        reasoning_output_tokens: usage
            .get("output_tokens_details")
            .and_then(|d| u64_field(d, "reasoning_tokens")),
        total_tokens: u64_field(usage, "total_tokens"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::run_decoder;

    fn run(sse: &str) -> (Vec<ModelEvent>, Option<ModelError>) {
        run_decoder(ResponsesDecoder::new(), sse)
    }

    #[test]
    fn an_incomplete_response_cut_inside_a_call_reports_it_incomplete() {
        let sse = r#"data: {"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"write","arguments":""}}

data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"pa"}

data: {"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":10,"output_tokens":4}}}

"#;
        let (events, error) = run(sse);
        assert_eq!(error, None);
        assert_eq!(
            events,
            vec![
                ModelEvent::ToolCallStarted {
                    call_id: "call_1".into(),
                    name: "write".into()
                },
                ModelEvent::ToolCallArgumentsDelta {
                    call_id: "call_1".into(),
                    delta: "{\"pa".into()
                },
                ModelEvent::ToolCallIncomplete {
                    call_id: "call_1".into(),
                    name: "write".into(),
                    partial_arguments: "{\"pa".into()
                },
                ModelEvent::Usage {
                    usage: TokenUsage {
                        input_tokens: Some(10),
                        output_tokens: Some(4),
                        ..TokenUsage::default()
                    }
                },
                ModelEvent::Finished {
                    stop_reason: StopReason::MaxTokens
                },
            ]
        );
    }

    #[test]
    fn unknown_events_and_missing_optional_fields_are_tolerated() {
        let sse = r#"data: {"type":"response.brand_new_thing","whatever":1}

data: {"type":"response.output_text.delta","delta":"Hi"}

data: {"type":"response.completed","response":{}}

"#;
        let (events, error) = run(sse);
        assert_eq!(error, None);
        assert_eq!(
            events,
            vec![
                ModelEvent::TextDelta { delta: "Hi".into() },
                ModelEvent::Finished {
                    stop_reason: StopReason::EndTurn
                },
            ]
        );
    }

    #[test]
    fn a_finished_message_item_without_deltas_still_shows_its_text() {
        let sse = r#"data: {"type":"response.output_item.done","item":{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Whole"}]}}

data: {"type":"response.completed","response":{}}

"#;
        let (events, _) = run(sse);
        assert_eq!(
            events[0],
            ModelEvent::TextDelta {
                delta: "Whole".into()
            }
        );
    }

    #[test]
    fn an_error_event_with_a_flat_shape_is_classified() {
        let sse = "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"boom\"}\n\n";
        let (_, error) = run(sse);
        assert_eq!(
            error,
            Some(ModelError::Transient {
                message: "server_error: boom".into()
            })
        );
    }
}
