//! When and how long to wait before trying a failed request again:
//! exponential backoff with full jitter, or the provider's own `retry-after`
//! when it gives one and it is within the cap.

use std::time::Duration;

use reqwest::header::HeaderMap;
use strata_protocol::ModelError;

/// How failed requests are retried. Only retryable errors
/// ([`ModelError::is_retryable`]) that happen before any output of an
/// attempt was handed on are retried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 means no retry).
    pub max_attempts: u32,
    /// The backoff ceiling for the first retry; it doubles each retry.
    pub base_delay: Duration,
    /// The largest backoff ceiling, and the longest provider-requested wait
    /// that is honoured: a rate limit asking for more is reported, not waited.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// How long to wait before attempt `attempt + 1`, after `error` ended
    /// attempt `attempt` (1-based); `None` when it must not be retried.
    pub fn delay_after(&self, attempt: u32, error: &ModelError) -> Option<Duration> {
        if attempt >= self.max_attempts || !error.is_retryable() {
            return None;
        }
        if let ModelError::RateLimited {
            retry_after_ms: Some(ms),
            ..
        } = error
        {
            let wanted = Duration::from_millis(*ms);
            return (wanted <= self.max_delay).then_some(wanted);
        }
        Some(self.backoff(attempt))
    }

    /// Full jitter: a uniform wait between zero and the exponential ceiling,
    /// so many clients failing together do not retry together.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let ceiling = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)))
            .min(self.max_delay);
        let ceiling_ms = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(fastrand::u64(0..=ceiling_ms))
    }
}

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds or as an HTTP date.
pub fn retry_after_from_headers(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && let Some(wait) = millis(ms)
    {
        return Some(wait);
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return millis(seconds * 1000.0);
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = date.signed_duration_since(chrono::Utc::now());
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

/// "Please try again in 1.5s" / "try again in 250ms" / "try again in 20 seconds".
pub fn retry_after_from_message(message: &str) -> Option<Duration> {
    let lower = message.to_ascii_lowercase();
    let at = lower.find("try again in")?;
    let rest = lower[at + "try again in".len()..].trim_start();
    let number_len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let number: f64 = rest[..number_len].trim_end_matches('.').parse().ok()?;
    let unit = rest[number_len..].trim_start();
    let ms = if unit.starts_with("ms") || unit.starts_with("millisecond") {
        number
    } else if unit.starts_with("min") {
        number * 60_000.0
    } else if unit.starts_with('s') {
        number * 1000.0
    } else {
        return None;
    };
    millis(ms)
}

/// Whole milliseconds, rounded: `11.054s` must not become 11053 ms.
fn millis(ms: f64) -> Option<Duration> {
    (ms.is_finite() && ms >= 0.0 && ms < u64::MAX as f64)
        .then(|| Duration::from_millis(ms.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn transient() -> ModelError {
        ModelError::Transient {
            message: "boom".into(),
        }
    }

    #[test]
    fn backoff_stays_under_the_exponential_ceiling_and_the_cap() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
        };
        for _ in 0..200 {
            assert!(policy.backoff(1) <= Duration::from_millis(100));
            assert!(policy.backoff(2) <= Duration::from_millis(200));
            assert!(policy.backoff(8) <= Duration::from_millis(350));
        }
    }

    #[test]
    fn jitter_spreads_the_waits() {
        let policy = RetryPolicy::default();
        let waits: std::collections::HashSet<_> = (0..50).map(|_| policy.backoff(3)).collect();
        assert!(waits.len() > 1);
    }

    #[test]
    fn attempts_stop_at_the_limit_and_at_non_retryable_errors() {
        let policy = RetryPolicy {
            max_attempts: 3,
            ..RetryPolicy::default()
        };
        assert!(policy.delay_after(1, &transient()).is_some());
        assert!(policy.delay_after(2, &transient()).is_some());
        assert!(policy.delay_after(3, &transient()).is_none());
        let quota = ModelError::QuotaExhausted {
            message: "q".into(),
        };
        assert!(policy.delay_after(1, &quota).is_none());
    }

    #[test]
    fn a_provider_requested_wait_is_honoured_up_to_the_cap() {
        let policy = RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(30),
        };
        let limited = |ms| ModelError::RateLimited {
            retry_after_ms: Some(ms),
            message: "slow down".into(),
        };
        assert_eq!(
            policy.delay_after(1, &limited(11_054)),
            Some(Duration::from_millis(11_054))
        );
        assert_eq!(policy.delay_after(1, &limited(3_600_000)), None);
    }

    #[test]
    fn retry_after_headers_in_ms_seconds_and_dates() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(
            retry_after_from_headers(&headers),
            Some(Duration::from_secs(2))
        );
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(
            retry_after_from_headers(&headers),
            Some(Duration::from_millis(250))
        );
        let mut dated = HeaderMap::new();
        dated.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after_from_headers(&dated), Some(Duration::ZERO));
        assert_eq!(retry_after_from_headers(&HeaderMap::new()), None);
    }

    #[test]
    fn retry_after_phrases_in_messages() {
        let cases = [
            ("Please try again in 1.5s.", Some(1500)),
            ("Please try again in 11.054s. Visit", Some(11054)),
            ("try again in 250ms", Some(250)),
            ("Try again in 20 seconds", Some(20_000)),
            ("try again in 2 minutes", Some(120_000)),
            ("try again later", None),
        ];
        for (message, expected) in cases {
            assert_eq!(
                retry_after_from_message(message).map(|d| d.as_millis() as u64),
                expected,
                "{message}"
            );
        }
    }
}
