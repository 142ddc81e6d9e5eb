//! A read deny list in Landlock's allow-list model.
//!
//! Landlock can only grant, and a grant on a folder covers everything
//! beneath it, so denying `~/.ssh` means granting read on every *sibling*
//! at each level from `/` down to it (`/bin`, `/etc`, ..., `/home/p/src`,
//! ...) and never on an ancestor. Entries created later beside a denied
//! path (a new file in `~`) are therefore not readable until the next
//! command, which lists again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::paths::{normalize, resolve_existing_prefix};

/// The paths to grant read on so that everything under `/` is readable
/// except what is under `deny`.
pub fn read_grants(deny: &[PathBuf]) -> Vec<PathBuf> {
    read_grants_under(Path::new("/"), deny)
}

/// [`read_grants`] for the tree under `root` (absolute).
pub(crate) fn read_grants_under(root: &Path, deny: &[PathBuf]) -> Vec<PathBuf> {
    let denied = denied_set(deny);
    let mut grants = Vec::new();
    walk(root, &denied, &mut grants);
    grants
}

/// Each denied path as written and, where it exists, as the kernel sees it
/// (symlinks resolved); paths that are not absolute are dropped.
fn denied_set(deny: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut denied = BTreeSet::new();
    for path in deny.iter().filter(|path| path.is_absolute()) {
        let lexical = normalize(path);
        denied.insert(resolve_existing_prefix(&lexical));
        denied.insert(lexical);
    }
    denied
}

/// Grants `dir` whole when nothing denied is inside it, else walks into it.
fn walk(dir: &Path, denied: &BTreeSet<PathBuf>, grants: &mut Vec<PathBuf>) {
    if is_denied(dir, denied) {
        return;
    }
    if !is_ancestor_of_denied(dir, denied) {
        grants.push(dir.to_path_buf());
        return;
    }
    // A folder that cannot be listed grants nothing beneath it: stricter,
    // never looser.
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<_> = entries.flatten().map(|entry| entry.file_name()).collect();
    names.sort();
    for name in names {
        let path = dir.join(name);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            // Landlock grants the link's target: never one that is, holds,
            // or lies beneath a denied path.
            let Ok(target) = std::fs::canonicalize(&path) else {
                continue;
            };
            if is_denied(&path, denied)
                || is_denied(&target, denied)
                || is_ancestor_of_denied(&target, denied)
            {
                continue;
            }
            grants.push(path);
        } else if meta.is_dir() {
            walk(&path, denied, grants);
        } else if !is_denied(&path, denied) {
            grants.push(path);
        }
    }
}

fn is_denied(path: &Path, denied: &BTreeSet<PathBuf>) -> bool {
    denied.iter().any(|deny| path.starts_with(deny))
}

fn is_ancestor_of_denied(path: &Path, denied: &BTreeSet<PathBuf>) -> bool {
    denied
        .iter()
        .any(|deny| deny != path && deny.starts_with(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn covered(path: &Path, grants: &[PathBuf]) -> bool {
        grants.iter().any(|grant| path.starts_with(grant))
    }

    #[test]
    fn siblings_of_a_denied_folder_are_granted_and_its_ancestors_are_not() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home/p");
        for dir in [".ssh", "src/tally", ".config/strata", ".config/git"] {
            std::fs::create_dir_all(home.join(dir)).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "key").unwrap();
        std::fs::write(home.join(".bashrc"), "").unwrap();
        std::fs::create_dir_all(root.path().join("etc")).unwrap();
        let grants = read_grants_under(root.path(), &default_deny(&home));
        let mut expected = vec![
            root.path().join("etc"),
            home.join(".bashrc"),
            home.join(".config/git"),
            home.join("src"),
        ];
        expected.sort();
        let mut grants_sorted = grants.clone();
        grants_sorted.sort();
        assert_eq!(grants_sorted, expected);
    }

    #[test]
    fn a_symlink_to_a_denied_folder_is_not_granted() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("p/.ssh")).unwrap();
        std::os::unix::fs::symlink(root.path().join("p/.ssh"), root.path().join("p/keys")).unwrap();
        std::os::unix::fs::symlink(root.path().join("p"), root.path().join("p/me")).unwrap();
        let grants = read_grants_under(root.path(), &[root.path().join("p/.ssh")]);
        assert!(grants.is_empty(), "{grants:?}");
    }

    #[test]
    fn a_denied_path_reached_through_a_symlink_is_denied_where_it_really_is() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("data/ssh")).unwrap();
        std::fs::create_dir_all(root.path().join("data/other")).unwrap();
        std::fs::create_dir_all(root.path().join("p")).unwrap();
        std::os::unix::fs::symlink(root.path().join("data/ssh"), root.path().join("p/.ssh"))
            .unwrap();
        let grants = read_grants_under(root.path(), &[root.path().join("p/.ssh")]);
        assert!(!covered(&root.path().join("data/ssh/id"), &grants));
        assert!(covered(&root.path().join("data/other"), &grants));
    }

    fn default_deny(home: &Path) -> Vec<PathBuf> {
        crate::default_read_deny(home)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Whatever the tree and the deny list: a file is readable exactly
        /// when it is not under a denied path.
        #[test]
        fn a_file_is_covered_exactly_when_no_denied_path_holds_it(
            files in proptest::collection::btree_set("[ab]{1}(/[abc]{1}){0,3}", 1..12),
            deny_picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..4),
        ) {
            let root = tempfile::tempdir().unwrap();
            let mut created = Vec::new();
            for file in &files {
                let path = root.path().join(file).join("f");
                if std::fs::create_dir_all(path.parent().unwrap()).is_ok()
                    && std::fs::write(&path, "").is_ok()
                {
                    created.push(path);
                }
            }
            let candidates: Vec<PathBuf> = created
                .iter()
                .flat_map(|path| path.ancestors().skip(1).take_while(|a| *a != root.path()))
                .map(Path::to_path_buf)
                .collect();
            let deny: Vec<PathBuf> = deny_picks
                .iter()
                .filter(|_| !candidates.is_empty())
                .map(|pick| pick.get(&candidates).clone())
                .collect();
            let grants = read_grants_under(root.path(), &deny);
            for path in &created {
                let is_denied = deny.iter().any(|d| path.starts_with(d));
                prop_assert_eq!(covered(path, &grants), !is_denied, "{:?} {:?}", path, deny);
            }
            for grant in &grants {
                prop_assert!(!deny.iter().any(|d| d.starts_with(grant) || grant.starts_with(d)));
            }
        }
    }
}
