//! Decoding a Responses API event stream.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use strata_protocol::{ModelError, ModelEvent, StopReason};

use super::PROVIDER;
use super::events::{OutputItem, Response, StreamEvent, message_text};
use crate::classify::classify_error_value;
use crate::limits::{check_arguments, push_arguments};
use crate::sse::SseEvent;
use crate::wire::{
    Flow, StreamDecoder, arguments_or_empty_object, interrupted, malformed, parse_json,
    push_finish, reasoning_item,
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

    fn start_call(
        &mut self,
        item_id: &str,
        call_id: Option<&str>,
        name: Option<&str>,
        out: &mut Vec<ModelEvent>,
    ) {
        if self.calls.contains_key(item_id) {
            return;
        }
        let call = Call {
            call_id: call_id.unwrap_or(item_id).to_string(),
            name: name.unwrap_or_default().to_string(),
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

    fn on_item_done(&mut self, raw: &Value, out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        match OutputItem::parse(raw)? {
            OutputItem::FunctionCall {
                id,
                call_id,
                name,
                arguments,
            } => {
                let item_id = id.unwrap_or_default();
                self.start_call(&item_id, call_id.as_deref(), name.as_deref(), out);
                if let Some(call) = self.calls.get_mut(&item_id) {
                    // The finished item's arguments are authoritative.
                    if let Some(arguments) = arguments {
                        check_arguments(arguments.len())?;
                        call.arguments = arguments;
                    }
                    call.done = true;
                    out.push(ModelEvent::ToolCallDone {
                        call_id: call.call_id.clone(),
                        name: call.name.clone(),
                        arguments: arguments_or_empty_object(&call.arguments),
                    });
                }
            }
            OutputItem::Reasoning => out.push(ModelEvent::Reasoning {
                item: reasoning_item(PROVIDER, raw.clone()),
            }),
            OutputItem::Message { id, content } => {
                // A proxy that sends only finished items still gets its text shown.
                let id = id.unwrap_or_default();
                if !self.streamed_messages.contains(&id) {
                    let text = message_text(&content);
                    if !text.is_empty() {
                        out.push(ModelEvent::TextDelta { delta: text });
                    }
                }
            }
            OutputItem::Unknown => tracing::debug!("ignoring an unknown output item"),
        }
        Ok(())
    }

    fn finish(&mut self, response: &Response, stop: StopReason, out: &mut Vec<ModelEvent>) {
        for item_id in &self.order {
            if let Some(call) = self.calls.get(item_id).filter(|call| !call.done) {
                out.push(ModelEvent::ToolCallIncomplete {
                    call_id: call.call_id.clone(),
                    name: call.name.clone(),
                    partial_arguments: call.arguments.clone(),
                });
            }
        }
        push_finish(out, response.usage.as_ref().map(|u| u.tokens()), stop);
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
        let mut data = parse_json(event)?;
        // Some proxies name the event only in the SSE `event:` field.
        if let Value::Object(fields) = &mut data
            && !fields.contains_key("type")
        {
            fields.insert("type".into(), Value::String(event.event.clone()));
        }
        let parsed = StreamEvent::deserialize(&data).map_err(|error| malformed(event, &error))?;
        match parsed {
            StreamEvent::TextDelta { item_id, delta } => {
                if let Some(item_id) = item_id
                    && !self.streamed_messages.contains(&item_id)
                {
                    self.streamed_messages.push(item_id);
                }
                if let Some(delta) = delta.filter(|d| !d.is_empty()) {
                    out.push(ModelEvent::TextDelta { delta });
                }
            }
            StreamEvent::SummaryDelta { delta } => {
                if let Some(delta) = delta.filter(|d| !d.is_empty()) {
                    out.push(ModelEvent::ReasoningDelta { delta });
                }
            }
            StreamEvent::SummaryPart { summary_index } => {
                if summary_index > 0 {
                    out.push(ModelEvent::ReasoningDelta {
                        delta: "\n\n".to_owned(),
                    });
                }
            }
            StreamEvent::ItemAdded { item } => {
                if let OutputItem::FunctionCall {
                    id, call_id, name, ..
                } = OutputItem::parse(&item)?
                {
                    let item_id = id.unwrap_or_default();
                    self.start_call(&item_id, call_id.as_deref(), name.as_deref(), out);
                }
            }
            StreamEvent::ArgumentsDelta { item_id, delta } => {
                let item_id = item_id.unwrap_or_default();
                let delta = delta.unwrap_or_default();
                match self.calls.get_mut(&item_id) {
                    Some(call) if !delta.is_empty() => {
                        push_arguments(&mut call.arguments, &delta)?;
                        out.push(ModelEvent::ToolCallArgumentsDelta {
                            call_id: call.call_id.clone(),
                            delta,
                        });
                    }
                    Some(_) => {}
                    None => tracing::debug!(item_id, "arguments for an unknown function call"),
                }
            }
            StreamEvent::ItemDone { item } => self.on_item_done(&item, out)?,
            StreamEvent::Completed { response } => {
                let stop = if self.any_call_done() {
                    StopReason::ToolUse
                } else {
                    StopReason::EndTurn
                };
                self.finish(&response, stop, out);
                return Ok(Flow::Done);
            }
            StreamEvent::Incomplete { response } => {
                self.finish(&response, incomplete_reason(&response), out);
                return Ok(Flow::Done);
            }
            StreamEvent::Failed { response } => return Err(failure(&response)),
            StreamEvent::Error => return Err(classify_error_value(&data)),
            StreamEvent::Progress => {}
            StreamEvent::Unknown => {
                tracing::debug!(event = %event.event, "ignoring an unknown Responses event");
            }
        }
        Ok(Flow::Continue)
    }

    fn on_end(&mut self, _out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        Err(interrupted("before response.completed"))
    }
}

/// The error of a failed response (`response.failed`, or a whole body with
/// status `failed`).
pub(crate) fn failure(response: &Response) -> ModelError {
    classify_error_value(response.error.as_ref().unwrap_or(&Value::Null))
}

/// Why an incomplete response (`response.incomplete`, or a whole body with
/// status `incomplete`) stopped.
pub(crate) fn incomplete_reason(response: &Response) -> StopReason {
    let reason = response
        .incomplete_details
        .as_ref()
        .and_then(|d| d.reason.as_deref())
        .unwrap_or("unknown");
    match reason {
        "max_output_tokens" => StopReason::MaxTokens,
        "content_filter" => StopReason::ContentFilter,
        other => StopReason::Other(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_protocol::TokenUsage;

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
