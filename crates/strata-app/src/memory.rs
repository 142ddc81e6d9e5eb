//! Handing memory freed after a large reindex back to the system.
//!
//! glibc keeps what a program frees in its arenas for the next allocation
//! and returns to the system only the free space at the top of each heap.
//! Reading hundreds of session files into the index leaves that space in
//! the middle, so a desktop that indexed a 1,002-session library on its
//! first launch kept about 36 MB more for as long as it ran (measured:
//! docs/PERFORMANCE.md, Desktop). `malloc_trim` returns it.

use strata_index::RefreshReport;

/// Session files read (whole or appended) from which a refresh is worth a
/// trim: far more than a listing reads while sessions are written, where
/// the trim would only cost time.
pub const LARGE_REFRESH_FILES: usize = 64;

/// Whether `report`'s refresh read enough files to leave much freed memory.
pub fn worth_trimming(report: &RefreshReport) -> bool {
    report.reindexed.saturating_add(report.appended) >= LARGE_REFRESH_FILES
}

/// Returns the allocator's free memory to the system, where it can (glibc).
pub fn trim_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim takes no pointers and locks each arena it
        // walks, so it may be called from any thread at any time.
        #[allow(unsafe_code)]
        let released = unsafe { libc::malloc_trim(0) };
        tracing::debug!(
            released = released == 1,
            "trimmed the allocator after a large reindex"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{LARGE_REFRESH_FILES, worth_trimming};
    use strata_index::RefreshReport;

    fn read(reindexed: usize, appended: usize) -> RefreshReport {
        RefreshReport {
            sessions: 10_000,
            full_pass: true,
            reindexed,
            appended,
            ..RefreshReport::default()
        }
    }

    #[test]
    fn a_refresh_that_read_many_files_is_followed_by_a_trim_and_an_everyday_one_is_not() {
        assert!(!worth_trimming(&RefreshReport::default()));
        assert!(!worth_trimming(&read(1, 2)));
        assert!(!worth_trimming(&read(LARGE_REFRESH_FILES - 1, 0)));
        assert!(worth_trimming(&read(LARGE_REFRESH_FILES, 0)));
        assert!(worth_trimming(&read(
            LARGE_REFRESH_FILES / 2,
            LARGE_REFRESH_FILES / 2
        )));
        assert!(worth_trimming(&read(1_002, 0)));
    }
}
