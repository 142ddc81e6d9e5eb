//! Reading a session from its tail: blocks are read from the end of the
//! file until the last `checkpoint` line is found, and only that record and
//! the ones after it are parsed, so resuming costs what the model sees, not
//! the session's age. A file without a checkpoint is read whole, as before.
//!
//! The first line (the session_meta) is read too. What lies between it and
//! the checkpoint is not read at all: a corrupt line there does not stop a
//! resume; `strata sessions verify` reads the whole file and reports it.
//! The one exception: a tail that undoes a compaction whose undo point the
//! checkpoint keeps by reference is read whole (the items lie before it).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use strata_protocol::{Record, RecordBody, SessionMeta};

use crate::error::{CoreError, Result};
use crate::store::reader::{ReadMode, TornTail, complete_len, parse_session, read_error};
use crate::store::replay::Replay;

/// The first block read from the end; each later read takes four times as
/// much, so the bytes read stay within a small multiple of the tail's.
const FIRST_BLOCK: u64 = 64 * 1024;

/// How far into a line its `"type"` is looked for: the writer puts `v` and
/// `ts` first, so a checkpoint's type is always within this prefix.
const TYPE_PREFIX: usize = 128;

/// What resuming needs of a session file.
#[derive(Clone, Debug, PartialEq)]
pub struct TailRead {
    pub path: PathBuf,
    pub meta: SessionMeta,
    /// The last checkpoint record and every record after it; or, for a file
    /// without a checkpoint, every record (the session_meta first).
    pub records: Vec<Record>,
    /// Where `records` start in the file (0 when it was read whole).
    pub offset: u64,
    /// Bytes after the last newline (a write a crash interrupted), ignored.
    pub torn_tail: Option<TornTail>,
    /// The torn bytes themselves, for moving them aside.
    pub(crate) torn_bytes: Vec<u8>,
}

impl TailRead {
    /// Whether the read started at a checkpoint.
    pub fn from_checkpoint(&self) -> bool {
        matches!(
            self.records.first().map(|record| &record.body),
            Some(RecordBody::Checkpoint(_))
        )
    }

    /// Whether an undo after the checkpoint needs the items of an undo
    /// point the checkpoint keeps by reference: they lie before it, so such
    /// a tail (left by a crash between the undo and its own checkpoint) is
    /// read whole instead.
    fn undoes_by_reference(&self) -> bool {
        let by_reference = matches!(
            self.records.first().map(|record| &record.body),
            Some(RecordBody::Checkpoint(checkpoint)) if checkpoint.state.undo_ref.is_some()
        );
        by_reference
            && self
                .records
                .iter()
                .any(|record| matches!(record.body, RecordBody::CompactionUndone(_)))
    }

    /// The state a replay of the whole file reaches: the checkpoint's, then
    /// every record after it folded in.
    pub fn replay(&self) -> Replay {
        let mut records = self.records.iter();
        let mut state = match self.records.first().map(|record| &record.body) {
            Some(RecordBody::Checkpoint(checkpoint)) => {
                Replay::from_checkpoint(self.meta.clone(), checkpoint)
            }
            _ => Replay::new(self.meta.clone()),
        };
        for record in records.by_ref() {
            state.fold(record);
        }
        state
    }
}

/// Reads a session file from its tail without taking any lock.
pub fn read_session_tail(path: &Path) -> Result<TailRead> {
    let file = File::open(path).map_err(read_error(path))?;
    read_tail(&file, path)
}

/// [`read_session_tail`] on an open file (the writer's, under its lock).
/// Strict: a corrupt line after the checkpoint fails the read, with its line
/// number (found by reading the file whole).
pub(crate) fn read_tail(file: &File, path: &Path) -> Result<TailRead> {
    let len = file
        .metadata()
        .map_err(CoreError::io("read session", path))?
        .len();
    let mut window = FIRST_BLOCK.min(len);
    // Lines starting at or after this offset were already looked at.
    let mut checked_from = len;
    loop {
        let start = len - window;
        let bytes = read_range(file, path, start, len)?;
        let complete = complete_len(&bytes);
        if complete > 0 || start == 0 {
            let mut end = usize::try_from(checked_from - start)
                .unwrap_or(usize::MAX)
                .min(complete);
            while end > 0 {
                let newline = end - 1;
                let line_start = match bytes[..newline].iter().rposition(|&b| b == b'\n') {
                    Some(index) => index + 1,
                    None if start == 0 => 0,
                    // The line begins before this window.
                    None => break,
                };
                if let Some(record) = checkpoint_line(&bytes[line_start..newline]) {
                    let tail = tail_from(file, path, &bytes, start, line_start, record)?;
                    if !tail.undoes_by_reference() {
                        return Ok(tail);
                    }
                    return whole(path, &read_range(file, path, 0, len)?);
                }
                end = line_start;
            }
            checked_from = start + end as u64;
        }
        if start == 0 {
            // No checkpoint: the file replays whole, as before checkpoints.
            return whole(path, &bytes);
        }
        window = window.saturating_mul(4).min(len);
    }
}

/// The whole file's `bytes`, every record from the session_meta on.
fn whole(path: &Path, bytes: &[u8]) -> Result<TailRead> {
    let read = parse_session(path, bytes, ReadMode::Strict)?;
    Ok(TailRead {
        path: path.to_owned(),
        meta: read.meta,
        records: read.records,
        offset: 0,
        torn_tail: read.report.torn_tail,
        torn_bytes: bytes[complete_len(bytes)..].to_vec(),
    })
}

/// The tail from the checkpoint at `bytes[line_start..]` (the window read
/// from `start`) on, with the session_meta of the file's first line.
fn tail_from(
    file: &File,
    path: &Path,
    bytes: &[u8],
    start: u64,
    line_start: usize,
    checkpoint: Record,
) -> Result<TailRead> {
    let complete = complete_len(bytes);
    let meta = first_meta(file, path)?;
    let mut records = vec![checkpoint];
    let after = &bytes[line_start..complete];
    for terminated in after.split_inclusive(|&b| b == b'\n').skip(1) {
        let line = &terminated[..terminated.len() - 1];
        match serde_json::from_slice::<Record>(line) {
            Ok(record) => records.push(record),
            // Only a whole read knows the line's number; it fails the same way.
            Err(_) => {
                let whole = read_range(file, path, 0, start + bytes.len() as u64)?;
                parse_session(path, &whole, ReadMode::Strict)?;
                return Err(CoreError::CorruptRecord {
                    path: path.to_owned(),
                    line: 0,
                    message: "a record after the last checkpoint does not parse".into(),
                });
            }
        }
    }
    let torn_tail = (complete < bytes.len()).then(|| TornTail {
        offset: start + complete as u64,
        bytes: (bytes.len() - complete) as u64,
    });
    Ok(TailRead {
        path: path.to_owned(),
        meta,
        records,
        offset: start + line_start as u64,
        torn_tail,
        torn_bytes: bytes[complete..].to_vec(),
    })
}

/// The record on this line if it is a checkpoint. Only lines whose
/// envelope names the type are parsed.
fn checkpoint_line(line: &[u8]) -> Option<Record> {
    const TYPE: &[u8] = br#""type":"checkpoint""#;
    let prefix = &line[..line.len().min(TYPE_PREFIX)];
    if !prefix.windows(TYPE.len()).any(|window| window == TYPE) {
        return None;
    }
    serde_json::from_slice::<Record>(line)
        .ok()
        .filter(|record| matches!(record.body, RecordBody::Checkpoint(_)))
}

/// The session_meta of the file's first line.
pub fn first_meta(file: &File, path: &Path) -> Result<SessionMeta> {
    let len = file
        .metadata()
        .map_err(CoreError::io("read session", path))?
        .len();
    let mut window = FIRST_BLOCK.min(len);
    loop {
        let bytes = read_range(file, path, 0, window)?;
        if let Some(newline) = bytes.iter().position(|&b| b == b'\n') {
            let first = &bytes[..=newline];
            return parse_session(path, first, ReadMode::Strict).map(|read| read.meta);
        }
        if window == len {
            return parse_session(path, &bytes, ReadMode::Strict).map(|read| read.meta);
        }
        window = window.saturating_mul(4).min(len);
    }
}

fn read_range(mut file: &File, path: &Path, start: u64, end: u64) -> Result<Vec<u8>> {
    let mut bytes = vec![0; usize::try_from(end - start).unwrap_or(usize::MAX)];
    file.seek(SeekFrom::Start(start))
        .and_then(|_| file.read_exact(&mut bytes))
        .map_err(CoreError::io("read session", path))?;
    Ok(bytes)
}
