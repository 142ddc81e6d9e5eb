//! A damaged or unwritable index never costs the library: it is set aside
//! and rebuilt from the session files, or replaced by one in memory.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::library;

use std::path::{Path, PathBuf};

use strata_core::{SessionStore, StrataPaths};
use strata_index::{Index, IndexNotice, PageRequest, index_path};
use strata_protocol::{ResponseItem, SessionId};

fn sessions(store: &SessionStore, n: usize) -> Vec<SessionId> {
    let mut ids: Vec<SessionId> = (0..n)
        .map(|k| {
            let mut live = store
                .create(Path::new("/w"), "openai-responses", "m")
                .expect("create");
            live.commit_item(ResponseItem::user(format!("question {k}")))
                .expect("commit");
            live.id()
        })
        .collect();
    ids.sort();
    ids
}

/// Every session the index at `path` lists after what `list_sessions`
/// runs: a recovering open, then a refresh and a listing that recover from
/// damage found on the way; with the notices of both.
fn listed_at(path: &Path, paths: &StrataPaths) -> (Vec<SessionId>, Vec<IndexNotice>, Index) {
    let opened = Index::open_recovering_at(path, &paths.sessions).expect("open");
    let mut notices: Vec<IndexNotice> = opened.notice.into_iter().collect();
    let mut index = opened.index;
    let (page, notice) = index
        .run_recovering(|index| {
            index.refresh()?;
            index.list(&PageRequest {
                limit: 1000,
                ..PageRequest::default()
            })
        })
        .expect("list");
    notices.extend(notice);
    let mut ids: Vec<SessionId> = page.items.iter().map(|s| s.id).collect();
    ids.sort();
    (ids, notices, index)
}

fn listed(paths: &StrataPaths) -> (Vec<SessionId>, Vec<IndexNotice>, Index) {
    listed_at(&index_path(paths), paths)
}

fn side(path: &Path, suffix: &str) -> PathBuf {
    let mut side = path.as_os_str().to_owned();
    side.push(suffix);
    PathBuf::from(side)
}

/// A good index of the library, written and closed (its WAL folded in).
/// SQLite's page size, as the index is made.
const PAGE: usize = 4096;

/// Pages 1 to N hold the schema (the schema table's b-tree): page 1, and
/// when it is an interior page, its children (allocated as the tables were
/// created, before any data).
fn schema_pages(database: &[u8]) -> usize {
    let header = 100;
    // 0x05: an interior table b-tree page; 0x0d: a leaf (all on page 1).
    if database[header] != 0x05 {
        return 1;
    }
    let page_number = |at: usize| {
        usize::try_from(u32::from_be_bytes(database[at..at + 4].try_into().unwrap())).unwrap()
    };
    let cells = usize::from(u16::from_be_bytes([
        database[header + 3],
        database[header + 4],
    ]));
    let mut last = page_number(header + 8);
    for cell in 0..cells {
        let pointer = header + 12 + 2 * cell;
        let offset = usize::from(u16::from_be_bytes([
            database[pointer],
            database[pointer + 1],
        ]));
        last = last.max(page_number(offset));
    }
    last
}

fn built_index(paths: &StrataPaths) -> Vec<u8> {
    let (_, notices, index) = listed(paths);
    assert!(notices.is_empty(), "{notices:?}");
    drop(index);
    let path = index_path(paths);
    let _ = std::fs::remove_file(side(&path, "-wal"));
    let _ = std::fs::remove_file(side(&path, "-shm"));
    std::fs::read(path).expect("read index")
}

/// Asserts the library listed whole after exactly one `Rebuilt` notice,
/// whose kept file holds `broken`; and that the next open says nothing.
fn assert_rebuilt(paths: &StrataPaths, expected: &[SessionId], broken: &[u8]) {
    let (ids, notices, index) = listed(paths);
    assert_eq!(ids, expected, "every session listed from the files");
    let [IndexNotice::Rebuilt { kept, .. }] = notices.as_slice() else {
        panic!("one rebuilt notice, got {notices:?}");
    };
    let kept_bytes = std::fs::read(kept).expect("kept file");
    assert!(
        kept_bytes == broken,
        "the kept file is the broken one, untouched"
    );
    let name = kept.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("library.sqlite3.broken-"), "{name}");
    assert!(!index.is_in_memory());
    drop(index);
    let (again, notices, _) = listed(paths);
    assert_eq!(again, expected);
    assert!(notices.is_empty(), "said once: {notices:?}");
}

#[test]
fn an_index_of_random_bytes_is_kept_aside_and_rebuilt_from_the_session_files() {
    let (_home, paths, store) = library();
    let ids = sessions(&store, 3);
    built_index(&paths);
    let noise: Vec<u8> = (0..64 * 1024).map(|_| fastrand::u8(..)).collect();
    std::fs::write(index_path(&paths), &noise).unwrap();
    assert_rebuilt(&paths, &ids, &noise);
}

#[test]
fn a_truncated_index_is_kept_aside_and_rebuilt_from_the_session_files() {
    for keep in [10, 100, 4096, usize::MAX] {
        let (_home, paths, store) = library();
        let ids = sessions(&store, 40);
        let good = built_index(&paths);
        let keep = if keep == usize::MAX {
            good.len() / 2
        } else {
            keep
        };
        assert!(keep < good.len(), "{keep} of {}", good.len());
        let truncated = &good[..keep];
        std::fs::write(index_path(&paths), truncated).unwrap();
        assert_rebuilt(&paths, &ids, truncated);
    }
}

#[test]
fn an_index_with_other_tables_under_this_version_is_kept_aside_and_rebuilt() {
    let (_home, paths, store) = library();
    let ids = sessions(&store, 2);
    let path = index_path(&paths);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    {
        let other = rusqlite::Connection::open(&path).unwrap();
        other
            .execute_batch("CREATE TABLE sessions (id TEXT); INSERT INTO sessions VALUES ('mine');")
            .unwrap();
        other
            .pragma_update(None, "user_version", strata_index::SCHEMA_VERSION)
            .unwrap();
    }
    let foreign = std::fs::read(&path).unwrap();
    assert_rebuilt(&paths, &ids, &foreign);
}

#[test]
fn an_index_whose_folder_cannot_be_made_lists_from_the_files_in_memory() {
    // Root ignores permission bits; a regular file where the folder should
    // be refuses every write, root's included.
    let (home, paths, store) = library();
    let ids = sessions(&store, 3);
    let blocker = home.path().join("not-a-folder");
    std::fs::write(&blocker, b"x").unwrap();
    let path = blocker.join("library.sqlite3");
    let (listed, notices, index) = listed_at(&path, &paths);
    assert_eq!(listed, ids);
    assert!(index.is_in_memory());
    let [IndexNotice::FilesOnly { path: at, .. }] = notices.as_slice() else {
        panic!("one files-only notice, got {notices:?}");
    };
    assert_eq!(at, &path);
    assert_eq!(std::fs::read(&blocker).unwrap(), b"x", "nothing written");
}

#[test]
fn a_folder_where_the_index_file_should_be_is_left_alone_and_the_files_listed() {
    let (_home, paths, store) = library();
    let ids = sessions(&store, 2);
    let path = index_path(&paths);
    std::fs::create_dir_all(&path).unwrap();
    std::fs::write(path.join("keep.txt"), b"mine").unwrap();
    let (listed, notices, index) = listed(&paths);
    assert_eq!(listed, ids);
    assert!(index.is_in_memory());
    assert!(
        matches!(notices.as_slice(), [IndexNotice::FilesOnly { .. }]),
        "{notices:?}"
    );
    assert_eq!(std::fs::read(path.join("keep.txt")).unwrap(), b"mine");
}

#[test]
fn an_index_damaged_past_its_first_page_is_rebuilt_when_the_listing_finds_it() {
    // The header and the schema's pages intact: the open succeeds and the
    // damage is found by the refresh reading the tables.
    let (_home, paths, store) = library();
    let ids = sessions(&store, 40);
    let mut damaged = built_index(&paths);
    let first_data_byte = schema_pages(&damaged) * PAGE;
    assert!(
        damaged.len() > first_data_byte + 3 * PAGE,
        "{}",
        damaged.len()
    );
    for byte in &mut damaged[first_data_byte..] {
        *byte = fastrand::u8(..);
    }
    std::fs::write(index_path(&paths), &damaged).unwrap();
    drop(Index::open(&paths).expect("the open sees nothing wrong"));
    assert_rebuilt(&paths, &ids, &damaged);
}
