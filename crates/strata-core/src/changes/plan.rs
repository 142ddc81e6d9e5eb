//! The pure part of changes and restores: folding the records into the
//! list of changes, and deciding what a restore does and what refuses it.

use std::collections::BTreeMap;

use strata_protocol::{FileChange, FileState, Record, RecordBody, ResponseItem, TurnId};

/// One recorded change, where it is in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeEntry {
    /// The record's index in the session's records.
    pub record: usize,
    /// The turn's number (1 for the session's first turn), when the change
    /// was made in one.
    pub turn: Option<u32>,
    pub change: FileChange,
}

/// The session's file changes in file order, each with its turn's number.
pub fn change_log(records: &[Record]) -> Vec<ChangeEntry> {
    let mut turns: BTreeMap<TurnId, u32> = BTreeMap::new();
    let mut log = Vec::new();
    for (index, record) in records.iter().enumerate() {
        match &record.body {
            RecordBody::TurnStarted(started) => {
                let next = turns.len() as u32 + 1;
                turns.entry(started.turn_id).or_insert(next);
            }
            RecordBody::FileChange(change) => log.push(ChangeEntry {
                record: index,
                turn: change.turn_id.and_then(|id| turns.get(&id).copied()),
                change: change.clone(),
            }),
            _ => {}
        }
    }
    log
}

/// Where a restore returns the files to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestorePoint {
    /// Before the turn with this number (1-based) started.
    BeforeTurn(u32),
    /// Before this item (a history item's id or its prefix), or before the
    /// call with this call id (a tool call's or a restore's).
    BeforeItem(String),
}

/// One file a restore writes back or deletes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestoreAction {
    pub path: String,
    /// What the file should hold now: the last recorded change's `after`.
    pub expected: Option<FileState>,
    /// What it gets back; `None`: it is deleted (it did not exist then).
    pub target: Option<FileState>,
}

/// What a restore would do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestorePlan {
    /// The record index the restore returns to (changes from it on are undone).
    pub from_record: usize,
    /// Sorted by path; files whose target is what they hold are left out.
    pub actions: Vec<RestoreAction>,
}

/// Why a file refuses a restore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestoreConflict {
    /// It was changed outside Strata since its last recorded change.
    ChangedOutside { path: String },
    /// Its earlier content was not kept (binary, huge, or pruned).
    NotRestorable { path: String, reason: String },
}

impl RestoreConflict {
    pub fn path(&self) -> &str {
        match self {
            RestoreConflict::ChangedOutside { path }
            | RestoreConflict::NotRestorable { path, .. } => path,
        }
    }
}

/// The record index `point` names; `Err` says why there is none.
fn locate(records: &[Record], point: &RestorePoint) -> Result<usize, String> {
    match point {
        RestorePoint::BeforeTurn(number) => {
            let mut seen = 0;
            for (index, record) in records.iter().enumerate() {
                if let RecordBody::TurnStarted(_) = record.body {
                    seen += 1;
                    if seen == *number {
                        return Ok(index);
                    }
                }
            }
            Err(format!(
                "the session has {seen} turns; there is no turn {number}"
            ))
        }
        RestorePoint::BeforeItem(query) => {
            let query = query.trim();
            if query.is_empty() {
                return Err("the item id is empty".into());
            }
            let exact = records.iter().position(|record| match &record.body {
                RecordBody::ResponseItem(ResponseItem::FunctionCall(call)) => call.call_id == query,
                RecordBody::FileChange(change) => change.call_id == query,
                _ => false,
            });
            if let Some(index) = exact {
                return Ok(index);
            }
            let matching: Vec<usize> = records
                .iter()
                .enumerate()
                .filter_map(|(index, record)| match &record.body {
                    RecordBody::ResponseItem(item) => {
                        item.id().to_string().starts_with(query).then_some(index)
                    }
                    _ => None,
                })
                .collect();
            match matching.as_slice() {
                [index] => Ok(*index),
                [] => Err(format!("no item or call of this session matches {query:?}")),
                many => Err(format!(
                    "{query:?} matches {} items of this session; give more of the id",
                    many.len()
                )),
            }
        }
    }
}

/// What restoring to `point` does: for every file changed from there on,
/// its state before the first of those changes, against its state after
/// the last.
pub fn plan_restore(records: &[Record], point: &RestorePoint) -> Result<RestorePlan, String> {
    Ok(plan_from(records, locate(records, point)?))
}

/// What taking back every change from record `from_record` on does (a
/// restore's point, or the end of what a fork copied).
pub fn plan_from(records: &[Record], from_record: usize) -> RestorePlan {
    let mut files: BTreeMap<String, RestoreAction> = BTreeMap::new();
    for entry in change_log(records) {
        if entry.record < from_record {
            continue;
        }
        let change = entry.change;
        files
            .entry(change.path.clone())
            .and_modify(|action| action.expected = change.after.clone())
            .or_insert(RestoreAction {
                path: change.path,
                expected: change.after,
                target: change.before,
            });
    }
    let actions = files
        .into_values()
        .filter(|action| !same_content(action.expected.as_ref(), action.target.as_ref()))
        .collect();
    RestorePlan {
        from_record,
        actions,
    }
}

/// Whether a file now in state `now` holds `state`'s content (by hash).
pub fn holds(now: Option<&FileState>, state: Option<&FileState>) -> bool {
    match (now, state) {
        (None, None) => true,
        (Some(now), Some(state)) => {
            now.size == state.size && state.sha256.is_some() && now.sha256 == state.sha256
        }
        _ => false,
    }
}

fn same_content(a: Option<&FileState>, b: Option<&FileState>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.sha256.is_some() && a.sha256 == b.sha256,
        _ => false,
    }
}

/// What refuses `plan`, given each file's current state (`current(path)`:
/// its size and hash, `None` if absent) and whether a stored content is
/// still there (`available(sha)`). Empty: the restore may go ahead.
pub fn check_restore(
    plan: &RestorePlan,
    current: impl Fn(&str) -> Option<FileState>,
    available: impl Fn(&str) -> bool,
) -> Vec<RestoreConflict> {
    let mut conflicts = Vec::new();
    for action in &plan.actions {
        let now = current(&action.path);
        // Already what the restore wants (a restore cut short after
        // writing the file but before recording it): nothing to overwrite.
        if holds(now.as_ref(), action.target.as_ref()) {
            continue;
        }
        if !holds(now.as_ref(), action.expected.as_ref()) {
            conflicts.push(RestoreConflict::ChangedOutside {
                path: action.path.clone(),
            });
            continue;
        }
        if let Some(target) = &action.target {
            let reason = match &target.sha256 {
                None => Some(format!(
                    "its content ({} bytes) was too big to keep",
                    target.size
                )),
                Some(_) if !target.stored => Some(format!(
                    "its content ({} bytes, binary or over {} MiB) was recorded by hash and size only",
                    target.size,
                    super::MAX_STORED_BYTES / (1024 * 1024)
                )),
                Some(sha) if !available(sha) => {
                    Some("its stored content was pruned (the session's store is full)".into())
                }
                Some(_) => None,
            };
            if let Some(reason) = reason {
                conflicts.push(RestoreConflict::NotRestorable {
                    path: action.path.clone(),
                    reason,
                });
            }
        }
    }
    conflicts
}

/// Lines added and removed from `before` to `after` (a line diff; an
/// absent file counts as empty).
pub fn line_counts(before: &str, after: &str) -> (usize, usize) {
    let diff = similar::TextDiff::from_lines(before, after);
    let mut counts = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => counts.0 += 1,
            similar::ChangeTag::Delete => counts.1 += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    counts
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
