//! A provider failure as a person meets it: which kind, one sentence that
//! says what happened, the recoveries worth offering, and the raw text kept
//! for "Details". Made from a [`ModelError`] in one place, so the desktop and
//! the command line say the same thing.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::model::ModelError;

/// What went wrong, in the words the recoveries are chosen by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Nothing answered at the endpoint (refused, no route, unknown host).
    Unreachable,
    /// The key was refused (HTTP 401/403 or an auth error event).
    KeyRejected,
    /// The account has no credit or quota left.
    NoQuota,
    /// Too many requests for now.
    RateLimited,
    /// The conversation no longer fits the model's context window.
    ContextOverflow,
    /// The server refused this request (unknown model, bad field, ...).
    Rejected,
    /// The server failed (5xx, overloaded, a malformed answer).
    ServerError,
    /// The answer stopped arriving part way.
    Interrupted,
}

/// A way out the UI offers under a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Send the last message again.
    Retry,
    /// Compact the history, then send the last message again.
    CompactAndRetry,
    /// Open Settings on the session's profile (key, endpoint, model).
    OpenProfileSettings,
    /// Choose another profile for the session.
    SwitchProfile,
}

/// A classified provider failure, ready to show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProviderFailure {
    pub kind: FailureKind,
    /// One human sentence: "Can't reach 127.0.0.1:9 — is the server running?"
    pub sentence: String,
    /// The most useful recovery first.
    pub recoveries: Vec<Recovery>,
    /// The provider's or the HTTP client's own text (already free of keys).
    pub details: String,
}

impl ProviderFailure {
    /// The failure a person should read for `error`.
    pub fn of(error: &ModelError) -> Self {
        use Recovery::{CompactAndRetry, OpenProfileSettings, Retry, SwitchProfile};
        let (kind, sentence, recoveries) = match error {
            ModelError::Unreachable { host, .. } => (
                FailureKind::Unreachable,
                format!("Can't reach {host} — is the server running?"),
                vec![Retry, OpenProfileSettings, SwitchProfile],
            ),
            ModelError::Auth { .. } => (
                FailureKind::KeyRejected,
                "This key was rejected. Check it in the profile's settings.".to_owned(),
                vec![OpenProfileSettings, SwitchProfile],
            ),
            ModelError::QuotaExhausted { .. } => (
                FailureKind::NoQuota,
                "This account has no credit or quota left.".to_owned(),
                vec![SwitchProfile, OpenProfileSettings],
            ),
            ModelError::RateLimited { retry_after_ms, .. } => (
                FailureKind::RateLimited,
                match retry_after_ms {
                    Some(ms) => format!(
                        "The provider is limiting requests; it asks to wait {}.",
                        seconds(*ms)
                    ),
                    None => {
                        "The provider is limiting requests; wait a moment and retry.".to_owned()
                    }
                },
                vec![Retry, SwitchProfile],
            ),
            ModelError::ContextOverflow { .. } => (
                FailureKind::ContextOverflow,
                "The conversation no longer fits the model's context window.".to_owned(),
                vec![CompactAndRetry, SwitchProfile],
            ),
            ModelError::InvalidRequest { message } => (
                FailureKind::Rejected,
                if mentions_missing_model(message) {
                    "The server does not offer this model. Pick another in the profile's settings."
                        .to_owned()
                } else {
                    "The provider refused this request.".to_owned()
                },
                vec![OpenProfileSettings, SwitchProfile, Retry],
            ),
            ModelError::Transient { .. } => (
                FailureKind::ServerError,
                "The provider failed to answer; it may be a passing problem.".to_owned(),
                vec![Retry, SwitchProfile],
            ),
            ModelError::StreamInterrupted { .. } => (
                FailureKind::Interrupted,
                "The answer stopped arriving before it was finished.".to_owned(),
                vec![Retry, SwitchProfile],
            ),
        };
        Self {
            kind,
            sentence,
            recoveries,
            details: error.to_string(),
        }
    }
}

/// "3 s", "1.5 s", "2 min".
fn seconds(ms: u64) -> String {
    if ms >= 120_000 {
        format!("{} min", ms.div_ceil(60_000))
    } else if ms.is_multiple_of(1000) || ms >= 10_000 {
        format!("{} s", ms.div_ceil(1000))
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// Whether a refusal says the model does not exist (OpenAI `model_not_found`,
/// Anthropic `not_found_error`, vLLM/Ollama "model ... not found").
fn mentions_missing_model(message: &str) -> bool {
    let text = message.to_ascii_lowercase();
    text.contains("model_not_found")
        || text.contains("not_found_error")
        || (text.contains("model")
            && (text.contains("not found") || text.contains("does not exist")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(error: ModelError) -> ProviderFailure {
        ProviderFailure::of(&error)
    }

    #[test]
    fn a_closed_port_asks_whether_the_server_is_running_and_keeps_the_raw_text() {
        let raw = "error sending request for url (http://127.0.0.1:9/v1/responses): tcp connect error: Connection refused (os error 111)";
        let got = failure(ModelError::Unreachable {
            host: "127.0.0.1:9".into(),
            message: raw.into(),
        });
        assert_eq!(got.kind, FailureKind::Unreachable);
        assert_eq!(
            got.sentence,
            "Can't reach 127.0.0.1:9 — is the server running?"
        );
        assert_eq!(
            got.recoveries,
            [
                Recovery::Retry,
                Recovery::OpenProfileSettings,
                Recovery::SwitchProfile
            ]
        );
        assert!(
            got.details.contains("Connection refused"),
            "{}",
            got.details
        );
    }

    #[test]
    fn a_rejected_key_says_so_and_offers_the_profile_not_a_retry() {
        let got = failure(ModelError::Auth {
            message: "HTTP 401: Incorrect API key provided".into(),
        });
        assert_eq!(got.kind, FailureKind::KeyRejected);
        assert!(got.sentence.starts_with("This key was rejected."));
        assert_eq!(got.recoveries[0], Recovery::OpenProfileSettings);
        assert!(!got.recoveries.contains(&Recovery::Retry));
    }

    #[test]
    fn an_overflow_offers_compact_and_retry_first() {
        let got = failure(ModelError::ContextOverflow {
            message: "HTTP 400: maximum context length".into(),
        });
        assert_eq!(got.kind, FailureKind::ContextOverflow);
        assert_eq!(got.recoveries[0], Recovery::CompactAndRetry);
    }

    #[test]
    fn a_rate_limit_says_how_long_to_wait_when_the_provider_does() {
        let got = failure(ModelError::RateLimited {
            retry_after_ms: Some(1500),
            message: "HTTP 429".into(),
        });
        assert_eq!(got.kind, FailureKind::RateLimited);
        assert!(got.sentence.ends_with("wait 1.5 s."), "{}", got.sentence);
        let vague = failure(ModelError::RateLimited {
            retry_after_ms: None,
            message: "HTTP 429".into(),
        });
        assert!(
            vague.sentence.contains("wait a moment"),
            "{}",
            vague.sentence
        );
    }

    #[test]
    fn quota_server_and_interrupted_failures_have_their_own_kinds() {
        let msg = || "m".to_owned();
        assert_eq!(
            failure(ModelError::QuotaExhausted { message: msg() }).kind,
            FailureKind::NoQuota
        );
        assert_eq!(
            failure(ModelError::Transient { message: msg() }).kind,
            FailureKind::ServerError
        );
        assert_eq!(
            failure(ModelError::StreamInterrupted { message: msg() }).kind,
            FailureKind::Interrupted
        );
    }

    #[test]
    fn an_unknown_model_is_told_apart_from_other_refusals() {
        let missing = failure(ModelError::InvalidRequest {
            message: "HTTP 404: The model `gpt-9` does not exist".into(),
        });
        assert_eq!(missing.kind, FailureKind::Rejected);
        assert!(missing.sentence.contains("does not offer this model"));
        let other = failure(ModelError::InvalidRequest {
            message: "HTTP 400: bad field temperature".into(),
        });
        assert_eq!(other.sentence, "The provider refused this request.");
    }
}
