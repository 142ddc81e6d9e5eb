//! The index's tables. The session files are the truth: a database whose
//! schema version differs from [`SCHEMA_VERSION`] is emptied and rebuilt
//! from them, so changing the schema only means bumping the version. A
//! database that claims this version but holds other tables is refused as
//! damaged (see `recover.rs`), never written into.

use std::sync::OnceLock;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{IndexError, Result};

/// Bumped whenever a table or what is extracted into it changes.
pub const SCHEMA_VERSION: i64 = 6;

const TABLES: &str = "
CREATE TABLE sessions (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    file_name TEXT NOT NULL,
    explicit_title TEXT,
    first_user_message TEXT,
    workspace TEXT NOT NULL,
    provider_kind TEXT NOT NULL,
    model TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    records INTEGER NOT NULL,
    items INTEGER NOT NULL,
    turns INTEGER NOT NULL,
    rounds INTEGER NOT NULL,
    compactions INTEGER NOT NULL,
    skipped_lines INTEGER NOT NULL,
    parent_session TEXT,
    -- The fork point's JSON (strata-protocol's ForkPoint).
    fork_point TEXT,
    file_size INTEGER NOT NULL,
    file_mtime_ns INTEGER NOT NULL,
    indexed_offset INTEGER NOT NULL,
    last_record_offset INTEGER NOT NULL,
    last_record_hash TEXT NOT NULL,
    -- 1 while a Strata process holds the session open for writing: a cheap
    -- refresh stats these files even when the folder did not change.
    writing INTEGER NOT NULL DEFAULT 0,
    -- What the session cost (strata-core's store::cost): exact pico-dollars,
    -- the newest price date among its parts (NULL: nothing had a price),
    -- rounds without a price, and the model the next usage is priced by.
    cost_pico INTEGER NOT NULL DEFAULT 0,
    cost_as_of TEXT,
    unpriced_rounds INTEGER NOT NULL DEFAULT 0,
    cost_model TEXT
);
CREATE INDEX sessions_by_cost ON sessions (cost_pico DESC, id DESC);
CREATE INDEX sessions_by_updated ON sessions (updated_ms DESC, id DESC);
CREATE INDEX sessions_writing ON sessions (writing) WHERE writing = 1;
-- The sessions folder's mtime at the last full stat pass, kept only when it
-- was old enough that a change in the same clock tick cannot hide behind it.
CREATE TABLE folder (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    mtime_ns INTEGER NOT NULL
);
CREATE TABLE pieces (
    rowid INTEGER PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES sessions (rowid),
    item_id TEXT,
    kind TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX pieces_by_session ON pieces (session);
-- Newer text takes lower row ids (see pieces.rs): FTS5 walks a doclist
-- forwards far faster than backwards, and search lists newest text first.
-- detail = 'none' keeps only which pieces hold each trigram, no positions
-- (an index a tenth the size): search verifies each candidate's text.
CREATE VIRTUAL TABLE texts USING fts5 (
    body, content = 'pieces', content_rowid = 'rowid', tokenize = 'trigram',
    detail = 'none', columnsize = 0
);
CREATE TRIGGER pieces_added AFTER INSERT ON pieces BEGIN
    INSERT INTO texts (rowid, body) VALUES (new.rowid, new.body);
END;
CREATE TRIGGER pieces_removed AFTER DELETE ON pieces BEGIN
    INSERT INTO texts (texts, rowid, body) VALUES ('delete', old.rowid, old.body);
END;
-- Other tools' sessions (see imported.rs), read-only from their files under
-- the home folder: source is codex, claude or copilot (Strata's own are the
-- sessions above), listing the strata-import listing line as JSON.
CREATE TABLE imported (
    rowid INTEGER PRIMARY KEY,
    source TEXT NOT NULL CHECK (source IN ('codex', 'claude', 'copilot')),
    path TEXT NOT NULL UNIQUE,
    id TEXT NOT NULL,
    updated_ms INTEGER,
    listing TEXT NOT NULL,
    file_size INTEGER NOT NULL,
    file_mtime_ns INTEGER NOT NULL
);
-- Their text, in a full-text table of its own with the same tokenizer:
-- Strata's search walks `texts` alone, unslowed by the other tools' text.
CREATE TABLE imported_pieces (
    rowid INTEGER PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES imported (rowid),
    item INTEGER,
    kind TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX imported_pieces_by_session ON imported_pieces (session);
CREATE VIRTUAL TABLE imported_texts USING fts5 (
    body, content = 'imported_pieces', content_rowid = 'rowid', tokenize = 'trigram',
    detail = 'none', columnsize = 0
);
CREATE TRIGGER imported_pieces_added AFTER INSERT ON imported_pieces BEGIN
    INSERT INTO imported_texts (rowid, body) VALUES (new.rowid, new.body);
END;
CREATE TRIGGER imported_pieces_removed AFTER DELETE ON imported_pieces BEGIN
    INSERT INTO imported_texts (imported_texts, rowid, body)
        VALUES ('delete', old.rowid, old.body);
END;
";

const DROP: &str = "
DROP TRIGGER IF EXISTS pieces_added;
DROP TRIGGER IF EXISTS pieces_removed;
DROP TABLE IF EXISTS texts;
DROP TABLE IF EXISTS pieces;
DROP TABLE IF EXISTS sessions;
DROP TABLE IF EXISTS folder;
DROP TRIGGER IF EXISTS imported_pieces_added;
DROP TRIGGER IF EXISTS imported_pieces_removed;
DROP TABLE IF EXISTS imported_texts;
DROP TABLE IF EXISTS imported_pieces;
DROP TABLE IF EXISTS imported;
";

/// Makes the tables match [`SCHEMA_VERSION`], emptying an index of another
/// version. Runs in an immediate transaction, so two processes opening a
/// fresh library at once do not both create the tables.
pub(crate) fn ensure(connection: &mut Connection) -> Result<()> {
    if version(connection)? == SCHEMA_VERSION {
        return Ok(());
    }
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found: i64 = transaction.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if found != SCHEMA_VERSION {
        transaction.execute_batch(DROP)?;
        transaction.execute_batch(TABLES)?;
        transaction.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    }
    transaction.commit()?;
    Ok(())
}

/// A schema object as SQLite keeps it: type, name and SQL.
type Object = [Option<String>; 3];

/// The objects [`TABLES`] makes, from a fresh in-memory copy made once
/// (every open compares against them; making them again costs about as
/// much as the rest of the open).
fn expected() -> Result<&'static [Object]> {
    static EXPECTED: OnceLock<Vec<Object>> = OnceLock::new();
    if let Some(objects) = EXPECTED.get() {
        return Ok(objects);
    }
    let fresh = Connection::open_in_memory()?;
    fresh.execute_batch(TABLES)?;
    let made = objects(&fresh)?;
    Ok(EXPECTED.get_or_init(|| made))
}

/// The schema objects of a database.
fn objects(connection: &Connection) -> Result<Vec<Object>> {
    let mut statement = connection
        .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name, tbl_name")?;
    let rows = statement.query_map([], |row| Ok([row.get(0)?, row.get(1)?, row.get(2)?]))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Refuses a file that is not a database, or one of this version whose
/// tables are not the ones [`TABLES`] creates (FTS5's shadow tables
/// included): written into, it would
/// fail or mislead later. Reads only, so it runs before anything is
/// written (even the switch to WAL) and a refused file is kept as found.
pub(crate) fn check(connection: &Connection) -> Result<()> {
    if version(connection)? != SCHEMA_VERSION {
        return Ok(());
    }
    if objects(connection)? == expected()? {
        Ok(())
    } else {
        Err(IndexError::SchemaMismatch)
    }
}

fn version(connection: &Connection) -> Result<i64> {
    Ok(connection.query_row("PRAGMA user_version", [], |row| row.get(0))?)
}
