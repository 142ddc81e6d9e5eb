//! Parsing a non-streaming Messages API body.

use serde::Deserialize;
use serde_json::Value;
use strata_protocol::{ModelError, ModelResponse, ResponseItem, StopReason};

use super::PROVIDER;
use super::events::{ContentBlock, Message};
use super::stream::{AnthropicUsage, stop_reason};
use crate::classify::classify_error_value;
use crate::wire::{malformed_body, reasoning_item};

pub(crate) fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
    let message = Message::deserialize(body).map_err(|error| malformed_body(&error))?;
    if message.kind.as_deref() == Some("error") {
        return Err(classify_error_value(body));
    }
    let mut items = Vec::new();
    for raw in &message.content {
        match ContentBlock::parse(raw)? {
            ContentBlock::Text { text } => {
                items.push(ResponseItem::assistant(text.unwrap_or_default()));
            }
            ContentBlock::ToolUse { id, name, input } => {
                let input = input.unwrap_or_else(|| Value::Object(serde_json::Map::new()));
                items.push(ResponseItem::function_call(
                    id.unwrap_or_default(),
                    name.unwrap_or_default(),
                    input.to_string(),
                ));
            }
            ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking => {
                items.push(reasoning_item(PROVIDER, raw.clone()));
            }
            ContentBlock::Unknown => tracing::debug!("ignoring an unknown content block"),
        }
    }
    let mut usage = AnthropicUsage::default();
    if let Some(reported) = &message.usage {
        usage.merge(reported);
    }
    Ok(ModelResponse {
        model: message.model.clone().unwrap_or_else(|| model.to_string()),
        items,
        usage: usage.normalised(),
        stop_reason: message
            .stop_reason
            .as_deref()
            .map(stop_reason)
            .unwrap_or(StopReason::EndTurn),
    })
}
