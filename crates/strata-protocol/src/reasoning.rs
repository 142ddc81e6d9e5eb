//! How hard a model is asked to think, and the text of its thinking a
//! person may read.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::items::ReasoningItem;

/// The reasoning setting of a profile or a session. Each provider turns it
/// into its own form (OpenAI's effort, Anthropic's thinking budget) for the
/// models that reason; for the others it is not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningEffort {
    Off,
    Low,
    Medium,
    High,
    Max,
}

impl ReasoningEffort {
    /// Every setting, from the least thinking to the most.
    pub const ALL: [ReasoningEffort; 5] = [
        ReasoningEffort::Off,
        ReasoningEffort::Low,
        ReasoningEffort::Medium,
        ReasoningEffort::High,
        ReasoningEffort::Max,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningEffort::Off => "off",
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
            ReasoningEffort::Max => "max",
        }
    }
}

impl fmt::Display for ReasoningEffort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of `off|low|medium|high|max`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown reasoning setting {0:?}: expected off, low, medium, high or max")]
pub struct UnknownReasoningEffort(pub String);

impl FromStr for ReasoningEffort {
    type Err = UnknownReasoningEffort;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ReasoningEffort::ALL
            .into_iter()
            .find(|effort| effort.as_str() == text)
            .ok_or_else(|| UnknownReasoningEffort(text.to_owned()))
    }
}

/// `reasoning_set` record: the session's reasoning setting from here on
/// (the last one wins; before the first, the profile's applies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ReasoningSet {
    pub effort: ReasoningEffort,
}

/// The readable part of a provider's reasoning item, by its own `type`:
/// Anthropic's `thinking` text, an OpenAI Responses `reasoning` item's
/// summary, a Chat Completions server's `reasoning_content`. Redacted
/// thinking and encrypted-only items have none.
#[derive(Deserialize)]
#[serde(tag = "type")]
enum Readable {
    #[serde(rename = "thinking")]
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    #[serde(rename = "reasoning")]
    Summary {
        #[serde(default)]
        summary: Vec<SummaryPart>,
    },
    #[serde(rename = "reasoning_content")]
    Content {
        #[serde(default)]
        text: String,
    },
    #[serde(other)]
    Opaque,
}

#[derive(Deserialize)]
struct SummaryPart {
    #[serde(default)]
    text: String,
}

impl ReasoningItem {
    /// What a person can read of this reasoning; `None` when nothing (a
    /// redacted or encrypted-only item, empty text).
    pub fn readable_text(&self) -> Option<String> {
        let text = match Readable::deserialize(&self.payload).ok()? {
            Readable::Thinking { thinking } => thinking,
            Readable::Content { text } => text,
            Readable::Summary { summary } => summary
                .into_iter()
                .map(|part| part.text)
                .filter(|text| !text.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n"),
            Readable::Opaque => String::new(),
        };
        (!text.trim().is_empty()).then_some(text)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ids::ItemId;

    fn item(payload: serde_json::Value) -> ReasoningItem {
        ReasoningItem {
            id: ItemId::new(),
            provider: "p".into(),
            payload,
        }
    }

    #[test]
    fn settings_read_back_from_their_names_and_nothing_else() {
        for effort in ReasoningEffort::ALL {
            assert_eq!(effort.as_str().parse::<ReasoningEffort>(), Ok(effort));
            assert_eq!(
                serde_json::to_value(effort).unwrap(),
                json!(effort.as_str())
            );
        }
        assert!("minimal".parse::<ReasoningEffort>().is_err());
        assert!("High".parse::<ReasoningEffort>().is_err());
    }

    #[test]
    fn each_providers_reasoning_shows_its_own_text() {
        let thinking =
            item(json!({"type": "thinking", "thinking": "Let me see.", "signature": "s"}));
        assert_eq!(thinking.readable_text().as_deref(), Some("Let me see."));
        let summary = item(json!({"type": "reasoning", "id": "rs_1", "summary": [
            {"type": "summary_text", "text": "First."},
            {"type": "summary_text", "text": "Second."}
        ], "encrypted_content": "x"}));
        assert_eq!(
            summary.readable_text().as_deref(),
            Some("First.\n\nSecond.")
        );
        let content = item(json!({"type": "reasoning_content", "text": "Hmm."}));
        assert_eq!(content.readable_text().as_deref(), Some("Hmm."));
    }

    #[test]
    fn redacted_encrypted_and_empty_reasoning_show_nothing() {
        for payload in [
            json!({"type": "redacted_thinking", "data": "opaque"}),
            json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "x"}),
            json!({"type": "thinking", "thinking": "  ", "signature": "s"}),
            json!({"no_type": true}),
            json!("text"),
        ] {
            assert_eq!(item(payload.clone()).readable_text(), None, "{payload}");
        }
    }
}
