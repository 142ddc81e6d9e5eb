use std::path::PathBuf;

/// Why a session file could not be read at all. A file that opens is always
/// read: bad lines inside it become warnings, never errors.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("opening {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("starting the zstd decoder for {path}: {source}")]
    Decoder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the session has {items} items; there is no item {index}")]
    NoSuchItem { index: usize, items: usize },
    #[error("the session has {compactions} compactions; there is no compaction {index}")]
    NoSuchCompaction { index: usize, compactions: usize },
}
