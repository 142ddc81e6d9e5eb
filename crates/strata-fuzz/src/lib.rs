//! Fuzzing Strata on stable Rust: targets for the session record reader,
//! the three stream decoders, replay with compactions, the workspace path
//! resolver and other agents' session readers ([`targets`]); a seeded
//! mutation loop with shape feedback that runs them for a set time
//! ([`campaign`]); and the crash inputs it found, kept under
//! `crates/strata-fuzz/crashes/<target>/` and replayed by this crate's tests.

pub mod campaign;
pub mod mutate;
pub mod targets;

pub use campaign::{Campaign, Report};
pub use targets::Target;

use std::path::PathBuf;

/// The repository's root (for the fixtures the seeds come from).
pub fn repo_root() -> PathBuf {
    strata_testkit::workspace_root()
}

/// The recorded provider streams beside the repository, the stream targets'
/// seeds (`../shared/fixtures/wire`; it may be missing).
pub fn wire_dir() -> PathBuf {
    strata_testkit::shared_dir().join(strata_testkit::WIRE)
}

/// Where a target's crash inputs are kept.
pub fn crash_dir(target: Target) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("crashes")
        .join(target.name())
}
