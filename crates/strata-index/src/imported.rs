//! Other tools' sessions in the library: the Codex, Claude Code and Copilot
//! CLI files `strata_import::discover` finds under a home folder, each kept
//! as its listing line and its searchable text (user and assistant
//! messages, readable compaction summaries).
//!
//! A file is read again only when its size or modification time differs
//! from the ones stored with it, as Strata's own files are (see
//! `refresh.rs`); a file no longer found is dropped. The files are only
//! ever opened for reading, by strata-import: never written, locked or
//! touched.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};
use serde::Serialize;
use strata_import::{
    ImportedListItem, ImportedSession, ImportedSummary, ItemKind, SessionFileRef, Tool, discover,
    read_session,
};

use crate::error::Result;
use crate::query::{Filters, escape_like};
use crate::refresh::Stamp;
use crate::scan::{MATCH_END, MATCH_START, cut};
use crate::search::{TRIGRAM, covering_trigrams, snippet};
use crate::{Index, fold, retry_busy};

/// What refreshing the imported sessions did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportedRefresh {
    /// Session files found under the home folder.
    pub files: usize,
    /// Files read (new, or their size or modification time changed).
    pub reindexed: usize,
    /// Sessions dropped: their file is gone or no longer opens.
    pub removed: usize,
    /// Files found that would not open (or whose name is not UTF-8).
    pub unreadable: Vec<UnreadableImport>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnreadableImport {
    pub path: PathBuf,
    pub reason: String,
}

/// A search match in another tool's session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportedHit {
    pub source: Tool,
    pub session_id: String,
    pub session_title: Option<String>,
    pub path: PathBuf,
    /// The index of the item in the session's items (none for a
    /// compaction summary).
    pub item: Option<u64>,
    /// `user`, `assistant` or `summary`.
    pub kind: String,
    /// As [`crate::SearchHit::snippet`]: the match between [`MATCH_START`]
    /// and [`MATCH_END`].
    pub snippet: String,
    pub updated: Option<DateTime<Utc>>,
}

/// The `source` column's word for a tool.
fn source_name(tool: Tool) -> &'static str {
    match tool {
        Tool::Codex => "codex",
        Tool::ClaudeCode => "claude",
        Tool::CopilotCli => "copilot",
    }
}

/// One searchable piece of an imported session: (item, kind, text).
type ImportedPiece<'a> = (Option<u64>, &'static str, &'a str);

/// The text search reaches: messages, and summaries the file shows.
fn pieces(session: &ImportedSession) -> Vec<ImportedPiece<'_>> {
    let mut found = Vec::new();
    for (index, item) in session.items.iter().enumerate() {
        let item_index = u64::try_from(index).ok();
        match &item.kind {
            ItemKind::User { text } => found.push((item_index, "user", text.as_str())),
            ItemKind::Assistant { text } => found.push((item_index, "assistant", text.as_str())),
            ItemKind::Reasoning { .. }
            | ItemKind::ToolCall { .. }
            | ItemKind::ToolOutput { .. } => {}
        }
    }
    for compaction in &session.compactions {
        match &compaction.summary {
            ImportedSummary::Text(text) => found.push((None, "summary", text.as_str())),
            ImportedSummary::Encrypted | ImportedSummary::Absent => {}
        }
    }
    found
}

impl Index {
    /// Brings the imported sessions up to date with the session files of
    /// the other tools under `home`.
    pub fn refresh_imported(&mut self, home: &Path) -> Result<ImportedRefresh> {
        self.refresh_imported_files(&discover(home))
    }

    /// Brings the imported sessions up to date with exactly `files`: those
    /// stored for any other path are dropped (the desktop's set is the
    /// standard folders the person agreed to plus the paths they added).
    pub fn refresh_imported_files(&mut self, files: &[SessionFileRef]) -> Result<ImportedRefresh> {
        let known = self.imported_stamps()?;
        let mut report = ImportedRefresh {
            files: files.len(),
            ..ImportedRefresh::default()
        };
        let mut seen = Vec::with_capacity(files.len());
        for file in files {
            let Some(path) = file.path.to_str() else {
                report.unreadable.push(UnreadableImport {
                    path: file.path.clone(),
                    reason: "its name is not UTF-8".to_owned(),
                });
                continue;
            };
            let Some(stamp) = Stamp::of(&file.path)? else {
                continue;
            };
            if known.get(path) == Some(&stamp) {
                seen.push(path.to_owned());
                continue;
            }
            match read_session(file) {
                Ok(session) => {
                    self.store_imported(file, path, &stamp, &session)?;
                    seen.push(path.to_owned());
                    report.reindexed += 1;
                }
                Err(error) => report.unreadable.push(UnreadableImport {
                    path: file.path.clone(),
                    reason: error.to_string(),
                }),
            }
        }
        let seen: std::collections::HashSet<&str> = seen.iter().map(String::as_str).collect();
        let gone: Vec<&String> = known
            .keys()
            .filter(|path| !seen.contains(path.as_str()))
            .collect();
        if !gone.is_empty() {
            let transaction = self
                .connection
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            for path in gone {
                report.removed += remove_imported(&transaction, path)?;
            }
            transaction.commit()?;
        }
        Ok(report)
    }

    /// Every imported session's listing line, newest first (sessions with
    /// no time last), else in the order `discover` finds them.
    pub fn imported_sessions(&self) -> Result<Vec<ImportedListItem>> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT listing FROM imported")?;
        let listings = statement
            .query_map([], |row| row.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut items = listings
            .iter()
            .map(|listing| serde_json::from_str::<ImportedListItem>(listing))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        items.sort_by(|a, b| (a.source, &a.path).cmp(&(b.source, &b.path)));
        items.sort_by_key(|item| std::cmp::Reverse(item.updated_at));
        Ok(items)
    }

    /// Up to `limit` pieces of imported sessions' text containing `query`
    /// as literal text (case folded as Strata's search folds it), newest
    /// session first; `filters` narrow it as they narrow Strata's search
    /// (`text` is not applied: the query is the text).
    pub fn search_imported(
        &self,
        query: &str,
        filters: &Filters,
        limit: usize,
    ) -> Result<Vec<ImportedHit>> {
        let literal: String = query
            .trim()
            .chars()
            .filter(|&c| c != MATCH_START && c != MATCH_END && c != '\0')
            .collect();
        if literal.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let needle = fold::folded(&literal);
        let (sql, pattern) = if needle.len() >= TRIGRAM {
            let expression = covering_trigrams(&literal)
                .iter()
                .map(|trigram| format!("\"{}\"", trigram.replace('"', "\"\"")))
                .collect::<Vec<_>>()
                .join(" AND ");
            (
                "SELECT s.listing, p.item, p.kind, p.body FROM imported_texts t
                 JOIN imported_pieces p ON p.rowid = t.rowid
                 JOIN imported s ON s.rowid = p.session
                 WHERE imported_texts MATCH ?1
                 ORDER BY s.updated_ms IS NULL, s.updated_ms DESC, s.path, p.rowid",
                expression,
            )
        } else {
            (
                "SELECT s.listing, p.item, p.kind, p.body FROM imported_pieces p
                 JOIN imported s ON s.rowid = p.session
                 WHERE p.body LIKE ?1 ESCAPE '\\'
                 ORDER BY s.updated_ms IS NULL, s.updated_ms DESC, s.path, p.rowid",
                format!("%{}%", escape_like(&literal)),
            )
        };
        let mut statement = self.connection.prepare_cached(sql)?;
        let mut rows = statement.query([pattern])?;
        let mut hits = Vec::new();
        while hits.len() < limit {
            let Some(row) = rows.next()? else {
                break;
            };
            let body: String = row.get(3)?;
            if fold::find(&body, &needle).is_none() {
                continue;
            }
            let listing: ImportedListItem = serde_json::from_str(&row.get::<_, String>(0)?)?;
            if !passes(&listing, filters) {
                continue;
            }
            hits.push(ImportedHit {
                source: listing.source,
                session_id: listing.id,
                session_title: listing.title,
                path: listing.path,
                item: row.get(1)?,
                kind: row.get(2)?,
                snippet: snippet(&body, &needle),
                updated: listing.updated_at,
            });
        }
        Ok(hits)
    }

    fn imported_stamps(&self) -> Result<HashMap<String, Stamp>> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT path, file_size, file_mtime_ns FROM imported")?;
        let stamps = statement
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    Stamp {
                        size: row.get(1)?,
                        mtime_ns: row.get(2)?,
                    },
                ))
            })?
            .collect::<rusqlite::Result<HashMap<_, _>>>()?;
        Ok(stamps)
    }

    /// Replaces what is stored of `path` with `session`, in one immediate
    /// transaction (another process may be refreshing too).
    fn store_imported(
        &mut self,
        file: &SessionFileRef,
        path: &str,
        stamp: &Stamp,
        session: &ImportedSession,
    ) -> Result<()> {
        let listing = session.list_item(file);
        let listing_json = serde_json::to_string(&listing)?;
        let updated_ms = listing.updated_at.map(|at| at.timestamp_millis());
        let pieces = pieces(session);
        retry_busy(|| -> Result<()> {
            let transaction = self
                .connection
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            remove_imported(&transaction, path)?;
            transaction.execute(
                "INSERT INTO imported (source, path, id, updated_ms, listing, file_size,
                    file_mtime_ns)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    source_name(session.source),
                    path,
                    listing.id,
                    updated_ms,
                    listing_json,
                    stamp.size,
                    stamp.mtime_ns
                ],
            )?;
            let rowid = transaction.last_insert_rowid();
            {
                let mut insert = transaction.prepare_cached(
                    "INSERT INTO imported_pieces (session, item, kind, body)
                     VALUES (?1, ?2, ?3, ?4)",
                )?;
                for (item, kind, text) in &pieces {
                    // Markers removed so a file cannot forge a match.
                    let body = cut(text).replace([MATCH_START, MATCH_END], "");
                    if !body.trim().is_empty() {
                        insert.execute(params![rowid, item, kind, body])?;
                    }
                }
            }
            transaction.commit()?;
            Ok(())
        })
    }
}

/// Drops the session stored for `path`: 1 when there was one.
fn remove_imported(transaction: &Transaction<'_>, path: &str) -> Result<usize> {
    let rowid: Option<i64> = transaction
        .query_row(
            "SELECT rowid FROM imported WHERE path = ?1",
            [path],
            |row| row.get(0),
        )
        .optional()?;
    let Some(rowid) = rowid else {
        return Ok(0);
    };
    transaction.execute("DELETE FROM imported_pieces WHERE session = ?1", [rowid])?;
    transaction.execute("DELETE FROM imported WHERE rowid = ?1", [rowid])?;
    Ok(1)
}

/// Whether an imported session passes a search's filters.
fn passes(listing: &ImportedListItem, filters: &Filters) -> bool {
    let workspace = filters
        .workspace
        .as_ref()
        .is_none_or(|wanted| listing.workspace.as_ref() == Some(wanted));
    let model = filters
        .model
        .as_ref()
        .is_none_or(|wanted| listing.models.contains(wanted));
    let from = filters
        .updated_from
        .is_none_or(|from| listing.updated_at.is_some_and(|at| at >= from));
    let until = filters
        .updated_until
        .is_none_or(|until| listing.updated_at.is_some_and(|at| at < until));
    workspace && model && from && until
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::millis;

    #[test]
    fn filters_narrow_imported_hits_by_workspace_model_and_time() {
        let at = millis(1_700_000_000_000);
        let listing = ImportedListItem {
            source: Tool::Codex,
            id: "abc".into(),
            path: PathBuf::from("/h/.codex/sessions/rollout-abc.jsonl"),
            tool_version: None,
            title: None,
            workspace: Some("/w".into()),
            models: vec!["gpt-5".into()],
            updated_at: Some(at),
            item_count: 0,
            compaction_count: 0,
            context_tokens: None,
        };
        assert!(passes(&listing, &Filters::default()));
        let elsewhere = Filters {
            workspace: Some("/other".into()),
            ..Filters::default()
        };
        assert!(!passes(&listing, &elsewhere));
        let other_model = Filters {
            model: Some("claude".into()),
            ..Filters::default()
        };
        assert!(!passes(&listing, &other_model));
        let later = Filters {
            updated_from: Some(at + chrono::Duration::seconds(1)),
            ..Filters::default()
        };
        assert!(!passes(&listing, &later));
        let matching = Filters {
            workspace: Some("/w".into()),
            model: Some("gpt-5".into()),
            updated_from: Some(at),
            updated_until: Some(at + chrono::Duration::seconds(1)),
            ..Filters::default()
        };
        assert!(passes(&listing, &matching));
    }
}
