//! The cheap refresh behind every listing and search: a stat of the
//! sessions folder, and of the files Strata's writers hold open, instead of
//! a stat of every file.
//!
//! Creating, deleting or renaming a session file changes the folder's
//! mtime; appending to one does not. So a full pass ([`Index::rescan`]) runs
//! whenever the folder's mtime differs from the one the last full pass saw,
//! and appends are noticed through the writers: each marks its session as
//! open for writing ([`Index::note_writing`]) and the cheap refresh stats
//! those files. A file changed in place by anything else is noticed by the
//! next full pass, or by [`Index::check_tail`] when the session opens.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};
use strata_protocol::SessionId;

use crate::error::{IndexError, Result};
use crate::pieces::NewPieces;
use crate::refresh::{Reindexed, Stamp, reindex, set_writing, stamps};
use crate::{Index, RefreshReport};

/// How old the folder's mtime must be before a full pass trusts it: a
/// change within the same tick of a coarse filesystem clock would leave
/// the mtime as it was (the "racy" case), so a recent mtime is not kept and
/// the next refresh runs the full pass again.
const RACY_WINDOW: Duration = Duration::from_secs(2);

fn nanos(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
    })
}

/// The sessions folder's mtime, `None` when it does not exist.
pub(crate) fn folder_mtime(folder: &Path) -> Result<Option<i64>> {
    match std::fs::metadata(folder) {
        Ok(metadata) => Ok(metadata.modified().ok().map(nanos)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(IndexError::io("stat sessions folder", folder)(source)),
    }
}

/// Keeps the folder mtime a full pass started from, if it is old enough to
/// be trusted; forgets it otherwise.
pub(crate) fn remember(
    connection: &Connection,
    folder: Option<i64>,
    started: SystemTime,
) -> Result<()> {
    let trusted_before = nanos(started.checked_sub(RACY_WINDOW).unwrap_or(UNIX_EPOCH));
    match folder {
        Some(mtime) if mtime < trusted_before => {
            connection
                .prepare_cached("INSERT OR REPLACE INTO folder (id, mtime_ns) VALUES (1, ?1)")?
                .execute([mtime])?;
        }
        _ => {
            connection
                .prepare_cached("DELETE FROM folder")?
                .execute([])?;
        }
    }
    Ok(())
}

fn remembered(connection: &Connection) -> Result<Option<i64>> {
    Ok(connection
        .prepare_cached("SELECT mtime_ns FROM folder WHERE id = 1")?
        .query_row([], |row| row.get(0))
        .optional()?)
}

impl Index {
    /// Brings the index in line with the sessions folder, cheaply: when the
    /// folder's mtime is the one the last full pass saw, only the sessions
    /// Strata's writers hold open are statted (and reindexed if they
    /// changed); otherwise this is [`Index::rescan`].
    pub fn refresh(&mut self) -> Result<RefreshReport> {
        let folder = folder_mtime(&self.sessions)?;
        if folder.is_none() || remembered(&self.connection)? != folder {
            return self.rescan();
        }
        let open = self.open_for_writing()?;
        let mut report = RefreshReport {
            sessions: open.len(),
            ..RefreshReport::default()
        };
        let mut changed = Vec::new();
        for (id, known) in open {
            let path = self.session_path(id);
            if Stamp::of(&path)? != Some(known) {
                changed.push((id, path));
            }
        }
        if changed.is_empty() {
            return Ok(report);
        }
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut new = NewPieces::default();
        for (id, path) in &changed {
            match reindex(&transaction, *id, path, &mut new)? {
                Reindexed::Unchanged => {}
                Reindexed::Appended => report.appended += 1,
                Reindexed::Whole => report.reindexed += 1,
                Reindexed::NotASession => report.not_sessions += 1,
            }
        }
        new.write(&transaction)?;
        transaction.commit()?;
        Ok(report)
    }

    /// A writer holds the session open from now on: brings it up to date
    /// and has every cheap refresh stat its file until
    /// [`Index::note_closed`].
    pub fn note_writing(&mut self, id: SessionId) -> Result<()> {
        self.update_one(id, Some(true))
    }

    /// The writer let go of the session: brings it up to date, and cheap
    /// refreshes stop statting it.
    pub fn note_closed(&mut self, id: SessionId) -> Result<()> {
        self.update_one(id, Some(false))
    }

    /// Brings one session up to date (what a writer calls after appending).
    pub fn note_appended(&mut self, id: SessionId) -> Result<()> {
        self.update_one(id, None)
    }

    fn update_one(&mut self, id: SessionId, writing: Option<bool>) -> Result<()> {
        let path = self.session_path(id);
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut new = NewPieces::default();
        reindex(&transaction, id, &path, &mut new)?;
        new.write(&transaction)?;
        if let Some(writing) = writing {
            set_writing(&transaction, id, writing)?;
        }
        transaction.commit()?;
        Ok(())
    }

    pub(crate) fn session_path(&self, id: SessionId) -> std::path::PathBuf {
        self.sessions.join(format!("{id}.jsonl"))
    }

    fn open_for_writing(&self) -> Result<Vec<(SessionId, Stamp)>> {
        stamps(&self.connection, "WHERE writing = 1")
    }
}
