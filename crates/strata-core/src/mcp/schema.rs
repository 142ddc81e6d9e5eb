//! Fitting an MCP tool's `inputSchema` to what each provider accepts.
//!
//! The schema is the server's JSON, passed through to the provider, so it
//! stays a `serde_json::Value`; only its top level is judged here. Anthropic
//! refuses a top-level `anyOf`/`oneOf`/`allOf`; OpenAI wants `type: object`.
//! A schema that cannot be fitted quarantines its tool: it is not offered,
//! and the reason is shown to the person.

use serde_json::{Map, Value};

/// The schema rules of a provider family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaDialect {
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI Responses and chat-completions compatible servers.
    OpenAi,
}

/// Why a tool's schema cannot be offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quarantine {
    /// The schema is not a JSON object.
    NotAnObject,
    /// The top-level `type` is not `object`.
    TopLevelType(String),
    /// The top level combines schemas with this keyword.
    TopLevelCombinator(&'static str),
}

impl std::fmt::Display for Quarantine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotAnObject => write!(f, "its input schema is not a JSON object"),
            Self::TopLevelType(kind) => {
                write!(
                    f,
                    "its input schema's top-level type is {kind:?}, not \"object\""
                )
            }
            Self::TopLevelCombinator(keyword) => {
                write!(
                    f,
                    "its input schema uses a top-level {keyword}, which the provider refuses"
                )
            }
        }
    }
}

const COMBINATORS: [&str; 3] = ["anyOf", "oneOf", "allOf"];

/// The schema to send for `dialect`, or why the tool is quarantined.
///
/// A missing `type` becomes `object` and missing `properties` an empty object
/// (both mean the same to a JSON-Schema reader); nothing else is rewritten.
pub fn adapt(schema: &Value, dialect: SchemaDialect) -> Result<Value, Quarantine> {
    let Value::Object(top) = schema else {
        return Err(Quarantine::NotAnObject);
    };
    match top.get("type") {
        None => {}
        Some(Value::String(kind)) if kind == "object" => {}
        Some(Value::String(kind)) => return Err(Quarantine::TopLevelType(kind.clone())),
        Some(other) => return Err(Quarantine::TopLevelType(other.to_string())),
    }
    match dialect {
        SchemaDialect::Anthropic => {
            if let Some(keyword) = COMBINATORS.into_iter().find(|k| top.contains_key(*k)) {
                return Err(Quarantine::TopLevelCombinator(keyword));
            }
        }
        SchemaDialect::OpenAi => {}
    }
    let mut adapted: Map<String, Value> = top.clone();
    adapted
        .entry("type")
        .or_insert_with(|| Value::String("object".to_owned()));
    adapted
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    Ok(Value::Object(adapted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_untyped_schema_becomes_an_object_with_empty_properties() {
        let adapted = adapt(&json!({}), SchemaDialect::OpenAi);
        assert_eq!(adapted, Ok(json!({"type": "object", "properties": {}})));
    }

    #[test]
    fn anthropic_quarantines_a_top_level_any_of_that_openai_accepts() {
        let schema = json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]});
        assert_eq!(
            adapt(&schema, SchemaDialect::Anthropic),
            Err(Quarantine::TopLevelCombinator("anyOf"))
        );
        assert!(adapt(&schema, SchemaDialect::OpenAi).is_ok());
    }

    #[test]
    fn a_non_object_top_level_type_is_quarantined_for_every_provider() {
        for dialect in [SchemaDialect::Anthropic, SchemaDialect::OpenAi] {
            assert_eq!(
                adapt(&json!({"type": "string"}), dialect),
                Err(Quarantine::TopLevelType("string".to_owned()))
            );
            assert_eq!(adapt(&json!([1]), dialect), Err(Quarantine::NotAnObject));
        }
    }

    #[test]
    fn an_existing_schema_is_passed_through_unchanged() {
        let schema =
            json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]});
        assert_eq!(adapt(&schema, SchemaDialect::Anthropic), Ok(schema));
    }
}
