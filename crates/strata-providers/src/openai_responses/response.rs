//! Parsing a non-streaming Responses API body.

use serde::Deserialize;
use serde_json::Value;
use strata_protocol::{ModelError, ModelResponse, ResponseItem, StopReason};

use super::PROVIDER;
use super::events::{OutputItem, Response, message_text};
use super::stream::{failure, incomplete_reason};
use crate::wire::{arguments_or_empty_object, malformed_body, reasoning_item};

pub(crate) fn parse_response(body: &Value, model: &str) -> Result<ModelResponse, ModelError> {
    let response = Response::deserialize(body).map_err(|error| malformed_body(&error))?;
    if response.status.as_deref() == Some("failed") {
        return Err(failure(&response));
    }
    let mut items = Vec::new();
    let mut has_call = false;
    for raw in &response.output {
        match OutputItem::parse(raw)? {
            OutputItem::Message { content, .. } => {
                items.push(ResponseItem::assistant(message_text(&content)));
            }
            OutputItem::FunctionCall {
                call_id,
                name,
                arguments,
                ..
            } => {
                has_call = true;
                items.push(ResponseItem::function_call(
                    call_id.unwrap_or_default(),
                    name.unwrap_or_default(),
                    arguments_or_empty_object(arguments.as_deref().unwrap_or_default()),
                ));
            }
            OutputItem::Reasoning => items.push(reasoning_item(PROVIDER, raw.clone())),
            OutputItem::Unknown => tracing::debug!("ignoring an unknown output item"),
        }
    }
    let stop_reason = if response.status.as_deref() == Some("incomplete") {
        incomplete_reason(&response)
    } else if has_call {
        StopReason::ToolUse
    } else {
        StopReason::EndTurn
    };
    Ok(ModelResponse {
        model: response.model.clone().unwrap_or_else(|| model.to_string()),
        items,
        usage: response.usage.as_ref().map(|u| u.tokens()),
        stop_reason,
    })
}
