//! Read-only readers of other agents' session files: Codex rollouts (plain
//! or `.jsonl.zst`), Claude Code project sessions and Copilot CLI
//! `events.jsonl`, each folded into one [`ImportedSession`] view model.
//!
//! Every reader streams its file line by line, holding at most
//! [`LINE_CAP_BYTES`] of one line; a longer line is skipped and counted.
//! Any byte sequence reads without a panic: lines that are not the records
//! a reader knows become [`ImportWarnings`], never an error. Files are only
//! ever opened for reading.

mod builder;
mod claude;
mod codex;
mod continue_at;
mod copilot;
mod discover;
mod error;
mod lines;
mod listing;
mod model;
mod sniff;

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

pub use continue_at::{ContinuePoint, ContinuedHistory, DroppedItems, continue_history, cut_len};
pub use discover::{SessionFileRef, discover};
pub use error::ImportError;
pub use lines::LINE_CAP_BYTES;
pub use listing::ImportedListItem;
pub use model::{
    ClippedText, CompactionKind, ImportWarnings, ImportedCompaction, ImportedItem, ImportedRound,
    ImportedSession, ImportedSummary, ItemKind, KeptItems, ReasoningText, SKIPPED_LINES_KEPT,
    TEXT_CAP_BYTES, Tool,
};
pub use sniff::discover_path;

use builder::{SessionBuilder, parse_object, parse_time};
use chrono::{DateTime, Utc};
use lines::{BoundedLines, Line};
use serde_json::{Map, Value};

/// One reader's fold over a file's records.
trait LineFolder {
    fn builder(&mut self) -> &mut SessionBuilder;
    /// One line's JSON object: its 1-based line, its `timestamp` and its
    /// `type`; `None` when it is not a record of a shape this reader knows.
    fn record(
        &mut self,
        line: u64,
        at: Option<DateTime<Utc>>,
        kind: Option<&str>,
        record: Map<String, Value>,
    ) -> Option<()>;
    fn into_builder(self) -> SessionBuilder;
}

/// Reads a discovered session file.
pub fn read_session(file: &SessionFileRef) -> Result<ImportedSession, ImportError> {
    read_path(file.tool, &file.path)
}

/// Reads `path` as a session file of `tool`; a name ending in `.zst` is
/// decompressed as it is read.
pub fn read_path(tool: Tool, path: &Path) -> Result<ImportedSession, ImportError> {
    let file = File::open(path).map_err(|source| ImportError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let compressed = path
        .extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("zst"));
    if compressed {
        let decoder =
            zstd::stream::read::Decoder::new(file).map_err(|source| ImportError::Decoder {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(read_from(tool, BufReader::new(decoder)))
    } else {
        Ok(read_from(tool, BufReader::new(file)))
    }
}

/// Reads a session of `tool` from any stream. An I/O error part way ends
/// the read; what came before it is kept and the error is in the warnings.
pub fn read_from(tool: Tool, reader: impl BufRead) -> ImportedSession {
    read_from_capped(tool, reader, LINE_CAP_BYTES)
}

/// [`read_from`] with another per-line cap (tests use a small one).
pub fn read_from_capped(tool: Tool, reader: impl BufRead, line_cap: usize) -> ImportedSession {
    match tool {
        Tool::Codex => fold_lines(codex::CodexFolder::new(), reader, line_cap),
        Tool::ClaudeCode => fold_lines(claude::ClaudeFolder::new(), reader, line_cap),
        Tool::CopilotCli => fold_lines(copilot::CopilotFolder::new(), reader, line_cap),
    }
}

fn fold_lines(mut folder: impl LineFolder, reader: impl BufRead, cap: usize) -> ImportedSession {
    let mut lines = BoundedLines::new(reader, cap);
    let mut read_error = None;
    loop {
        let (number, line) = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                read_error = Some(error.to_string());
                break;
            }
        };
        let bytes = match line {
            Line::TooLong => {
                folder.builder().warnings().skipped(number, true);
                continue;
            }
            Line::Text(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Text(bytes) => bytes,
        };
        let Some(record) = parse_object(bytes) else {
            folder.builder().warnings().skipped(number, false);
            continue;
        };
        let at = parse_time(record.get("timestamp"));
        let kind = record
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let folded = folder.record(number, at, kind.as_deref(), record);
        folder.builder().saw_time(at);
        if folded.is_none() {
            folder.builder().warnings().skipped(number, false);
        }
    }
    let lines_read = lines.count();
    let mut session = folder.into_builder().finish();
    session.warnings.lines = lines_read;
    session.warnings.read_error = read_error;
    session
}
