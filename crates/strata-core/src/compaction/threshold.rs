//! The compaction threshold: one function for the trigger, the gauge, the
//! command line and the console.

use strata_protocol::ThresholdSetting;

/// The threshold in tokens. `setting` is the person's override (a share of
/// the window, a count, or tokens left); without one, `default` (the model
/// profile's). A share or tokens-left needs the window; without a known
/// window they fall back to `default`. The result never exceeds the window
/// less the output budget, where it could only be reached by overflowing,
/// and is at least 1.
pub fn resolve_threshold(
    setting: Option<ThresholdSetting>,
    default: u64,
    window: Option<u64>,
    max_output_tokens: Option<u32>,
) -> u64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms_resolve_against_the_window() {
        let window = Some(100_000);
        let resolve = |setting| resolve_threshold(Some(setting), 8_000, window, None);
        assert_eq!(resolve(ThresholdSetting::Percent(80)), 80_000);
        assert_eq!(resolve(ThresholdSetting::Tokens(12_000)), 12_000);
        assert_eq!(resolve(ThresholdSetting::Left(20_000)), 80_000);
        assert_eq!(resolve(ThresholdSetting::Left(200_000)), 1);
        assert_eq!(resolve_threshold(None, 8_000, window, None), 8_000);
    }

    #[test]
    fn the_threshold_never_exceeds_the_window_less_the_output_budget() {
        let resolved = resolve_threshold(
            Some(ThresholdSetting::Percent(100)),
            8_000,
            Some(10_000),
            Some(2_000),
        );
        assert_eq!(resolved, 8_000);
        assert_eq!(
            resolve_threshold(
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
            resolve_threshold(Some(ThresholdSetting::Percent(50)), 8_000, None, None),
            8_000
        );
        assert_eq!(
            resolve_threshold(Some(ThresholdSetting::Tokens(5)), 8_000, None, None),
            5
        );
    }
}
