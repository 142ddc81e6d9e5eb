//! Full-text search: the pieces of session text that contain a query as
//! literal text, case folded as the index folds it, newest text first.
//!
//! The trigram index keeps which pieces hold each trigram, not where
//! (`detail = 'none'`): a piece holding every trigram of a set that covers
//! the query is only a candidate. Each candidate's text is read from its
//! start, only as far as its first match, and kept if it holds the query
//! (see [`fold::find`], the tokenizer's own folding): what FTS5's phrase
//! match over positions answered before, at a fraction of its cost.

use rusqlite::blob::Blob;
use rusqlite::types::Value;

use crate::error::Result;
use crate::query::{
    Filters, SearchHit, SearchPage, TOTAL_CAP, escape_like, filter_clauses, millis, parse_id,
    title, where_sql,
};
use crate::scan::{MATCH_END, MATCH_START};
use crate::{Index, fold};

/// Trigram search needs at least three characters; shorter queries scan.
pub(crate) const TRIGRAM: usize = 3;
/// Characters either side of a match in a snippet.
const SCAN_CONTEXT_CHARS: usize = 40;
/// Bytes of a candidate's text read first (most matches of a common query
/// lie within them); each further read takes four times as many.
const FIRST_READ: usize = 1024;

impl Index {
    /// The first `limit` pieces of session text containing `query` (see
    /// [`Index::search_page`]).
    pub fn search(&self, query: &str, filters: &Filters, limit: usize) -> Result<Vec<SearchHit>> {
        Ok(self.search_page(query, filters, 0, limit)?.hits)
    }

    /// Pieces of session text containing `query` as literal text (case
    /// folded), newest text first, the page of `limit` from `offset`.
    /// Quotes, operators and column filters in the query are searched for,
    /// never interpreted; NUL characters in it are ignored, as the index
    /// ignores them in text. A query under three characters is matched by
    /// a substring scan (the trigram index cannot serve it).
    ///
    /// "Newest text first" is the order the index took the text in (piece
    /// row id, ascending: see `pieces.rs`): text appended later comes
    /// first, and a rebuild takes files oldest modification first (see
    /// [`Index::rescan`]). That order is the full-text index's own, so the
    /// query stops once it has the page and the count ([`TOTAL_CAP`]): it
    /// never visits, counts or sorts every match. Only the page's pieces
    /// are read whole and marked.
    pub fn search_page(
        &self,
        query: &str,
        filters: &Filters,
        offset: usize,
        limit: usize,
    ) -> Result<SearchPage> {
        let literal: String = query
            .trim()
            .chars()
            .filter(|&c| c != MATCH_START && c != MATCH_END && c != '\0')
            .collect();
        if literal.is_empty() {
            return Ok(SearchPage::default());
        }
        let limit = limit.max(1);
        let counted = TOTAL_CAP.max(offset.saturating_add(limit));
        let needle = fold::folded(&literal);
        // One snapshot for the matches and the page's pieces.
        let snapshot = self.connection.unchecked_transaction()?;
        let rowids = if needle.len() >= TRIGRAM {
            verified_matches(&snapshot, &literal, &needle, filters, counted + 1)?
        } else {
            scanned_matches(&snapshot, &literal, filters, counted + 1)?
        };
        let total_capped = rowids.len() > counted;
        let total = rowids.len().min(counted);
        let page = rowids
            .get(offset.min(total)..offset.saturating_add(limit).min(total))
            .unwrap_or_default();
        let mut hits = Vec::with_capacity(page.len());
        for rowid in page {
            hits.push(hit(&snapshot, *rowid, &needle)?);
        }
        drop(snapshot);
        let end = offset + hits.len();
        Ok(SearchPage {
            hits,
            total,
            total_capped,
            next_offset: (!page.is_empty() && (end < total || total_capped)).then_some(end),
        })
    }
}

/// The FROM clause of a search: the join with pieces and sessions only
/// when a filter needs it (the match alone picks the rows otherwise).
fn from_clause(by_trigrams: bool, filtered: bool) -> &'static str {
    match (by_trigrams, filtered) {
        (true, false) => "texts",
        (true, true) => {
            "texts JOIN pieces p ON p.rowid = texts.rowid JOIN sessions s ON s.rowid = p.session"
        }
        (false, false) => "pieces p",
        (false, true) => "pieces p JOIN sessions s ON s.rowid = p.session",
    }
}

/// Trigrams of `literal` that cover every character of it: one starting at
/// every third character, and the last. A piece holding the literal holds
/// them all; FTS5 walks one doclist per trigram, so fewer walk faster.
pub(crate) fn covering_trigrams(literal: &str) -> Vec<String> {
    let chars: Vec<char> = literal.chars().collect();
    let last = chars.len().saturating_sub(TRIGRAM);
    let mut starts: Vec<usize> = (0..=last).step_by(TRIGRAM).collect();
    if starts.last() != Some(&last) {
        starts.push(last);
    }
    let mut trigrams: Vec<String> = Vec::with_capacity(starts.len());
    for start in starts {
        let trigram: String = chars[start..start + TRIGRAM].iter().collect();
        if !trigrams.contains(&trigram) {
            trigrams.push(trigram);
        }
    }
    trigrams
}

/// Up to `wanted` row ids of pieces holding `literal` (folded: `needle`),
/// newest first: the index's candidates, each verified against its text.
fn verified_matches(
    connection: &rusqlite::Connection,
    literal: &str,
    needle: &[char],
    filters: &Filters,
    wanted: usize,
) -> Result<Vec<i64>> {
    let (mut clauses, mut values) = filter_clauses(filters);
    let from = from_clause(true, !clauses.is_empty());
    let expression = covering_trigrams(literal)
        .iter()
        .map(|trigram| format!("\"{}\"", trigram.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" AND ");
    clauses.push("texts MATCH ?".into());
    values.push(Value::Text(expression));
    // Naming texts.rowid lets the virtual table consume the ORDER BY: the
    // candidates come in index order, and reading stops with enough.
    let sql = format!(
        "SELECT texts.rowid FROM {from} {} ORDER BY texts.rowid ASC",
        where_sql(&clauses)
    );
    let mut statement = connection.prepare_cached(&sql)?;
    let mut candidates = statement.query(rusqlite::params_from_iter(values.iter()))?;
    let mut blob: Option<Blob<'_>> = None;
    let mut buffer = Vec::new();
    let mut matches = Vec::new();
    while matches.len() < wanted {
        let Some(row) = candidates.next()? else {
            break;
        };
        let rowid: i64 = row.get(0)?;
        let blob = match &mut blob {
            Some(blob) => {
                blob.reopen(rowid)?;
                blob
            }
            None => blob.insert(connection.blob_open("main", "pieces", "body", rowid, true)?),
        };
        if text_holds(blob, needle, &mut buffer)? {
            matches.push(rowid);
        }
    }
    Ok(matches)
}

/// Whether the text `blob` is open on holds `needle`: read from its start,
/// a little at first, then four times as much each time, until the first
/// match or the end. `buffer` is reused between calls.
fn text_holds(blob: &Blob<'_>, needle: &[char], buffer: &mut Vec<u8>) -> Result<bool> {
    let size = blob.len();
    buffer.clear();
    let mut wanted = FIRST_READ;
    loop {
        let end = wanted.min(size);
        let start = buffer.len();
        buffer.resize(end, 0);
        blob.read_at_exact(&mut buffer[start..], start)?;
        // A read may end inside a character: search what is whole.
        let whole = match std::str::from_utf8(buffer) {
            Ok(text) => text,
            Err(error) => std::str::from_utf8(&buffer[..error.valid_up_to()]).unwrap_or_default(),
        };
        if fold::find(whole, needle).is_some() {
            return Ok(true);
        }
        if end == size {
            return Ok(false);
        }
        wanted = wanted.saturating_mul(4);
    }
}

/// Up to `wanted` row ids of pieces holding `literal` (ASCII case ignored,
/// as LIKE does), newest first, by a scan: for queries too short to have
/// a trigram.
fn scanned_matches(
    connection: &rusqlite::Connection,
    literal: &str,
    filters: &Filters,
    wanted: usize,
) -> Result<Vec<i64>> {
    let (mut clauses, mut values) = filter_clauses(filters);
    let from = from_clause(false, !clauses.is_empty());
    clauses.push("p.body LIKE ? ESCAPE '\\'".into());
    values.push(Value::Text(format!("%{}%", escape_like(literal))));
    let sql = format!(
        "SELECT p.rowid FROM {from} {} ORDER BY p.rowid ASC LIMIT {wanted}",
        where_sql(&clauses)
    );
    let mut statement = connection.prepare_cached(&sql)?;
    let rowids = statement
        .query_map(rusqlite::params_from_iter(values.iter()), |row| {
            row.get::<_, i64>(0)
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rowids)
}

/// One piece of a search page, with its snippet: the match marked in Rust
/// on this one piece.
fn hit(connection: &rusqlite::Connection, rowid: i64, needle: &[char]) -> Result<SearchHit> {
    let mut statement = connection.prepare_cached(
        "SELECT s.id, s.explicit_title, s.first_user_message, p.item_id, p.kind, p.body,
            s.updated_ms
         FROM pieces p JOIN sessions s ON s.rowid = p.session
         WHERE p.rowid = ?1",
    )?;
    let hit = statement.query_row([rowid], |row| {
        let text: String = row.get(5)?;
        Ok(SearchHit {
            session_id: parse_id(row.get::<_, String>(0)?)?,
            session_title: title(row.get(1)?, row.get(2)?),
            item_id: row.get(3)?,
            kind: row.get(4)?,
            snippet: snippet(&text, needle),
            updated: millis(row.get(6)?),
        })
    })?;
    Ok(hit)
}

/// The first match of `needle` in `text` between [`MATCH_START`] and
/// [`MATCH_END`], with some context either side; an ellipsis where text
/// was cut. (Indexed text never holds the marks.)
pub(crate) fn snippet(text: &str, needle: &[char]) -> String {
    let Some((start, end)) = fold::find(text, needle) else {
        return text.chars().take(2 * SCAN_CONTEXT_CHARS).collect();
    };
    let before = &text[..start];
    let (lead, before) = match before.char_indices().rev().nth(SCAN_CONTEXT_CHARS - 1) {
        Some((0, _)) | None => ("", before),
        Some((at, _)) => ("…", &before[at..]),
    };
    let after = &text[end..];
    let (after, trail) = match after.char_indices().nth(SCAN_CONTEXT_CHARS) {
        Some((at, _)) => (&after[..at], "…"),
        None => (after, ""),
    };
    format!(
        "{lead}{before}{MATCH_START}{}{MATCH_END}{after}{trail}",
        &text[start..end]
    )
}
