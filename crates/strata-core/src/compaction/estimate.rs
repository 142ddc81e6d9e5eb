//! Token estimates: the one seam ([`TokenEstimator`]) through which the
//! pre-turn check, eviction's low-water mark, previews and the gauge after a
//! compaction count tokens. Automatic triggers between rounds never use it:
//! they decide on the usage the provider reported.

use std::borrow::Cow;
use std::fmt::Debug;

use strata_protocol::ResponseItem;

/// Counts tokens of text as a model would. `strata-providers` implements it
/// with the model's tokenizer where it is known.
pub trait TokenEstimator: Send + Sync + Debug {
    /// What counts (`o200k_base`, `chars/4`), for labels.
    fn name(&self) -> &str;
    fn count(&self, text: &str) -> u64;
}

/// One token per four characters, rounded up: the estimate when the model's
/// tokenizer is unknown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CharEstimator;

impl TokenEstimator for CharEstimator {
    fn name(&self) -> &str {
        "chars/4"
    }

    fn count(&self, text: &str) -> u64 {
        u64::try_from(text.chars().count().div_ceil(4)).unwrap_or(u64::MAX)
    }
}

/// The text a model reads for an item.
pub fn item_text(item: &ResponseItem) -> Cow<'_, str> {
    match item {
        ResponseItem::Message(message) => Cow::Borrowed(&message.content),
        ResponseItem::FunctionCall(call) => Cow::Owned(format!("{}{}", call.name, call.arguments)),
        ResponseItem::FunctionCallOutput(output) => Cow::Borrowed(&output.output),
        ResponseItem::CompactionSummary(summary) => Cow::Owned(summary.model_text()),
        ResponseItem::Reasoning(reasoning) => Cow::Owned(reasoning.payload.to_string()),
    }
}

/// A raw estimate scaled by how far the estimator missed the last reported
/// usage. Ratios are kept in thousandths and clamped to 0.5–3, so one odd
/// report cannot make estimates absurd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Calibration {
    permille: u64,
}

impl Default for Calibration {
    fn default() -> Self {
        Self { permille: 1000 }
    }
}

impl Calibration {
    /// From a reported context size and the raw estimate of the same history.
    pub fn from_report(reported: u64, raw_estimate: u64) -> Self {
        if reported == 0 || raw_estimate == 0 {
            return Self::default();
        }
        let permille = reported.saturating_mul(1000) / raw_estimate;
        Self {
            permille: permille.clamp(500, 3000),
        }
    }

    pub fn apply(self, raw: u64) -> u64 {
        raw.saturating_mul(self.permille).div_ceil(1000)
    }

    /// The ratio applied, for display (1.0 = uncalibrated).
    pub fn ratio(self) -> f64 {
        self.permille as f64 / 1000.0
    }
}

/// An estimator with its calibration: what every estimate in core goes
/// through.
#[derive(Clone, Copy, Debug)]
pub struct Estimate<'a> {
    pub estimator: &'a dyn TokenEstimator,
    pub calibration: Calibration,
}

impl<'a> Estimate<'a> {
    pub fn new(estimator: &'a dyn TokenEstimator, calibration: Calibration) -> Self {
        Self {
            estimator,
            calibration,
        }
    }

    pub fn text(&self, text: &str) -> u64 {
        self.calibration.apply(self.estimator.count(text))
    }

    /// Each item's text, counted separately and summed.
    pub fn items(&self, items: &[ResponseItem]) -> u64 {
        let raw: u64 = items
            .iter()
            .map(|item| self.estimator.count(&item_text(item)))
            .sum();
        self.calibration.apply(raw)
    }
}

/// The figure every front end shows right after a compaction, until the
/// next round reports (`None` when a round has reported since, or nothing
/// was ever compacted): the estimate the compaction step recorded (an
/// eviction, a layered summary, an undo: made with the live agent's
/// calibrated estimator), else, after a base summary, whose record carries
/// none, `estimate_history` of the history (uncalibrated: no report
/// describes it). The live agent and a closed session's status both call
/// this, so the figure is the same open or closed.
pub fn estimate_after_compaction(
    replay: &crate::Replay,
    estimate_history: impl FnOnce(&[ResponseItem]) -> u64,
) -> Option<u64> {
    let reported = replay
        .history()
        .last_usage()
        .and_then(|usage| usage.context_tokens());
    if reported.is_some() || replay.compactions() + replay.evictions() + replay.undos() == 0 {
        return None;
    }
    Some(
        replay
            .estimated_tokens()
            .unwrap_or_else(|| estimate_history(replay.history().items())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_estimate_is_a_quarter_of_the_characters_rounded_up() {
        assert_eq!(CharEstimator.count(""), 0);
        assert_eq!(CharEstimator.count("abcde"), 2);
        assert_eq!(CharEstimator.count(&"é".repeat(8)), 2);
    }

    #[test]
    fn calibration_scales_estimates_toward_the_last_report_within_bounds() {
        let calibration = Calibration::from_report(1500, 1000);
        assert_eq!(calibration.apply(100), 150);
        assert_eq!(Calibration::from_report(100_000, 10).ratio(), 3.0);
        assert_eq!(Calibration::from_report(1, 1000).ratio(), 0.5);
        assert_eq!(Calibration::from_report(0, 1000), Calibration::default());
        let estimate = Estimate::new(&CharEstimator, calibration);
        assert_eq!(estimate.items(&[ResponseItem::user("abcdefgh")]), 3);
    }
}
