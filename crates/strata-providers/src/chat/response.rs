//! Parsing a non-streaming Chat Completions body.

use serde_json::Value;
use strata_protocol::{ModelError, ModelResponse, ResponseItem, StopReason};

use super::stream::parse_usage;
use crate::classify::{ErrorDetails, classify_stream_error};
use crate::wire::{arguments_or_empty_object, str_field};

pub(crate) fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
    if body.get("error").is_some_and(|e| !e.is_null()) {
        return Err(classify_stream_error(&ErrorDetails::from_value(body), None));
    }
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .ok_or_else(|| ModelError::Transient {
            message: "the provider's response has no choices".to_string(),
        })?;
    let empty = Value::Null;
    let message = choice.get("message").unwrap_or(&empty);
    let mut items = Vec::new();
    if let Some(text) = str_field(message, "content").filter(|t| !t.is_empty()) {
        items.push(ResponseItem::assistant(text));
    }
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for call in calls {
        let function = call.get("function").unwrap_or(&empty);
        items.push(ResponseItem::function_call(
            str_field(call, "id").unwrap_or_default(),
            str_field(function, "name").unwrap_or_default(),
            arguments_or_empty_object(str_field(function, "arguments").unwrap_or_default()),
        ));
    }
    let stop_reason = match str_field(choice, "finish_reason") {
        Some("tool_calls" | "function_call") => StopReason::ToolUse,
        Some("stop") | None if !calls.is_empty() => StopReason::ToolUse,
        Some("stop") | None => StopReason::EndTurn,
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::ContentFilter,
        Some(other) => StopReason::Other(other.to_string()),
    };
    Ok(ModelResponse {
        model: str_field(body, "model").unwrap_or(model).to_string(),
        items,
        usage: body.get("usage").and_then(parse_usage),
        stop_reason,
    })
}
