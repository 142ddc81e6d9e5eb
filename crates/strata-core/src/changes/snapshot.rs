//! What a shell command changed: the workspace is walked before and after
//! it (`.gitignore`-aware, `.git` skipped, symlinks not followed, at most
//! [`SnapshotLimits::max_files`] files) and the two compared.
//!
//! A command can change any file, so its prior content must be kept
//! before it runs: the walk before keeps every small text file it has not
//! seen with that size and modification time (content-addressed, so an
//! unchanged file costs a `stat` after the first command). Files over
//! [`SnapshotLimits::max_copy_bytes`] are only compared by size and time:
//! a shell change to one is recorded, but cannot be restored; so are the
//! files one walk reaches after reading [`SnapshotLimits::max_read_bytes`];
//! a change to an ignored file, or one past the file limit, is not seen.

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use strata_protocol::FileState;

use super::blobs::BlobStore;

/// The bounds of one walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotLimits {
    /// Files looked at; the rest are not seen.
    pub max_files: usize,
    /// Larger files are compared by size and time only.
    pub max_copy_bytes: u64,
    /// Bytes one walk reads to hash and keep; past it the remaining files
    /// are compared by size and time only (the first walk of a big
    /// workspace; later walks read only what changed).
    pub max_read_bytes: u64,
}

impl Default for SnapshotLimits {
    fn default() -> Self {
        Self {
            max_files: 20_000,
            max_copy_bytes: 1024 * 1024,
            max_read_bytes: 64 * 1024 * 1024,
        }
    }
}

/// One file as a walk saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileMark {
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Present for files within the copy limit.
    pub sha256: Option<String>,
    pub stored: bool,
}

impl FileMark {
    fn state(&self) -> FileState {
        FileState {
            size: self.size,
            sha256: self.sha256.clone(),
            stored: self.stored,
        }
    }
}

/// The workspace's files (workspace-relative, `/`-separated) at one moment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub files: BTreeMap<String, FileMark>,
    /// The walk stopped at the file limit.
    pub truncated: bool,
}

/// Walks `root`, hashing (and keeping in `blobs`) each file within the copy
/// limit that `known` does not already hold with the same size and time.
pub fn take(
    root: &Path,
    known: Option<&Snapshot>,
    blobs: &BlobStore,
    limits: SnapshotLimits,
) -> Snapshot {
    let mut snapshot = Snapshot::default();
    let mut read_budget = limits.max_read_bytes;
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .ignore(false)
        .parents(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build();
    for entry in walker.flatten() {
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if !kind.is_file() {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(name) = relative.to_str().map(|s| s.replace('\\', "/")) else {
            continue;
        };
        // The person's secret files are never copied into Strata's folder.
        let parts: Vec<&str> = name.split('/').collect();
        if crate::tools::is_secret_path(&parts) {
            continue;
        }
        if snapshot.files.len() >= limits.max_files {
            snapshot.truncated = true;
            break;
        }
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        let mtime_ns = i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
        let size = meta.len();
        let seen = known
            .and_then(|known| known.files.get(&name))
            .filter(|mark| mark.size == size && mark.mtime_ns == mtime_ns && mark.sha256.is_some());
        let mark = match seen {
            Some(mark) => mark.clone(),
            None if size <= limits.max_copy_bytes && size <= read_budget => {
                read_budget -= size;
                match read_small(entry.path(), limits.max_copy_bytes) {
                    Some(bytes) => match blobs.put(&bytes) {
                        Ok(state) => FileMark {
                            size: state.size,
                            mtime_ns,
                            sha256: state.sha256,
                            stored: state.stored,
                        },
                        Err(error) => {
                            tracing::warn!(%error, "could not keep a file's content");
                            FileMark {
                                size,
                                mtime_ns,
                                sha256: Some(super::sha256_hex(&bytes)),
                                stored: false,
                            }
                        }
                    },
                    None => continue,
                }
            }
            None => FileMark {
                size,
                mtime_ns,
                sha256: None,
                stored: false,
            },
        };
        snapshot.files.insert(name, mark);
    }
    snapshot
}

/// A regular file's bytes, never following a symlink in its place.
fn read_small(path: &Path, limit: u64) -> Option<Vec<u8>> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(
            rustix::fs::OFlags::NOFOLLOW.bits() as i32 | rustix::fs::OFlags::NONBLOCK.bits() as i32,
        )
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// One file a command created, changed or deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellChange {
    pub path: String,
    pub before: Option<FileState>,
    pub after: Option<FileState>,
}

/// What differs between two walks, by path. A file neither walk could hash
/// counts as changed when its size or time differs.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Vec<ShellChange> {
    let mut changes = Vec::new();
    for (path, old) in &before.files {
        match after.files.get(path) {
            None if !after.truncated => changes.push(ShellChange {
                path: path.clone(),
                before: Some(old.state()),
                after: None,
            }),
            None => {}
            Some(new) => {
                let differs = match (&old.sha256, &new.sha256) {
                    (Some(a), Some(b)) => a != b,
                    _ => old.size != new.size || old.mtime_ns != new.mtime_ns,
                };
                if differs {
                    changes.push(ShellChange {
                        path: path.clone(),
                        before: Some(old.state()),
                        after: Some(new.state()),
                    });
                }
            }
        }
    }
    for (path, new) in &after.files {
        if !before.files.contains_key(path) && !before.truncated {
            changes.push(ShellChange {
                path: path.clone(),
                before: None,
                after: Some(new.state()),
            });
        }
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    changes
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
