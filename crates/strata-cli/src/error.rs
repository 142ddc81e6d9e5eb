//! What can go wrong in a command, each error with the one line a person
//! reads after `strata: error:`.

use std::path::PathBuf;

use strata_core::CoreError;
use strata_protocol::{CommandError, CommandErrorKind, ModelError, ProviderFailure};
use strata_providers::ProviderError;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Core(#[from] CoreError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// The application layer refused or failed (its message is a sentence).
    #[error("{}", sentence_case_off(&.0.message))]
    App(#[from] CommandError),
    /// Writing to standard output or error failed (a closed pipe included).
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
    #[error("cannot encode JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("the turn was cancelled")]
    TurnCancelled,
    #[error("the turn failed{}", .0.as_ref().map(|e| format!(": {}", ProviderFailure::of(e).sentence)).unwrap_or_default())]
    TurnFailed(Option<ModelError>),
    /// The turn deadline stopped the turn; the message names it.
    #[error("the turn failed: {0}")]
    TurnPastDeadline(String),
    #[error(
        "the turn stopped at the round limit after {rounds} rounds with tool calls still coming"
    )]
    RoundLimit { rounds: u32 },
    #[error("the compaction failed after {attempts} attempt(s): {message}")]
    SummaryFailed { attempts: u32, message: String },
    #[error("the compaction was cancelled")]
    CompactionCancelled,
    /// The rule check refused the compaction; nothing changed.
    #[error("{message}")]
    CompactionRefused { message: String },
    /// A restore refused before it changed anything; stdout lists the files.
    #[error("the restore was refused: {count} file(s) changed outside Strata or not restorable")]
    RestoreRefused { count: usize },
    #[error("{count} of the session's {checkpoints} checkpoint(s) disagree with its records")]
    CheckpointsDiverge { count: usize, checkpoints: usize },
    /// `strata mcp test` found a phase that failed; stdout says which.
    #[error("MCP server {server} failed its test")]
    McpTestFailed { server: String },
}

/// The application layer's own error, as the contract's error it becomes.
impl From<strata_app::error::AppError> for CliError {
    fn from(error: strata_app::error::AppError) -> Self {
        CliError::App(error.into())
    }
}

/// The application's messages are sentences; the command line's reasons
/// follow `strata: error:` in lower case, like every other one.
fn sentence_case_off(message: &str) -> String {
    let mut chars = message.chars();
    match (chars.next(), chars.clone().next()) {
        // "AGENTS.md …", "HTTP …": a name, kept as written.
        (Some(first), Some(second)) if second.is_uppercase() => {
            std::iter::once(first).chain(chars).collect()
        }
        (Some(first), _) => first.to_lowercase().chain(chars).collect(),
        (None, _) => String::new(),
    }
}

impl CliError {
    /// The exit code: 2 when the person must choose with flags (a session
    /// whose recorded profile needs an explicit choice), 3 when `sessions
    /// verify` found a checkpoint that disagrees, else 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::App(error) if error.kind == CommandErrorKind::ProfileUnavailable => 2,
            CliError::CheckpointsDiverge { .. } => 3,
            CliError::CompactionRefused { .. } => 4,
            CliError::RestoreRefused { .. } => 5,
            _ => 1,
        }
    }

    /// A reader that stopped reading (`strata sessions list | head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::Output(error) if error.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

pub type Result<T, E = CliError> = std::result::Result<T, E>;
