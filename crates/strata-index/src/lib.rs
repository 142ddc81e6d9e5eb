//! The session library's derived index: each session's metadata and
//! searchable text in SQLite (FTS5, trigram tokenizer), kept beside the
//! `sessions/` folder.
//!
//! The session files stay the truth. The index is rebuilt when missing or of
//! another schema version; [`Index::rescan`] stats every session file and
//! reindexes only files whose size or mtime changed (from the last indexed
//! byte when the file only grew), and [`Index::refresh`], what listing and
//! search run, does that only when the folder changed, else stats just the
//! sessions Strata's writers hold open (see `folder.rs`); deleting the index
//! file loses nothing, and a damaged one is set aside and rebuilt
//! ([`Index::open_recovering`], see `recover.rs`).
//! Several Strata processes may share one library: the database runs in WAL
//! mode with a busy timeout, and every reindex happens in an immediate
//! transaction that rereads what it replaces.

mod error;
mod fold;
mod folder;
pub mod generate;
mod imported;
mod pieces;
mod query;
mod recover;
mod refresh;
mod scan;
mod schema;
mod search;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};
use strata_core::StrataPaths;
use strata_protocol::SessionId;

pub use error::{IndexError, Result};
pub use imported::{ImportedHit, ImportedRefresh, UnreadableImport};
pub use query::{
    Filters, Page, PageRequest, SearchHit, SearchPage, SessionSummary, SnippetSpan, TOTAL_CAP,
    snippet_spans,
};
pub use recover::{Failure, FileIdentity, IndexNotice, Opened, classify, file_identity, kept_path};
pub use scan::{MATCH_END, MATCH_START, MAX_PIECE_BYTES, line_hash};
pub use schema::SCHEMA_VERSION;

/// The index file's name, in the data folder beside `sessions/`.
pub const INDEX_FILE_NAME: &str = "library.sqlite3";

/// How long a process waits for another one's write to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `step` again while SQLite answers busy or locked, for at most
/// [`BUSY_TIMEOUT`].
fn retry_busy<T, E: Into<IndexError>>(
    mut step: impl FnMut() -> std::result::Result<T, E>,
) -> Result<T> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match step().map_err(Into::into) {
            Err(IndexError::Sqlite(error))
                if is_busy(&error) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The session library's index.
pub struct Index {
    connection: Connection,
    sessions: PathBuf,
    path: PathBuf,
    /// Held in memory: the file at `path` could not be written.
    in_memory: bool,
}

/// What a refresh did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefreshReport {
    /// Session files statted.
    pub sessions: usize,
    /// Whether every file was statted (the folder changed, or
    /// [`Index::rescan`]), not only those open for writing.
    pub full_pass: bool,
    /// Files read whole (new, or no longer a prefix of what was indexed).
    pub reindexed: usize,
    /// Files read from the last indexed byte on.
    pub appended: usize,
    /// Sessions dropped because their file is gone.
    pub removed: usize,
    /// `<uuid>.jsonl` files that do not hold that session.
    pub not_sessions: usize,
}

/// Whether a session file still ends in the record the index last read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TailCheck {
    /// The file holds, at the indexed offset, the record the index hashed.
    Matches,
    /// The file changed under the index (appended, rewritten or truncated).
    Differs,
    /// The index holds nothing for the session.
    NotIndexed,
}

/// Where the index of `paths` lives: beside the sessions folder.
pub fn index_path(paths: &StrataPaths) -> PathBuf {
    paths.sessions.parent().map_or_else(
        || PathBuf::from(INDEX_FILE_NAME),
        |data| data.join(INDEX_FILE_NAME),
    )
}

impl Index {
    /// Opens (creating, owner-only) the index of `paths`' library. It is not
    /// refreshed: call [`Index::refresh`] before reading it.
    pub fn open(paths: &StrataPaths) -> Result<Self> {
        Self::open_at(&index_path(paths), &paths.sessions)
    }

    /// Opens the index file `path` over the session files in `sessions`.
    pub fn open_at(path: &Path, sessions: &Path) -> Result<Self> {
        if let Some(parent) = path.parent()
            && !parent.as_os_str().is_empty()
        {
            strata_core::private::ensure_dir(parent)
                .map_err(IndexError::io("create data folder", parent))?;
        }
        // Created here, owner-only, before SQLite sees it: SQLite gives its
        // -wal and -shm files the database file's mode. An existing file is
        // never opened outside SQLite: closing any descriptor of it would
        // drop the POSIX locks this process's other connections hold (the
        // desktop keeps one open while writers note their sessions), and
        // another process, believing itself the last reader, would then
        // checkpoint and delete the WAL under them ("database disk image is
        // malformed").
        match strata_core::private::file_options()
            .create_new(true)
            .write(true)
            .open(path)
        {
            Ok(file) => strata_core::private::tighten_file(&file)
                .map_err(IndexError::io("tighten index", path))?,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                strata_core::private::tighten(path)
                    .map_err(IndexError::io("tighten index", path))?;
            }
            Err(error) => return Err(IndexError::io("create index", path)(error)),
        }
        let mut connection = Connection::open(path)?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        retry_busy(|| schema::check(&connection))?;
        // Two processes opening a fresh index at once: switching it to WAL and
        // the first read during the other's WAL recovery answer SQLITE_BUSY
        // at once, without the busy handler, so they are retried here.
        retry_busy(|| connection.pragma_update(None, "journal_mode", "WAL"))?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        retry_busy(|| schema::ensure(&mut connection))?;
        Ok(Self {
            connection,
            sessions: sessions.to_owned(),
            path: path.to_owned(),
            in_memory: false,
        })
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the session's file still ends in the record the index last
    /// read (what opening a session checks before trusting the index).
    pub fn check_tail(&mut self, id: SessionId) -> Result<TailCheck> {
        let path = self.session_path(id);
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Deferred)?;
        let Some(facts) = refresh::stored_facts(&transaction, id)? else {
            return Ok(TailCheck::NotIndexed);
        };
        let size = refresh::Stamp::of(&path)?.map(|stamp| stamp.size);
        if size != Some(facts.indexed_offset) {
            return Ok(TailCheck::Differs);
        }
        Ok(if refresh::tail_matches(&path, &facts)? {
            TailCheck::Matches
        } else {
            TailCheck::Differs
        })
    }
}
