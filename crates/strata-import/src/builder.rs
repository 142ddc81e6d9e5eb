//! What every reader does the same way: collecting items, rounds, models and
//! timestamps into an [`ImportedSession`], and reading a record's envelope.

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::{
    ImportWarnings, ImportedCompaction, ImportedItem, ImportedRound, ImportedSession, ItemKind,
    Tool,
};

/// Longest title taken from a first prompt.
const TITLE_CHARS: usize = 120;

pub(crate) struct SessionBuilder {
    pub(crate) session: ImportedSession,
}

impl SessionBuilder {
    pub(crate) fn new(source: Tool) -> Self {
        SessionBuilder {
            session: ImportedSession {
                source,
                tool_version: None,
                id: None,
                title: None,
                workspace: None,
                models: Vec::new(),
                started_at: None,
                updated_at: None,
                items: Vec::new(),
                rounds: Vec::new(),
                compactions: Vec::new(),
                warnings: ImportWarnings::default(),
            },
        }
    }

    pub(crate) fn warnings(&mut self) -> &mut ImportWarnings {
        &mut self.session.warnings
    }

    /// A record's time: the session starts at the first and is updated at
    /// the latest (records may come out of order).
    pub(crate) fn saw_time(&mut self, at: Option<DateTime<Utc>>) {
        let Some(at) = at else { return };
        let session = &mut self.session;
        session.started_at = Some(session.started_at.map_or(at, |first| first.min(at)));
        session.updated_at = Some(session.updated_at.map_or(at, |last| last.max(at)));
    }

    pub(crate) fn saw_model(&mut self, model: &str) {
        if !model.is_empty() && !self.session.models.iter().any(|known| known == model) {
            self.session.models.push(model.to_owned());
        }
    }

    /// Sets a metadata field the first time the file names it: repeated
    /// metadata records are merged, the first value kept.
    pub(crate) fn first(field: &mut Option<String>, value: Option<String>) {
        if field.is_none() {
            *field = value.filter(|value| !value.is_empty());
        }
    }

    pub(crate) fn push_item(
        &mut self,
        line: u64,
        at: Option<DateTime<Utc>>,
        sidechain: bool,
        kind: ItemKind,
    ) {
        self.session.items.push(ImportedItem {
            line,
            at,
            sidechain,
            kind,
        });
    }

    pub(crate) fn push_round(&mut self, round: ImportedRound) -> usize {
        self.session.rounds.push(round);
        self.session.rounds.len() - 1
    }

    pub(crate) fn push_compaction(&mut self, compaction: ImportedCompaction) -> usize {
        self.session.compactions.push(compaction);
        self.session.compactions.len() - 1
    }

    /// A full compaction at `line`, after the items so far.
    pub(crate) fn boundary(&self, line: u64, at: Option<DateTime<Utc>>) -> ImportedCompaction {
        ImportedCompaction::boundary(line, at, self.item_count())
    }

    pub(crate) fn item_count(&self) -> usize {
        self.session.items.len()
    }

    /// The session with a title from its first prompt when the file named none.
    pub(crate) fn finish(mut self) -> ImportedSession {
        if self.session.title.is_none() {
            self.session.title = self.session.items.iter().find_map(|item| match &item.kind {
                ItemKind::User { text } if !item.sidechain => title_from_prompt(text),
                _ => None,
            });
        }
        self.session
    }
}

/// How the echoes of a tool's own slash commands start (`/exit`,
/// `/compact`): a prompt, but not one that names the session.
const COMMAND_ECHOES: &[&str] = &["<command-", "<local-command-"];

/// The first non-blank line of a prompt, shortened.
pub(crate) fn title_from_prompt(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    if COMMAND_ECHOES.iter().any(|echo| line.starts_with(echo)) {
        return None;
    }
    let mut title: String = line.chars().take(TITLE_CHARS).collect();
    if line.chars().nth(TITLE_CHARS).is_some() {
        title.push('…');
    }
    Some(title)
}

/// An RFC 3339 timestamp; anything else is no time at all.
pub(crate) fn parse_time(value: Option<&Value>) -> Option<DateTime<Utc>> {
    let text = value?.as_str()?;
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|at| at.with_timezone(&Utc))
}

/// A line as a JSON object, or `None` for anything else.
pub(crate) fn parse_object(bytes: &[u8]) -> Option<serde_json::Map<String, Value>> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(object)) => Some(object),
        Ok(_) | Err(_) => None,
    }
}

/// A record's typed form, or `None` when its shape is not the expected one.
pub(crate) fn typed<T: DeserializeOwned>(value: Value) -> Option<T> {
    serde_json::from_value(value).ok()
}

/// The string at `key`, if it is one.
pub(crate) fn text_at(object: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    object.get(key)?.as_str().map(str::to_owned)
}

/// The texts of content parts (`[{type, text}]`) joined by blank lines.
pub(crate) fn joined_texts<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    let mut joined = String::new();
    for text in texts.filter(|text| !text.is_empty()) {
        if !joined.is_empty() {
            joined.push_str("\n\n");
        }
        joined.push_str(text);
    }
    joined
}

/// A tool output as text: a string as is, content parts joined, any other
/// JSON value as its JSON text.
pub(crate) fn output_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(parts) => joined_texts(
            parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str)),
        ),
        Value::Object(object) => match object.get("content") {
            Some(content @ (Value::String(_) | Value::Array(_))) => output_text(content),
            _ => value.to_string(),
        },
        Value::Null | Value::Bool(_) | Value::Number(_) => value.to_string(),
    }
}
