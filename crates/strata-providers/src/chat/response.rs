//! Parsing a non-streaming Chat Completions body.

use serde_json::Value;
use strata_protocol::{ModelError, ModelResponse, ResponseItem};

use super::stream::parse_usage;
use crate::classify::classify_error_value;
use crate::wire::{arguments_or_empty_object, array_field, str_field};

pub(crate) fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
    if body.get("error").is_some_and(|e| !e.is_null()) {
        return Err(classify_error_value(body));
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
    let calls = array_field(message, "tool_calls");
    for call in calls {
        let function = call.get("function").unwrap_or(&empty);
        items.push(ResponseItem::function_call(
            str_field(call, "id").unwrap_or_default(),
            str_field(function, "name").unwrap_or_default(),
            arguments_or_empty_object(str_field(function, "arguments").unwrap_or_default()),
        ));
    }
    let stop_reason =
        super::stream::stop_reason(str_field(choice, "finish_reason"), !calls.is_empty());
    Ok(ModelResponse {
        model: str_field(body, "model").unwrap_or(model).to_string(),
        items,
        usage: body.get("usage").and_then(parse_usage),
        stop_reason,
    })
}
