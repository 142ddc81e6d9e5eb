//! Parsing a non-streaming Messages API body.

use serde_json::Value;
use strata_protocol::{ModelError, ModelResponse, ResponseItem, StopReason};

use super::PROVIDER;
use super::stream::{AnthropicUsage, stop_reason};
use crate::classify::classify_error_value;
use crate::wire::{array_field, reasoning_item, str_field};

pub(crate) fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
    if str_field(body, "type") == Some("error") {
        return Err(classify_error_value(body));
    }
    let mut items = Vec::new();
    for block in array_field(body, "content") {
        match str_field(block, "type") {
            Some("text") => {
                items.push(ResponseItem::assistant(
                    str_field(block, "text").unwrap_or_default(),
                ));
            }
            Some("tool_use") => {
                let input = block
                    .get("input")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
                items.push(ResponseItem::function_call(
                    str_field(block, "id").unwrap_or_default(),
                    str_field(block, "name").unwrap_or_default(),
                    input.to_string(),
                ));
            }
            Some("thinking" | "redacted_thinking") => {
                items.push(reasoning_item(PROVIDER, block.clone()));
            }
            other => tracing::debug!(block_type = ?other, "ignoring an unknown content block"),
        }
    }
    let mut usage = AnthropicUsage::default();
    if let Some(reported) = body.get("usage") {
        usage.merge(reported);
    }
    Ok(ModelResponse {
        model: str_field(body, "model").unwrap_or(model).to_string(),
        items,
        usage: usage.normalised(),
        stop_reason: str_field(body, "stop_reason")
            .map(stop_reason)
            .unwrap_or(StopReason::EndTurn),
    })
}
