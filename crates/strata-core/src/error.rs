//! The one error type of `strata-core`.

use std::path::PathBuf;

use strata_protocol::SessionId;

#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("session {session_id} is open for writing elsewhere ({path})")]
    SessionLocked {
        session_id: SessionId,
        path: PathBuf,
    },
    #[error("no session matches {query:?}")]
    SessionNotFound { query: String },
    #[error("{query:?} matches {count} sessions; give more of the id")]
    AmbiguousSession { query: String, count: usize },
    #[error("no item of this session matches {query:?}")]
    ItemNotFound { query: String },
    #[error("{query:?} matches {count} items of this session; give more of the id")]
    AmbiguousItem { query: String, count: usize },
    /// A pin, undo, partial compaction or fork that cannot be done as asked;
    /// nothing was written. The message says why.
    #[error("{message}")]
    ContextRefused { message: String },
    #[error("{path}:{line}: corrupt record: {message}")]
    CorruptRecord {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: not a session file: {message}")]
    NotASession { path: PathBuf, message: String },
    /// A write failed part-way (the file may end in a torn line) or an fsync
    /// failed (written pages may be lost); further appends could bury damage
    /// mid-file, so the writer refuses them until the session is reopened.
    #[error(
        "an earlier write to session {session_id} failed ({path}); reopen the session to repair it"
    )]
    SessionWriteFailed {
        session_id: SessionId,
        path: PathBuf,
    },
    #[error("could not encode a record: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("no data directory could be found; set STRATA_HOME")]
    NoDataDir,
    #[error(
        "the workspace {path} is {what}: the agent could read and change everything in it; choose a project folder instead, or confirm this one explicitly (--allow-broad-workspace in the CLI)"
    )]
    BroadWorkspace { path: PathBuf, what: &'static str },
    /// A restore that would overwrite what it must not, or cannot write a
    /// file back; `files` lists each with why (nothing was changed when it
    /// was refused before starting).
    #[error("the restore was refused: {}", files.join("; "))]
    RestoreRefused { files: Vec<String> },
    /// A rules file or rule pattern that does not parse; nothing of it
    /// was applied.
    #[error("{path}: invalid rules: {message}")]
    InvalidRules { path: PathBuf, message: String },
    #[error("AGENTS.md was not used: {reason}")]
    AgentsFileRefused { reason: String },
    /// A slash command that names no command, or a prompt file that cannot
    /// be used; nothing was sent. The message names the file.
    #[error("{message}")]
    PromptCommand { message: String },
    /// The message alone is estimated over the compaction threshold, so no
    /// compaction could make room for it; nothing was sent or written.
    #[error(
        "the message is too long: about {estimated_tokens} tokens (an estimate), over the \
         compaction threshold of {threshold}; shorten it or attach less text"
    )]
    MessageTooLong {
        estimated_tokens: u64,
        threshold: u64,
    },
}

impl CoreError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| CoreError::Io {
            action,
            path,
            source,
        }
    }

    /// Whether trying the same operation again may succeed: a lock may be
    /// released and I/O may recover; a corrupt file or a bad query will not.
    pub fn is_retryable(&self) -> bool {
        match self {
            CoreError::Io { .. } | CoreError::SessionLocked { .. } => true,
            CoreError::SessionNotFound { .. }
            | CoreError::AmbiguousSession { .. }
            | CoreError::ItemNotFound { .. }
            | CoreError::AmbiguousItem { .. }
            | CoreError::ContextRefused { .. }
            | CoreError::CorruptRecord { .. }
            | CoreError::NotASession { .. }
            | CoreError::SessionWriteFailed { .. }
            | CoreError::Encode(_)
            | CoreError::NoDataDir
            | CoreError::BroadWorkspace { .. }
            | CoreError::AgentsFileRefused { .. }
            | CoreError::PromptCommand { .. }
            | CoreError::RestoreRefused { .. }
            | CoreError::InvalidRules { .. }
            | CoreError::MessageTooLong { .. } => false,
        }
    }
}

pub type Result<T, E = CoreError> = std::result::Result<T, E>;
