//! The diff of one recorded change, or of one file over the whole session:
//! the kept contents compared as text, or, when a side is binary, huge,
//! holds a secret, was pruned or the path looks like a secret, its hash and
//! size only, with that said.

use strata_core::changes::diff::text_diff;
use strata_core::changes::{BlobStore, ChangeEntry, change_log};
use strata_core::tools::is_secret_path;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, ChangeDiff, ChangeKind, DiffBody, DiffTarget, DiffWithheld, FileState,
    Record,
};

use super::span_of;
use crate::error::{AppResult, not_found};

/// A side's text, or why there is none.
fn side(blobs: &BlobStore, state: Option<&FileState>) -> Result<String, DiffWithheld> {
    let Some(state) = state else {
        return Ok(String::new());
    };
    let sha = match (&state.sha256, state.stored) {
        (Some(sha), true) => sha,
        _ => return Err(DiffWithheld::NotKept),
    };
    match blobs.get(sha) {
        Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|_| DiffWithheld::NotKept),
        Ok(None) | Err(_) => Err(DiffWithheld::Pruned),
    }
}

fn body(
    blobs: &BlobStore,
    path: &str,
    before: Option<&FileState>,
    after: Option<&FileState>,
) -> DiffBody {
    let components: Vec<&str> = path.split('/').collect();
    if is_secret_path(&components) {
        return DiffBody::Withheld {
            reason: DiffWithheld::SecretPath,
        };
    }
    match (side(blobs, before), side(blobs, after)) {
        (Ok(old), Ok(new)) => text_diff(&old, &new),
        (Err(reason), _) | (_, Err(reason)) => DiffBody::Withheld { reason },
    }
}

/// The diff `target` names in the session's records.
pub fn change_diff(
    records: &[Record],
    blobs: &BlobStore,
    target: &DiffTarget,
) -> AppResult<ChangeDiff> {
    let log = change_log(records);
    let (path, before, after) = match target {
        DiffTarget::Change { record } => {
            let entry: &ChangeEntry = log
                .iter()
                .find(|entry| u32::try_from(entry.record).ok() == Some(*record))
                .ok_or_else(|| not_found("No file change of this session is at that record."))?;
            (
                entry.change.path.clone(),
                entry.change.before.as_ref(),
                entry.change.after.as_ref(),
            )
        }
        DiffTarget::SessionFile { path } => {
            let (before, after, _) = span_of(&log, path)
                .ok_or_else(|| not_found("This session changed no file at that path."))?;
            (path.clone(), before, after)
        }
    };
    Ok(ChangeDiff {
        v: CONTRACT_FORMAT_VERSION,
        kind: ChangeKind::of(before, after),
        body: body(blobs, &path, before, after),
        before: before.cloned(),
        after: after.cloned(),
        path,
    })
}
