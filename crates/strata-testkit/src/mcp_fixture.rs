//! The MCP fixture server (strata-mcp's `strata-mcp-fixture` example, on
//! the SDK's server role), for the tests of every crate that starts one.
//! Test helpers: they panic on setup failures, which is how a test reports
//! them.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// strata-mcp's folder, where the fixture's sources are.
const MCP_CRATE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../strata-mcp");

/// The fixture server (the `strata-mcp-fixture` example) in the target
/// directory this test runs from. `cargo test` builds examples with the
/// tests; when it did not (`--test` alone) or the binary is older than its
/// source, it is built here, once per test binary.
pub fn path() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("the test's own path");
            // <target>/<profile>/deps/<test>
            let profile_dir = exe
                .parent()
                .and_then(|deps| deps.parent())
                .expect("profile dir");
            let path = profile_dir.join("examples").join("strata-mcp-fixture");
            if !is_fresh(&path) {
                build_fixture(profile_dir);
            }
            assert!(path.is_file(), "no fixture server at {}", path.display());
            path
        })
        .clone()
}

/// Whether `binary` is newer than everything the fixture is built from.
fn is_fresh(binary: &Path) -> bool {
    let modified = |path: &Path| {
        std::fs::metadata(path)
            .and_then(|meta| meta.modified())
            .ok()
    };
    let Some(built) = modified(binary) else {
        return false;
    };
    let manifest = Path::new(MCP_CRATE);
    let sources = [
        manifest.join("tests/fixture/server.rs"),
        manifest.join("Cargo.toml"),
        manifest.join("../../Cargo.lock"),
    ];
    sources
        .iter()
        .all(|source| modified(source).is_some_and(|changed| changed <= built))
}

fn build_fixture(profile_dir: &Path) {
    let target_dir = profile_dir.parent().expect("target dir");
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .args([
            "build",
            "--quiet",
            "-p",
            "strata-mcp",
            "--example",
            "strata-mcp-fixture",
        ])
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(MCP_CRATE);
    if profile_dir
        .file_name()
        .is_some_and(|name| name == "release")
    {
        cargo.arg("--release");
    }
    let status = cargo.status().expect("cargo runs");
    assert!(
        status.success(),
        "building the fixture server failed: {status}"
    );
}
