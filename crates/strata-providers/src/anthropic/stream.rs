//! Decoding a Messages API event stream.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use strata_protocol::{ModelError, ModelEvent, StopReason, TokenUsage};

use super::PROVIDER;
use crate::classify::classify_error_value;
use crate::limits::{push_arguments, push_reasoning};
use crate::sse::SseEvent;
use crate::wire::{
    Flow, StreamDecoder, arguments_or_empty_object, interrupted, parse_json, push_finish,
    reasoning_item, str_field, u64_field,
};

#[derive(Debug)]
enum Block {
    Text,
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    Thinking {
        thinking: String,
        signature: String,
    },
    /// Kept verbatim (redacted thinking) and sent back as is.
    Opaque(Value),
    Ignored,
}

/// Usage as Anthropic reports it, merged across `message_start` and
/// `message_delta` (later figures replace earlier ones).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct AnthropicUsage {
    input: Option<u64>,
    cache_creation: Option<u64>,
    cache_read: Option<u64>,
    output: Option<u64>,
}

impl AnthropicUsage {
    pub fn merge(&mut self, usage: &Value) {
        let fields = [
            (&mut self.input, "input_tokens"),
            (&mut self.cache_creation, "cache_creation_input_tokens"),
            (&mut self.cache_read, "cache_read_input_tokens"),
            (&mut self.output, "output_tokens"),
        ];
        for (slot, key) in fields {
            if let Some(value) = u64_field(usage, key) {
                *slot = Some(value);
            }
        }
    }

    /// Input normalised to include cache writes and reads; cached = reads.
    pub fn normalised(&self) -> Option<TokenUsage> {
        let parts = [self.input, self.cache_creation, self.cache_read];
        let input = parts.iter().flatten().copied().reduce(u64::saturating_add);
        if input.is_none() && self.output.is_none() {
            return None;
        }
        Some(TokenUsage {
            input_tokens: input,
            cached_input_tokens: self.cache_read,
            output_tokens: self.output,
            reasoning_output_tokens: None,
            total_tokens: None,
        })
    }
}

pub(crate) fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" | "stop_sequence" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "refusal" => StopReason::ContentFilter,
        other => StopReason::Other(other.to_string()),
    }
}

fn reasoning_event(payload: Value) -> ModelEvent {
    ModelEvent::Reasoning {
        item: reasoning_item(PROVIDER, payload),
    }
}

/// State of one streamed message.
#[derive(Debug, Default)]
pub(crate) struct AnthropicDecoder {
    /// Open content blocks by index.
    blocks: BTreeMap<u64, Block>,
    usage: AnthropicUsage,
    stop_reason: Option<String>,
}

impl AnthropicDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn on_block_start(&mut self, index: u64, block: &Value, out: &mut Vec<ModelEvent>) {
        let state = match str_field(block, "type") {
            Some("text") => {
                if let Some(text) = str_field(block, "text").filter(|t| !t.is_empty()) {
                    out.push(ModelEvent::TextDelta {
                        delta: text.to_string(),
                    });
                }
                Block::Text
            }
            Some("tool_use") => {
                let id = str_field(block, "id").unwrap_or_default().to_string();
                let name = str_field(block, "name").unwrap_or_default().to_string();
                out.push(ModelEvent::ToolCallStarted {
                    call_id: id.clone(),
                    name: name.clone(),
                });
                Block::ToolUse {
                    id,
                    name,
                    json: String::new(),
                }
            }
            Some("thinking") => Block::Thinking {
                thinking: str_field(block, "thinking").unwrap_or_default().to_string(),
                signature: str_field(block, "signature")
                    .unwrap_or_default()
                    .to_string(),
            },
            Some("redacted_thinking") => Block::Opaque(block.clone()),
            other => {
                tracing::debug!(block_type = ?other, "ignoring an unknown content block");
                Block::Ignored
            }
        };
        self.blocks.insert(index, state);
    }

    fn on_block_delta(
        &mut self,
        index: u64,
        delta: &Value,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ModelError> {
        let Some(block) = self.blocks.get_mut(&index) else {
            tracing::debug!(index, "delta for a content block that never started");
            return Ok(());
        };
        match (block, str_field(delta, "type")) {
            (Block::Text, Some("text_delta")) => {
                if let Some(text) = str_field(delta, "text").filter(|t| !t.is_empty()) {
                    out.push(ModelEvent::TextDelta {
                        delta: text.to_string(),
                    });
                }
            }
            (Block::ToolUse { id, json, .. }, Some("input_json_delta")) => {
                let part = str_field(delta, "partial_json").unwrap_or_default();
                if !part.is_empty() {
                    push_arguments(json, part)?;
                    out.push(ModelEvent::ToolCallArgumentsDelta {
                        call_id: id.clone(),
                        delta: part.to_string(),
                    });
                }
            }
            (Block::Thinking { thinking, .. }, Some("thinking_delta")) => {
                push_reasoning(thinking, str_field(delta, "thinking").unwrap_or_default())?;
            }
            (Block::Thinking { signature, .. }, Some("signature_delta")) => {
                push_reasoning(signature, str_field(delta, "signature").unwrap_or_default())?;
            }
            (_, other) => tracing::debug!(delta_type = ?other, "ignoring a content block delta"),
        }
        Ok(())
    }

    fn on_block_stop(&mut self, index: u64, out: &mut Vec<ModelEvent>) {
        match self.blocks.remove(&index) {
            Some(Block::ToolUse { id, name, json }) => out.push(ModelEvent::ToolCallDone {
                call_id: id,
                name,
                arguments: arguments_or_empty_object(&json),
            }),
            Some(Block::Thinking {
                thinking,
                signature,
            }) => out.push(reasoning_event(json!({
                "type": "thinking",
                "thinking": thinking,
                "signature": signature,
            }))),
            Some(Block::Opaque(block)) => out.push(reasoning_event(block)),
            Some(Block::Text | Block::Ignored) => {}
            None => tracing::debug!(index, "stop for a content block that never started"),
        }
    }

    fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        // Blocks still open were cut short (max_tokens inside a tool call's
        // JSON): report them, never as done.
        for block in std::mem::take(&mut self.blocks).into_values() {
            if let Block::ToolUse { id, name, json } = block {
                out.push(ModelEvent::ToolCallIncomplete {
                    call_id: id,
                    name,
                    partial_arguments: json,
                });
            }
        }
        let stop_reason = match self.stop_reason.as_deref() {
            Some(reason) => stop_reason(reason),
            None => StopReason::EndTurn,
        };
        push_finish(out, self.usage.normalised(), stop_reason);
    }
}

impl StreamDecoder for AnthropicDecoder {
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<ModelEvent>,
    ) -> Result<Flow, ModelError> {
        let data = parse_json(event)?;
        let kind = str_field(&data, "type").unwrap_or(event.event.as_str());
        let index = u64_field(&data, "index").unwrap_or(0);
        let empty = Value::Null;
        match kind {
            "message_start" => {
                if let Some(usage) = data.get("message").and_then(|m| m.get("usage")) {
                    self.usage.merge(usage);
                }
            }
            "content_block_start" => {
                self.on_block_start(index, data.get("content_block").unwrap_or(&empty), out);
            }
            "content_block_delta" => {
                self.on_block_delta(index, data.get("delta").unwrap_or(&empty), out)?;
            }
            "content_block_stop" => self.on_block_stop(index, out),
            "message_delta" => {
                if let Some(reason) = data.get("delta").and_then(|d| str_field(d, "stop_reason")) {
                    self.stop_reason = Some(reason.to_string());
                }
                if let Some(usage) = data.get("usage") {
                    self.usage.merge(usage);
                }
            }
            "message_stop" => {
                self.finish(out);
                return Ok(Flow::Done);
            }
            "ping" => {}
            "error" => {
                return Err(classify_error_value(&data));
            }
            other => tracing::debug!(event = other, "ignoring an unknown Messages event"),
        }
        Ok(Flow::Continue)
    }

    fn on_end(&mut self, _out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        Err(interrupted("before message_stop"))
    }
}

#[cfg(test)]
mod tests {
    use strata_protocol::ResponseItem;

    use super::*;
    use crate::wire::run_decoder;

    fn run(sse: &str) -> (Vec<ModelEvent>, Option<ModelError>) {
        run_decoder(AnthropicDecoder::new(), sse)
    }

    #[test]
    fn thinking_blocks_become_reasoning_items_with_their_signature() {
        let sse = r#"event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_stop
data: {"type":"message_stop"}

"#;
        let (events, error) = run(sse);
        assert_eq!(error, None);
        match &events[0] {
            ModelEvent::Reasoning {
                item: ResponseItem::Reasoning(item),
            } => {
                assert_eq!(item.provider, "anthropic");
                assert_eq!(
                    item.payload,
                    json!({"type": "thinking", "thinking": "Let me think", "signature": "EqQB"})
                );
            }
            other => panic!("expected reasoning, got {other:?}"),
        }
    }

    #[test]
    fn a_stream_without_message_stop_is_interrupted() {
        let sse = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n";
        let (events, error) = run(sse);
        assert!(events.is_empty());
        assert!(matches!(error, Some(ModelError::StreamInterrupted { .. })));
    }

    #[test]
    fn unknown_events_are_ignored() {
        let sse = "event: brand_new\ndata: {\"type\":\"brand_new\"}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
        let (events, error) = run(sse);
        assert_eq!(error, None);
        assert_eq!(
            events,
            vec![ModelEvent::Finished {
                stop_reason: StopReason::EndTurn
            }]
        );
    }

    #[test]
    fn cache_reads_and_writes_count_as_input() {
        let mut usage = AnthropicUsage::default();
        usage.merge(&json!({"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000, "output_tokens": 1}));
        usage.merge(&json!({"output_tokens": 50}));
        assert_eq!(
            usage.normalised(),
            Some(TokenUsage {
                input_tokens: Some(3210),
                cached_input_tokens: Some(3000),
                output_tokens: Some(50),
                reasoning_output_tokens: None,
                total_tokens: None,
            })
        );
        assert_eq!(AnthropicUsage::default().normalised(), None);
    }
}
