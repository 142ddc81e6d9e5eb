//! Token estimates with the model's own tokenizer where it is known (the
//! OpenAI encodings embedded in tiktoken-rs, no network), else characters
//! ÷ 4. Core calibrates either against the usage the provider reports.

use std::sync::Arc;

use strata_core::compaction::{CharEstimator, TokenEstimator};
use tiktoken_rs::CoreBPE;
use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

use crate::config::ProviderKind;
use crate::demo::DEMO_MODEL;

/// Counts with a tiktoken encoding.
pub struct TiktokenEstimator {
    name: &'static str,
    bpe: &'static CoreBPE,
}

impl std::fmt::Debug for TiktokenEstimator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TiktokenEstimator")
            .field("name", &self.name)
            .finish()
    }
}

impl TokenEstimator for TiktokenEstimator {
    fn name(&self) -> &str {
        self.name
    }

    fn count(&self, text: &str) -> u64 {
        u64::try_from(self.bpe.encode_ordinary(text).len()).unwrap_or(u64::MAX)
    }
}

/// The estimator for a model: its tiktoken encoding when it is an OpenAI
/// model tiktoken knows (the demo model counts with `o200k_base`), else
/// characters ÷ 4 (Anthropic and local models: their tokenizers are not
/// embedded).
pub fn estimator_for(kind: ProviderKind, model: &str) -> Arc<dyn TokenEstimator> {
    let tokenizer = match kind {
        ProviderKind::Demo if model == DEMO_MODEL => Some(Tokenizer::O200kBase),
        ProviderKind::Anthropic => None,
        _ => get_tokenizer(model),
    };
    match tokenizer {
        Some(Tokenizer::O200kBase | Tokenizer::O200kHarmony) => Arc::new(TiktokenEstimator {
            name: "o200k_base",
            bpe: tiktoken_rs::o200k_base_singleton(),
        }),
        Some(Tokenizer::Cl100kBase) => Arc::new(TiktokenEstimator {
            name: "cl100k_base",
            bpe: tiktoken_rs::cl100k_base_singleton(),
        }),
        Some(Tokenizer::P50kBase | Tokenizer::R50kBase | Tokenizer::P50kEdit | Tokenizer::Gpt2)
        | None => Arc::new(CharEstimator),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_models_count_with_their_encoding_and_others_with_characters() {
        assert_eq!(
            estimator_for(ProviderKind::OpenaiResponses, "gpt-4o").name(),
            "o200k_base"
        );
        assert_eq!(
            estimator_for(ProviderKind::OpenaiChat, "gpt-4").name(),
            "cl100k_base"
        );
        assert_eq!(
            estimator_for(ProviderKind::Anthropic, "claude-sonnet-4-5").name(),
            "chars/4"
        );
        assert_eq!(
            estimator_for(ProviderKind::OpenaiChat, "llama3.1:8b").name(),
            "chars/4"
        );
        let o200k = estimator_for(ProviderKind::OpenaiResponses, "gpt-4o");
        assert_eq!(o200k.count("hello world"), 2);
    }
}
