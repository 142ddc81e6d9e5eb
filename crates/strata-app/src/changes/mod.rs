//! A session's file changes as both front ends show them: the rows
//! `strata changes` prints, the desktop's Changes view grouped by turn and
//! call, the diff of one change ([`diff`]), restores ([`restore`]) and
//! forks that return the files to their point too ([`fork_files`]), all
//! over strata-core's `changes` (the records, the content store, the
//! restore planning and carrying out).

pub mod diff;
pub mod fork_files;
pub mod restore;
mod worktree;

pub use restore::point_of;

use std::collections::BTreeMap;

use strata_core::changes::{BlobStore, ChangeEntry, change_log, line_counts};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CallChanges, ChangeGroup, ChangeKind, ChangedFile, FileChangeRow,
    FileState, Record, SessionChanges, SessionFileChange, SessionId,
};

/// The text a state held, when kept and text: `Some("")` for an absent file.
pub(crate) fn text_of(blobs: &BlobStore, state: Option<&FileState>) -> Option<String> {
    let Some(state) = state else {
        return Some(String::new());
    };
    let bytes = blobs.get(state.sha256.as_deref()?).ok()??;
    String::from_utf8(bytes).ok()
}

/// Whether the content a state names can be written back (an absent file
/// always can: it is deleted).
fn restorable(blobs: &BlobStore, state: Option<&FileState>) -> bool {
    match state {
        None => true,
        Some(state) => state.stored && state.sha256.as_deref().is_some_and(|sha| blobs.has(sha)),
    }
}

/// Lines added and removed from `before` to `after`, when both are kept.
fn counts(
    blobs: &BlobStore,
    before: Option<&FileState>,
    after: Option<&FileState>,
) -> (Option<u64>, Option<u64>) {
    let counts = text_of(blobs, before)
        .zip(text_of(blobs, after))
        .map(|(old, new)| line_counts(&old, &new));
    (counts.map(|c| c.0 as u64), counts.map(|c| c.1 as u64))
}

/// One change as `strata changes --json` lists it.
fn row(blobs: &BlobStore, entry: ChangeEntry) -> FileChangeRow {
    let change = entry.change;
    let (before, after) = (change.before.as_ref(), change.after.as_ref());
    let (added, removed) = counts(blobs, before, after);
    FileChangeRow {
        turn: entry.turn,
        kind: ChangeKind::of(before, after),
        restorable: restorable(blobs, before),
        added,
        removed,
        path: change.path,
        cause: change.cause,
        call_id: change.call_id,
    }
}

/// Every file change of the session, in file order (`strata changes`).
pub fn rows(records: &[Record], blobs: &BlobStore) -> Vec<FileChangeRow> {
    change_log(records)
        .into_iter()
        .map(|entry| row(blobs, entry))
        .collect()
}

fn changed_file(blobs: &BlobStore, entry: &ChangeEntry) -> ChangedFile {
    let change = &entry.change;
    let (before, after) = (change.before.as_ref(), change.after.as_ref());
    let (added, removed) = counts(blobs, before, after);
    ChangedFile {
        record: u32::try_from(entry.record).unwrap_or(u32::MAX),
        path: change.path.clone(),
        kind: ChangeKind::of(before, after),
        added,
        removed,
        restorable: restorable(blobs, before),
    }
}

/// The session's changes grouped by turn (a restore is a group of its
/// own) and, within each, by call; and every file once over the session.
pub fn session_changes(
    session_id: SessionId,
    records: &[Record],
    blobs: &BlobStore,
) -> SessionChanges {
    let log = change_log(records);
    let mut groups: Vec<ChangeGroup> = Vec::new();
    for entry in &log {
        let cause = entry.change.cause;
        let call_id = &entry.change.call_id;
        let same_group = groups.last().is_some_and(|group| {
            group.turn == entry.turn
                && (entry.turn.is_some()
                    || group
                        .calls
                        .first()
                        .is_some_and(|call| &call.call_id == call_id))
        });
        if !same_group {
            groups.push(ChangeGroup {
                turn: entry.turn,
                calls: Vec::new(),
            });
        }
        let Some(group) = groups.last_mut() else {
            continue;
        };
        let file = changed_file(blobs, entry);
        match group.calls.iter_mut().find(|call| &call.call_id == call_id) {
            Some(call) => call.files.push(file),
            None => group.calls.push(CallChanges {
                call_id: call_id.clone(),
                cause,
                files: vec![file],
            }),
        }
    }
    SessionChanges {
        v: CONTRACT_FORMAT_VERSION,
        session_id,
        groups,
        files: whole_session(&log, blobs),
    }
}

/// The first and last state of a file over the log, and how many changes
/// touched it.
pub(crate) fn span_of<'a>(
    log: &'a [ChangeEntry],
    path: &str,
) -> Option<(Option<&'a FileState>, Option<&'a FileState>, u32)> {
    let mut touching = log.iter().filter(|entry| entry.change.path == path);
    let first = touching.next()?;
    let (mut last, mut count) = (first, 1u32);
    for entry in touching {
        last = entry;
        count += 1;
    }
    Some((
        first.change.before.as_ref(),
        last.change.after.as_ref(),
        count,
    ))
}

fn same(a: Option<&FileState>, b: Option<&FileState>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.sha256.is_some() && a.sha256 == b.sha256,
        _ => false,
    }
}

fn whole_session(log: &[ChangeEntry], blobs: &BlobStore) -> Vec<SessionFileChange> {
    let paths: BTreeMap<&str, ()> = log
        .iter()
        .map(|entry| (entry.change.path.as_str(), ()))
        .collect();
    paths
        .into_keys()
        .filter_map(|path| {
            let (before, after, changes) = span_of(log, path)?;
            if same(before, after) {
                return None;
            }
            let (added, removed) = counts(blobs, before, after);
            Some(SessionFileChange {
                path: path.to_owned(),
                kind: ChangeKind::of(before, after),
                changes,
                added,
                removed,
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
