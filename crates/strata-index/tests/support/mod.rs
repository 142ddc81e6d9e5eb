//! What the index tests share: an empty library in a temporary home.

use strata_core::{SessionStore, StrataPaths};

pub fn library() -> (tempfile::TempDir, StrataPaths, SessionStore) {
    let home = tempfile::tempdir().expect("tempdir");
    let paths = StrataPaths::under(home.path());
    let store = SessionStore::from_paths(&paths);
    (home, paths, store)
}
