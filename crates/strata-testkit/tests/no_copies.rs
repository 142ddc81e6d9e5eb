//! The recorded material beside the repository stays there: no file in the
//! repository is a copy of one in `../shared/fixtures`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use strata_testkit::{needs_shared, workspace_root};

/// Every non-empty file below `dir`, by length; `skip` says which folder
/// names not to enter. Links are not followed.
fn files_by_length(dir: &Path, skip: &dyn Fn(&str) -> bool, into: &mut HashMap<u64, Vec<PathBuf>>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let kind = entry.file_type().unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if kind.is_dir() && !skip(&name) {
            files_by_length(&entry.path(), skip, into);
        } else if kind.is_file() {
            let length = entry.metadata().unwrap().len();
            if length > 0 {
                into.entry(length).or_default().push(entry.path());
            }
        }
    }
}

#[test]
fn the_repository_holds_no_copy_of_the_shared_fixtures() {
    let Some(fixtures) = needs_shared("fixtures") else {
        return;
    };
    let mut shared = HashMap::new();
    files_by_length(&fixtures, &|_| false, &mut shared);
    let mut ours = HashMap::new();
    let skip = |name: &str| name.starts_with('.') || name == "target" || name == "node_modules";
    files_by_length(&workspace_root(), &skip, &mut ours);
    let mut copies = Vec::new();
    for (length, paths) in &ours {
        let Some(originals) = shared.get(length) else {
            continue;
        };
        for path in paths {
            let bytes = std::fs::read(path).unwrap();
            if let Some(original) = originals
                .iter()
                .find(|o| std::fs::read(o).unwrap() == bytes)
            {
                copies.push(format!("{} = {}", path.display(), original.display()));
            }
        }
    }
    copies.sort();
    assert!(
        copies.is_empty(),
        "copies of ../shared in the repository:\n{}",
        copies.join("\n")
    );
}
