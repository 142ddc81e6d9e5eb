//! Every file change a session made, and taking them back.
//!
//! - [`blobs`]: the prior contents, content-addressed beside the session.
//! - [`change_log`]: the `file_change` records of a session, each with the
//!   turn it happened in (a pure fold over the records: what a live session
//!   wrote is what a replay finds).
//! - [`plan_restore`]: which files to write back or delete to return to
//!   before a turn or an item, and [`check_restore`] what refuses it.
//! - [`restore`](mod@restore): carrying a checked plan out, one file at a
//!   time, atomically, recording each as a `file_change` of its own.
//! - [`fork`]: what a fork copies of the store, and the plan and
//!   carrying of a fork "with files".
//! - [`diff`]: a bounded, numbered unified diff of two texts for display.
//! - [`snapshot`]: what a shell command changed, by comparing the workspace
//!   before and after it.

pub mod blobs;
pub mod diff;
pub mod fork;
mod plan;
pub mod restore;
pub mod snapshot;

pub use blobs::{BlobStore, MAX_STORED_BYTES, sha256_hex};
pub use plan::{
    ChangeEntry, RestoreAction, RestoreConflict, RestorePlan, RestorePoint, change_log,
    check_restore, holds, line_counts, plan_from, plan_restore,
};
