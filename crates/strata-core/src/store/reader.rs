//! Reading a session file: complete lines become records; a torn trailing line
//! is reported and ignored; a corrupt line fails a strict read and is skipped
//! (and counted) by a browsing read.

use std::path::{Path, PathBuf};

use strata_protocol::{Record, RecordBody, SessionMeta};

use crate::error::{CoreError, Result};
use crate::store::replay::{Replay, replay};

/// How a reader treats a corrupt line in the middle of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadMode {
    /// Fail with [`CoreError::CorruptRecord`] naming the file and line: what
    /// resuming and writing use, so nothing is built on a damaged history.
    Strict,
    /// Skip the line and report it: what listing and viewing use, so one bad
    /// line does not hide a session.
    Browsing,
}

/// A line a browsing reader skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedLine {
    /// 1-based line number.
    pub line: usize,
    pub message: String,
}

/// Bytes after the last newline: a write a crash interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TornTail {
    /// Where the torn bytes start (just after the last newline).
    pub offset: u64,
    pub bytes: u64,
}

/// What a read found besides the records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadReport {
    /// Complete (newline-terminated) lines in the file.
    pub lines: usize,
    /// Corrupt lines skipped by a browsing read (always empty for strict).
    pub skipped: Vec<SkippedLine>,
    /// A trailing line without its newline, ignored.
    pub torn_tail: Option<TornTail>,
}

impl ReadReport {
    pub fn skipped_lines(&self) -> usize {
        self.skipped.len()
    }

    /// Whether anything in the file was ignored.
    pub fn is_clean(&self) -> bool {
        self.skipped.is_empty() && self.torn_tail.is_none()
    }
}

/// A session file as read: its metadata, every record in write order (the
/// session_meta record first), and the report.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRead {
    pub path: PathBuf,
    pub meta: SessionMeta,
    pub records: Vec<Record>,
    pub report: ReadReport,
}

impl SessionRead {
    /// Folds the records into the model-visible history and the session's
    /// title and counts.
    pub fn replay(&self) -> Replay {
        replay(&self.meta, &self.records)
    }
}

/// Reads a session file without taking any lock.
pub fn read_session_file(path: &Path, mode: ReadMode) -> Result<SessionRead> {
    let bytes = std::fs::read(path).map_err(read_error(path))?;
    parse_session(path, &bytes, mode)
}

/// A failed read of the session file at `path`: not found, or another I/O error.
pub(crate) fn read_error(path: &Path) -> impl FnOnce(std::io::Error) -> CoreError + '_ {
    move |source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            CoreError::SessionNotFound {
                query: path.display().to_string(),
            }
        } else {
            CoreError::Io {
                action: "read session",
                path: path.to_owned(),
                source,
            }
        }
    }
}

/// Where the complete lines end: just after the last newline (0 when none).
pub(crate) fn complete_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |index| index + 1)
}

/// Parses a session file's bytes (`path` only names it in errors): what
/// [`read_session_file`] does after reading, public for the fuzzer.
pub fn parse_session(path: &Path, bytes: &[u8], mode: ReadMode) -> Result<SessionRead> {
    let complete = complete_len(bytes);
    let torn_tail = (complete < bytes.len()).then(|| TornTail {
        offset: complete as u64,
        bytes: (bytes.len() - complete) as u64,
    });
    let mut report = ReadReport {
        torn_tail,
        ..ReadReport::default()
    };
    let mut records = Vec::new();
    for (index, terminated) in bytes[..complete]
        .split_inclusive(|&byte| byte == b'\n')
        .enumerate()
    {
        let line = &terminated[..terminated.len() - 1];
        report.lines += 1;
        // Line numbers are 1-based, as editors show them.
        let number = index + 1;
        match serde_json::from_slice::<Record>(line) {
            Ok(record) => records.push(record),
            Err(error) => match mode {
                ReadMode::Strict => {
                    return Err(CoreError::CorruptRecord {
                        path: path.to_owned(),
                        line: number,
                        message: error.to_string(),
                    });
                }
                ReadMode::Browsing => report.skipped.push(SkippedLine {
                    line: number,
                    message: error.to_string(),
                }),
            },
        }
    }
    let meta = match records.first().map(|record| &record.body) {
        Some(RecordBody::SessionMeta(meta)) => meta.clone(),
        Some(other) => {
            return Err(CoreError::NotASession {
                path: path.to_owned(),
                message: format!(
                    "the first record is {:?}, not session_meta",
                    other.type_name()
                ),
            });
        }
        None => {
            return Err(CoreError::NotASession {
                path: path.to_owned(),
                message: "the file holds no complete record".into(),
            });
        }
    };
    Ok(SessionRead {
        path: path.to_owned(),
        meta,
        records,
        report,
    })
}
