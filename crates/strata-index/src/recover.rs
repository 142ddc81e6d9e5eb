//! Opening the index whatever is at its path. The index is derived data, so
//! a damaged one must never cost the person their library: a file that is
//! not a database, is corrupt, or holds other tables is moved aside (kept,
//! named with the time) and rebuilt from the session files; an index that
//! cannot be written where it lives is replaced by one in memory, built
//! from the files on every open (slower). Either way the caller gets an
//! [`IndexNotice`] to pass on once.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, ErrorCode};
use strata_core::StrataPaths;

use crate::error::{IndexError, Result};
use crate::{Index, index_path};

/// What an error from opening or using the index calls for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The file is not a usable index: set it aside and rebuild.
    Damaged,
    /// The index cannot be created or written where it lives: read the
    /// session files instead.
    Unwritable,
    /// Anything else (busy past the timeout, a bad cursor, a session file
    /// that cannot be read): the caller's error, as before.
    Other,
}

/// Sorts an error from opening or using the index by what recovers from
/// it ([`Index::run_recovering`] acts only on [`Failure::Damaged`]).
pub fn classify(error: &IndexError) -> Failure {
    match error {
        // A stored listing line that no longer reads is the index's damage.
        IndexError::SchemaMismatch | IndexError::Listing(_) => Failure::Damaged,
        IndexError::Sqlite(error) => match error.sqlite_error_code() {
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => Failure::Damaged,
            Some(
                ErrorCode::ReadOnly
                | ErrorCode::CannotOpen
                | ErrorCode::PermissionDenied
                | ErrorCode::DiskFull
                | ErrorCode::SystemIoFailure,
            ) => Failure::Unwritable,
            _ => Failure::Other,
        },
        // Opening touches only the index's file and its folder; a session
        // file's I/O error comes from using the index, where only damage
        // is acted on.
        IndexError::Io { .. } => Failure::Unwritable,
        IndexError::Core(_) | IndexError::BadCursor(_) => Failure::Other,
    }
}

/// What happened to the index on the way to opening it, for the person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexNotice {
    /// The file was damaged: it was moved to `kept` and the index is
    /// rebuilt from the session files.
    Rebuilt { kept: PathBuf, cause: String },
    /// The index cannot be written at `path`: listing and search read the
    /// session files into memory instead.
    FilesOnly { path: PathBuf, cause: String },
}

impl std::fmt::Display for IndexNotice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexNotice::Rebuilt { kept, cause } => write!(
                f,
                "The session index was damaged ({cause}); it was kept as {} and rebuilt from the session files.",
                kept.display()
            ),
            IndexNotice::FilesOnly { path, cause } => write!(
                f,
                "The session index cannot be written at {} ({cause}); the library is read from the session files instead, which is slower.",
                path.display()
            ),
        }
    }
}

/// An index opened by [`Index::open_recovering`], and what it took.
pub struct Opened {
    pub index: Index,
    pub notice: Option<IndexNotice>,
}

/// A file's identity, to tell a file from the one that replaced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    device: u64,
    inode: u64,
}

/// The identity of the file at `path`, `None` when there is none.
pub fn file_identity(path: &Path) -> Option<FileIdentity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| FileIdentity {
            device: m.dev(),
            inode: m.ino(),
        })
    }
    // Elsewhere only whether there is a file: a replaced one goes unseen.
    #[cfg(not(unix))]
    {
        std::fs::metadata(path).ok().map(|_| FileIdentity {
            device: 0,
            inode: 0,
        })
    }
}

/// Where a damaged index at `path` is kept: beside it, named with the time
/// it was found (a counter added when that name is taken).
pub fn kept_path(
    path: &Path,
    now: chrono::DateTime<chrono::Utc>,
    taken: impl Fn(&Path) -> bool,
) -> PathBuf {
    let stamp = now.format("%Y%m%dT%H%M%S%.3fZ");
    let name = path.file_name().map_or_else(
        || crate::INDEX_FILE_NAME.into(),
        |name| name.to_string_lossy().into_owned(),
    );
    let first = path.with_file_name(format!("{name}.broken-{stamp}"));
    let mut candidate = first.clone();
    let mut n = 1u32;
    while taken(&candidate) {
        n += 1;
        candidate = path.with_file_name(format!("{name}.broken-{stamp}-{n}"));
    }
    candidate
}

/// Moves the damaged index at `path` aside, its `-wal` and `-shm` with it
/// (a stale WAL beside a new database would be replayed into it). Leaves
/// the path alone when the file there is no longer `found` (another
/// process already set it aside and started a new one).
fn set_aside(path: &Path, found: Option<FileIdentity>) -> std::io::Result<Option<PathBuf>> {
    if found.is_some() && file_identity(path) != found {
        return Ok(None);
    }
    let kept = kept_path(path, chrono::Utc::now(), |candidate| {
        candidate.symlink_metadata().is_ok()
    });
    std::fs::rename(path, &kept)?;
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let mut side_kept = kept.as_os_str().to_owned();
        side_kept.push(suffix);
        match std::fs::rename(&side, &side_kept) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
    }
    Ok(Some(kept))
}

impl Index {
    /// [`Index::open`], recovering from a damaged or unwritable index.
    pub fn open_recovering(paths: &StrataPaths) -> Result<Opened> {
        Self::open_recovering_at(&index_path(paths), &paths.sessions)
    }

    /// [`Index::open_at`], recovering from a damaged or unwritable index:
    /// errors only when neither the file nor memory can hold one.
    pub fn open_recovering_at(path: &Path, sessions: &Path) -> Result<Opened> {
        let found = file_identity(path);
        match Self::open_at(path, sessions) {
            Ok(index) => Ok(Opened {
                index,
                notice: None,
            }),
            Err(error) => Self::recover(path, sessions, found, error),
        }
    }

    /// An index held in memory over `sessions`, standing in for the one
    /// at `path` that cannot be written: empty until refreshed.
    pub fn in_memory(path: &Path, sessions: &Path) -> Result<Self> {
        let mut connection = Connection::open_in_memory()?;
        crate::schema::ensure(&mut connection)?;
        Ok(Self {
            connection,
            sessions: sessions.to_owned(),
            path: path.to_owned(),
            in_memory: true,
        })
    }

    /// Whether this index lives in memory (its file could not be written).
    pub fn is_in_memory(&self) -> bool {
        self.in_memory
    }

    /// Runs `work`; when it finds the index file damaged, sets the file
    /// aside, opens a new index (rebuilt by `work`'s refresh) and runs
    /// `work` once more. Returns the notice of the recovery, if there was
    /// one.
    pub fn run_recovering<T>(
        &mut self,
        mut work: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<(T, Option<IndexNotice>)> {
        match work(self) {
            Err(error) if classify(&error) == Failure::Damaged && !self.in_memory => {
                let found = file_identity(&self.path);
                let path = self.path.clone();
                let sessions = self.sessions.clone();
                // Closes the damaged database before it is moved.
                *self = Self::in_memory(&path, &sessions)?;
                let opened = Self::recover(&path, &sessions, found, error)?;
                *self = opened.index;
                Ok((work(self)?, opened.notice))
            }
            other => other.map(|value| (value, None)),
        }
    }

    fn recover(
        path: &Path,
        sessions: &Path,
        found: Option<FileIdentity>,
        error: IndexError,
    ) -> Result<Opened> {
        let files_only = |cause: String| -> Result<Opened> {
            tracing::warn!(index = %path.display(), %cause, "the session index cannot be written; reading the session files instead");
            Ok(Opened {
                index: Self::in_memory(path, sessions)?,
                notice: Some(IndexNotice::FilesOnly {
                    path: path.to_owned(),
                    cause,
                }),
            })
        };
        match classify(&error) {
            Failure::Other => Err(error),
            Failure::Unwritable => files_only(error.to_string()),
            Failure::Damaged => {
                let kept = match set_aside(path, found) {
                    Ok(Some(kept)) => kept,
                    // Another process set it aside first: share its new one.
                    Ok(None) => return Self::open_recovering_at(path, sessions),
                    Err(source) => {
                        return files_only(format!("{error}; moving it aside failed: {source}"));
                    }
                };
                tracing::warn!(index = %path.display(), kept = %kept.display(), %error, "the session index was damaged; kept it aside and rebuilding it from the session files");
                let notice = IndexNotice::Rebuilt {
                    kept,
                    cause: error.to_string(),
                };
                match Self::open_at(path, sessions) {
                    Ok(index) => Ok(Opened {
                        index,
                        notice: Some(notice),
                    }),
                    Err(again) => files_only(again.to_string()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use chrono::TimeZone;

    fn sqlite(code: std::os::raw::c_int) -> IndexError {
        IndexError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            None,
        ))
    }

    #[test]
    fn damage_is_rebuilt_an_unwritable_place_read_from_the_files_and_the_rest_returned() {
        use rusqlite::ffi;
        assert_eq!(classify(&sqlite(ffi::SQLITE_NOTADB)), Failure::Damaged);
        assert_eq!(classify(&sqlite(ffi::SQLITE_CORRUPT)), Failure::Damaged);
        assert_eq!(classify(&IndexError::SchemaMismatch), Failure::Damaged);
        for code in [
            ffi::SQLITE_READONLY,
            ffi::SQLITE_CANTOPEN,
            ffi::SQLITE_PERM,
            ffi::SQLITE_FULL,
            ffi::SQLITE_IOERR,
        ] {
            assert_eq!(classify(&sqlite(code)), Failure::Unwritable, "{code}");
        }
        let io = IndexError::io("create index", Path::new("/x"))(std::io::Error::from(
            std::io::ErrorKind::PermissionDenied,
        ));
        assert_eq!(classify(&io), Failure::Unwritable);
        assert_eq!(classify(&sqlite(ffi::SQLITE_BUSY)), Failure::Other);
        assert_eq!(classify(&sqlite(ffi::SQLITE_CONSTRAINT)), Failure::Other);
        assert_eq!(classify(&IndexError::BadCursor("x".into())), Failure::Other);
    }

    #[test]
    fn a_kept_index_is_named_with_the_time_and_never_over_another() {
        let now = chrono::Utc.with_ymd_and_hms(2026, 3, 4, 5, 6, 7).unwrap();
        let path = Path::new("/data/library.sqlite3");
        let first = "/data/library.sqlite3.broken-20260304T050607.000Z";
        assert_eq!(kept_path(path, now, |_| false), Path::new(first));
        let taken = |candidate: &Path| {
            candidate == Path::new(first) || candidate.to_string_lossy().ends_with("Z-2")
        };
        assert_eq!(
            kept_path(path, now, taken),
            Path::new("/data/library.sqlite3.broken-20260304T050607.000Z-3")
        );
    }

    #[test]
    fn setting_aside_moves_the_wal_and_shm_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("library.sqlite3");
        for (suffix, bytes) in [("", "db"), ("-wal", "wal"), ("-shm", "shm")] {
            std::fs::write(format!("{}{suffix}", path.display()), bytes).unwrap();
        }
        let kept = set_aside(&path, file_identity(&path)).unwrap().unwrap();
        for (suffix, bytes) in [("", "db"), ("-wal", "wal"), ("-shm", "shm")] {
            let moved = format!("{}{suffix}", kept.display());
            assert_eq!(std::fs::read_to_string(moved).unwrap(), bytes);
            assert!(!Path::new(&format!("{}{suffix}", path.display())).exists());
        }
    }

    #[test]
    fn a_file_replaced_since_it_was_found_damaged_is_not_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("library.sqlite3");
        std::fs::write(&path, "damaged").unwrap();
        let found = file_identity(&path);
        // Another process set it aside and started a new index meanwhile.
        std::fs::rename(&path, dir.path().join("elsewhere")).unwrap();
        std::fs::write(&path, "new").unwrap();
        assert_eq!(set_aside(&path, found).unwrap(), None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    }
}
