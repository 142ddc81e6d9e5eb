//! What the test suites share: where the recorded material kept beside the
//! repository is (`../shared`: other projects' published provider streams,
//! sessions and API schemas, read at test time and never copied in), and
//! how a test that needs it skips by name when it is not there.
//!
//! A test asks with [`needs_shared`] and returns when it gets `None`:
//!
//! ```no_run
//! let Some(wire) = strata_testkit::needs_shared(strata_testkit::WIRE) else {
//!     return;
//! };
//! ```
//!
//! Present: the folder. Absent under `CI=true`: a panic naming the missing
//! folder, so CI always runs these tests. Absent elsewhere (a clone on its
//! own): the line `SKIPPED (no ../shared): <test binary>::<test>` goes to
//! stderr and is appended to the file `$STRATA_SKIP_LOG` names, where
//! `scripts/cargo-tests.sh` counts and names the skipped tests.

pub mod mcp_fixture;
pub mod npm;
pub mod prompt_cache;

use std::io::Write;
use std::path::{Path, PathBuf};

/// Names the folder read instead of `../shared`.
pub const SHARED_DIR_VAR: &str = "STRATA_SHARED_DIR";
/// Names a file each skipped test's line is appended to.
pub const SKIP_LOG_VAR: &str = "STRATA_SKIP_LOG";
/// How a skip line starts; the test's name follows.
pub const SKIP_PREFIX: &str = "SKIPPED (no ../shared): ";
/// The recorded provider streams, inside the shared folder.
pub const WIRE: &str = "fixtures/wire";
/// The providers' published request-body schemas, inside the shared folder.
pub const API: &str = "fixtures/api";
/// Other agents' real session files (Codex, Claude Code, Copilot CLI), with
/// their provenance, inside the shared folder.
pub const SESSIONS: &str = "fixtures/sessions";

/// The workspace root (the folder holding `crates/`).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // This crate is <root>/crates/strata-testkit.
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The shared folder: `$STRATA_SHARED_DIR`, else `shared` beside the
/// workspace root.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os(SHARED_DIR_VAR) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_root().with_file_name("shared"),
    }
}

/// `sub` inside the shared folder, for the running test that needs it; see
/// the crate's documentation for what happens when it is missing.
pub fn needs_shared(sub: &str) -> Option<PathBuf> {
    let dir = shared_dir().join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    let test = test_name();
    if on_ci() {
        panic!(
            "{test} needs {}, which is missing: under CI=true the recorded material \
             beside the clone must be there (or ${SHARED_DIR_VAR} must name it)",
            dir.display()
        );
    }
    let line = format!("{SKIP_PREFIX}{test}\n");
    // Straight to stderr, not `eprint!`: the harness captures that for
    // passing tests, and this line is for whoever runs them.
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(log) = std::env::var_os(SKIP_LOG_VAR) {
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .and_then(|mut file| file.write_all(line.as_bytes()));
        if let Err(error) = written {
            panic!(
                "{test}: recording the skip in {}: {error}",
                Path::new(&log).display()
            );
        }
    }
    None
}

fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value.eq_ignore_ascii_case("true") || value == "1")
}

/// `<test binary>::<test>`: libtest names each test's thread after it, and
/// the binary (cargo's `name-<hash>`) says which crate and file it is in.
fn test_name() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .map(|stem| match stem.rsplit_once('-') {
            Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
            _ => stem,
        })
        .unwrap_or_default();
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("<unnamed test>");
    format!("{binary}::{test}")
}
