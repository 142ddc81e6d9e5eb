//! When to restart a server that crashed: exponential back-off with a cap,
//! and a limit on restarts in a row, so a server that dies at once on every
//! start is given up on (and shown failed) instead of spinning. A server
//! that stayed up for [`RestartBackoff::healthy_after`] starts the count
//! afresh. Pure: the caller keeps the clock.

use std::time::Duration;

/// The restart rules for one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartBackoff {
    /// The wait before the first restart; each next one doubles it.
    pub first_delay: Duration,
    /// The longest wait.
    pub max_delay: Duration,
    /// Restarts in a row before giving up.
    pub max_restarts: u32,
    /// Up this long, a server's crash counts as the first again.
    pub healthy_after: Duration,
}

impl Default for RestartBackoff {
    fn default() -> Self {
        Self {
            first_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_restarts: 5,
            healthy_after: Duration::from_secs(60),
        }
    }
}

/// What to do after a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterCrash {
    /// Start it again after this wait.
    RestartAfter(Duration),
    /// It crashed [`RestartBackoff::max_restarts`] times in a row: leave it
    /// failed until the person restarts it.
    GiveUp,
}

/// One server's crashes so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CrashCount {
    in_a_row: u32,
}

impl CrashCount {
    /// Records a crash after the server was up for `uptime`, and says what
    /// to do.
    pub fn crashed(&mut self, rules: &RestartBackoff, uptime: Duration) -> AfterCrash {
        if uptime >= rules.healthy_after {
            self.in_a_row = 0;
        }
        if self.in_a_row >= rules.max_restarts {
            return AfterCrash::GiveUp;
        }
        let doublings = self.in_a_row.min(31);
        self.in_a_row += 1;
        let delay = rules
            .first_delay
            .checked_mul(1 << doublings)
            .map_or(rules.max_delay, |delay| delay.min(rules.max_delay));
        AfterCrash::RestartAfter(delay)
    }

    /// The person restarted it: the count starts afresh.
    pub fn reset(&mut self) {
        self.in_a_row = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn delays_double_up_to_the_cap_then_it_gives_up() {
        let rules = RestartBackoff {
            first_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(5),
            max_restarts: 4,
            healthy_after: Duration::from_secs(60),
        };
        let mut count = CrashCount::default();
        let quick = Duration::from_millis(10);
        let seen: Vec<AfterCrash> = (0..5).map(|_| count.crashed(&rules, quick)).collect();
        let secs = |s| AfterCrash::RestartAfter(Duration::from_secs(s));
        assert_eq!(
            seen,
            [secs(1), secs(2), secs(4), secs(5), AfterCrash::GiveUp]
        );
        count.reset();
        assert_eq!(count.crashed(&rules, quick), secs(1));
    }

    #[test]
    fn a_server_that_stayed_up_starts_the_count_afresh() {
        let rules = RestartBackoff::default();
        let mut count = CrashCount::default();
        for _ in 0..rules.max_restarts {
            count.crashed(&rules, Duration::ZERO);
        }
        assert_eq!(count.crashed(&rules, Duration::ZERO), AfterCrash::GiveUp);
        assert_eq!(
            count.crashed(&rules, rules.healthy_after),
            AfterCrash::RestartAfter(rules.first_delay)
        );
    }

    proptest! {
        /// However the crashes come, waits never shrink within a run of
        /// quick crashes, never pass the cap, and a run never restarts more
        /// than the limit.
        #[test]
        fn waits_grow_stay_capped_and_runs_are_limited(
            first_ms in 1_u64..5_000,
            max_ms in 1_u64..120_000,
            max_restarts in 0_u32..10,
            uptimes_ms in proptest::collection::vec(0_u64..120_000, 1..40),
        ) {
            let rules = RestartBackoff {
                first_delay: Duration::from_millis(first_ms),
                max_delay: Duration::from_millis(max_ms),
                max_restarts,
                healthy_after: Duration::from_secs(60),
            };
            let mut count = CrashCount::default();
            let mut previous: Option<Duration> = None;
            let mut in_a_row = 0;
            for uptime in uptimes_ms.into_iter().map(Duration::from_millis) {
                if uptime >= rules.healthy_after {
                    previous = None;
                    in_a_row = 0;
                }
                match count.crashed(&rules, uptime) {
                    AfterCrash::RestartAfter(delay) => {
                        in_a_row += 1;
                        prop_assert!(in_a_row <= max_restarts);
                        prop_assert!(delay <= rules.max_delay);
                        prop_assert!(previous.is_none_or(|previous| delay >= previous));
                        previous = Some(delay);
                    }
                    AfterCrash::GiveUp => prop_assert_eq!(in_a_row, max_restarts),
                }
            }
        }
    }
}
