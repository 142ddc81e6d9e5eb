//! What can go wrong in a command, each error with the one line a person
//! reads after `strata: error:`.

use std::path::PathBuf;

use strata_core::CoreError;
use strata_protocol::ModelError;
use strata_providers::ProviderError;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Core(#[from] CoreError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
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
    #[error("cannot use {path} as the workspace: {source}")]
    Workspace {
        path: PathBuf,
        #[source]
        source: CoreError,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("the turn was cancelled")]
    TurnCancelled,
    #[error("the turn failed{}", .0.as_ref().map(|e| format!(": {e}")).unwrap_or_default())]
    TurnFailed(Option<ModelError>),
    #[error(
        "the turn stopped at the round limit after {rounds} rounds with tool calls still coming"
    )]
    RoundLimit { rounds: u32 },
    #[error("the compaction failed after {attempts} attempt(s): {message}")]
    SummaryFailed { attempts: u32, message: String },
    #[error("the compaction was cancelled")]
    CompactionCancelled,
}

impl CliError {
    /// A reader that stopped reading (`strata sessions list | head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::Output(error) if error.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

pub type Result<T, E = CliError> = std::result::Result<T, E>;
