//! What change tracking adds to one `run_shell` call: the workspace walk
//! before the command and the one after it, over workspaces of 1,000 and
//! 5,000 small text files, side by side with spawning `sh -c true` (the
//! least any command costs). A session's first walk hashes and keeps every
//! file; later walks stat each file and read only those whose size or
//! modification time changed.
//!
//! ```text
//! cargo bench -p strata-core --bench change_tracking
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use criterion::Criterion;
use strata_core::changes::BlobStore;
use strata_core::changes::snapshot::{self, SnapshotLimits};

/// `files` text files of about 2 KB, 50 to a folder.
fn populate(root: &Path, files: usize) {
    let line = "fn example() -> usize { 42 } // a line of ordinary source text\n";
    for index in 0..files {
        let folder = root.join(format!("src/module_{}", index / 50));
        std::fs::create_dir_all(&folder).unwrap();
        let body = format!("// file {index}\n{}", line.repeat(32));
        std::fs::write(folder.join(format!("file_{index}.rs")), body).unwrap();
    }
}

fn main() {
    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let mut group = criterion.benchmark_group("change_tracking");
    group.bench_function("spawn_sh_c_true", |b| {
        b.iter(|| {
            let status = Command::new("sh").args(["-c", "true"]).status().unwrap();
            black_box(status.success())
        })
    });
    for files in [1_000, 5_000] {
        let workspace = tempfile::tempdir().unwrap();
        populate(workspace.path(), files);
        let sessions = tempfile::tempdir().unwrap();
        let blobs = BlobStore::beside(&sessions.path().join("session.jsonl"));
        let limits = SnapshotLimits::default();
        let first = snapshot::take(workspace.path(), None, &blobs, limits);
        assert_eq!(first.files.len(), files);
        // Every file hashed again (the blobs already kept are not rewritten).
        group.bench_function(format!("first_walk_{files}_files"), |b| {
            b.iter(|| {
                black_box(
                    snapshot::take(workspace.path(), None, &blobs, limits)
                        .files
                        .len(),
                )
            })
        });
        // A later call: the walk before the command and the walk after it.
        group.bench_function(format!("before_and_after_walks_{files}_files"), |b| {
            b.iter(|| {
                let before = snapshot::take(workspace.path(), Some(&first), &blobs, limits);
                let after = snapshot::take(workspace.path(), Some(&before), &blobs, limits);
                black_box(after.files.len())
            })
        });
    }
    group.finish();
    criterion.final_summary();
}
