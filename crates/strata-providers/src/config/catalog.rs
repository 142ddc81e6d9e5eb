//! A small built-in catalog of current models: what each needs to be used
//! without configuration (kind, context window, output limit, and for
//! third-party OpenAI-compatible hosts their endpoint and key variable).
//! Figures are the providers' published limits; profiles and the config's
//! `[models]` table override them.

use strata_protocol::is_snapshot_suffix;

use super::ProviderKind;
use crate::reasoning::{CODEX_EFFORTS, GPT5_EFFORTS, GPT51_EFFORTS, GROK_EFFORTS, ReasoningForm};

/// What Strata knows about one model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelInfo {
    /// The id sent to the provider.
    pub id: &'static str,
    /// What the UI shows where a model name goes.
    pub label: &'static str,
    /// The wire protocol it is usually reached with.
    pub kind: ProviderKind,
    pub context_window: u64,
    pub max_output_tokens: u64,
    /// A host other than the kind's default (OpenAI-compatible vendors).
    pub base_url: Option<&'static str>,
    /// The key variable when it is not the kind's default.
    pub api_key_env: Option<&'static str>,
    /// Whether and how it is asked to think.
    pub reasoning: ReasoningForm,
}

const fn model(
    id: &'static str,
    kind: ProviderKind,
    context_window: u64,
    max_output_tokens: u64,
) -> ModelInfo {
    ModelInfo {
        id,
        label: id,
        kind,
        context_window,
        max_output_tokens,
        base_url: None,
        api_key_env: None,
        reasoning: ReasoningForm::None,
    }
}

/// `info` with the reasoning form its provider documents for it.
const fn reasons(info: ModelInfo, reasoning: ReasoningForm) -> ModelInfo {
    ModelInfo { reasoning, ..info }
}

const fn hosted(info: ModelInfo, base_url: &'static str, api_key_env: &'static str) -> ModelInfo {
    ModelInfo {
        base_url: Some(base_url),
        api_key_env: Some(api_key_env),
        ..info
    }
}

/// The built-in catalog.
pub const MODEL_CATALOG: &[ModelInfo] = &[
    reasons(
        model("gpt-5.4", ProviderKind::OpenaiResponses, 1_050_000, 128_000),
        ReasoningForm::Effort(GPT51_EFFORTS),
    ),
    reasons(
        model(
            "gpt-5.1-codex-max",
            ProviderKind::OpenaiResponses,
            400_000,
            128_000,
        ),
        ReasoningForm::Effort(CODEX_EFFORTS),
    ),
    reasons(
        model("gpt-5", ProviderKind::OpenaiResponses, 400_000, 128_000),
        ReasoningForm::Effort(GPT5_EFFORTS),
    ),
    model("gpt-4.1-mini", ProviderKind::OpenaiChat, 1_047_576, 32_768),
    model("gpt-4o", ProviderKind::OpenaiChat, 128_000, 16_384),
    model("gpt-4o-mini", ProviderKind::OpenaiChat, 128_000, 16_384),
    reasons(
        model(
            "claude-opus-4-6",
            ProviderKind::Anthropic,
            1_000_000,
            128_000,
        ),
        ReasoningForm::AdaptiveEffort,
    ),
    reasons(
        model(
            "claude-sonnet-4-6",
            ProviderKind::Anthropic,
            1_000_000,
            128_000,
        ),
        ReasoningForm::AdaptiveEffort,
    ),
    reasons(
        model(
            "claude-sonnet-4-5",
            ProviderKind::Anthropic,
            200_000,
            64_000,
        ),
        ReasoningForm::ThinkingBudget,
    ),
    reasons(
        model("claude-haiku-4-5", ProviderKind::Anthropic, 200_000, 64_000),
        ReasoningForm::ThinkingBudget,
    ),
    reasons(
        model("claude-opus-4-1", ProviderKind::Anthropic, 200_000, 32_000),
        ReasoningForm::ThinkingBudget,
    ),
    hosted(
        model("deepseek-chat", ProviderKind::OpenaiChat, 128_000, 8_192),
        "https://api.deepseek.com/v1",
        "DEEPSEEK_API_KEY",
    ),
    hosted(
        reasons(
            model("grok-3-mini", ProviderKind::OpenaiChat, 131_072, 16_384),
            ReasoningForm::Effort(GROK_EFFORTS),
        ),
        "https://api.x.ai/v1",
        "XAI_API_KEY",
    ),
    hosted(
        model(
            "llama-3.3-70b-versatile",
            ProviderKind::OpenaiChat,
            131_072,
            32_768,
        ),
        "https://api.groq.com/openai/v1",
        "GROQ_API_KEY",
    ),
    ModelInfo {
        label: crate::demo::DEMO_MODEL_LABEL,
        reasoning: ReasoningForm::Demo,
        ..model(
            crate::demo::DEMO_MODEL,
            ProviderKind::Demo,
            crate::demo::DEMO_CONTEXT_WINDOW,
            crate::demo::DEMO_MAX_OUTPUT_TOKENS,
        )
    },
];

/// Context window assumed for a model neither the catalog nor the config
/// knows; small enough that compaction starts before most real limits.
pub const FALLBACK_CONTEXT_WINDOW: u64 = 128_000;
/// Output limit assumed for an unknown model.
pub const FALLBACK_MAX_OUTPUT_TOKENS: u64 = 8_192;
/// Compaction starts at this share of the context window by default.
pub const DEFAULT_COMPACTION_PERCENT: u64 = 80;

/// The catalog entry for `model`: an exact id or label (`demo`), or a catalog id followed by a
/// dated snapshot suffix (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`)
/// or `-latest`. Other suffixes name other models (`gpt-4o-mini` is not
/// `gpt-4o`), so they do not match.
pub fn lookup_model(model: &str) -> Option<&'static ModelInfo> {
    if let Some(info) = MODEL_CATALOG
        .iter()
        .find(|info| info.id == model || info.label == model)
    {
        return Some(info);
    }
    MODEL_CATALOG
        .iter()
        .filter(|info| {
            model
                .strip_prefix(info.id)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(is_snapshot_suffix)
        })
        .max_by_key(|info| info.id.len())
}

/// What a person sees for a model id: its catalog label (`demo` for the
/// demo model), else the id itself.
pub fn model_label(model: &str) -> &str {
    lookup_model(model).map_or(model, |info| info.label)
}

/// The default compaction threshold: [`DEFAULT_COMPACTION_PERCENT`] of the
/// window, but never so high that a full-length answer would not fit.
pub fn default_compaction_threshold(context_window: u64, max_output_tokens: u64) -> u64 {
    let share = context_window / 100 * DEFAULT_COMPACTION_PERCENT
        + context_window % 100 * DEFAULT_COMPACTION_PERCENT / 100;
    share
        .min(context_window.saturating_sub(max_output_tokens))
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_ids_are_unique_and_limits_fit_their_windows() {
        for (i, info) in MODEL_CATALOG.iter().enumerate() {
            assert!(info.max_output_tokens < info.context_window, "{}", info.id);
            assert!(
                MODEL_CATALOG[i + 1..]
                    .iter()
                    .all(|other| other.id != info.id),
                "{} twice",
                info.id
            );
        }
    }

    #[test]
    fn every_catalog_model_has_a_row_in_the_price_table() {
        for info in MODEL_CATALOG {
            assert!(
                strata_protocol::lookup_price(info.id).is_some(),
                "{} has no price row (a row may say it has no price, but it must exist)",
                info.id
            );
        }
    }

    #[test]
    fn dated_snapshots_match_their_model_but_variants_do_not() {
        assert_eq!(
            lookup_model("claude-sonnet-4-5-20250929").map(|m| m.id),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            lookup_model("gpt-4o-2024-08-06").map(|m| m.id),
            Some("gpt-4o")
        );
        assert_eq!(
            lookup_model("gpt-4o-mini").map(|m| m.id),
            Some("gpt-4o-mini")
        );
        assert_eq!(lookup_model("gpt-4o-audio-preview"), None);
        assert_eq!(
            lookup_model("claude-haiku-4-5-latest").map(|m| m.id),
            Some("claude-haiku-4-5")
        );
        assert_eq!(lookup_model("gpt-4o-1"), None);
    }

    #[test]
    fn the_default_threshold_leaves_room_for_an_answer() {
        assert_eq!(default_compaction_threshold(200_000, 32_000), 160_000);
        assert_eq!(default_compaction_threshold(100_000, 50_000), 50_000);
        assert_eq!(default_compaction_threshold(16_384, 1_024), 13_107);
        assert_eq!(default_compaction_threshold(10, 20), 1);
    }
}
