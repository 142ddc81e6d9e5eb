//! Parsing a non-streaming Messages API body.

use serde_json::Value;
use strata_protocol::{ItemId, ModelError, ModelResponse, ReasoningItem, ResponseItem, StopReason};

use super::PROVIDER;
use super::stream::{AnthropicUsage, stop_reason};
use crate::classify::{ErrorDetails, classify_stream_error};
use crate::wire::str_field;

pub(crate) fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
    if str_field(body, "type") == Some("error") {
        return Err(classify_stream_error(&ErrorDetails::from_value(body), None));
    }
    let mut items = Vec::new();
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for block in blocks {
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
                items.push(ResponseItem::Reasoning(ReasoningItem {
                    id: ItemId::new(),
                    provider: PROVIDER.to_string(),
                    payload: block.clone(),
                }));
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
