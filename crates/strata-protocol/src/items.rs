//! The model-visible history: an ordered list of [`ResponseItem`]s.
//!
//! The system prompt is the history's leading system message, recorded like any
//! other item; each provider lifts it into its own `instructions`/`system`
//! field when it renders a request.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::ItemId;
use crate::usage::TokenUsage;

/// One item of the history the model sees.
// Serialized with its `type` first; read by hand (`items_de.rs`), so an
// item whose `type` comes first is read in one pass.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseItem {
    Message(Message),
    FunctionCall(FunctionCall),
    FunctionCallOutput(FunctionCallOutput),
    CompactionSummary(CompactionSummary),
    /// A provider's reasoning item, kept opaque so it can be sent back as is.
    Reasoning(ReasoningItem),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    Developer,
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Message {
    pub id: ItemId,
    pub role: Role,
    pub content: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FunctionCall {
    pub id: ItemId,
    /// The provider's id pairing this call with its output.
    pub call_id: String,
    pub name: String,
    /// The arguments as the model wrote them (a JSON object, as text).
    pub arguments: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FunctionCallOutput {
    pub id: ItemId,
    pub call_id: String,
    pub output: String,
}

/// The summary that replaces compacted history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactionSummary {
    pub id: ItemId,
    pub summary: String,
    pub metadata: CompactionMetadata,
}

/// How every provider introduces a compaction summary to the model: it is
/// sent as a user-role message whose text starts with this prefix, so the
/// model knows it reads a digest of earlier work, not a new request.
pub const COMPACTION_SUMMARY_PREFIX: &str = "[Summary of earlier work] The earlier part of this conversation was compacted; this summary replaces it:\n\n";

impl CompactionSummary {
    /// The user-role message text a provider sends for this summary.
    pub fn model_text(&self) -> String {
        format!("{COMPACTION_SUMMARY_PREFIX}{}", self.summary)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ReasoningItem {
    pub id: ItemId,
    /// Which provider kind produced it (`openai-responses`, `anthropic`, ...).
    pub provider: String,
    /// The provider's own item, verbatim.
    pub payload: serde_json::Value,
}

/// What caused a compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CompactionTrigger {
    /// Reported usage reached the threshold at a round boundary.
    Auto,
    /// A person asked for it (`/compact`, `strata compact`).
    Manual,
    /// The provider rejected a round because the context was too long.
    ContextOverflow,
    /// Before a new user message was sent: the last usage plus the estimate
    /// of what was added would cross the threshold.
    PreTurn,
    /// The session moved to a model whose threshold the history exceeds.
    ModelSwitch,
}

/// Everything the debug console shows about one compaction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactionMetadata {
    pub trigger: CompactionTrigger,
    pub reason: String,
    /// The reported `context_tokens` that triggered it (none for a manual
    /// compaction before any round reported usage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u64>,
    /// Items in the history before and not after.
    pub removed: u32,
    /// Items in the history both before and after.
    pub kept: u32,
    pub summarizer_model: String,
    /// Boxed: most items are not summaries, and every item is as large as
    /// the largest kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarizer_usage: Option<Box<TokenUsage>>,
    /// What the summary call cost, at the price the session used then
    /// (absent without a price, and in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summarizer_cost: Option<crate::Cost>,
    pub duration_ms: u64,
}

impl ResponseItem {
    pub fn id(&self) -> ItemId {
        match self {
            ResponseItem::Message(m) => m.id,
            ResponseItem::FunctionCall(c) => c.id,
            ResponseItem::FunctionCallOutput(o) => o.id,
            ResponseItem::CompactionSummary(s) => s.id,
            ResponseItem::Reasoning(r) => r.id,
        }
    }

    /// A message with a fresh id.
    pub fn message(role: Role, content: impl Into<String>) -> Self {
        ResponseItem::Message(Message {
            id: ItemId::new(),
            role,
            content: content.into(),
        })
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::message(Role::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::message(Role::Assistant, content)
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self::message(Role::System, content)
    }

    pub fn function_call(
        call_id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ResponseItem::FunctionCall(FunctionCall {
            id: ItemId::new(),
            call_id: call_id.into(),
            name: name.into(),
            arguments: arguments.into(),
        })
    }

    pub fn function_call_output(call_id: impl Into<String>, output: impl Into<String>) -> Self {
        ResponseItem::FunctionCallOutput(FunctionCallOutput {
            id: ItemId::new(),
            call_id: call_id.into(),
            output: output.into(),
        })
    }

    /// The role when this item is a message.
    pub fn role(&self) -> Option<Role> {
        match self {
            ResponseItem::Message(m) => Some(m.role),
            ResponseItem::FunctionCall(_)
            | ResponseItem::FunctionCallOutput(_)
            | ResponseItem::CompactionSummary(_)
            | ResponseItem::Reasoning(_) => None,
        }
    }

    pub fn is_message_with_role(&self, role: Role) -> bool {
        self.role() == Some(role)
    }

    /// Assistant output or tool traffic: what makes a history worth compacting.
    pub fn is_assistant_or_tool(&self) -> bool {
        match self {
            ResponseItem::Message(m) => m.role == Role::Assistant,
            ResponseItem::FunctionCall(_)
            | ResponseItem::FunctionCallOutput(_)
            | ResponseItem::Reasoning(_) => true,
            ResponseItem::CompactionSummary(_) => false,
        }
    }

    /// The `call_id` of a function call or its output.
    pub fn call_id(&self) -> Option<&str> {
        match self {
            ResponseItem::FunctionCall(c) => Some(&c.call_id),
            ResponseItem::FunctionCallOutput(o) => Some(&o.call_id),
            ResponseItem::Message(_)
            | ResponseItem::CompactionSummary(_)
            | ResponseItem::Reasoning(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_serialize_with_a_snake_case_type_tag() {
        let item = ResponseItem::function_call("call_1", "read_file", r#"{"path":"a.txt"}"#);
        let value = serde_json::to_value(&item).unwrap();
        assert_eq!(value["type"], "function_call");
        assert_eq!(value["call_id"], "call_1");
        let back: ResponseItem = serde_json::from_value(value).unwrap();
        assert_eq!(back, item);
    }

    #[test]
    fn a_summary_is_shown_to_models_behind_the_shared_prefix() {
        let summary = CompactionSummary {
            id: ItemId::new(),
            summary: "Parser done.".into(),
            metadata: CompactionMetadata {
                trigger: CompactionTrigger::Manual,
                reason: "asked".into(),
                context_tokens: None,
                threshold: None,
                removed: 3,
                kept: 0,
                summarizer_model: "m".into(),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: 1,
            },
        };
        let text = summary.model_text();
        assert!(text.starts_with(COMPACTION_SUMMARY_PREFIX));
        assert!(text.ends_with("Parser done."));
        assert!(COMPACTION_SUMMARY_PREFIX.contains("earlier work"));
    }

    #[test]
    fn a_summary_round_trips_with_its_metadata() {
        let item = ResponseItem::CompactionSummary(CompactionSummary {
            id: ItemId::new(),
            summary: "The user wants a parser.".into(),
            metadata: CompactionMetadata {
                trigger: CompactionTrigger::Auto,
                reason: "Reported token usage 9000 reached the compaction threshold 8000".into(),
                context_tokens: Some(9000),
                threshold: Some(8000),
                removed: 5,
                kept: 2,
                summarizer_model: "gpt-5.4".into(),
                summarizer_usage: Some(Box::new(TokenUsage {
                    input_tokens: Some(900),
                    ..TokenUsage::default()
                })),
                summarizer_cost: None,
                duration_ms: 1200,
            },
        });
        let json = serde_json::to_string(&item).unwrap();
        assert!(json.contains(r#""type":"compaction_summary""#));
        assert!(json.contains(r#""trigger":"auto""#));
        assert_eq!(serde_json::from_str::<ResponseItem>(&json).unwrap(), item);
    }
}
