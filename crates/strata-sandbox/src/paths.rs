//! Paths taken apart lexically, and resolved only as far as they exist.

use std::path::{Component, Path, PathBuf};

/// `.` and `..` taken out without touching the filesystem.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) | Component::Normal(_) => {
                out.push(component.as_os_str());
            }
        }
    }
    out
}

/// The longest existing prefix of `path` with its symlinks resolved, and
/// the rest appended as written.
pub(crate) fn resolve_existing_prefix(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut prefix = path.to_path_buf();
    loop {
        if let Ok(resolved) = std::fs::canonicalize(&prefix) {
            return rest.iter().rev().fold(resolved, |acc, part| acc.join(part));
        }
        match (prefix.file_name().map(ToOwned::to_owned), prefix.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                prefix = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}
