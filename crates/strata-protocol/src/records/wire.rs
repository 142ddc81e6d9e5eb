//! A record's envelope on the wire: `{"v","ts","type","payload"}`, the
//! payload read as the body its `type` names (or kept verbatim when this
//! version does not know it).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Record, RecordBody, UnknownRecord};

/// The envelope exactly as on the wire (as written).
#[derive(Serialize)]
struct WireRecord {
    v: u32,
    ts: DateTime<Utc>,
    #[serde(rename = "type")]
    record_type: String,
    payload: serde_json::Value,
}

impl Serialize for Record {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let payload = match &self.body {
            RecordBody::Unknown(unknown) => unknown.payload.clone(),
            known => {
                let mut tagged = serde_json::to_value(known).map_err(serde::ser::Error::custom)?;
                tagged
                    .get_mut("payload")
                    .map(serde_json::Value::take)
                    .unwrap_or_default()
            }
        };
        WireRecord {
            v: self.v,
            ts: self.ts,
            record_type: self.body.type_name().to_owned(),
            payload,
        }
        .serialize(serializer)
    }
}

/// Reads a record in one pass: the envelope's fields as they come, the
/// payload straight into the body its `type` names. Only a payload that
/// comes before its `type` (no Strata writes that order) or of an unknown
/// type is held as a `serde_json::Value` first.
impl<'de> Deserialize<'de> for Record {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RecordVisitor)
    }
}

struct RecordVisitor;

/// The envelope's fields; anything else is skipped, as before.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Field {
    V,
    Ts,
    Type,
    Payload,
    #[serde(other)]
    Other,
}

impl<'de> serde::de::Visitor<'de> for RecordVisitor {
    type Value = Record;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a session record object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Record, A::Error> {
        use serde::de::{DeserializeSeed as _, Error};
        let mut v = None;
        let mut ts = None;
        let mut record_type: Option<String> = None;
        let mut body = None;
        let mut early_payload: Option<serde_json::Value> = None;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::V => v = Some(map.next_value()?),
                Field::Ts => ts = Some(map.next_value()?),
                Field::Type => record_type = Some(map.next_value()?),
                Field::Payload => match &record_type {
                    Some(name) => body = Some(map.next_value_seed(PayloadSeed(name))?),
                    None => early_payload = Some(map.next_value()?),
                },
                Field::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        let record_type = record_type.ok_or_else(|| A::Error::missing_field("type"))?;
        let body = match body {
            Some(body) => body,
            None => PayloadSeed(&record_type)
                .deserialize(early_payload.unwrap_or_default())
                .map_err(A::Error::custom)?,
        };
        Ok(Record {
            v: v.ok_or_else(|| A::Error::missing_field("v"))?,
            ts: ts.ok_or_else(|| A::Error::missing_field("ts"))?,
            body,
        })
    }
}

/// Deserializes a payload as the body of the record type it names.
struct PayloadSeed<'a>(&'a str);

impl<'de> serde::de::DeserializeSeed<'de> for PayloadSeed<'_> {
    type Value = RecordBody;

    fn deserialize<D: serde::Deserializer<'de>>(self, payload: D) -> Result<RecordBody, D::Error> {
        Ok(match self.0 {
            "session_meta" => RecordBody::SessionMeta(Deserialize::deserialize(payload)?),
            "response_item" => RecordBody::ResponseItem(Deserialize::deserialize(payload)?),
            "round" => RecordBody::Round(Deserialize::deserialize(payload)?),
            "token_usage" => RecordBody::TokenUsage(Deserialize::deserialize(payload)?),
            "turn_started" => RecordBody::TurnStarted(Deserialize::deserialize(payload)?),
            "turn_finished" => RecordBody::TurnFinished(Deserialize::deserialize(payload)?),
            "retry" => RecordBody::Retry(Deserialize::deserialize(payload)?),
            "error" => RecordBody::Error(Deserialize::deserialize(payload)?),
            "approval_decision" => RecordBody::ApprovalDecision(Deserialize::deserialize(payload)?),
            "title_set" => RecordBody::TitleSet(Deserialize::deserialize(payload)?),
            "full_tool_output" => RecordBody::FullToolOutput(Deserialize::deserialize(payload)?),
            "profile_set" => RecordBody::ProfileSet(Deserialize::deserialize(payload)?),
            "compaction_policy" => RecordBody::CompactionPolicy(Deserialize::deserialize(payload)?),
            "tool_outputs_evicted" => {
                RecordBody::ToolOutputsEvicted(Deserialize::deserialize(payload)?)
            }
            "layered_compaction" => {
                RecordBody::LayeredCompaction(Deserialize::deserialize(payload)?)
            }
            "compaction_guard" => RecordBody::CompactionGuard(Deserialize::deserialize(payload)?),
            "item_pin" => RecordBody::ItemPin(Deserialize::deserialize(payload)?),
            "compaction_undone" => RecordBody::CompactionUndone(Deserialize::deserialize(payload)?),
            "session_forked" => RecordBody::SessionForked(Deserialize::deserialize(payload)?),
            "checkpoint" => RecordBody::Checkpoint(Deserialize::deserialize(payload)?),
            "compaction_refused" => {
                RecordBody::CompactionRefused(Deserialize::deserialize(payload)?)
            }
            "session_repaired" => RecordBody::SessionRepaired(Deserialize::deserialize(payload)?),
            "reasoning_set" => RecordBody::ReasoningSet(Deserialize::deserialize(payload)?),
            "sandbox_set" => RecordBody::SandboxSet(Deserialize::deserialize(payload)?),
            "file_change" => RecordBody::FileChange(Deserialize::deserialize(payload)?),
            "mcp_catalog" => RecordBody::McpCatalog(Deserialize::deserialize(payload)?),
            "instructions_set" => RecordBody::InstructionsSet(Deserialize::deserialize(payload)?),
            "session_imported" => RecordBody::SessionImported(Deserialize::deserialize(payload)?),
            other => RecordBody::Unknown(UnknownRecord {
                record_type: other.to_owned(),
                payload: Deserialize::deserialize(payload)?,
            }),
        })
    }
}
