//! The composer's `@` finder: the workspace's paths, walked as ripgrep
//! walks by default (`.gitignore` and `.ignore` respected, hidden files and
//! `.git` skipped, links not followed), ranked by fuzzy match.

use std::path::Path;

use ignore::WalkBuilder;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};

/// The walk stops after this many entries; [`FoundPaths::walk_cut`] says so.
pub const MAX_WALK_ENTRIES: usize = 100_000;

/// One path the finder offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundPath {
    /// Relative to the workspace, `/`-separated; a folder ends with `/`.
    pub path: String,
    pub is_dir: bool,
}

/// The best matches of one query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FoundPaths {
    pub paths: Vec<FoundPath>,
    /// The walk stopped at [`MAX_WALK_ENTRIES`]: paths beyond were not ranked.
    pub walk_cut: bool,
}

/// The `limit` paths of `workspace` that match `query` best (fuzzy, smart
/// case; path separators weigh as word boundaries), or, for a blank query,
/// the shallowest first. A link is offered only when it leads inside the
/// workspace; nothing outside the workspace is ever listed.
pub fn find(workspace: &Path, query: &str, limit: usize) -> FoundPaths {
    let (mut paths, walk_cut) = walk(workspace, MAX_WALK_ENTRIES);
    let query = query.trim();
    if query.is_empty() {
        paths.sort_by(|a, b| {
            let depth = |p: &FoundPath| p.path.trim_end_matches('/').matches('/').count();
            depth(a).cmp(&depth(b)).then_with(|| a.path.cmp(&b.path))
        });
        paths.truncate(limit);
        return FoundPaths { paths, walk_cut };
    }
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let mut ranked: Vec<(FoundPath, u32)> = pattern
        .match_list(paths, &mut matcher)
        .into_iter()
        .collect();
    // Equal scores: the shorter path, then by name, so results are stable.
    ranked.sort_by(|(a, sa), (b, sb)| {
        sb.cmp(sa)
            .then_with(|| a.path.len().cmp(&b.path.len()))
            .then_with(|| a.path.cmp(&b.path))
    });
    FoundPaths {
        paths: ranked.into_iter().take(limit).map(|(p, _)| p).collect(),
        walk_cut,
    }
}

impl AsRef<str> for FoundPath {
    fn as_ref(&self) -> &str {
        &self.path
    }
}

fn walk(workspace: &Path, cap: usize) -> (Vec<FoundPath>, bool) {
    let Ok(root) = workspace.canonicalize() else {
        return (Vec::new(), false);
    };
    let walker = WalkBuilder::new(&root)
        .follow_links(false)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build();
    let mut paths = Vec::new();
    for entry in walker.flatten() {
        if entry.depth() == 0 {
            continue;
        }
        if paths.len() >= cap {
            return (paths, true);
        }
        let Ok(relative) = entry.path().strip_prefix(&root) else {
            continue;
        };
        let Some(relative) = relative.to_str() else {
            continue;
        };
        let Some(file_type) = entry.file_type() else {
            continue;
        };
        let is_dir = if file_type.is_symlink() {
            match entry.path().canonicalize() {
                Ok(target) if target.starts_with(&root) => target.is_dir(),
                _ => continue,
            }
        } else {
            file_type.is_dir()
        };
        let path = if is_dir {
            format!("{relative}/")
        } else {
            relative.to_owned()
        };
        paths.push(FoundPath { path, is_dir });
    }
    (paths, false)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x").unwrap();
        }
        dir
    }

    fn names(found: &FoundPaths) -> Vec<&str> {
        found.paths.iter().map(|p| p.path.as_str()).collect()
    }

    #[test]
    fn the_closest_match_ranks_first() {
        let dir = tree(&["src/main.rs", "src/manager.rs", "docs/maintenance.md"]);
        let found = find(dir.path(), "manager", 10);
        assert_eq!(names(&found)[0], "src/manager.rs");
        let found = find(dir.path(), "srcmain", 10);
        assert_eq!(names(&found)[0], "src/main.rs");
    }

    #[test]
    fn folders_are_listed_with_a_trailing_slash() {
        let dir = tree(&["crates/app/lib.rs"]);
        let found = find(dir.path(), "crates", 10);
        assert!(found.paths.contains(&FoundPath {
            path: "crates/".into(),
            is_dir: true
        }));
    }

    #[test]
    fn gitignored_hidden_and_git_paths_are_not_offered() {
        let dir = tree(&[
            "kept.rs",
            "target/built.rs",
            ".hidden/secret.rs",
            ".git/config",
        ]);
        fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        let found = find(dir.path(), "", 100);
        assert_eq!(names(&found), ["kept.rs"]);
    }

    #[test]
    fn a_link_out_of_the_workspace_is_not_offered_but_one_inside_is() {
        let outside = tree(&["elsewhere.txt"]);
        let dir = tree(&["inside.txt"]);
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("elsewhere.txt"),
            dir.path().join("out.txt"),
        )
        .unwrap();
        std::os::unix::fs::symlink("inside.txt", dir.path().join("alias.txt")).unwrap();
        let found = find(dir.path(), "", 100);
        assert_eq!(names(&found), ["alias.txt", "inside.txt"]);
    }

    #[test]
    fn the_limit_caps_the_results_and_a_blank_query_puts_shallow_paths_first() {
        let dir = tree(&["a/b/c.rs", "z.rs", "a/y.rs"]);
        let found = find(dir.path(), " ", 3);
        assert_eq!(names(&found), ["a/", "z.rs", "a/b/"]);
        assert!(!found.walk_cut);
    }

    #[test]
    fn a_walk_past_the_cap_says_it_was_cut() {
        let dir = tree(&["a.rs", "b.rs", "c.rs"]);
        let (paths, cut) = walk(dir.path(), 2);
        assert_eq!(paths.len(), 2);
        assert!(cut);
    }
}
