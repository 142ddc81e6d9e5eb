//! Transcript pages folded from a session file's tail, so opening a long
//! session costs its newest page, not its age; and a tool call's whole
//! output read back from the tail to the call.
//!
//! A window of whole lines is read from the end of the file, growing four
//! times each try. The fold starts at a turn's start inside the window (its
//! entries need nothing of the turns before but the few references
//! [`TranscriptFold::from_middle`] detects), and a `checkpoint` inside the
//! window numbers its records as the whole file does (a checkpoint counts
//! the records before it), which the ids of notices carry. A file ending in
//! an unfinished line goes to the whole read, whose notice says so. The page is cut
//! from that fold when it reaches far enough back that entries remain before
//! the page; otherwise the window grows. A window that reaches the file's
//! start, a line that does not parse, or checkpoints that disagree leave
//! the page to the whole-file fold ([`None`]).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use strata_core::store::first_meta;
use strata_protocol::{
    OpenTranscript, Record, RecordBody, ResponseItem, SessionId, TranscriptPage,
};

use super::fold::{TranscriptFold, model_after};
use super::{PageAnchor, cut, entry_of_item, page_limit, page_of};
use crate::error::{AppResult, invalid_input};

/// The first window read from the end; a page of 200 entries of a session
/// with tool outputs of a few KB fits in one or two.
pub const FIRST_WINDOW: u64 = 256 * 1024;

/// The page `request` asks for, folded from the tail of the session file at
/// `path` starting with a window of `first_window` bytes; `None` when only
/// the whole file can tell (see the module's notes).
pub fn open_page(
    path: &Path,
    request: &OpenTranscript,
    first_window: u64,
) -> AppResult<Option<TranscriptPage>> {
    let limit = page_limit(request.limit)?;
    if request.before.is_some() && request.at_item.is_some() {
        return Err(invalid_input(
            "A transcript page is cut before an entry or at an item, not both.",
        ));
    }
    // An unfinished last line is a notice only the whole read makes.
    if !ends_in_newline(path) {
        return Ok(None);
    }
    Ok(read_back(
        path,
        request.session_id,
        first_window,
        |records| page_from(&records, request, limit),
    ))
}

/// Whether the file's last byte ends a line (an unreadable file: no).
fn ends_in_newline(path: &Path) -> bool {
    let mut last = [0u8; 1];
    File::open(path)
        .and_then(|mut file| {
            file.seek(SeekFrom::End(-1))?;
            file.read_exact(&mut last)
        })
        .is_ok_and(|()| last[0] == b'\n')
}

/// The whole output of `call_id` (see [`super::tool_output`]) from the
/// smallest window that holds the call (its output and a capped output's
/// full text follow it); `None` when only the whole file can tell.
pub fn tool_output(
    path: &Path,
    session_id: SessionId,
    call_id: &str,
    first_window: u64,
) -> Option<String> {
    read_back(path, session_id, first_window, |records| {
        let called = records.iter().any(|record| {
            matches!(&record.body, RecordBody::ResponseItem(ResponseItem::FunctionCall(call)) if call.call_id == call_id)
        });
        match (called, super::tool_output(&records, call_id)) {
            (false, _) => Attempt::Further,
            (true, Some(output)) => Attempt::Found(output),
            (true, None) => Attempt::Whole,
        }
    })
}

enum Attempt<T> {
    Found(T),
    /// Read a bigger window.
    Further,
    /// Only the whole file can answer.
    Whole,
}

/// What `attempt` finds in the smallest window from the end of the session
/// file at `path` (growing from `first_window` bytes, four times each try)
/// where it finds it; `None` when only the whole file can answer.
fn read_back<T>(
    path: &Path,
    session_id: SessionId,
    first_window: u64,
    mut attempt: impl FnMut(Vec<Record>) -> Attempt<T>,
) -> Option<T> {
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut window = first_window.max(1);
    // A file no bigger than the first window is read whole anyway.
    if window >= len || !first_meta(&file, path).is_ok_and(|meta| meta.session_id == session_id) {
        return None;
    }
    while window < len {
        match attempt(read_window(&mut file, len, window)?) {
            Attempt::Found(found) => return Some(found),
            Attempt::Whole => return None,
            Attempt::Further => window = window.saturating_mul(4),
        }
    }
    None
}

/// The page cut from a fold of `records` (a window's, numbered by its
/// checkpoints), if it is the whole file's.
fn page_from(
    records: &[Record],
    request: &OpenTranscript,
    limit: usize,
) -> Attempt<TranscriptPage> {
    // The window's first record's index in the whole file, from the
    // checkpoints in it (each counts the records before it); they must agree.
    let mut indices = checkpoint_indices(records);
    let first_index = match indices.next() {
        None => return Attempt::Further,
        Some(first) if indices.all(|index| index == first) => first,
        Some(_) => return Attempt::Whole,
    };
    let Some(turn) = records
        .iter()
        .position(|record| matches!(record.body, RecordBody::TurnStarted(_)))
    else {
        return Attempt::Further;
    };
    // Which model the answers before the turn's first round came from.
    let Some(model) = model_after(&records[..turn]) else {
        return Attempt::Further;
    };
    let folded = &records[turn..];
    let mut fold = TranscriptFold::from_middle(model);
    for (offset, record) in folded.iter().enumerate() {
        fold.apply_record(first_index + turn + offset, &record.body);
    }
    if fold.unresolved() {
        return Attempt::Further;
    }
    let target = match &request.at_item {
        Some(item) => match entry_of_item(folded, item) {
            Some(entry) => Some(entry),
            None => return Attempt::Further,
        },
        None => None,
    };
    let anchor = PageAnchor::of(target.as_deref(), request.before.as_deref());
    let mut entries = fold.into_entries();
    match cut(&entries, anchor, limit) {
        // Entries remain before the page: what came before the window is
        // not on it.
        Some(cut) if cut.start > 0 => {
            // Only the window's plan: one set before it is not read.
            let plan = super::latest_plan(&entries);
            entries.truncate(cut.end);
            let page = entries.split_off(cut.start);
            Attempt::Found(page_of(request.session_id, page, &cut, None, plan))
        }
        _ => Attempt::Further,
    }
}

/// For each checkpoint among `records`, the index in the whole file of the
/// first of `records` it implies.
fn checkpoint_indices(records: &[Record]) -> impl Iterator<Item = usize> + '_ {
    records
        .iter()
        .enumerate()
        .filter_map(|(position, record)| match &record.body {
            RecordBody::Checkpoint(checkpoint) => usize::try_from(checkpoint.state.records)
                .ok()?
                .checked_sub(position),
            _ => None,
        })
}

/// The whole lines among the last `window` bytes of the file (the first,
/// cut, line dropped; bytes after the last newline, a torn write, ignored),
/// parsed; `None` when one does not parse.
fn read_window(file: &mut File, len: u64, window: u64) -> Option<Vec<Record>> {
    let start = len.checked_sub(window)?;
    let mut bytes = vec![0; usize::try_from(window).ok()?];
    file.seek(SeekFrom::Start(start)).ok()?;
    file.read_exact(&mut bytes).ok()?;
    let first = bytes.iter().position(|&b| b == b'\n')? + 1;
    let last = bytes.iter().rposition(|&b| b == b'\n')? + 1;
    let lines = bytes.get(first..last)?;
    let records = lines
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice::<Record>(line).ok())
        .collect::<Option<Vec<_>>>()?;
    // A blank line would be numbered differently by the whole read.
    let lines_in = lines.iter().filter(|&&b| b == b'\n').count();
    (records.len() == lines_in).then_some(records)
}

#[cfg(test)]
#[path = "tail_tests.rs"]
mod tail_tests;
