//! What the three request renderers share: where to send, the leading system
//! message, and tool arguments as JSON.

use serde_json::Value;
use strata_protocol::{ModelRequest, ResponseItem, Role, ToolChoice, ToolSpec};

use crate::secret::ApiKey;

/// Where a provider lives and how to authenticate there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// Includes the version segment (`https://api.openai.com/v1`,
    /// `https://api.anthropic.com/v1`); paths like `/responses` are appended.
    pub base_url: String,
    /// `None` for local servers that need no key.
    pub api_key: Option<ApiKey>,
}

impl Endpoint {
    pub fn new(base_url: impl Into<String>, api_key: Option<ApiKey>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url.trim_end_matches('/'))
    }

    /// The key, unless it is blank.
    pub(crate) fn key(&self) -> Option<&ApiKey> {
        self.api_key.as_ref().filter(|key| !key.is_empty())
    }
}

/// Splits off the history's leading system message, which every provider
/// lifts into its own field.
pub(crate) fn split_system(items: &[ResponseItem]) -> (Option<&str>, &[ResponseItem]) {
    match items.split_first() {
        Some((ResponseItem::Message(m), rest)) if m.role == Role::System => {
            (Some(m.content.as_str()), rest)
        }
        _ => (None, items),
    }
}

/// The request's tools and tool choice, each in the provider's shape. No
/// choice without tools: the APIs reject a `tool_choice` without tools.
pub(crate) fn tools_and_choice<'a, T, C>(
    request: &'a ModelRequest,
    tool: impl Fn(&'a ToolSpec) -> T,
    choice: impl Fn(&'a ToolChoice) -> C,
) -> (Vec<T>, Option<C>) {
    let tools: Vec<T> = request.tools.iter().map(tool).collect();
    let choice = request
        .tool_choice
        .as_ref()
        .filter(|_| !tools.is_empty())
        .map(choice);
    (tools, choice)
}

/// A function call's arguments as a JSON value, for APIs that want an object
/// (Anthropic's `input`). Arguments that are not a JSON object (only a call
/// cut short could have them, and those are never executed) become `{}`.
pub(crate) fn arguments_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(value @ Value::Object(_)) => value,
        _ => {
            tracing::debug!("function call arguments are not a JSON object; sending {{}}");
            Value::Object(serde_json::Map::new())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_leading_system_message_is_lifted() {
        let items = vec![ResponseItem::system("be brief"), ResponseItem::user("hi")];
        let (system, rest) = split_system(&items);
        assert_eq!(system, Some("be brief"));
        assert_eq!(rest.len(), 1);
        let items = vec![ResponseItem::user("hi"), ResponseItem::system("late")];
        assert_eq!(split_system(&items).0, None);
    }

    #[test]
    fn urls_join_without_doubled_slashes() {
        let endpoint = Endpoint::new("http://127.0.0.1:9/v1/", None);
        assert_eq!(
            endpoint.url("/responses"),
            "http://127.0.0.1:9/v1/responses"
        );
    }

    #[test]
    fn blank_keys_are_treated_as_absent() {
        let endpoint = Endpoint::new("x", Some(ApiKey::new("  ")));
        assert!(endpoint.key().is_none());
    }
}
