//! The Responses API's stream events, response body and output items as
//! serde types. Unknown event and item types and unknown fields are
//! tolerated; missing optional fields default (recorded streams omit
//! `item_id`, `usage` and whole `response` objects).

use serde::Deserialize;
use serde_json::Value;
use strata_protocol::{ModelError, TokenUsage};

/// One streamed event, by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum StreamEvent {
    #[serde(
        rename = "response.output_text.delta",
        alias = "response.refusal.delta"
    )]
    TextDelta {
        #[serde(default)]
        item_id: Option<String>,
        #[serde(default)]
        delta: Option<String>,
    },
    /// Readable reasoning as it streams: the summary the request asked for.
    #[serde(rename = "response.reasoning_summary_text.delta")]
    SummaryDelta {
        #[serde(default)]
        delta: Option<String>,
    },
    /// A new part of a reasoning summary; parts after the first are set
    /// apart by a blank line, as the item's text is.
    #[serde(rename = "response.reasoning_summary_part.added")]
    SummaryPart {
        #[serde(default)]
        summary_index: u64,
    },
    #[serde(rename = "response.output_item.added")]
    ItemAdded {
        #[serde(default)]
        item: Value,
    },
    #[serde(rename = "response.function_call_arguments.delta")]
    ArgumentsDelta {
        #[serde(default)]
        item_id: Option<String>,
        #[serde(default)]
        delta: Option<String>,
    },
    #[serde(rename = "response.output_item.done")]
    ItemDone {
        #[serde(default)]
        item: Value,
    },
    #[serde(rename = "response.completed")]
    Completed {
        #[serde(default)]
        response: Response,
    },
    #[serde(rename = "response.incomplete")]
    Incomplete {
        #[serde(default)]
        response: Response,
    },
    #[serde(rename = "response.failed")]
    Failed {
        #[serde(default)]
        response: Response,
    },
    /// Flat (`code`, `message`) or nested (`error: {...}`); classified from
    /// the raw event.
    #[serde(rename = "error")]
    Error,
    #[serde(
        rename = "response.created",
        alias = "response.in_progress",
        alias = "response.queued",
        alias = "response.content_part.added",
        alias = "response.content_part.done",
        alias = "response.output_text.done",
        alias = "response.refusal.done",
        alias = "response.output_text.annotation.added",
        alias = "response.function_call_arguments.done",
        alias = "response.reasoning_summary_part.done",
        alias = "response.reasoning_summary_text.done",
        alias = "response.reasoning_text.delta",
        alias = "response.reasoning_text.done"
    )]
    Progress,
    #[serde(other)]
    Unknown,
}

/// A response object: the body of a non-streaming answer, or the
/// `response` of a terminal event.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Response {
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    /// Items stay raw until [`OutputItem::parse`]: reasoning items are
    /// kept verbatim to be sent back.
    #[serde(default)]
    pub output: Vec<Value>,
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub incomplete_details: Option<IncompleteDetails>,
    #[serde(default)]
    pub error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct IncompleteDetails {
    #[serde(default)]
    pub reason: Option<String>,
}

/// Responses usage: `input_tokens` already includes cached ones and
/// `output_tokens` includes reasoning, as [`TokenUsage`] wants.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    input_tokens_details: Option<InputDetails>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    output_tokens_details: Option<OutputDetails>,
    #[serde(default)]
    total_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct InputDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct OutputDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

impl Usage {
    pub fn tokens(&self) -> TokenUsage {
        TokenUsage {
            input_tokens: self.input_tokens,
            cached_input_tokens: self
                .input_tokens_details
                .as_ref()
                .and_then(|d| d.cached_tokens),
            cache_write_input_tokens: None,
            cache_write_5m_input_tokens: None,
            cache_write_1h_input_tokens: None,
            output_tokens: self.output_tokens,
            reasoning_output_tokens: self
                .output_tokens_details
                .as_ref()
                .and_then(|d| d.reasoning_tokens),
            total_tokens: self.total_tokens,
        }
    }
}

/// One output item, by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum OutputItem {
    #[serde(rename = "message")]
    Message {
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        content: Vec<ContentPart>,
    },
    #[serde(rename = "function_call")]
    FunctionCall {
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        call_id: Option<String>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        arguments: Option<String>,
    },
    /// Kept raw by the caller and sent back verbatim.
    #[serde(rename = "reasoning")]
    Reasoning,
    #[serde(other)]
    Unknown,
}

/// A message's content part: `output_text` or `refusal`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ContentPart {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
}

impl OutputItem {
    /// Reads `value` as an item; an item without a `type` is unknown.
    pub fn parse(value: &Value) -> Result<Self, ModelError> {
        if value.get("type").is_none() {
            return Ok(OutputItem::Unknown);
        }
        OutputItem::deserialize(value).map_err(|error| ModelError::StreamInterrupted {
            message: format!("the provider sent a malformed output item ({error})"),
        })
    }
}

/// The text of a message's parts, joined.
pub(crate) fn message_text(content: &[ContentPart]) -> String {
    content
        .iter()
        .filter_map(|part| part.text.as_deref().or(part.refusal.as_deref()))
        .collect()
}
