//! Bringing the index in line with the sessions folder: the full pass (a
//! stat of every file), and a scan only of the files whose size or mtime
//! changed (from the last indexed byte when the file only grew, else whole).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};
use strata_protocol::SessionId;

use crate::error::{IndexError, Result};
use crate::pieces::NewPieces;
use crate::scan::{Facts, line_hash, scan_from};
use crate::{Index, RefreshReport};

/// Files reindexed per transaction: enough to amortise the commit, few
/// enough that another process waiting on the lock is not held for long.
const FILES_PER_TRANSACTION: usize = 128;

/// A session file as `stat` saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub size: u64,
    pub mtime_ns: i64,
}

impl Stamp {
    pub(crate) fn of(path: &Path) -> Result<Option<Self>> {
        let metadata = match std::fs::metadata(path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(IndexError::io("stat session", path)(source)),
        };
        let mtime_ns = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |since| {
                i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
            });
        Ok(Some(Self {
            size: metadata.len(),
            mtime_ns,
        }))
    }
}

/// The `<uuid>.jsonl` files of the sessions folder (none when it is missing).
pub(crate) fn session_files(root: &Path) -> Result<Vec<(SessionId, PathBuf)>> {
    let entries = match std::fs::read_dir(root) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(IndexError::io("list sessions folder", root)(source)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(IndexError::io("list sessions folder", root))?;
        let name = entry.file_name();
        let Some(id) = name
            .to_str()
            .and_then(|name| name.strip_suffix(".jsonl"))
            .and_then(|stem| stem.parse::<SessionId>().ok())
        else {
            continue;
        };
        files.push((id, entry.path()));
    }
    Ok(files)
}

impl Index {
    /// Stats every session file and reindexes those whose size or mtime
    /// differ from the index, oldest modification first (the order search
    /// lists hits in, newest first, follows); drops sessions whose file is
    /// gone. Remembers
    /// the folder's mtime, so [`Index::refresh`] can skip this pass while
    /// the folder is unchanged.
    pub fn rescan(&mut self) -> Result<RefreshReport> {
        let started = std::time::SystemTime::now();
        let folder = crate::folder::folder_mtime(&self.sessions)?;
        let files = session_files(&self.sessions)?;
        let known = self.known_stamps()?;
        let mut changed = Vec::new();
        for (id, path) in &files {
            let Some(stamp) = Stamp::of(path)? else {
                continue;
            };
            if known.get(id) != Some(&stamp) {
                changed.push((stamp.mtime_ns, *id, path.clone()));
            }
        }
        // Oldest modification first: search lists the text it took last
        // first, so a rebuilt index lists the most recently written first.
        changed.sort_unstable();
        let changed: Vec<(SessionId, PathBuf)> = changed
            .into_iter()
            .map(|(_, id, path)| (id, path))
            .collect();
        let on_disk: std::collections::HashSet<SessionId> =
            files.iter().map(|(id, _)| *id).collect();
        let gone: Vec<SessionId> = known
            .keys()
            .filter(|id| !on_disk.contains(id))
            .copied()
            .collect();
        let mut report = RefreshReport {
            sessions: files.len(),
            ..RefreshReport::default()
        };
        for batch in changed.chunks(FILES_PER_TRANSACTION) {
            let transaction = self
                .connection
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut new = NewPieces::default();
            for (id, path) in batch {
                match reindex(&transaction, *id, path, &mut new)? {
                    Reindexed::Unchanged => {}
                    Reindexed::Appended => report.appended += 1,
                    Reindexed::Whole => report.reindexed += 1,
                    Reindexed::NotASession => report.not_sessions += 1,
                }
            }
            new.write(&transaction)?;
            transaction.commit()?;
        }
        if !gone.is_empty() {
            let transaction = self
                .connection
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            for id in &gone {
                forget(&transaction, *id)?;
            }
            transaction.commit()?;
            report.removed = gone.len();
        }
        crate::folder::remember(&self.connection, folder, started)?;
        report.full_pass = true;
        Ok(report)
    }

    /// Drops a session from the index (its file is the caller's business).
    pub fn remove(&mut self, id: SessionId) -> Result<()> {
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        forget(&transaction, id)?;
        transaction.commit()?;
        Ok(())
    }

    fn known_stamps(&self) -> Result<HashMap<SessionId, Stamp>> {
        Ok(stamps(&self.connection, "")?.into_iter().collect())
    }
}

/// The stamps the index holds, of the sessions `filter` (an SQL `WHERE`
/// clause, or nothing) selects.
pub(crate) fn stamps(
    connection: &rusqlite::Connection,
    filter: &str,
) -> Result<Vec<(SessionId, Stamp)>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT id, file_size, file_mtime_ns FROM sessions {filter}"
    ))?;
    let rows = statement.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, i64>(2)?,
        ))
    })?;
    let mut stamps = Vec::new();
    for row in rows {
        let (id, size, mtime_ns) = row?;
        if let Ok(id) = id.parse::<SessionId>() {
            let size = u64::try_from(size).unwrap_or(0);
            stamps.push((id, Stamp { size, mtime_ns }));
        }
    }
    Ok(stamps)
}

pub(crate) enum Reindexed {
    Unchanged,
    Appended,
    Whole,
    NotASession,
}

/// What the index holds of one session.
struct Indexed {
    rowid: i64,
    stamp: Stamp,
    facts: Facts,
    writing: bool,
}

/// Reindexes one file inside the caller's (immediate) transaction, its new
/// pieces gathered into `new` (which the caller writes before committing).
/// The row
/// is read again here, under the write lock, so two processes refreshing at
/// once never both apply the same bytes.
pub(crate) fn reindex(
    transaction: &Transaction<'_>,
    id: SessionId,
    path: &Path,
    new: &mut NewPieces,
) -> Result<Reindexed> {
    let Some(stamp) = Stamp::of(path)? else {
        forget(transaction, id)?;
        return Ok(Reindexed::Unchanged);
    };
    let indexed = load(transaction, id)?;
    if let Some(indexed) = &indexed
        && indexed.stamp == stamp
    {
        return Ok(Reindexed::Unchanged);
    }
    // Sessions are append-only: a file that grew and still holds the last
    // record read where it was is read on from there. Anything else (same
    // size with a new mtime, shrunk, the last record changed) is read whole.
    let writing = indexed.as_ref().is_some_and(|indexed| indexed.writing);
    if let Some(indexed) = indexed
        && stamp.size > indexed.stamp.size
        && tail_matches(path, &indexed.facts)?
    {
        let mut facts = indexed.facts;
        let pieces = scan_from(path, &mut facts)?;
        update(transaction, indexed.rowid, &facts, stamp)?;
        new.add(transaction, indexed.rowid, pieces)?;
        return Ok(Reindexed::Appended);
    }
    forget(transaction, id)?;
    let mut facts = Facts::default();
    let pieces = scan_from(path, &mut facts)?;
    match &facts.meta {
        Some(meta) if meta.session_id == id => {}
        _ => {
            tracing::warn!(path = %path.display(), "not indexing a file that is not this session");
            return Ok(Reindexed::NotASession);
        }
    }
    let rowid = insert(transaction, id, path, &facts, stamp)?;
    new.add(transaction, rowid, pieces)?;
    if writing {
        set_writing(transaction, id, true)?;
    }
    Ok(Reindexed::Whole)
}

/// Whether the last record the index read is still where it was: the file
/// only grew since.
pub(crate) fn tail_matches(path: &Path, facts: &Facts) -> Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    if facts.indexed_offset == 0 {
        return Ok(true);
    }
    let mut file = std::fs::File::open(path).map_err(IndexError::io("open session", path))?;
    file.seek(SeekFrom::Start(facts.last_record_offset))
        .map_err(IndexError::io("seek session", path))?;
    let length = facts
        .indexed_offset
        .saturating_sub(facts.last_record_offset);
    let mut line = Vec::new();
    file.take(length)
        .read_to_end(&mut line)
        .map_err(IndexError::io("read session", path))?;
    if line.len() as u64 != length || line.pop() != Some(b'\n') {
        return Ok(false);
    }
    Ok(line_hash(&line) == facts.last_record_hash)
}

fn load(transaction: &Transaction<'_>, id: SessionId) -> Result<Option<Indexed>> {
    let mut statement = transaction.prepare_cached(
        "SELECT rowid, file_size, file_mtime_ns, explicit_title, first_user_message, updated_ms,
                records, items, turns, rounds, compactions, skipped_lines, indexed_offset,
                last_record_offset, last_record_hash, writing, parent_session, fork_point,
                cost_pico, cost_as_of, unpriced_rounds, cost_model
         FROM sessions WHERE id = ?1",
    )?;
    let row = statement
        .query_row([id.to_string()], |row| {
            Ok(Indexed {
                rowid: row.get(0)?,
                stamp: Stamp {
                    size: row.get::<_, i64>(1)?.try_into().unwrap_or(0),
                    mtime_ns: row.get(2)?,
                },
                facts: Facts {
                    meta: None,
                    explicit_title: row.get(3)?,
                    first_user_message: row.get(4)?,
                    updated_ms: row.get(5)?,
                    records: row.get(6)?,
                    items: row.get(7)?,
                    turns: row.get(8)?,
                    rounds: row.get(9)?,
                    compactions: row.get(10)?,
                    skipped_lines: row.get(11)?,
                    indexed_offset: row.get::<_, i64>(12)?.try_into().unwrap_or(0),
                    last_record_offset: row.get::<_, i64>(13)?.try_into().unwrap_or(0),
                    last_record_hash: row.get(14)?,
                    parent_session: row.get(16)?,
                    fork_point: row.get(17)?,
                    cost_pico: row.get(18)?,
                    cost_as_of: row.get(19)?,
                    unpriced_rounds: row.get(20)?,
                    cost_model: row.get(21)?,
                },
                writing: row.get::<_, i64>(15)? != 0,
            })
        })
        .optional()?;
    Ok(row)
}

fn as_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn update(transaction: &Transaction<'_>, rowid: i64, facts: &Facts, stamp: Stamp) -> Result<()> {
    transaction
        .prepare_cached(
            "UPDATE sessions SET explicit_title = ?2, first_user_message = ?3, updated_ms = ?4,
                records = ?5, items = ?6, turns = ?7, rounds = ?8, compactions = ?9,
                skipped_lines = ?10, file_size = ?11, file_mtime_ns = ?12, indexed_offset = ?13,
                last_record_offset = ?14, last_record_hash = ?15, parent_session = ?16,
                fork_point = ?17, cost_pico = ?18, cost_as_of = ?19, unpriced_rounds = ?20,
                cost_model = ?21
             WHERE rowid = ?1",
        )?
        .execute(params![
            rowid,
            facts.explicit_title,
            facts.first_user_message,
            facts.updated_ms,
            facts.records,
            facts.items,
            facts.turns,
            facts.rounds,
            facts.compactions,
            facts.skipped_lines,
            as_i64(stamp.size),
            stamp.mtime_ns,
            as_i64(facts.indexed_offset),
            as_i64(facts.last_record_offset),
            facts.last_record_hash,
            facts.parent_session,
            facts.fork_point,
            facts.cost_pico,
            facts.cost_as_of,
            facts.unpriced_rounds,
            facts.cost_model,
        ])?;
    Ok(())
}

fn insert(
    transaction: &Transaction<'_>,
    id: SessionId,
    path: &Path,
    facts: &Facts,
    stamp: Stamp,
) -> Result<i64> {
    let Some(meta) = &facts.meta else {
        return Ok(0);
    };
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    transaction
        .prepare_cached(
            "INSERT INTO sessions (id, file_name, explicit_title, first_user_message, workspace,
                provider_kind, model, created_ms, updated_ms, records, items, turns, rounds,
                compactions, skipped_lines, parent_session, fork_point, file_size, file_mtime_ns,
                indexed_offset, last_record_offset, last_record_hash, cost_pico, cost_as_of,
                unpriced_rounds, cost_model)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
        )?
        .execute(params![
            id.to_string(),
            file_name,
            facts.explicit_title,
            facts.first_user_message,
            meta.workspace,
            meta.provider_kind,
            meta.model,
            meta.created_at.timestamp_millis(),
            facts.updated_ms,
            facts.records,
            facts.items,
            facts.turns,
            facts.rounds,
            facts.compactions,
            facts.skipped_lines,
            facts.parent_session,
            facts.fork_point,
            as_i64(stamp.size),
            stamp.mtime_ns,
            as_i64(facts.indexed_offset),
            as_i64(facts.last_record_offset),
            facts.last_record_hash,
            facts.cost_pico,
            facts.cost_as_of,
            facts.unpriced_rounds,
            facts.cost_model,
        ])?;
    Ok(transaction.last_insert_rowid())
}

fn forget(transaction: &Transaction<'_>, id: SessionId) -> Result<()> {
    let rowid: Option<i64> = transaction
        .prepare_cached("SELECT rowid FROM sessions WHERE id = ?1")?
        .query_row([id.to_string()], |row| row.get(0))
        .optional()?;
    if let Some(rowid) = rowid {
        transaction
            .prepare_cached("DELETE FROM pieces WHERE session = ?1")?
            .execute([rowid])?;
        transaction
            .prepare_cached("DELETE FROM sessions WHERE rowid = ?1")?
            .execute([rowid])?;
    }
    Ok(())
}

/// Marks the session as held open for writing (or no longer).
pub(crate) fn set_writing(
    transaction: &Transaction<'_>,
    id: SessionId,
    writing: bool,
) -> Result<()> {
    transaction
        .prepare_cached("UPDATE sessions SET writing = ?2 WHERE id = ?1")?
        .execute(params![id.to_string(), i64::from(writing)])?;
    Ok(())
}

/// The stored facts of a session whose tail the caller wants to check.
pub(crate) fn stored_facts(transaction: &Transaction<'_>, id: SessionId) -> Result<Option<Facts>> {
    Ok(load(transaction, id)?.map(|indexed| indexed.facts))
}
