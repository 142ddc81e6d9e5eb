//! Parsing a non-streaming Responses API body.

use serde_json::Value;
use strata_protocol::{ModelError, ModelResponse, ResponseItem, StopReason};

use super::PROVIDER;
use super::stream::{failure, incomplete_reason, message_text, parse_usage};
use crate::wire::{arguments_or_empty_object, array_field, reasoning_item, str_field};

pub(crate) fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
    if str_field(body, "status") == Some("failed") {
        return Err(failure(body));
    }
    let mut items = Vec::new();
    let mut has_call = false;
    for item in array_field(body, "output") {
        match str_field(item, "type") {
            Some("message") => items.push(ResponseItem::assistant(message_text(item))),
            Some("function_call") => {
                has_call = true;
                items.push(ResponseItem::function_call(
                    str_field(item, "call_id").unwrap_or_default(),
                    str_field(item, "name").unwrap_or_default(),
                    arguments_or_empty_object(str_field(item, "arguments").unwrap_or_default()),
                ));
            }
            Some("reasoning") => items.push(reasoning_item(PROVIDER, item.clone())),
            other => tracing::debug!(item_type = ?other, "ignoring an unknown output item"),
        }
    }
    let stop_reason = if str_field(body, "status") == Some("incomplete") {
        incomplete_reason(body)
    } else if has_call {
        StopReason::ToolUse
    } else {
        StopReason::EndTurn
    };
    Ok(ModelResponse {
        model: str_field(body, "model").unwrap_or(model).to_string(),
        items,
        usage: body.get("usage").and_then(parse_usage),
        stop_reason,
    })
}
