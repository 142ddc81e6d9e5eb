//! The one writer of a session file: holds an exclusive advisory lock for its
//! lifetime, appends whole lines, and repairs a torn tail before its first
//! append (once the caller has validated the file's contents).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::Utc;
use strata_protocol::{Record, SessionId};

use crate::error::{CoreError, Result};
use crate::store::reader::TornTail;
use crate::store::tail::{TailRead, read_tail};

/// What opening for writing did with a torn trailing line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornTailRepair {
    /// How many bytes were after the last newline.
    pub bytes: u64,
    /// The sidecar file now holding them, beside the session file.
    pub sidecar: PathBuf,
}

/// An open, locked session file. Dropping it closes the file, which releases
/// the lock.
#[derive(Debug)]
pub(crate) struct SessionWriter {
    file: File,
    path: PathBuf,
    session_id: SessionId,
    /// Set when a write failed part-way (the file may now end in a torn
    /// line) or an fsync failed (the kernel may have dropped written pages):
    /// either way later appends could not be trusted. Atomic because `sync`
    /// takes `&self`.
    failed: AtomicBool,
}

impl SessionWriter {
    /// Creates the session file holding `first` (its session_meta record)
    /// and locks it. The file is written and synced under a staging name
    /// and only then renamed into place, so a crash never leaves a session
    /// file without its session_meta (which would not read as a session).
    /// The id is new, so the rename replaces nothing.
    pub(crate) fn create(path: &Path, session_id: SessionId, first: &Record) -> Result<Self> {
        let staging = staging_path(path);
        let file = crate::private::file_options()
            .read(true)
            .append(true)
            .create_new(true)
            .open(&staging)
            .map_err(CoreError::io("create session", &staging))?;
        lock(&file, session_id, path)?;
        let mut writer = Self {
            file,
            path: staging.clone(),
            session_id,
            failed: AtomicBool::new(false),
        };
        writer.append(first)?;
        writer.sync()?;
        std::fs::rename(&staging, path).map_err(CoreError::io("create session", path))?;
        writer.path = path.to_owned();
        if let Some(dir) = path.parent() {
            sync_dir(dir)?;
        }
        Ok(writer)
    }

    /// Opens an existing session file and locks it. Changes nothing: the
    /// caller reads and validates the file, then calls
    /// [`Self::repair_torn_tail`].
    pub(crate) fn open(path: &Path, session_id: SessionId) -> Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|source| not_found_or_io(source, "open session", path, session_id))?;
        lock(&file, session_id, path)?;
        crate::private::tighten_file(&file).map_err(CoreError::io("make owner-only", path))?;
        Ok(Self {
            file,
            path: path.to_owned(),
            session_id,
            failed: AtomicBool::new(false),
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The whole file as it is now.
    pub(crate) fn read_all(&self) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        let mut file = &self.file;
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_end(&mut bytes))
            .map_err(CoreError::io("read session", &self.path))?;
        Ok(bytes)
    }

    /// Writes the record as one line with a single write on the append-mode
    /// file, so a crash leaves at worst one torn trailing line.
    pub(crate) fn append(&mut self, record: &Record) -> Result<()> {
        if self.failed.load(Ordering::Relaxed) {
            return Err(CoreError::SessionWriteFailed {
                session_id: self.session_id,
                path: self.path.clone(),
            });
        }
        // Serialise fully before touching the file: an encoding error must not
        // leave half a line behind.
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        let written = self.file.write_all(&line).and_then(|()| self.file.flush());
        if let Err(source) = written {
            self.failed.store(true, Ordering::Relaxed);
            return Err(CoreError::Io {
                action: "append to session",
                path: self.path.clone(),
                source,
            });
        }
        Ok(())
    }

    /// Makes every appended record durable.
    pub(crate) fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|source| {
            self.failed.store(true, Ordering::Relaxed);
            CoreError::Io {
                action: "sync session",
                path: self.path.clone(),
                source,
            }
        })
    }

    /// The session read from its tail under this writer's lock.
    pub(crate) fn read_tail(&self) -> Result<TailRead> {
        read_tail(&self.file, &self.path)
    }

    /// Moves a torn tail (if any) aside into a sidecar and truncates the file
    /// to its last newline. `torn_tail` and `torn` are what a read under
    /// this writer's lock found (so nothing has changed them since), and the
    /// file is already validated: a file that is refused must not be changed.
    pub(crate) fn repair_torn_tail(
        &self,
        torn_tail: Option<TornTail>,
        torn: &[u8],
    ) -> Result<Option<TornTailRepair>> {
        let Some(TornTail {
            offset: complete, ..
        }) = torn_tail
        else {
            return Ok(None);
        };
        // The torn bytes are kept, durably, before the file loses them.
        let sidecar = write_sidecar(&self.path, torn)?;
        self.file
            .set_len(complete)
            .and_then(|()| self.file.sync_all())
            .map_err(CoreError::io("truncate torn tail of", &self.path))?;
        tracing::warn!(
            session = %self.session_id,
            bytes = torn.len(),
            sidecar = %sidecar.display(),
            "moved a torn trailing line aside"
        );
        Ok(Some(TornTailRepair {
            bytes: torn.len() as u64,
            sidecar,
        }))
    }
}

/// How long a held lock is retried before the session is reported locked.
/// A writer that was just dropped can hold its lock a moment longer: a child
/// process another thread is spawning (a tool's shell) holds a copy of every
/// descriptor until it execs, and with it the lock. A live writer elsewhere
/// holds it far longer than this.
const LOCK_GRACE: std::time::Duration = std::time::Duration::from_millis(200);
const LOCK_RETRY_EVERY: std::time::Duration = std::time::Duration::from_millis(10);

/// Takes the exclusive advisory lock, waiting at most [`LOCK_GRACE`].
pub(crate) fn lock(file: &File, session_id: SessionId, path: &Path) -> Result<()> {
    let deadline = std::time::Instant::now() + LOCK_GRACE;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(LOCK_RETRY_EVERY);
            }
            Err(TryLockError::WouldBlock) => {
                return Err(CoreError::SessionLocked {
                    session_id,
                    path: path.to_owned(),
                });
            }
            Err(TryLockError::Error(source)) => {
                return Err(CoreError::Io {
                    action: "lock session",
                    path: path.to_owned(),
                    source,
                });
            }
        }
    }
}

pub(crate) fn not_found_or_io(
    source: std::io::Error,
    action: &'static str,
    path: &Path,
    session_id: SessionId,
) -> CoreError {
    if source.kind() == std::io::ErrorKind::NotFound {
        CoreError::SessionNotFound {
            query: session_id.to_string(),
        }
    } else {
        CoreError::Io {
            action,
            path: path.to_owned(),
            source,
        }
    }
}

/// Where a new session file is written before it is renamed into place:
/// not a `.jsonl` name, so listings never see it.
fn staging_path(session_path: &Path) -> PathBuf {
    let mut name = session_path
        .file_name()
        .map(|name| name.to_os_string())
        .unwrap_or_default();
    name.push(".new");
    session_path.with_file_name(name)
}

/// The prefix every torn-tail sidecar of `session_path` starts with.
pub(crate) fn sidecar_prefix(session_path: &Path) -> String {
    let name = session_path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{name}.torn-")
}

/// Writes `bytes` to `<session file>.torn-<unix millis>` (with a counter when
/// that exists already) and syncs it and its folder.
fn write_sidecar(session_path: &Path, bytes: &[u8]) -> Result<PathBuf> {
    let dir = session_path.parent().unwrap_or(Path::new("."));
    let stem = format!(
        "{}{}",
        sidecar_prefix(session_path),
        Utc::now().timestamp_millis()
    );
    let mut attempt = 0u32;
    loop {
        let name = match attempt {
            0 => stem.clone(),
            n => format!("{stem}-{n}"),
        };
        let sidecar = dir.join(name);
        match crate::private::file_options()
            .write(true)
            .create_new(true)
            .open(&sidecar)
        {
            Ok(mut file) => {
                file.write_all(bytes)
                    .and_then(|()| file.sync_all())
                    .map_err(CoreError::io("write torn-tail sidecar", &sidecar))?;
                sync_dir(dir)?;
                return Ok(sidecar);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => attempt += 1,
            Err(source) => {
                return Err(CoreError::Io {
                    action: "create torn-tail sidecar",
                    path: sidecar,
                    source,
                });
            }
        }
    }
}

/// Makes a new or removed directory entry durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)
            .and_then(|handle| handle.sync_all())
            .map_err(CoreError::io("sync directory", dir))
    }
    // Other platforms cannot open a directory as a file; their file syncs
    // cover the entry.
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}
