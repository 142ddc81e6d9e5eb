//! The Messages API's stream events, message body and content blocks as
//! serde types. Unknown event, block and delta types and unknown fields are
//! tolerated; missing optional fields default (usage comes in parts, a
//! block's `index` may be absent when it is 0).

use serde::Deserialize;
use serde_json::Value;
use strata_protocol::ModelError;

/// One streamed event, by its `type`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum StreamEvent {
    #[serde(rename = "message_start")]
    MessageStart {
        #[serde(default)]
        message: MessageStart,
    },
    #[serde(rename = "content_block_start")]
    BlockStart {
        #[serde(default)]
        index: u64,
        /// Raw: redacted thinking is sent back verbatim.
        #[serde(default)]
        content_block: Value,
    },
    #[serde(rename = "content_block_delta")]
    BlockDelta {
        #[serde(default)]
        index: u64,
        #[serde(default)]
        delta: BlockDelta,
    },
    #[serde(rename = "content_block_stop")]
    BlockStop {
        #[serde(default)]
        index: u64,
    },
    #[serde(rename = "message_delta")]
    MessageDelta {
        #[serde(default)]
        delta: MessageDeltaBody,
        #[serde(default)]
        usage: Option<Usage>,
    },
    #[serde(rename = "message_stop")]
    MessageStop,
    #[serde(rename = "ping")]
    Ping,
    /// Classified from the raw event.
    #[serde(rename = "error")]
    Error,
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct MessageStart {
    #[serde(default)]
    pub usage: Option<Usage>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct MessageDeltaBody {
    #[serde(default)]
    pub stop_reason: Option<String>,
}

/// Usage as Anthropic reports it; each event carries some of the figures.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Usage {
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// The cache writes split by TTL, where the API reports it.
    #[serde(default)]
    pub cache_creation: Option<CacheCreation>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
}

/// `usage.cache_creation`: `cache_creation_input_tokens` by TTL.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CacheCreation {
    #[serde(default)]
    pub ephemeral_5m_input_tokens: Option<u64>,
    #[serde(default)]
    pub ephemeral_1h_input_tokens: Option<u64>,
}

/// A content block as it starts (streamed) or as it is (whole body).
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum ContentBlock {
    #[serde(rename = "text")]
    Text {
        #[serde(default)]
        text: Option<String>,
    },
    #[serde(rename = "tool_use")]
    ToolUse {
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        input: Option<Value>,
    },
    #[serde(rename = "thinking")]
    Thinking {
        #[serde(default)]
        thinking: Option<String>,
        #[serde(default)]
        signature: Option<String>,
    },
    /// Kept raw by the caller and sent back verbatim.
    #[serde(rename = "redacted_thinking")]
    RedactedThinking,
    #[serde(other)]
    Unknown,
}

impl ContentBlock {
    /// Reads `value` as a block; a block without a `type` is unknown.
    pub fn parse(value: &Value) -> Result<Self, ModelError> {
        if value.get("type").is_none() {
            return Ok(ContentBlock::Unknown);
        }
        ContentBlock::deserialize(value).map_err(|error| ModelError::StreamInterrupted {
            message: format!("the provider sent a malformed content block ({error})"),
        })
    }
}

/// One `content_block_delta`'s delta, by its `type`.
#[derive(Debug, Default, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum BlockDelta {
    #[serde(rename = "text_delta")]
    Text {
        #[serde(default)]
        text: Option<String>,
    },
    #[serde(rename = "input_json_delta")]
    InputJson {
        #[serde(default)]
        partial_json: Option<String>,
    },
    #[serde(rename = "thinking_delta")]
    Thinking {
        #[serde(default)]
        thinking: Option<String>,
    },
    #[serde(rename = "signature_delta")]
    Signature {
        #[serde(default)]
        signature: Option<String>,
    },
    #[default]
    #[serde(other)]
    Unknown,
}

/// A whole (non-streaming) response body.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Message {
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub content: Vec<Value>,
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub stop_reason: Option<String>,
}
