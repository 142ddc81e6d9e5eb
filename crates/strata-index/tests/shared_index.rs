//! One index file, two processes: the desktop keeps a connection open while
//! its writers open the index again to note their sessions, and the CLI
//! reads and writes the same file. Opening the index again must not drop
//! the locks the open connection holds, or another process closing its own
//! connection believes itself the last one and checkpoints and deletes the
//! WAL under it ("database disk image is malformed" in the desktop).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;

use strata_core::StrataPaths;
use strata_index::{Index, index_path};

/// The other process: this test binary again, running [`other_process`].
const CHILD_HOME: &str = "STRATA_INDEX_TEST_OTHER_PROCESS_HOME";

#[test]
fn reopening_the_index_keeps_the_open_connection_s_wal_from_another_process() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    std::fs::create_dir_all(&paths.sessions).unwrap();
    let mut held = Index::open(&paths).unwrap();
    held.refresh().unwrap();
    let wal = PathBuf::from(format!("{}-wal", index_path(&paths).display()));
    assert!(wal.exists(), "the open connection has its WAL");

    // What a desktop writer's note does while the catalog's connection lives.
    drop(Index::open(&paths).unwrap());

    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "other_process", "--ignored", "--nocapture"])
        .env(CHILD_HOME, home.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        wal.exists(),
        "another process deleted the WAL of a connection still open"
    );
    held.refresh().unwrap();
}

/// Opens, refreshes and closes the index of `CHILD_HOME`, as the CLI does.
#[test]
#[ignore = "run by the test above as its other process"]
fn other_process() {
    let Some(home) = std::env::var_os(CHILD_HOME) else {
        return;
    };
    let paths = StrataPaths::under(std::path::Path::new(&home));
    let mut index = Index::open(&paths).unwrap();
    index.refresh().unwrap();
}
