//! Prompt caching settings and rules shared by the request renderers: the
//! Anthropic cache TTL a profile picks, the smallest prefix each Claude model
//! caches, and the stable per-session `prompt_cache_key` sent to OpenAI.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use strata_protocol::SessionId;

/// How long Anthropic keeps a cache entry after its last use. A profile's
/// `cache_ttl = "5m" | "1h"`; 5 minutes unless it says otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CacheTtl {
    /// The API's default: the breakpoint is sent as `{"type": "ephemeral"}`.
    #[default]
    #[serde(rename = "5m")]
    FiveMinutes,
    /// Sent as `{"type": "ephemeral", "ttl": "1h"}` (writes cost more).
    #[serde(rename = "1h")]
    OneHour,
}

impl CacheTtl {
    pub fn is_default(&self) -> bool {
        *self == CacheTtl::FiveMinutes
    }
}

/// How long OpenAI keeps a prompt-cache entry: a profile's
/// `prompt_cache_retention = "in_memory" | "24h"`, sent as the request field
/// of that name (Responses and Chat Completions). Unset, the server's
/// default applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PromptCacheRetention {
    /// Kept in memory, cleared after 5 to 10 minutes of inactivity and
    /// always within an hour.
    #[serde(rename = "in_memory")]
    InMemory,
    /// Extended caching: kept up to 24 hours.
    #[serde(rename = "24h")]
    Extended,
}

/// Which retention a model accepts, from OpenAI's prompt-caching guide and
/// the field's description in its OpenAPI document: gpt-5.5, gpt-5.5-pro
/// and later models only `24h`; gpt-5.4, gpt-5.3-codex, gpt-5.2, the
/// gpt-5.1 family, gpt-5, gpt-5-codex and gpt-4.1 both; any other model
/// neither (the field is not sent).
pub fn prompt_cache_retention_for(
    model: &str,
    wanted: PromptCacheRetention,
) -> Option<PromptCacheRetention> {
    const EXTENDED_ONLY: &[&str] = &["gpt-5.5"];
    const BOTH: &[&str] = &[
        "gpt-5.4",
        "gpt-5.3-codex",
        "gpt-5.2",
        "gpt-5.1",
        "gpt-5-codex",
        "gpt-5",
        "gpt-4.1",
    ];
    let family = |prefixes: &[&str]| prefixes.iter().any(|prefix| model.starts_with(prefix));
    // `gpt-5` must not take in `gpt-5.5` and later: look at 24h-only first.
    if family(EXTENDED_ONLY) {
        return (wanted == PromptCacheRetention::Extended).then_some(wanted);
    }
    family(BOTH).then_some(wanted)
}

/// What a gateway sends about caching and server-side state, from the
/// profile: Anthropic's breakpoint TTL and whether the Responses API may
/// keep the conversation (`store`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheOptions {
    pub ttl: CacheTtl,
    /// `store` on Responses requests; `false` (stateless, reasoning carried
    /// as `encrypted_content`) unless the profile opts in.
    pub store: bool,
    /// OpenAI's `prompt_cache_retention`, when the profile sets one.
    pub retention: Option<PromptCacheRetention>,
}

/// The smallest prompt prefix, in tokens, that a Claude model caches; a
/// breakpoint closing a shorter prefix is not sent (the API would ignore it).
/// From Anthropic's prompt-caching guide ("Cache limitations"): 4096 for
/// Claude Opus 4.6 and 4.5 and Haiku 4.5; 2048 for Haiku 3.5 and 3; 1024 for
/// Sonnet 4.6, 4.5, 4 and 3.7 and Opus 4.1 and 4. Models not listed get
/// 1024, the API's general minimum.
pub fn anthropic_min_cacheable_tokens(model: &str) -> u64 {
    const TABLE: &[(&str, u64)] = &[
        ("claude-opus-4-6", 4096),
        ("claude-opus-4-5", 4096),
        ("claude-haiku-4-5", 4096),
        ("claude-3-5-haiku", 2048),
        ("claude-3-haiku", 2048),
        ("claude-haiku-3", 2048),
    ];
    TABLE
        .iter()
        .find(|(prefix, _)| model.starts_with(prefix))
        .map_or(1024, |(_, tokens)| *tokens)
}

/// The `prompt_cache_key` of a session: a SHA-256 digest of its id (never
/// the id, a path or a secret), so every round of one session is routed to
/// the same cache and nothing about the session can be read from the key.
pub fn prompt_cache_key(session: SessionId) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"strata prompt cache key v1\0");
    hasher.update(session.to_string().as_bytes());
    let digest = hasher.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("strata-{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_key_is_stable_per_session_and_hides_the_id() {
        let session = SessionId::new();
        let key = prompt_cache_key(session);
        assert_eq!(key, prompt_cache_key(session));
        assert_ne!(key, prompt_cache_key(SessionId::new()));
        assert!(!key.contains(&session.to_string()));
        assert_eq!(key.len(), "strata-".len() + 32);
    }

    #[test]
    fn minimum_cacheable_sizes_follow_the_model() {
        assert_eq!(anthropic_min_cacheable_tokens("claude-sonnet-4-5"), 1024);
        assert_eq!(
            anthropic_min_cacheable_tokens("claude-opus-4-1-20250805"),
            1024
        );
        assert_eq!(anthropic_min_cacheable_tokens("claude-haiku-4-5"), 4096);
        assert_eq!(
            anthropic_min_cacheable_tokens("claude-3-5-haiku-20241022"),
            2048
        );
        assert_eq!(anthropic_min_cacheable_tokens("claude-opus-4-6"), 4096);
    }

    #[test]
    fn retention_is_sent_only_in_a_form_the_model_accepts() {
        use PromptCacheRetention::{Extended, InMemory};
        for model in ["gpt-5.4", "gpt-5.1-codex-max", "gpt-5", "gpt-4.1-mini"] {
            assert_eq!(prompt_cache_retention_for(model, Extended), Some(Extended));
            assert_eq!(prompt_cache_retention_for(model, InMemory), Some(InMemory));
        }
        assert_eq!(
            prompt_cache_retention_for("gpt-5.5", Extended),
            Some(Extended)
        );
        assert_eq!(prompt_cache_retention_for("gpt-5.5-pro", InMemory), None);
        assert_eq!(prompt_cache_retention_for("gpt-4o", Extended), None);
        assert_eq!(prompt_cache_retention_for("llama3", InMemory), None);
        let read: PromptCacheRetention = serde_json::from_str("\"24h\"").unwrap();
        assert_eq!(read, Extended);
        assert!(serde_json::from_str::<PromptCacheRetention>("\"1h\"").is_err());
    }

    #[test]
    fn the_ttl_reads_as_written_in_the_config() {
        let ttl: CacheTtl = serde_json::from_str("\"1h\"").unwrap();
        assert_eq!(ttl, CacheTtl::OneHour);
        assert_eq!(
            serde_json::to_string(&CacheTtl::default()).unwrap(),
            "\"5m\""
        );
        assert!(serde_json::from_str::<CacheTtl>("\"10m\"").is_err());
    }
}
