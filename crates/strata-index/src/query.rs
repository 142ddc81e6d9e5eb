//! Reading the index: pages of sessions, newest update first, and
//! full-text search whose query is always literal text.

use chrono::{DateTime, TimeZone, Utc};
use rusqlite::types::Value;
use serde::Serialize;
use strata_protocol::{Cost, ForkOrigin, SessionId, Usd};

use crate::Index;
use crate::error::{IndexError, Result};
use crate::scan::{MATCH_END, MATCH_START};

/// What narrows a listing or a search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    /// Sessions whose title, first user message or workspace contains this
    /// (literal text, ASCII case ignored).
    pub text: Option<String>,
    /// Sessions whose workspace is exactly this folder.
    pub workspace: Option<String>,
    /// Sessions recorded with exactly this model.
    pub model: Option<String>,
    /// Sessions updated at or after this instant.
    pub updated_from: Option<DateTime<Utc>>,
    /// Sessions updated before this instant.
    pub updated_until: Option<DateTime<Utc>>,
}

/// Which page of the listing to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageRequest {
    pub limit: usize,
    /// Rows to skip (ignored when a cursor is given).
    pub offset: usize,
    /// The `next_cursor` of the previous page: stable while sessions change.
    pub cursor: Option<String>,
    pub filters: Filters,
}

impl Default for PageRequest {
    fn default() -> Self {
        Self {
            limit: 50,
            offset: 0,
            cursor: None,
            filters: Filters::default(),
        }
    }
}

/// One page of sessions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Sessions matching the filters, all pages together.
    pub total: usize,
    /// Where the next page starts, when there is one.
    pub next_cursor: Option<String>,
}

/// One session as the library lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SessionSummary {
    pub id: SessionId,
    /// The last title_set, else the start of the first user message.
    pub title: Option<String>,
    pub workspace: String,
    pub provider_kind: String,
    pub model: String,
    pub created: DateTime<Utc>,
    /// The timestamp of the last record.
    pub updated: DateTime<Utc>,
    pub records: u64,
    /// response_item records (summaries included).
    pub items: u64,
    pub turns: u64,
    pub rounds: u64,
    pub compactions: u64,
    /// Corrupt lines the index skipped.
    pub skipped_lines: u64,
    /// The session this one was forked from, and where in it, when it is
    /// a fork.
    pub forked_from: Option<ForkOrigin>,
    /// What it cost (rounds and summary calls); `None` when nothing in it
    /// had a price.
    pub cost: Option<Cost>,
    /// Rounds that reported usage without a price.
    pub unpriced_rounds: u64,
}

/// One search match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    pub session_id: SessionId,
    pub session_title: Option<String>,
    /// The item the text is in (what the front end scrolls to).
    pub item_id: Option<String>,
    /// `user`, `assistant`, `tool_call`, `tool_output` or `summary`.
    pub kind: String,
    /// Plain text around the match, the match between [`MATCH_START`] and
    /// [`MATCH_END`] (which never occur in indexed text); split it with
    /// [`snippet_spans`].
    pub snippet: String,
    pub updated: DateTime<Utc>,
}

/// How many matching pieces a search counts, at least (more when the page
/// asked for ends further): past it the total is shown as "1,000+".
pub const TOTAL_CAP: usize = 1_000;

/// One page of search hits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SearchPage {
    pub hits: Vec<SearchHit>,
    /// Pieces matching, all pages together, counted up to [`TOTAL_CAP`] (or
    /// to the end of the page asked for, when that is further).
    pub total: usize,
    /// Whether more pieces match than `total` counts.
    pub total_capped: bool,
    /// Where the next page starts, when there is one.
    pub next_offset: Option<usize>,
}

/// A run of snippet text, matched or not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnippetSpan {
    pub text: String,
    pub matched: bool,
}

/// Splits a snippet at its markers.
pub fn snippet_spans(snippet: &str) -> Vec<SnippetSpan> {
    let mut spans = Vec::new();
    let mut matched = false;
    let mut text = String::new();
    for character in snippet.chars() {
        let flip = if matched { MATCH_END } else { MATCH_START };
        if character == flip {
            if !text.is_empty() {
                spans.push(SnippetSpan {
                    text: std::mem::take(&mut text),
                    matched,
                });
            }
            matched = !matched;
        } else if character != MATCH_START && character != MATCH_END {
            text.push(character);
        }
    }
    if !text.is_empty() {
        spans.push(SnippetSpan { text, matched });
    }
    spans
}

const SUMMARY_COLUMNS: &str = "s.id, s.explicit_title, s.first_user_message, s.workspace,
    s.provider_kind, s.model, s.created_ms, s.updated_ms, s.records, s.items, s.turns,
    s.rounds, s.compactions, s.skipped_lines, s.parent_session, s.fork_point, s.cost_pico,
    s.cost_as_of, s.unpriced_rounds";

impl Index {
    /// A page of the sessions the index holds, newest update first. Call
    /// [`Index::refresh`] first to see the folder as it is now.
    pub fn list(&self, page: &PageRequest) -> Result<Page<SessionSummary>> {
        let (mut clauses, mut values) = filter_clauses(&page.filters);
        let total: i64 = self.connection.query_row(
            &format!("SELECT count(*) FROM sessions s {}", where_sql(&clauses)),
            rusqlite::params_from_iter(values.iter()),
            |row| row.get(0),
        )?;
        let mut offset = page.offset;
        if let Some(cursor) = &page.cursor {
            let (updated, id) = parse_cursor(cursor)?;
            clauses.push("(s.updated_ms < ? OR (s.updated_ms = ? AND s.id < ?))".into());
            values.extend([
                Value::Integer(updated),
                Value::Integer(updated),
                Value::Text(id),
            ]);
            offset = 0;
        }
        let limit = page.limit.max(1);
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM sessions s {} ORDER BY s.updated_ms DESC, s.id DESC
             LIMIT {} OFFSET {}",
            where_sql(&clauses),
            limit + 1,
            offset
        );
        let mut statement = self.connection.prepare_cached(&sql)?;
        let mut items = statement
            .query_map(rusqlite::params_from_iter(values.iter()), summary_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let next_cursor = if items.len() > limit {
            items.truncate(limit);
            items
                .last()
                .map(|last| format!("{}:{}", last.updated.timestamp_millis(), last.id))
        } else {
            None
        };
        Ok(Page {
            items,
            total: usize::try_from(total).unwrap_or(0),
            next_cursor,
        })
    }
}

pub(crate) fn filter_clauses(filters: &Filters) -> (Vec<String>, Vec<Value>) {
    let mut clauses = Vec::new();
    let mut values = Vec::new();
    if let Some(text) = filters
        .text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        clauses.push(
            "(s.explicit_title LIKE ? ESCAPE '\\' OR s.first_user_message LIKE ? ESCAPE '\\'
              OR s.workspace LIKE ? ESCAPE '\\')"
                .to_owned(),
        );
        let pattern = Value::Text(format!("%{}%", escape_like(text)));
        values.extend([pattern.clone(), pattern.clone(), pattern]);
    }
    if let Some(workspace) = &filters.workspace {
        clauses.push("s.workspace = ?".to_owned());
        values.push(Value::Text(workspace.clone()));
    }
    if let Some(model) = &filters.model {
        clauses.push("s.model = ?".to_owned());
        values.push(Value::Text(model.clone()));
    }
    if let Some(from) = filters.updated_from {
        clauses.push("s.updated_ms >= ?".to_owned());
        values.push(Value::Integer(from.timestamp_millis()));
    }
    if let Some(until) = filters.updated_until {
        clauses.push("s.updated_ms < ?".to_owned());
        values.push(Value::Integer(until.timestamp_millis()));
    }
    (clauses, values)
}

pub(crate) fn where_sql(clauses: &[String]) -> String {
    if clauses.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", clauses.join(" AND "))
    }
}

fn parse_cursor(cursor: &str) -> Result<(i64, String)> {
    let bad = || IndexError::BadCursor(cursor.to_owned());
    let (updated, id) = cursor.split_once(':').ok_or_else(bad)?;
    let updated = updated.parse::<i64>().map_err(|_| bad())?;
    let id = id.parse::<SessionId>().map_err(|_| bad())?;
    Ok((updated, id.to_string()))
}

pub(crate) fn escape_like(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        if matches!(character, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}

/// The explicit title, else the start of the first user message (the index
/// keeps that message whole, so listing can filter by all of it).
pub(crate) fn title(
    explicit: Option<String>,
    first_user_message: Option<String>,
) -> Option<String> {
    explicit.or_else(|| first_user_message.map(|m| strata_core::store::derived_title(&m)))
}

pub(crate) fn millis(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}

pub(crate) fn parse_id(id: String) -> rusqlite::Result<SessionId> {
    id.parse::<SessionId>().map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(error))
    })
}

fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// The stored lineage; a row written by another build that does not parse
/// lists as no lineage rather than failing the list.
fn fork_origin(parent: Option<String>, point: Option<String>) -> Option<ForkOrigin> {
    Some(ForkOrigin {
        parent_session_id: parent?.parse().ok()?,
        point: serde_json::from_str(&point?).ok()?,
    })
}

fn summary_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionSummary> {
    let cost_pico = count(row.get(16)?);
    Ok(SessionSummary {
        id: parse_id(row.get(0)?)?,
        title: title(row.get(1)?, row.get(2)?),
        workspace: row.get(3)?,
        provider_kind: row.get(4)?,
        model: row.get(5)?,
        created: millis(row.get(6)?),
        updated: millis(row.get(7)?),
        records: count(row.get(8)?),
        items: count(row.get(9)?),
        turns: count(row.get(10)?),
        rounds: count(row.get(11)?),
        compactions: count(row.get(12)?),
        skipped_lines: count(row.get(13)?),
        forked_from: fork_origin(row.get(14)?, row.get(15)?),
        cost: row.get::<_, Option<String>>(17)?.map(|price_as_of| Cost {
            usd: Usd(cost_pico),
            price_as_of,
        }),
        unpriced_rounds: count(row.get(18)?),
    })
}
