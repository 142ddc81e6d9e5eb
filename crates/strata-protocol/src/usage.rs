//! Token usage exactly as a provider reported it, plus the one derived figure
//! every decision uses.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Token usage of one model round as the provider reported it. Every field is
/// optional because providers omit different ones.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TokenUsage {
    /// Input tokens, cached ones included. For Anthropic this is
    /// `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// The part of `input_tokens` served from the provider's cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// The part of `input_tokens` written to the provider's cache this round
    /// (Anthropic's `cache_creation_input_tokens`), billed above the base
    /// input rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_input_tokens: Option<u64>,
    /// Of `cache_write_input_tokens`, those written with the 5-minute TTL,
    /// where the provider reports the split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_5m_input_tokens: Option<u64>,
    /// Of `cache_write_input_tokens`, those written with the 1-hour TTL,
    /// where the provider reports the split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h_input_tokens: Option<u64>,
    /// Output tokens, reasoning included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// The part of `output_tokens` spent on reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_output_tokens: Option<u64>,
    /// The provider's own total, kept verbatim (some providers' totals are not
    /// `input + output`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

impl TokenUsage {
    /// Adds `other` field by field; a field stays absent until some usage
    /// reports it.
    pub fn accumulate(&mut self, other: &TokenUsage) {
        fn add(sum: &mut Option<u64>, value: Option<u64>) {
            if let Some(value) = value {
                *sum = Some(sum.unwrap_or(0).saturating_add(value));
            }
        }
        add(&mut self.input_tokens, other.input_tokens);
        add(&mut self.cached_input_tokens, other.cached_input_tokens);
        add(
            &mut self.cache_write_input_tokens,
            other.cache_write_input_tokens,
        );
        add(
            &mut self.cache_write_5m_input_tokens,
            other.cache_write_5m_input_tokens,
        );
        add(
            &mut self.cache_write_1h_input_tokens,
            other.cache_write_1h_input_tokens,
        );
        add(&mut self.output_tokens, other.output_tokens);
        add(
            &mut self.reasoning_output_tokens,
            other.reasoning_output_tokens,
        );
        add(&mut self.total_tokens, other.total_tokens);
    }

    /// The size of the context after this round: input plus output. This one
    /// figure drives the compaction threshold, the gauge and the charts.
    /// `None` when the provider reported neither input nor output.
    pub fn context_tokens(&self) -> Option<u64> {
        match (self.input_tokens, self.output_tokens) {
            (None, None) => None,
            (input, output) => Some(input.unwrap_or(0).saturating_add(output.unwrap_or(0))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_tokens_is_input_plus_output() {
        let usage = TokenUsage {
            input_tokens: Some(1200),
            cached_input_tokens: Some(1000),
            cache_write_input_tokens: None,
            cache_write_5m_input_tokens: None,
            cache_write_1h_input_tokens: None,
            output_tokens: Some(34),
            reasoning_output_tokens: Some(20),
            total_tokens: Some(9999),
        };
        assert_eq!(usage.context_tokens(), Some(1234));
    }

    #[test]
    fn context_tokens_is_absent_when_nothing_was_reported() {
        assert_eq!(TokenUsage::default().context_tokens(), None);
        let only_total = TokenUsage {
            total_tokens: Some(5),
            ..TokenUsage::default()
        };
        assert_eq!(only_total.context_tokens(), None);
    }

    #[test]
    fn context_tokens_tolerates_a_missing_half() {
        let usage = TokenUsage {
            input_tokens: Some(7),
            ..TokenUsage::default()
        };
        assert_eq!(usage.context_tokens(), Some(7));
    }

    #[test]
    fn usage_written_before_cache_writes_were_recorded_still_reads() {
        let old = r#"{"input_tokens":4870,"cached_input_tokens":2816,"output_tokens":310,"reasoning_output_tokens":128,"total_tokens":5180}"#;
        let usage: TokenUsage = serde_json::from_str(old).unwrap();
        assert_eq!(usage.cached_input_tokens, Some(2816));
        assert_eq!(usage.cache_write_input_tokens, None);
        assert_eq!(usage.cache_write_1h_input_tokens, None);
        // And writes back byte for byte.
        assert_eq!(serde_json::to_string(&usage).unwrap(), old);
    }

    #[test]
    fn cache_writes_accumulate_with_their_ttl_split() {
        let round = TokenUsage {
            input_tokens: Some(2000),
            cache_write_input_tokens: Some(1500),
            cache_write_5m_input_tokens: Some(1000),
            cache_write_1h_input_tokens: Some(500),
            ..TokenUsage::default()
        };
        let mut total = TokenUsage::default();
        total.accumulate(&round);
        total.accumulate(&TokenUsage {
            cache_write_input_tokens: Some(10),
            ..TokenUsage::default()
        });
        assert_eq!(total.cache_write_input_tokens, Some(1510));
        assert_eq!(total.cache_write_5m_input_tokens, Some(1000));
        assert_eq!(total.cache_write_1h_input_tokens, Some(500));
        assert_eq!(total.cached_input_tokens, None);
    }

    #[test]
    fn absent_fields_are_not_serialized() {
        let usage = TokenUsage {
            input_tokens: Some(3),
            ..TokenUsage::default()
        };
        assert_eq!(
            serde_json::to_string(&usage).unwrap(),
            r#"{"input_tokens":3}"#
        );
    }
}
