//! Reading a [`ResponseItem`]. Serde's derived reader for an internally
//! tagged enum buffers every item into an intermediate tree before it
//! knows the variant, which the replay profile showed as the largest cost
//! of reading a session (a third of it). Strata writes `type` first, so
//! this reader takes the variant from the first field and reads the rest
//! of the object straight into it; an item whose `type` comes later goes
//! through the derived reader, as before.

use serde::de::value::MapAccessDeserializer;
use serde::de::{Error as _, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::items::{
    CompactionSummary, FunctionCall, FunctionCallOutput, Message, ReasoningItem, ResponseItem,
};

/// The variants' `type` names.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Message,
    FunctionCall,
    FunctionCallOutput,
    CompactionSummary,
    Reasoning,
}

/// The derived reader, for an item whose `type` is not its first field.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Tagged {
    Message(Message),
    FunctionCall(FunctionCall),
    FunctionCallOutput(FunctionCallOutput),
    CompactionSummary(CompactionSummary),
    Reasoning(ReasoningItem),
}

impl From<Tagged> for ResponseItem {
    fn from(tagged: Tagged) -> Self {
        match tagged {
            Tagged::Message(item) => Self::Message(item),
            Tagged::FunctionCall(item) => Self::FunctionCall(item),
            Tagged::FunctionCallOutput(item) => Self::FunctionCallOutput(item),
            Tagged::CompactionSummary(item) => Self::CompactionSummary(item),
            Tagged::Reasoning(item) => Self::Reasoning(item),
        }
    }
}

impl<'de> Deserialize<'de> for ResponseItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = ResponseItem;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a history item (an object with a `type`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ResponseItem, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Err(A::Error::missing_field("type"));
        };
        if first == "type" {
            let kind: Kind = map.next_value()?;
            let rest = MapAccessDeserializer::new(map);
            return Ok(match kind {
                Kind::Message => ResponseItem::Message(Message::deserialize(rest)?),
                Kind::FunctionCall => ResponseItem::FunctionCall(FunctionCall::deserialize(rest)?),
                Kind::FunctionCallOutput => {
                    ResponseItem::FunctionCallOutput(FunctionCallOutput::deserialize(rest)?)
                }
                Kind::CompactionSummary => {
                    ResponseItem::CompactionSummary(CompactionSummary::deserialize(rest)?)
                }
                Kind::Reasoning => ResponseItem::Reasoning(ReasoningItem::deserialize(rest)?),
            });
        }
        // `type` later in the object: buffer it, as the derived reader does.
        let mut object = serde_json::Map::new();
        object.insert(first, map.next_value()?);
        while let Some((key, value)) = map.next_entry::<String, serde_json::Value>()? {
            object.insert(key, value);
        }
        Tagged::deserialize(serde_json::Value::Object(object))
            .map(ResponseItem::from)
            .map_err(A::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ItemId;
    use crate::items::{CompactionMetadata, CompactionTrigger};

    fn every_kind() -> Vec<ResponseItem> {
        vec![
            ResponseItem::user("hi \"there\"\n"),
            ResponseItem::FunctionCall(FunctionCall {
                id: ItemId::new(),
                call_id: "c1".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"a"}"#.into(),
            }),
            ResponseItem::FunctionCallOutput(FunctionCallOutput {
                id: ItemId::new(),
                call_id: "c1".into(),
                output: "one\ntwo".into(),
            }),
            ResponseItem::CompactionSummary(CompactionSummary {
                id: ItemId::new(),
                summary: "so far".into(),
                metadata: CompactionMetadata {
                    trigger: CompactionTrigger::Auto,
                    reason: "full".into(),
                    context_tokens: Some(9),
                    threshold: None,
                    removed: 3,
                    kept: 1,
                    summarizer_model: "m".into(),
                    summarizer_usage: None,
                    summarizer_cost: None,
                    duration_ms: 5,
                },
            }),
            ResponseItem::Reasoning(ReasoningItem {
                id: ItemId::new(),
                provider: "anthropic".into(),
                payload: serde_json::json!({"type": "thinking", "n": [1, 2]}),
            }),
        ]
    }

    #[test]
    fn every_kind_reads_back_with_its_type_first_or_last() {
        for item in every_kind() {
            let written = serde_json::to_value(&item).expect("write");
            assert!(
                serde_json::to_string(&item)
                    .expect("write")
                    .starts_with(r#"{"type":"#)
            );
            let read: ResponseItem = serde_json::from_value(written.clone()).expect("read");
            assert_eq!(read, item);
            // The same fields with `type` moved to the end, as text.
            let serde_json::Value::Object(object) = written else {
                panic!("not an object");
            };
            let mut fields: Vec<String> = object
                .iter()
                .filter(|(key, _)| *key != "type")
                .map(|(key, value)| format!("{key:?}:{value}"))
                .collect();
            fields.push(format!("\"type\":{}", object["type"]));
            let last: ResponseItem =
                serde_json::from_str(&format!("{{{}}}", fields.join(","))).expect("type last");
            assert_eq!(last, item);
        }
    }

    #[test]
    fn unknown_fields_are_ignored_and_a_bad_type_is_an_error_either_way() {
        let id = ItemId::new();
        let first =
            format!(r#"{{"type":"message","id":"{id}","role":"user","content":"x","extra":1}}"#);
        let last =
            format!(r#"{{"id":"{id}","role":"user","content":"x","extra":1,"type":"message"}}"#);
        for text in [&first, &last] {
            let item: ResponseItem = serde_json::from_str(text).expect("read");
            assert_eq!(item.id(), id);
        }
        for bad in [
            r#"{"type":"telepathy","id":"x"}"#.to_owned(),
            r#"{"id":"x","type":"telepathy"}"#.to_owned(),
            format!(r#"{{"role":"user","content":"x","id":"{id}"}}"#),
            r#"{"type":"message","role":"user"}"#.to_owned(),
            "{}".to_owned(),
            "[]".to_owned(),
        ] {
            assert!(serde_json::from_str::<ResponseItem>(&bad).is_err(), "{bad}");
        }
    }
}
