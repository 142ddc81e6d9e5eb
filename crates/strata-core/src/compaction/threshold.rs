//! The compaction threshold: one function for the trigger, the pre-turn
//! check, the gauge, the command line and the console.

use strata_protocol::{CompactionPolicy, ThresholdSetting};

/// `layered`'s default threshold, as a share of the model's window. Lower
/// than `base`'s (the profile's, 80% of the window by default) because
/// layered's step at its threshold is an eviction with no model call, and
/// a smaller context is cheaper in every request; measured by `make
/// bench-context` (docs/CONTEXT.md).
pub const LAYERED_THRESHOLD_PERCENT: u64 = 20;

/// On windows where a fifth is under [`LAYERED_THRESHOLD_FLOOR_TOKENS`],
/// layered's threshold rises toward that size, up to this share of the
/// window: a fifth of a small window leaves too little room beside the
/// rounds eviction never touches.
pub const LAYERED_THRESHOLD_MAX_PERCENT: u64 = 33;

/// The size layered's threshold is raised toward on small windows.
pub const LAYERED_THRESHOLD_FLOOR_TOKENS: u64 = 25_600;

/// Layered's threshold for a `window`-token model before the profile's
/// cap: a fifth of the window, raised toward
/// [`LAYERED_THRESHOLD_FLOOR_TOKENS`] but never past a third of it.
pub fn layered_window_threshold(window: u64) -> u64 {
    use super::evict::share_of;
    LAYERED_THRESHOLD_FLOOR_TOKENS.clamp(
        share_of(window, LAYERED_THRESHOLD_PERCENT),
        share_of(window, LAYERED_THRESHOLD_MAX_PERCENT),
    )
}

/// A policy's default threshold when the person set none: the profile's
/// (`default`, from the model's window) for `base` and `off`; for `layered`
/// [`layered_window_threshold`] of the window, never above the profile's
/// (the profile's alone when the window is unknown).
pub fn policy_default_threshold(
    policy: CompactionPolicy,
    default: u64,
    window: Option<u64>,
) -> u64 {
    match (policy, window) {
        (CompactionPolicy::Layered, Some(window)) => layered_window_threshold(window).min(default),
        (CompactionPolicy::Layered, None) | (CompactionPolicy::Base | CompactionPolicy::Off, _) => {
            default
        }
    }
}

/// The threshold in tokens of a session under `policy`. `setting` is the
/// person's override (a share of the window, a count, or tokens left),
/// which applies to every policy; without one, the policy's default
/// ([`policy_default_threshold`] of the profile's `default`). A share or
/// tokens-left needs the window; without a known window they fall back to
/// the policy's default. The result never exceeds the window less the
/// output budget, where it could only be reached by overflowing, and is at
/// least 1.
pub fn resolve_threshold(
    policy: CompactionPolicy,
    setting: Option<ThresholdSetting>,
    default: u64,
    window: Option<u64>,
    max_output_tokens: Option<u32>,
) -> u64 {
    let default = policy_default_threshold(policy, default, window);
    let wanted = match (setting, window) {
        (Some(ThresholdSetting::Tokens(tokens)), _) => tokens,
        (Some(ThresholdSetting::Percent(percent)), Some(window)) => {
            super::evict::share_of(window, u64::from(percent))
        }
        (Some(ThresholdSetting::Left(left)), Some(window)) => window.saturating_sub(left),
        (Some(ThresholdSetting::Percent(_) | ThresholdSetting::Left(_)), None) | (None, _) => {
            default
        }
    };
    let capped = match window {
        Some(window) => {
            let room = window.saturating_sub(max_output_tokens.map_or(0, u64::from));
            wanted.min(room.max(1))
        }
        None => wanted,
    };
    capped.max(1)
}

/// After the provider rejected a request as too long for the model's
/// window, the request it rejected (estimated at `rejected` tokens) is known
/// to be at or over the real limit, whatever the catalog said: the
/// recovery aims at [`OVERFLOW_TARGET_PERCENT`] of it, never above the
/// session's own threshold. Without an estimate, the threshold.
pub fn overflow_recovery_threshold(threshold: u64, rejected: Option<u64>) -> u64 {
    rejected
        .map_or(threshold, |rejected| {
            super::evict::share_of(rejected, OVERFLOW_TARGET_PERCENT).min(threshold)
        })
        .max(1)
}

/// How far below a rejected request an overflow recovery aims, in percent.
/// A quarter less leaves room for the estimate's error and the next
/// response without giving away most of the context.
pub const OVERFLOW_TARGET_PERCENT: u64 = 75;

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: CompactionPolicy = CompactionPolicy::Base;
    const LAYERED: CompactionPolicy = CompactionPolicy::Layered;

    #[test]
    fn an_overflow_aims_below_the_rejected_request_and_never_above_the_threshold() {
        // A rejected request of 40,000 (estimated) under a threshold of
        // 100,000: the real window is smaller than the catalog said.
        assert_eq!(overflow_recovery_threshold(100_000, Some(40_000)), 30_000);
        // A rejected request over the threshold: the threshold still rules.
        assert_eq!(overflow_recovery_threshold(10_000, Some(40_000)), 10_000);
        assert_eq!(overflow_recovery_threshold(10_000, None), 10_000);
        assert_eq!(overflow_recovery_threshold(10_000, Some(0)), 1);
    }

    #[test]
    fn the_three_forms_resolve_against_the_window_under_every_policy() {
        let window = Some(100_000);
        for policy in [BASE, LAYERED, CompactionPolicy::Off] {
            let resolve = |setting| resolve_threshold(policy, Some(setting), 80_000, window, None);
            assert_eq!(resolve(ThresholdSetting::Percent(80)), 80_000);
            assert_eq!(resolve(ThresholdSetting::Tokens(12_000)), 12_000);
            assert_eq!(resolve(ThresholdSetting::Left(20_000)), 80_000);
            assert_eq!(resolve(ThresholdSetting::Left(200_000)), 1);
        }
    }

    #[test]
    fn without_an_override_layered_defaults_lower_than_base() {
        let window = Some(100_000);
        assert_eq!(resolve_threshold(BASE, None, 80_000, window, None), 80_000);
        assert_eq!(
            resolve_threshold(CompactionPolicy::Off, None, 80_000, window, None),
            80_000
        );
        assert_eq!(
            resolve_threshold(LAYERED, None, 80_000, window, None),
            25_600
        );
        // A fifth of a large window; a third of a small one.
        assert_eq!(layered_window_threshold(128_000), 25_600);
        assert_eq!(layered_window_threshold(1_000_000), 200_000);
        assert_eq!(layered_window_threshold(16_384), 5_406);
        // Never above the profile's threshold, and the profile's alone
        // without a window.
        assert_eq!(
            resolve_threshold(LAYERED, None, 15_000, window, None),
            15_000
        );
        assert_eq!(resolve_threshold(LAYERED, None, 8_000, None, None), 8_000);
    }

    #[test]
    fn the_threshold_never_exceeds_the_window_less_the_output_budget() {
        let resolved = resolve_threshold(
            BASE,
            Some(ThresholdSetting::Percent(100)),
            8_000,
            Some(10_000),
            Some(2_000),
        );
        assert_eq!(resolved, 8_000);
        assert_eq!(
            resolve_threshold(
                LAYERED,
                Some(ThresholdSetting::Tokens(50_000)),
                1,
                Some(10_000),
                None
            ),
            10_000
        );
    }

    #[test]
    fn without_a_window_shares_fall_back_to_the_default() {
        assert_eq!(
            resolve_threshold(BASE, Some(ThresholdSetting::Percent(50)), 8_000, None, None),
            8_000
        );
        assert_eq!(
            resolve_threshold(
                LAYERED,
                Some(ThresholdSetting::Tokens(5)),
                8_000,
                None,
                None
            ),
            5
        );
    }
}
