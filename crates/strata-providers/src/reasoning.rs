//! How each model reasons, and what Strata's reasoning setting becomes on
//! its wire: an OpenAI effort name, an Anthropic thinking budget, or
//! nothing for a model that does not reason.

use strata_protocol::ReasoningEffort;

use crate::config::lookup_model;

/// How a model is asked to think (a column of the catalog).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReasoningForm {
    /// The model does not take a reasoning setting; nothing is sent.
    None,
    /// OpenAI's `reasoning.effort` (Responses) or `reasoning_effort` (Chat
    /// Completions), with the names this model accepts.
    Effort(EffortNames),
    /// Anthropic extended thinking: `thinking: {type: "enabled",
    /// budget_tokens}`.
    ThinkingBudget,
    /// Anthropic adaptive thinking, for models where a fixed budget is
    /// deprecated: `thinking: {type: "adaptive"}` with the setting as
    /// `output_config: {effort}`; the model decides how much to think.
    AdaptiveEffort,
    /// The offline demo model: a short thinking text when reasoning is on.
    Demo,
}

/// The effort name sent for each setting. `off` is `None` when the model
/// has no effort that turns reasoning off: the field is then left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EffortNames {
    pub off: Option<&'static str>,
    pub low: &'static str,
    pub medium: &'static str,
    pub high: &'static str,
    pub max: &'static str,
}

/// GPT-5: `minimal` is its least reasoning, `high` its most.
pub const GPT5_EFFORTS: EffortNames = EffortNames {
    off: Some("minimal"),
    low: "low",
    medium: "medium",
    high: "high",
    max: "high",
};

/// GPT-5.1 and later general models: `none` turns reasoning off, `xhigh`
/// is the most.
pub const GPT51_EFFORTS: EffortNames = EffortNames {
    off: Some("none"),
    max: "xhigh",
    ..GPT5_EFFORTS
};

/// Codex models reason always (no `none`); `xhigh` is the most.
pub const CODEX_EFFORTS: EffortNames = EffortNames {
    off: None,
    max: "xhigh",
    ..GPT5_EFFORTS
};

/// xAI's grok-3-mini takes `low` and `high` only.
pub const GROK_EFFORTS: EffortNames = EffortNames {
    off: None,
    low: "low",
    medium: "low",
    high: "high",
    max: "high",
};

impl ReasoningForm {
    /// Whether the model takes a reasoning setting at all.
    pub fn can_reason(self) -> bool {
        !matches!(self, ReasoningForm::None)
    }

    /// The effort name to send for `effort`, for effort-form models.
    pub fn effort_name(self, effort: ReasoningEffort) -> Option<&'static str> {
        let ReasoningForm::Effort(names) = self else {
            return None;
        };
        match effort {
            ReasoningEffort::Off => names.off,
            ReasoningEffort::Low => Some(names.low),
            ReasoningEffort::Medium => Some(names.medium),
            ReasoningEffort::High => Some(names.high),
            ReasoningEffort::Max => Some(names.max),
        }
    }
}

/// How `model` reasons, from the catalog; a model it does not know is
/// sent no setting (its server's default applies).
pub fn reasoning_form(model: &str) -> ReasoningForm {
    lookup_model(model).map_or(ReasoningForm::None, |info| info.reasoning)
}

/// The `output_config.effort` an adaptive-thinking model is sent for
/// `effort`; `off` sends no thinking at all.
pub fn adaptive_effort(effort: ReasoningEffort) -> Option<&'static str> {
    match effort {
        ReasoningEffort::Off => None,
        ReasoningEffort::Low => Some("low"),
        ReasoningEffort::Medium => Some("medium"),
        ReasoningEffort::High => Some("high"),
        ReasoningEffort::Max => Some("max"),
    }
}

/// The API's smallest thinking budget.
pub const MIN_THINKING_BUDGET: u32 = 1024;

/// Room left for the answer beside the thinking budget when `max_tokens`
/// has to be raised to fit it.
pub const ANSWER_ROOM: u32 = 4096;

/// The thinking budget each setting asks for; `off` asks none.
pub fn thinking_budget(effort: ReasoningEffort) -> Option<u32> {
    match effort {
        ReasoningEffort::Off => None,
        ReasoningEffort::Low => Some(2048),
        ReasoningEffort::Medium => Some(8192),
        ReasoningEffort::High => Some(16_384),
        ReasoningEffort::Max => Some(32_000),
    }
}

/// A thinking budget and the `max_tokens` it goes with, by the Messages
/// API's rule (`1024 <= budget_tokens < max_tokens`): `max_tokens` is raised
/// to leave [`ANSWER_ROOM`] beside the budget, but never past the model's
/// output limit `ceiling`; where that is too small, the budget shrinks to
/// fit, and below the API's minimum there is no thinking (`None`).
pub fn fit_thinking(budget: u32, max_tokens: u32, ceiling: u32) -> Option<(u32, u32)> {
    let wanted = budget.saturating_add(ANSWER_ROOM);
    let max_tokens = max_tokens.max(wanted.min(ceiling));
    let budget = budget.min(max_tokens.saturating_sub(ANSWER_ROOM.min(max_tokens / 2)));
    let budget = budget.min(max_tokens.saturating_sub(1));
    (budget >= MIN_THINKING_BUDGET).then_some((budget, max_tokens))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_catalog_says_which_models_reason_and_how() {
        assert_eq!(
            reasoning_form("claude-sonnet-4-5-20250929"),
            ReasoningForm::ThinkingBudget
        );
        // Claude 4.6 models think adaptively (a budget is deprecated there).
        assert_eq!(
            reasoning_form("claude-opus-4-6"),
            ReasoningForm::AdaptiveEffort
        );
        assert_eq!(
            reasoning_form("claude-sonnet-4-6"),
            ReasoningForm::AdaptiveEffort
        );
        assert_eq!(adaptive_effort(ReasoningEffort::Off), None);
        assert_eq!(adaptive_effort(ReasoningEffort::Max), Some("max"));
        assert_eq!(reasoning_form("gpt-5"), ReasoningForm::Effort(GPT5_EFFORTS));
        assert_eq!(reasoning_form("gpt-4o"), ReasoningForm::None);
        assert_eq!(reasoning_form("my-local-model"), ReasoningForm::None);
        assert_eq!(
            reasoning_form("gpt-5.4").effort_name(ReasoningEffort::Off),
            Some("none")
        );
        assert_eq!(
            reasoning_form("gpt-5.1-codex-max").effort_name(ReasoningEffort::Off),
            None
        );
        assert_eq!(
            reasoning_form("grok-3-mini").effort_name(ReasoningEffort::Medium),
            Some("low")
        );
    }

    #[test]
    fn a_small_output_limit_is_raised_to_fit_the_budget() {
        assert_eq!(fit_thinking(8192, 1000, 64_000), Some((8192, 12_288)));
        assert_eq!(fit_thinking(8192, 32_000, 64_000), Some((8192, 32_000)));
        // The model's ceiling wins; the budget shrinks under it.
        assert_eq!(fit_thinking(32_000, 8192, 16_000), Some((11_904, 16_000)));
        assert_eq!(fit_thinking(2048, 100, 1500), None);
    }

    proptest! {
        /// Whatever the limits, a budget that is sent obeys the API's rule,
        /// and `max_tokens` only grows up to the ceiling.
        #[test]
        fn a_fitted_budget_always_obeys_the_api_rule(
            budget in 0u32..100_000,
            max_tokens in 1u32..200_000,
            ceiling in 1u32..200_000,
        ) {
            if let Some((fitted, limit)) = fit_thinking(budget, max_tokens, ceiling) {
                prop_assert!(fitted >= MIN_THINKING_BUDGET);
                prop_assert!(fitted < limit);
                prop_assert!(fitted <= budget);
                prop_assert!(limit >= max_tokens);
                prop_assert!(limit <= max_tokens.max(ceiling));
            }
        }
    }
}
