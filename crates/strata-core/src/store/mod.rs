//! The append-only session store: one JSONL file per session,
//! `<sessions root>/<session id>.jsonl`.
//!
//! - A record is one line, written in one write and flushed; existing bytes
//!   are never rewritten. A torn trailing line is moved to a sidecar
//!   (`<id>.jsonl.torn-<unix millis>`) when the session is next opened for
//!   writing, and only once the rest of the file was read and accepted: a
//!   file that is refused is not changed.
//! - One writer per session, by an exclusive advisory lock on the file held
//!   for the writer's lifetime; readers take no lock.
//! - The model-visible history is rebuilt by [`replay`], which folds records
//!   through [`History::apply`](crate::History::apply), the same function
//!   the live session uses.
//!
//! ```
//! use std::path::Path;
//!
//! use strata_core::store::{ReadMode, SessionStore};
//! use strata_protocol::ResponseItem;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let home = tempfile::tempdir()?;
//! # let sessions_root = home.path();
//! let store = SessionStore::new(sessions_root);
//! let mut session = store.create(Path::new("/work/tally"), "openai-responses", "gpt-5.4")?;
//! session.commit_item(ResponseItem::system("You are Strata."))?;
//! session.commit_item(ResponseItem::user("Fix the CSV parser."))?;
//! let id = session.id();
//! drop(session); // closes the file, releasing the writer lock
//!
//! let resumed = store.open_writer(store.resolve(&id.to_string()[..13])?)?;
//! assert_eq!(resumed.history().len(), 2);
//! let read = store.open_reader(id, ReadMode::Browsing)?;
//! assert_eq!(read.replay().history(), resumed.history());
//! assert_eq!(store.list()?[0].title.as_deref(), Some("Fix the CSV parser."));
//! # Ok(())
//! # }
//! ```

mod continued;
mod cost;
mod inspect;
mod reader;
mod replay;
mod tail;
mod verify;
mod writer;

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use strata_protocol::{Record, RecordBody, SessionId, SessionMeta};

use crate::error::{CoreError, Result};
use crate::paths::StrataPaths;
use crate::session::LiveSession;

pub use continued::ContinuedSession;

pub use cost::{CostTally, session_cost, usage_cost};
pub use inspect::{compaction_views, round_count, round_requests};
pub use reader::{
    ReadMode, ReadReport, SessionRead, SkippedLine, TornTail, parse_session, read_session_file,
};
pub use replay::{
    CompactionGuards, DERIVED_TITLE_CHARS, Replay, derived_title, original_items, replay,
};
pub use tail::{TailRead, first_meta, read_session_tail};
pub use verify::{Verification, verify_checkpoints};
pub use writer::TornTailRepair;

pub(crate) use writer::SessionWriter;

/// The file extension of session files.
pub const SESSION_FILE_EXTENSION: &str = "jsonl";

/// One line of a session listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionSummary {
    pub id: SessionId,
    pub path: PathBuf,
    /// The last title_set, else the start of the first user message.
    pub title: Option<String>,
    pub created: DateTime<Utc>,
    /// The timestamp of the last record.
    pub updated: DateTime<Utc>,
    /// response_item records in the file (not the compacted history's length).
    pub items: usize,
    pub compactions: usize,
    pub workspace: String,
    pub provider_kind: String,
    pub model: String,
    /// Corrupt lines the listing skipped.
    pub skipped_lines: usize,
    /// Whether the file ends in a torn line not yet moved aside.
    pub torn_tail: bool,
}

/// The folder of session files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionStore {
    root: PathBuf,
}

impl SessionStore {
    /// A store over `root`; the folder is created on the first `create`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn from_paths(paths: &StrataPaths) -> Self {
        Self::new(paths.sessions.clone())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the session's file is (whether or not it exists).
    pub fn session_path(&self, id: SessionId) -> PathBuf {
        self.root.join(format!("{id}.{SESSION_FILE_EXTENSION}"))
    }

    /// Starts a session: writes and syncs its session_meta record (the file
    /// appears only with it, see [`SessionWriter::create`]), and returns it
    /// open for writing. The workspace is recorded as text
    /// (lossily for a path that is not Unicode).
    pub fn create(
        &self,
        workspace: &Path,
        provider_kind: &str,
        model: &str,
    ) -> Result<LiveSession> {
        crate::private::ensure_dir(&self.root)
            .map_err(CoreError::io("create sessions folder", &self.root))?;
        let session_id = SessionId::new();
        let meta = SessionMeta {
            session_id,
            created_at: Utc::now(),
            workspace: workspace.to_string_lossy().into_owned(),
            provider_kind: provider_kind.to_owned(),
            model: model.to_owned(),
            strata_version: env!("CARGO_PKG_VERSION").to_owned(),
        };
        let record = Record {
            ts: meta.created_at,
            ..Record::now(RecordBody::SessionMeta(meta.clone()))
        };
        let writer = SessionWriter::create(&self.session_path(session_id), session_id, &record)?;
        Ok(LiveSession::started(writer, meta, &record))
    }

    /// Opens the session for writing: locks it, reads it from its tail
    /// (the last checkpoint and what follows, strictly, ignoring a torn
    /// tail; the whole file when it has no checkpoint) and checks it is this
    /// session, and only then moves a torn tail aside; then appends an
    /// aborted output for every function call left without one. A file
    /// that is refused is left as it was.
    pub fn open_writer(&self, id: SessionId) -> Result<LiveSession> {
        let path = self.session_path(id);
        let writer = SessionWriter::open(&path, id)?;
        let tail = writer.read_tail()?;
        check_session_id(&tail.meta, &path, id)?;
        let torn_tail = writer.repair_torn_tail(tail.torn_tail, &tail.torn_bytes)?;
        LiveSession::resumed(writer, tail.replay(), torn_tail)
    }

    /// A new session whose file begins with a copy of `parent`'s records up
    /// to `point` (see [`crate::context_ops::fork_cut`]) and a
    /// `session_forked` record naming where it came from: its model-visible
    /// history is what the parent's was there, and nothing later. Its own
    /// store holds the prior contents the copied records name. Files in
    /// the workspace are not rewound.
    pub fn fork(
        &self,
        parent: SessionId,
        point: strata_protocol::ForkPoint,
    ) -> Result<LiveSession> {
        self.fork_into(parent, point, None, false)
    }

    /// [`fork`](Self::fork), working in `workspace` (a new checkout) rather
    /// than the parent's when given; `with_files`: its store also holds
    /// what the files hold before the restore that follows (see
    /// [`crate::changes::fork`]), so that restore can be undone.
    pub fn fork_into(
        &self,
        parent: SessionId,
        point: strata_protocol::ForkPoint,
        workspace: Option<&Path>,
        with_files: bool,
    ) -> Result<LiveSession> {
        let read = self.open_reader(parent, ReadMode::Strict)?;
        let cut = crate::context_ops::fork_cut(&read.records, &point)?;
        let mut session = self.create(
            workspace.unwrap_or(Path::new(&read.meta.workspace)),
            &read.meta.provider_kind,
            &read.meta.model,
        )?;
        let kept = read.records.get(1..cut).unwrap_or_default();
        let restoring = with_files.then(|| crate::changes::plan_from(&read.records, cut));
        crate::changes::BlobStore::beside(&read.path).share_into(
            &crate::changes::BlobStore::beside(&self.session_path(session.id())),
            &crate::changes::fork::blobs_needed(kept, restoring.as_ref()),
        )?;
        for record in kept {
            session.append_copied(record)?;
        }
        session.append(RecordBody::SessionForked(strata_protocol::SessionForked {
            parent_session_id: parent,
            parent_records: u32::try_from(cut).unwrap_or(u32::MAX),
            point,
        }))?;
        // Its own title, so the list and its header tell it from the parent
        // whose title it copied.
        if let Some(title) = session.state().title() {
            session.set_title(fork_title(&title))?;
        }
        crate::context_ops::after_history_replaced(&mut session)?;
        Ok(session)
    }

    /// Reads the session without a lock (a writer may be appending).
    pub fn open_reader(&self, id: SessionId, mode: ReadMode) -> Result<SessionRead> {
        let read =
            read_session_file(&self.session_path(id), mode).map_err(|error| match error {
                CoreError::SessionNotFound { .. } => CoreError::SessionNotFound {
                    query: id.to_string(),
                },
                other => other,
            })?;
        check_session_id(&read.meta, &read.path, id)?;
        Ok(read)
    }

    /// Every readable session, newest update first. Files that are not
    /// sessions are skipped with a warning, so one bad file does not hide the
    /// rest; torn-tail sidecars and other files are ignored.
    pub fn list(&self) -> Result<Vec<SessionSummary>> {
        let mut sessions = Vec::new();
        for id in self.session_ids()? {
            match self.open_reader(id, ReadMode::Browsing) {
                Ok(read) => sessions.push(summarize(&read)),
                Err(error) => {
                    tracing::warn!(session = %id, %error, "skipping an unreadable session");
                }
            }
        }
        sessions.sort_by(|a, b| b.updated.cmp(&a.updated).then(b.id.cmp(&a.id)));
        Ok(sessions)
    }

    /// The session a full id or a unique id prefix (case-insensitive) names.
    pub fn resolve(&self, query: &str) -> Result<SessionId> {
        let wanted = query.trim().to_ascii_lowercase();
        let not_found = || CoreError::SessionNotFound {
            query: query.to_owned(),
        };
        if wanted.is_empty() {
            return Err(not_found());
        }
        let matches: Vec<SessionId> = self
            .session_ids()?
            .into_iter()
            .filter(|id| id.to_string().starts_with(&wanted))
            .collect();
        match matches.as_slice() {
            [] => Err(not_found()),
            [id] => Ok(*id),
            // A full id is unique by construction; this is a shared prefix.
            many => Err(CoreError::AmbiguousSession {
                query: query.to_owned(),
                count: many.len(),
            }),
        }
    }

    /// Whether a writer holds the session's lock now: another process, or
    /// another writer of this one (the lock belongs to each open file, so a
    /// process asking about a session it holds itself hears yes too). Takes
    /// and drops the lock when it is free, so a writer opening at the same
    /// moment may wait out its short grace.
    pub fn is_held(&self, id: SessionId) -> Result<bool> {
        let path = self.session_path(id);
        let file = OpenOptions::new()
            .read(true)
            .open(&path)
            .map_err(|source| writer::not_found_or_io(source, "open session", &path, id))?;
        match writer::lock(&file, id, &path) {
            Ok(()) => Ok(false),
            Err(CoreError::SessionLocked { .. }) => Ok(true),
            Err(other) => Err(other),
        }
    }

    /// Deletes the session and its torn-tail sidecars; refused with
    /// [`CoreError::SessionLocked`] while a writer holds it.
    pub fn delete(&self, id: SessionId) -> Result<()> {
        let path = self.session_path(id);
        let file = OpenOptions::new()
            .read(true)
            .open(&path)
            .map_err(|source| writer::not_found_or_io(source, "open session", &path, id))?;
        // Holding the lock while removing keeps a writer from opening the
        // session half-way through.
        writer::lock(&file, id, &path)?;
        let prefix = writer::sidecar_prefix(&path);
        for entry in read_dir_names(&self.root)? {
            if entry.starts_with(&prefix) {
                let sidecar = self.root.join(&entry);
                std::fs::remove_file(&sidecar)
                    .map_err(CoreError::io("delete torn-tail sidecar", &sidecar))?;
            }
        }
        let blobs = crate::changes::BlobStore::beside(&path);
        if blobs.dir().is_dir() {
            std::fs::remove_dir_all(blobs.dir())
                .map_err(CoreError::io("delete the prior contents", blobs.dir()))?;
        }
        std::fs::remove_file(&path).map_err(CoreError::io("delete session", &path))?;
        drop(file);
        writer::sync_dir(&self.root)
    }

    /// Ids of the `<uuid>.jsonl` files under the root (none if it does not
    /// exist yet).
    fn session_ids(&self) -> Result<Vec<SessionId>> {
        // Every command finds its session here: files and folders an older
        // Strata left readable by others are made owner-only first. A
        // failure (a read-only disk, a file someone else owns) is logged
        // and does not stop reading.
        if let Err(error) = crate::private::tighten_tree(&self.root) {
            tracing::warn!(root = %self.root.display(), %error, "cannot make the sessions folder owner-only");
        }
        let suffix = format!(".{SESSION_FILE_EXTENSION}");
        let mut ids: Vec<SessionId> = read_dir_names(&self.root)?
            .iter()
            .filter_map(|name| name.strip_suffix(&suffix)?.parse().ok())
            .collect();
        ids.sort();
        Ok(ids)
    }
}

/// A fork's title: its parent's with " (fork)" after it, once.
pub fn fork_title(parent: &str) -> String {
    const MARK: &str = " (fork)";
    let parent = parent.trim_end();
    if parent.ends_with(MARK) {
        parent.to_owned()
    } else {
        format!("{parent}{MARK}")
    }
}

fn read_dir_names(dir: &Path) -> Result<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(CoreError::Io {
                action: "list sessions folder",
                path: dir.to_owned(),
                source,
            });
        }
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(CoreError::io("list sessions folder", dir))?;
        if let Some(name) = entry.file_name().to_str() {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

/// A file named for one session must hold that session.
fn check_session_id(meta: &SessionMeta, path: &Path, id: SessionId) -> Result<()> {
    if meta.session_id == id {
        Ok(())
    } else {
        Err(CoreError::NotASession {
            path: path.to_owned(),
            message: format!(
                "its session_meta is for session {}, not {id}",
                meta.session_id
            ),
        })
    }
}

fn summarize(read: &SessionRead) -> SessionSummary {
    let state = read.replay();
    let meta = state.meta();
    SessionSummary {
        id: meta.session_id,
        path: read.path.clone(),
        title: state.title(),
        created: meta.created_at,
        updated: state.last_record_at(),
        items: state.response_items(),
        compactions: state.compactions(),
        workspace: meta.workspace.clone(),
        provider_kind: state.provider_kind(),
        model: state.model(),
        skipped_lines: read.report.skipped_lines(),
        torn_tail: read.report.torn_tail.is_some(),
    }
}
