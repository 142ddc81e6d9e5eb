//! Decoding a Messages API event stream.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};
use strata_protocol::{ModelError, ModelEvent, StopReason, TokenUsage};

use super::PROVIDER;
use super::events::{BlockDelta, ContentBlock, StreamEvent, Usage};
use crate::classify::classify_error_value;
use crate::limits::{push_arguments, push_reasoning};
use crate::sse::SseEvent;
use crate::wire::{
    Flow, StreamDecoder, arguments_or_empty_object, interrupted, malformed, parse_json,
    push_finish, reasoning_item,
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
    cache_creation_5m: Option<u64>,
    cache_creation_1h: Option<u64>,
    cache_read: Option<u64>,
    output: Option<u64>,
}

impl AnthropicUsage {
    pub fn merge(&mut self, usage: &Usage) {
        let split = usage.cache_creation.as_ref();
        let fields = [
            (&mut self.input, usage.input_tokens),
            (&mut self.cache_creation, usage.cache_creation_input_tokens),
            (&mut self.cache_read, usage.cache_read_input_tokens),
            (&mut self.output, usage.output_tokens),
            (
                &mut self.cache_creation_5m,
                split.and_then(|s| s.ephemeral_5m_input_tokens),
            ),
            (
                &mut self.cache_creation_1h,
                split.and_then(|s| s.ephemeral_1h_input_tokens),
            ),
        ];
        for (slot, value) in fields {
            if value.is_some() {
                *slot = value;
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
            cache_write_input_tokens: self.cache_creation,
            cache_write_5m_input_tokens: self.cache_creation_5m,
            cache_write_1h_input_tokens: self.cache_creation_1h,
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

    fn on_block_start(
        &mut self,
        index: u64,
        raw: &Value,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ModelError> {
        let state = match ContentBlock::parse(raw)? {
            ContentBlock::Text { text } => {
                if let Some(text) = text.filter(|t| !t.is_empty()) {
                    out.push(ModelEvent::TextDelta { delta: text });
                }
                Block::Text
            }
            ContentBlock::ToolUse { id, name, .. } => {
                let id = id.unwrap_or_default();
                let name = name.unwrap_or_default();
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
            ContentBlock::Thinking {
                thinking,
                signature,
            } => Block::Thinking {
                thinking: thinking.unwrap_or_default(),
                signature: signature.unwrap_or_default(),
            },
            ContentBlock::RedactedThinking => Block::Opaque(raw.clone()),
            ContentBlock::Unknown => {
                tracing::debug!("ignoring an unknown content block");
                Block::Ignored
            }
        };
        self.blocks.insert(index, state);
        Ok(())
    }

    fn on_block_delta(
        &mut self,
        index: u64,
        delta: BlockDelta,
        out: &mut Vec<ModelEvent>,
    ) -> Result<(), ModelError> {
        let Some(block) = self.blocks.get_mut(&index) else {
            tracing::debug!(index, "delta for a content block that never started");
            return Ok(());
        };
        match (block, delta) {
            (Block::Text, BlockDelta::Text { text }) => {
                if let Some(text) = text.filter(|t| !t.is_empty()) {
                    out.push(ModelEvent::TextDelta { delta: text });
                }
            }
            (Block::ToolUse { id, json, .. }, BlockDelta::InputJson { partial_json }) => {
                let part = partial_json.unwrap_or_default();
                if !part.is_empty() {
                    push_arguments(json, &part)?;
                    out.push(ModelEvent::ToolCallArgumentsDelta {
                        call_id: id.clone(),
                        delta: part,
                    });
                }
            }
            (Block::Thinking { thinking, .. }, BlockDelta::Thinking { thinking: part }) => {
                let part = part.unwrap_or_default();
                push_reasoning(thinking, &part)?;
                if !part.is_empty() {
                    out.push(ModelEvent::ReasoningDelta { delta: part });
                }
            }
            (Block::Thinking { signature, .. }, BlockDelta::Signature { signature: part }) => {
                push_reasoning(signature, part.as_deref().unwrap_or_default())?;
            }
            (_, other) => tracing::debug!(delta = ?other, "ignoring a content block delta"),
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
        let mut data = parse_json(event)?;
        // Some proxies name the event only in the SSE `event:` field.
        if let Value::Object(fields) = &mut data
            && !fields.contains_key("type")
        {
            fields.insert("type".into(), Value::String(event.event.clone()));
        }
        let parsed = StreamEvent::deserialize(&data).map_err(|error| malformed(event, &error))?;
        match parsed {
            StreamEvent::MessageStart { message } => {
                if let Some(usage) = &message.usage {
                    self.usage.merge(usage);
                }
            }
            StreamEvent::BlockStart {
                index,
                content_block,
            } => self.on_block_start(index, &content_block, out)?,
            StreamEvent::BlockDelta { index, delta } => self.on_block_delta(index, delta, out)?,
            StreamEvent::BlockStop { index } => self.on_block_stop(index, out),
            StreamEvent::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.stop_reason {
                    self.stop_reason = Some(reason);
                }
                if let Some(usage) = &usage {
                    self.usage.merge(usage);
                }
            }
            StreamEvent::MessageStop => {
                self.finish(out);
                return Ok(Flow::Done);
            }
            StreamEvent::Ping => {}
            StreamEvent::Error => return Err(classify_error_value(&data)),
            StreamEvent::Unknown => {
                tracing::debug!(event = %event.event, "ignoring an unknown Messages event");
            }
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
        // The thinking streams as it comes, then the whole block follows.
        assert_eq!(
            events[0],
            ModelEvent::ReasoningDelta {
                delta: "Let me think".into()
            }
        );
        match &events[1] {
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
        let parse = |value| serde_json::from_value::<Usage>(value).unwrap();
        usage.merge(&parse(json!({"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000, "output_tokens": 1})));
        usage.merge(&parse(json!({"output_tokens": 50})));
        assert_eq!(
            usage.normalised(),
            Some(TokenUsage {
                input_tokens: Some(3210),
                cached_input_tokens: Some(3000),
                cache_write_input_tokens: Some(200),
                cache_write_5m_input_tokens: None,
                cache_write_1h_input_tokens: None,
                output_tokens: Some(50),
                reasoning_output_tokens: None,
                total_tokens: None,
            })
        );
        assert_eq!(AnthropicUsage::default().normalised(), None);
    }

    #[test]
    fn cache_writes_keep_their_ttl_split() {
        let mut usage = AnthropicUsage::default();
        let parse = |value| serde_json::from_value::<Usage>(value).unwrap();
        usage.merge(&parse(json!({
            "input_tokens": 4,
            "cache_creation_input_tokens": 1500,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1500},
            "output_tokens": 1,
        })));
        usage.merge(&parse(json!({"output_tokens": 9})));
        let usage = usage.normalised().unwrap();
        assert_eq!(usage.input_tokens, Some(1504));
        assert_eq!(usage.cached_input_tokens, Some(0));
        assert_eq!(usage.cache_write_input_tokens, Some(1500));
        assert_eq!(usage.cache_write_5m_input_tokens, Some(0));
        assert_eq!(usage.cache_write_1h_input_tokens, Some(1500));
        assert_eq!(usage.output_tokens, Some(9));
    }
}
