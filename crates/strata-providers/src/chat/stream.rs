//! Decoding a Chat Completions chunk stream.

use std::collections::BTreeMap;

use serde_json::Value;
use strata_protocol::{ItemId, ModelError, ModelEvent, StopReason, TokenUsage};

use super::PROVIDER;
use super::events::{Completion, ToolCall};
use crate::classify::classify_error_value;
use crate::limits::{push_arguments, push_reasoning};
use crate::sse::SseEvent;
use crate::wire::{
    Flow, StreamDecoder, arguments_or_empty_object, interrupted, malformed, parse_json,
    push_finish, reasoning_item,
};

#[derive(Debug, Default)]
struct Call {
    call_id: Option<String>,
    name: Option<String>,
    arguments: String,
    started: bool,
    closed: bool,
}

/// State of one streamed completion (choice 0 only; Strata never asks for more).
#[derive(Debug, Default)]
pub(crate) struct ChatDecoder {
    /// Tool calls by the provider's index, which need not start at 0.
    calls: BTreeMap<u64, Call>,
    last_index: Option<u64>,
    reasoning: String,
    finish_reason: Option<String>,
    usage: Option<TokenUsage>,
}

impl ChatDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn flush_reasoning(&mut self, out: &mut Vec<ModelEvent>) {
        if self.reasoning.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.reasoning);
        out.push(ModelEvent::Reasoning {
            item: reasoning_item(
                PROVIDER,
                serde_json::json!({"type": "reasoning_content", "text": text}),
            ),
        });
    }

    fn on_tool_call(
        &mut self,
        fragment: &ToolCall,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ModelError> {
        let id = fragment.id.as_deref().filter(|s| !s.is_empty());
        // Without an index, a fragment with an id opens a new call and one
        // without continues the last.
        let index = match (fragment.index, id, self.last_index) {
            (Some(index), _, _) => index,
            (None, None, Some(last)) => last,
            (None, _, _) => self.calls.keys().next_back().map_or(0, |k| k + 1),
        };
        self.last_index = Some(index);
        let call = self.calls.entry(index).or_default();
        if let Some(id) = id {
            call.call_id.get_or_insert_with(|| id.to_string());
        }
        let function = fragment.function.as_ref();
        if let Some(name) = function
            .and_then(|f| f.name.as_deref())
            .filter(|s| !s.is_empty())
        {
            call.name.get_or_insert_with(|| name.to_string());
        }
        let delta = function
            .and_then(|f| f.arguments.as_deref())
            .unwrap_or_default();
        push_arguments(&mut call.arguments, delta)?;
        if !call.started {
            if let (Some(call_id), Some(name)) = (&call.call_id, &call.name) {
                call.started = true;
                out.push(ModelEvent::ToolCallStarted {
                    call_id: call_id.clone(),
                    name: name.clone(),
                });
                // Fragments that came before the id and name are sent now.
                if !call.arguments.is_empty() {
                    out.push(ModelEvent::ToolCallArgumentsDelta {
                        call_id: call_id.clone(),
                        delta: call.arguments.clone(),
                    });
                }
            }
        } else if !delta.is_empty()
            && let Some(call_id) = &call.call_id
        {
            out.push(ModelEvent::ToolCallArgumentsDelta {
                call_id: call_id.clone(),
                delta: delta.to_string(),
            });
        }
        Ok(())
    }

    /// Closes every open call: done, unless the output limit cut it (then
    /// only a call whose arguments already parse counts as done).
    fn close_calls(&mut self, out: &mut Vec<ModelEvent>) {
        let cut = self.finish_reason.as_deref() == Some("length");
        for (index, call) in &mut self.calls {
            if call.closed {
                continue;
            }
            call.closed = true;
            let call_id = call
                .call_id
                .clone()
                // Ids pair calls with outputs across the whole session file,
                // so a made-up one must not repeat in a later round.
                .unwrap_or_else(|| format!("call_{index}_{}", ItemId::new().as_uuid().simple()));
            let name = call.name.clone().unwrap_or_default();
            if !call.started {
                out.push(ModelEvent::ToolCallStarted {
                    call_id: call_id.clone(),
                    name: name.clone(),
                });
            }
            let complete =
                serde_json::from_str::<Value>(&arguments_or_empty_object(&call.arguments)).is_ok();
            if cut && !complete {
                out.push(ModelEvent::ToolCallIncomplete {
                    call_id,
                    name,
                    partial_arguments: call.arguments.clone(),
                });
            } else {
                out.push(ModelEvent::ToolCallDone {
                    call_id,
                    name,
                    arguments: arguments_or_empty_object(&call.arguments),
                });
            }
        }
    }

    fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        self.flush_reasoning(out);
        self.close_calls(out);
        let has_calls = !self.calls.is_empty();
        let stop_reason = stop_reason(self.finish_reason.as_deref(), has_calls);
        push_finish(out, self.usage.take(), stop_reason);
    }
}

/// Maps a Chat Completions `finish_reason`, streamed or whole, to a stop reason.
pub(super) fn stop_reason(finish_reason: Option<&str>, has_calls: bool) -> StopReason {
    match finish_reason {
        Some("tool_calls" | "function_call") => StopReason::ToolUse,
        // Some servers say "stop" (or nothing) after tool calls.
        Some("stop") | None if has_calls => StopReason::ToolUse,
        // Anthropic's OpenAI-compatible endpoint says "end_turn".
        Some("stop" | "end_turn") | None => StopReason::EndTurn,
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::ContentFilter,
        Some(other) => StopReason::Other(other.to_string()),
    }
}

impl StreamDecoder for ChatDecoder {
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<ModelEvent>,
    ) -> Result<Flow, ModelError> {
        if event.data.trim() == "[DONE]" {
            self.finish(out);
            return Ok(Flow::Done);
        }
        // Read straight from the text into the chunk's types: one pass per
        // delta, no `Value` tree built and then walked and copied.
        let chunk: Completion =
            serde_json::from_str(&event.data).map_err(|error| malformed(event, &error))?;
        if chunk.has_error() {
            // Rare: the classifier reads the error from the raw body.
            return Err(classify_error_value(&parse_json(event)?));
        }
        if let Some(usage) = chunk.usage() {
            self.usage = Some(usage.tokens());
        }
        let Some(choice) = chunk.into_first_choice() else {
            return Ok(Flow::Continue);
        };
        if let Some(delta) = choice.delta {
            let reasoning = delta
                .reasoning_content
                .as_deref()
                .or(delta.reasoning.as_deref());
            if let Some(reasoning) = reasoning.filter(|r| !r.is_empty()) {
                push_reasoning(&mut self.reasoning, reasoning)?;
                out.push(ModelEvent::ReasoningDelta {
                    delta: reasoning.to_owned(),
                });
            }
            // The text is moved into its event, not copied.
            if let Some(text) = delta.content.or(delta.refusal).filter(|t| !t.is_empty()) {
                self.flush_reasoning(out);
                out.push(ModelEvent::TextDelta { delta: text });
            }
            if let Some(fragments) = &delta.tool_calls {
                self.flush_reasoning(out);
                for fragment in fragments {
                    self.on_tool_call(fragment, out)?;
                }
            }
        }
        if let Some(reason) = choice.finish_reason {
            self.finish_reason = Some(reason);
            self.flush_reasoning(out);
            self.close_calls(out);
        }
        Ok(Flow::Continue)
    }

    fn on_end(&mut self, out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        // A finish reason means the answer is whole even if `[DONE]` never
        // came; some compatible servers omit it.
        if self.finish_reason.is_some() {
            tracing::debug!("chat stream ended after its finish reason without [DONE]");
            self.finish(out);
            Ok(())
        } else {
            Err(interrupted("before a finish reason"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::run_decoder;

    #[test]
    fn finish_reasons_map_the_same_streamed_or_whole() {
        assert_eq!(stop_reason(Some("end_turn"), false), StopReason::EndTurn);
        assert_eq!(stop_reason(Some("stop"), true), StopReason::ToolUse);
        assert_eq!(stop_reason(None, false), StopReason::EndTurn);
        assert_eq!(stop_reason(Some("length"), true), StopReason::MaxTokens);
        assert_eq!(
            stop_reason(Some("weird"), false),
            StopReason::Other("weird".into())
        );
    }

    fn run(sse: &str) -> (Vec<ModelEvent>, Option<ModelError>) {
        run_decoder(ChatDecoder::new(), sse)
    }

    #[test]
    fn length_inside_tool_json_reports_the_call_incomplete() {
        let sse = r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"write","arguments":"{\"text\": \"abc"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}

data: [DONE]

"#;
        let (events, error) = run(sse);
        assert_eq!(error, None);
        assert_eq!(
            events,
            vec![
                ModelEvent::ToolCallStarted {
                    call_id: "c1".into(),
                    name: "write".into()
                },
                ModelEvent::ToolCallArgumentsDelta {
                    call_id: "c1".into(),
                    delta: "{\"text\": \"abc".into()
                },
                ModelEvent::ToolCallIncomplete {
                    call_id: "c1".into(),
                    name: "write".into(),
                    partial_arguments: "{\"text\": \"abc".into()
                },
                ModelEvent::Finished {
                    stop_reason: StopReason::MaxTokens
                },
            ]
        );
    }

    #[test]
    fn a_finish_reason_without_done_still_finishes_but_nothing_at_all_is_interrupted() {
        let finished = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n";
        let (events, error) = run(finished);
        assert_eq!(error, None);
        assert_eq!(
            events.last(),
            Some(&ModelEvent::Finished {
                stop_reason: StopReason::EndTurn
            })
        );
        let cut = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n";
        let (_, error) = run(cut);
        assert!(matches!(error, Some(ModelError::StreamInterrupted { .. })));
    }

    #[test]
    fn unknown_fields_null_and_array_text_are_tolerated() {
        let sse = "data: {\"id\":\"x\",\"system_fingerprint\":null,\"choices\":[{\"index\":0,\"logprobs\":null,\"delta\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\"}],\"tool_calls\":null}}]}\n\n\
                   data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}\n\n\
                   data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n";
        let (events, error) = run(sse);
        assert_eq!(error, None);
        assert_eq!(
            events,
            vec![
                ModelEvent::TextDelta { delta: "ok".into() },
                ModelEvent::Finished {
                    stop_reason: StopReason::EndTurn
                },
            ]
        );
    }

    #[test]
    fn a_chunk_not_in_the_chunk_shape_or_not_json_is_a_malformed_event() {
        let chunks = [
            "{\"choices\":[{\"index\":\"zero\",\"delta\":{}}]}",
            "{\"choices\":[",
            "[1,2]",
            "\"text\"",
            "{\"choices\":[]} x",
        ];
        for data in chunks {
            let (events, error) = run(&format!("data: {data}\n\n"));
            assert_eq!(events, vec![], "{data}");
            match error {
                Some(ModelError::StreamInterrupted { message }) => {
                    assert!(message.contains("malformed \"message\" event"), "{message}");
                }
                other => panic!("expected a malformed event for {data}, got {other:?}"),
            }
        }
    }

    #[test]
    fn the_text_of_choice_zero_is_decoded_whole_wherever_it_stands() {
        let sse = "data: {\"error\":null,\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other\"}},{\"index\":0,\"delta\":{\"content\":\"caf\\u00e9 \\\"q\\\"\\n\"}}]}\n\n";
        let (events, error) = run(sse);
        assert_eq!(error, Some(interrupted("before a finish reason")));
        assert_eq!(
            events,
            vec![ModelEvent::TextDelta {
                delta: "caf\u{e9} \"q\"\n".into()
            }]
        );
    }

    #[test]
    fn an_error_chunk_is_classified() {
        let sse = "data: {\"error\":{\"message\":\"This model's maximum context length is 8192 tokens.\",\"code\":400}}\n\n";
        let (_, error) = run(sse);
        assert!(matches!(error, Some(ModelError::ContextOverflow { .. })));
    }

    #[test]
    fn content_filter_and_unknown_finish_reasons_map() {
        let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"content_filter\"}]}\n\ndata: [DONE]\n\n";
        assert_eq!(
            run(sse).0,
            vec![ModelEvent::Finished {
                stop_reason: StopReason::ContentFilter
            }]
        );
        let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"eos\"}]}\n\ndata: [DONE]\n\n";
        assert_eq!(
            run(sse).0,
            vec![ModelEvent::Finished {
                stop_reason: StopReason::Other("eos".into())
            }]
        );
    }

    #[test]
    fn groq_usage_is_read_from_x_groq_when_top_level_usage_is_absent() {
        let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"x_groq\":{\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}}\n\ndata: [DONE]\n\n";
        let (events, _) = run(sse);
        assert_eq!(
            events[0],
            ModelEvent::Usage {
                usage: TokenUsage {
                    input_tokens: Some(5),
                    output_tokens: Some(2),
                    total_tokens: Some(7),
                    ..TokenUsage::default()
                }
            }
        );
    }

    #[test]
    fn fragments_before_the_name_are_sent_once_the_call_starts() {
        let sse = r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"arguments":"{\"a\""}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":":1}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

"#;
        let (events, _) = run(sse);
        assert_eq!(
            events[..3],
            [
                ModelEvent::ToolCallStarted {
                    call_id: "c1".into(),
                    name: "f".into()
                },
                ModelEvent::ToolCallArgumentsDelta {
                    call_id: "c1".into(),
                    delta: "{\"a\":1}".into()
                },
                ModelEvent::ToolCallDone {
                    call_id: "c1".into(),
                    name: "f".into(),
                    arguments: "{\"a\":1}".into()
                },
            ]
        );
    }
}
