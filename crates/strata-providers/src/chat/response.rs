//! Parsing a non-streaming Chat Completions body.

use serde::Deserialize;
use serde_json::Value;
use strata_protocol::{ModelError, ModelResponse, ResponseItem};

use super::events::Completion;
use crate::classify::classify_error_value;
use crate::wire::{arguments_or_empty_object, malformed_body};

pub(crate) fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
    let completion = Completion::deserialize(body).map_err(|error| malformed_body(&error))?;
    if completion.has_error() {
        return Err(classify_error_value(body));
    }
    let choice = completion
        .choices
        .first()
        .ok_or_else(|| ModelError::Transient {
            message: "the provider's response has no choices".to_string(),
        })?;
    let message = choice.message.as_ref();
    let mut items = Vec::new();
    if let Some(text) = message
        .and_then(|m| m.content.as_deref())
        .filter(|t| !t.is_empty())
    {
        items.push(ResponseItem::assistant(text));
    }
    let calls = message
        .and_then(|m| m.tool_calls.as_deref())
        .unwrap_or_default();
    for call in calls {
        let function = call.function.as_ref();
        items.push(ResponseItem::function_call(
            call.id.clone().unwrap_or_default(),
            function.and_then(|f| f.name.clone()).unwrap_or_default(),
            arguments_or_empty_object(
                function
                    .and_then(|f| f.arguments.as_deref())
                    .unwrap_or_default(),
            ),
        ));
    }
    let stop_reason =
        super::stream::stop_reason(choice.finish_reason.as_deref(), !calls.is_empty());
    Ok(ModelResponse {
        model: completion
            .model
            .clone()
            .unwrap_or_else(|| model.to_string()),
        items,
        usage: completion.usage().map(|usage| usage.tokens()),
        stop_reason,
    })
}
