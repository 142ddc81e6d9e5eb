//! The one error type of `strata-index`.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("session index: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Core(#[from] strata_core::CoreError),
    #[error("session index: its tables are not the ones this version of Strata makes")]
    SchemaMismatch,
    #[error("imported session listing: {0}")]
    Listing(#[from] serde_json::Error),
    #[error("invalid list cursor {0:?}")]
    BadCursor(String),
}

impl IndexError {
    pub(crate) fn io(
        action: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_owned();
        move |source| IndexError::Io {
            action,
            path,
            source,
        }
    }
}

pub type Result<T, E = IndexError> = std::result::Result<T, E>;
