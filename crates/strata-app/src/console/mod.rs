//! The debug console folded in Rust ([`ConsoleFold`]), beside the
//! transcript's fold: `open_console` folds the session file and serves a
//! snapshot whose log is a page (newest first), and keeps the fold, so each
//! later event of a turn in that session carries what it changed
//! ([`ConsoleTail`], on the same live batches as the transcript's updates):
//! the records the turn appended, read from the file's tail, and the live
//! events the file does not keep. Read-only.

mod cache;
mod cost;
pub mod fold;
mod model_view;
pub mod rows;
mod steps;
mod text;

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use strata_core::ReadMode;
use strata_core::store::parse_session;
use strata_protocol::{
    AgentEvent, CONTRACT_FORMAT_VERSION, ConsoleUpdate, ConsoleView, EventEnvelope, LogRow,
    MainlineEvent, OpenConsole, Record, SessionId,
};

pub use fold::ConsoleFold;

use crate::App;
use crate::error::{AppResult, invalid_input};
use crate::manager::lock;

/// Log rows per page when the caller does not say, and the most one holds.
pub const DEFAULT_CONSOLE_PAGE: u32 = 200;
pub const MAX_CONSOLE_PAGE: u32 = 1_000;
/// Sessions whose console fold is kept for live updates.
const KEPT_FOLDS: usize = 4;

pub(crate) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A session's fold and how far into its file it has read.
struct Cursor {
    session_id: SessionId,
    path: PathBuf,
    /// Bytes of whole lines folded.
    offset: u64,
    fold: ConsoleFold,
}

impl Cursor {
    /// Folds the whole file at `path`.
    fn open(
        session_id: SessionId,
        path: &Path,
        threshold: u64,
        window: Option<u64>,
    ) -> AppResult<Self> {
        let bytes = std::fs::read(path).map_err(|error| {
            crate::error::AppError::from(strata_core::CoreError::Io {
                action: "read session",
                path: path.to_owned(),
                source: error,
            })
        })?;
        let read = parse_session(path, &bytes, ReadMode::Browsing)?;
        let offset = whole_lines(&bytes);
        Ok(Self {
            session_id,
            path: path.to_owned(),
            offset: offset as u64,
            fold: ConsoleFold::of_records(&read.records, threshold, window),
        })
    }

    /// Folds the records appended since the last read.
    fn catch_up(&mut self) {
        let Ok(mut file) = File::open(&self.path) else {
            return;
        };
        let mut bytes = Vec::new();
        if file.seek(SeekFrom::Start(self.offset)).is_err() || file.read_to_end(&mut bytes).is_err()
        {
            return;
        }
        let whole = whole_lines(&bytes);
        let records: Vec<Record> = bytes[..whole]
            .split(|&byte| byte == b'\n')
            .filter(|line| !line.is_empty())
            .filter_map(|line| serde_json::from_slice(line).ok())
            .collect();
        self.offset += whole as u64;
        self.fold.apply_records(records);
    }
}

fn whole_lines(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |at| at + 1)
}

/// The console folds this app keeps, newest last.
#[derive(Default)]
pub struct Consoles {
    cursors: Mutex<Vec<Cursor>>,
}

impl Consoles {
    fn keep(&self, cursor: Cursor) {
        let mut cursors = lock(&self.cursors);
        cursors.retain(|kept| kept.session_id != cursor.session_id);
        cursors.push(cursor);
        let excess = cursors.len().saturating_sub(KEPT_FOLDS);
        cursors.drain(..excess);
    }

    fn with<T>(&self, id: SessionId, work: impl FnOnce(&mut Cursor) -> T) -> Option<T> {
        let mut cursors = lock(&self.cursors);
        cursors.iter_mut().find(|c| c.session_id == id).map(work)
    }
}

/// Turns a turn's events into console updates for the session whose
/// console is open (`None` otherwise, and for streamed text, which
/// changes nothing the console shows).
#[derive(Clone)]
pub struct ConsoleTail {
    consoles: Arc<Consoles>,
}

impl ConsoleTail {
    pub fn update(&self, envelope: &EventEnvelope) -> Option<ConsoleUpdate> {
        if matches!(
            envelope.event,
            AgentEvent::Mainline(MainlineEvent::TextDelta { .. })
        ) {
            return None;
        }
        self.consoles
            .with(envelope.session_id, |cursor| {
                cursor.catch_up();
                cursor.fold.apply_event(envelope);
                cursor.fold.take_update()
            })
            .flatten()
    }
}

/// The rows of a page: the `limit` before row `before` (the newest
/// without it).
fn page(rows: &[LogRow], before: Option<u32>, limit: Option<u32>) -> AppResult<Vec<LogRow>> {
    let limit = limit.unwrap_or(DEFAULT_CONSOLE_PAGE);
    if limit == 0 || limit > MAX_CONSOLE_PAGE {
        return Err(invalid_input(format!(
            "A console page holds 1 to {MAX_CONSOLE_PAGE} rows."
        )));
    }
    let end = before.map_or(rows.len(), |b| (b as usize).min(rows.len()));
    let start = end.saturating_sub(limit as usize);
    Ok(rows[start..end].to_vec())
}

/// The snapshot of `fold` with a page of its rows.
pub fn view_of(session_id: SessionId, fold: &ConsoleFold, rows: Vec<LogRow>) -> ConsoleView {
    ConsoleView {
        v: CONTRACT_FORMAT_VERSION,
        session_id,
        records: to_u32(fold.records()),
        rows,
        rows_total: to_u32(fold.rows().len()),
        chart: fold.chart().to_vec(),
        markers: fold.markers().to_vec(),
        steps: fold.steps(),
        model_view: fold.model_view().to_vec(),
        gauge: fold.gauge().clone(),
        undo: fold.undo().clone(),
    }
}

impl App {
    /// What `open_console` answers: the first page folds the file afresh
    /// (a writer outside this app may have added to it) and keeps the fold
    /// for the turn's live updates; an older page is cut from the kept fold.
    pub(crate) fn console_page(
        &self,
        request: &OpenConsole,
        live: Option<&crate::manager::LiveSlot>,
    ) -> AppResult<ConsoleView> {
        let id = request.session_id;
        if request.before.is_some()
            && let Some(view) = self.consoles.with(id, |cursor| {
                page(cursor.fold.rows(), request.before, request.limit)
                    .map(|rows| view_of(id, &cursor.fold, rows))
            })
        {
            return view;
        }
        let (threshold, window) = match &live {
            Some(slot) => (slot.threshold, slot.context_window),
            None => self.limits_for(&self.replay_from_tail(id)?),
        };
        let cursor = Cursor::open(id, &self.store().session_path(id), threshold, window)?;
        let rows = page(cursor.fold.rows(), request.before, request.limit)?;
        let view = view_of(id, &cursor.fold, rows);
        self.consoles.keep(cursor);
        Ok(view)
    }

    /// What turns a turn's events into console updates.
    pub fn console_tail(&self) -> ConsoleTail {
        ConsoleTail {
            consoles: Arc::clone(&self.consoles),
        }
    }
}

#[cfg(test)]
mod tests;
