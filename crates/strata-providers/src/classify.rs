//! Turning provider failures (HTTP status and body, in-stream error events,
//! transport errors) into typed [`ModelError`]s. Every message passes
//! through [`redact`] so API keys never reach an error.

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::Value;
use strata_protocol::ModelError;

use crate::retry::{retry_after_from_headers, retry_after_from_message};
use crate::secret::ApiKey;

/// Longest provider message kept in an error.
const MAX_MESSAGE_CHARS: usize = 1000;

/// Phrases that mean "the prompt does not fit the context window", from
/// OpenAI (Responses and Chat), vLLM, llama.cpp and Anthropic.
const CONTEXT_OVERFLOW_MARKERS: &[&str] = &[
    "context_length_exceeded",
    "maximum context length",
    "exceeds the context window",
    "is longer than the model's context length",
    "exceeds the available context size",
    "exceed_context_size_error",
    "prompt is too long",
    "context window exceeded",
    "model_context_window_exceeded",
];

/// The useful parts of an error body, whichever provider shaped it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ErrorDetails {
    pub code: Option<String>,
    pub kind: Option<String>,
    pub message: Option<String>,
}

impl ErrorDetails {
    /// Reads OpenAI `{"error":{...}}`, Anthropic `{"type":"error","error":{...}}`,
    /// vLLM `{"object":"error","message":...}` and llama.cpp shapes.
    pub fn from_value(value: &Value) -> Self {
        let inner = match value.get("error") {
            Some(inner @ Value::Object(_)) => inner,
            Some(Value::String(message)) => {
                return Self {
                    message: Some(message.clone()),
                    ..Self::default()
                };
            }
            _ => value,
        };
        let text = |key: &str| match inner.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let kind = text("type").filter(|t| t != "error");
        Self {
            code: text("code"),
            kind,
            message: text("message"),
        }
    }

    pub fn from_body(body: &str) -> Self {
        serde_json::from_str::<Value>(body)
            .map(|v| Self::from_value(&v))
            .unwrap_or_default()
    }

    fn mentions(&self, body: &str, needle: &str) -> bool {
        let hit = |s: &Option<String>| {
            s.as_deref()
                .is_some_and(|s| s.to_ascii_lowercase().contains(needle))
        };
        hit(&self.code) || hit(&self.kind) || hit(&self.message) || body.contains(needle)
    }

    fn is_context_overflow(&self, body: &str) -> bool {
        let body = body.to_ascii_lowercase();
        CONTEXT_OVERFLOW_MARKERS
            .iter()
            .any(|marker| self.mentions(&body, marker))
    }

    fn is_quota(&self, body: &str) -> bool {
        let body = body.to_ascii_lowercase();
        self.mentions(&body, "insufficient_quota")
            || self.mentions(&body, "credit balance is too low")
    }

    fn label(&self) -> Option<&str> {
        self.code.as_deref().or(self.kind.as_deref())
    }
}

/// Removes API keys from text shown to people: the configured key itself and
/// anything shaped like an OpenAI-style `sk-` key that a provider echoed back
/// (partly masked keys included).
pub fn redact(text: &str, key: Option<&ApiKey>) -> String {
    let text = match key {
        Some(key) => key.scrub(text),
        None => text.to_string(),
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("sk-") {
        let boundary = at == 0
            || rest[..at]
                .chars()
                .next_back()
                .is_some_and(|c| !c.is_ascii_alphanumeric());
        out.push_str(&rest[..at]);
        if boundary {
            out.push_str("sk-[REDACTED]");
            let tail = &rest[at + 3..];
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '*' | '.')))
                .unwrap_or(tail.len());
            // Keep a sentence-ending dot that follows the key.
            let end = tail[..end].trim_end_matches('.').len();
            rest = &tail[end..];
        } else {
            out.push_str("sk-");
            rest = &rest[at + 3..];
        }
    }
    out.push_str(rest);
    out
}

/// One line of at most [`MAX_MESSAGE_CHARS`]: runs of whitespace (line
/// breaks included) become one space, so an error never spills a page.
fn shorten(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// Whether an error body is a web page (a proxy's, a load balancer's or a
/// login page) rather than an API error.
fn is_html(headers: &HeaderMap, body: &str) -> bool {
    let declared = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/html"));
    let start = body
        .trim_start()
        .get(..14)
        .unwrap_or_default()
        .to_ascii_lowercase();
    declared || start.starts_with("<!doctype html") || start.starts_with("<html")
}

/// "Bad Gateway; the server answered with an HTML page, not the API".
fn html_summary(status: u16) -> String {
    let page = "the server answered with an HTML page, not the API";
    match reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|code| code.canonical_reason())
    {
        Some(reason) => format!("{reason}; {page}"),
        None => page.to_string(),
    }
}

/// Classifies a non-success HTTP response.
pub fn classify_http(
    status: u16,
    headers: &HeaderMap,
    body: &str,
    key: Option<&ApiKey>,
) -> ModelError {
    let details = ErrorDetails::from_body(body);
    let summary = match &details.message {
        Some(message) => message.clone(),
        None if is_html(headers, body) => html_summary(status),
        None => body.to_string(),
    };
    // Redact before shortening: a cut through a key would hide it from the scrub.
    let message = shorten(&redact(&format!("HTTP {status}: {summary}"), key));
    if status != 429 && status != 401 && status != 403 && details.is_context_overflow(body) {
        return ModelError::ContextOverflow { message };
    }
    match status {
        401 | 403 => ModelError::Auth { message },
        402 => ModelError::QuotaExhausted { message },
        429 if details.is_quota(body) => ModelError::QuotaExhausted { message },
        429 => ModelError::RateLimited {
            retry_after_ms: retry_after_from_headers(headers)
                .or_else(|| retry_after_from_message(&summary))
                .map(duration_ms),
            message,
        },
        // Anthropic's "request_too_large": the history, not the request, is
        // the problem, and compaction is the cure.
        413 => ModelError::ContextOverflow { message },
        // A redirect left unfollowed (to another origin, see
        // `redirect.rs`): a retry would meet it again.
        300..=399 => ModelError::InvalidRequest { message },
        408 | 409 => ModelError::Transient { message },
        400..=499 if details.is_quota(body) => ModelError::QuotaExhausted { message },
        400..=499 => ModelError::InvalidRequest { message },
        _ => ModelError::Transient { message },
    }
}

/// Classifies an error object from a stream event or a response body, in any
/// shape [`ErrorDetails::from_value`] reads.
pub(crate) fn classify_error_value(value: &Value) -> ModelError {
    classify_stream_error(&ErrorDetails::from_value(value), None)
}

/// Classifies an error reported inside a stream (Responses `error` and
/// `response.failed`, Anthropic `error`, a Chat chunk carrying `error`).
/// Unknown codes count as transient: the provider failed mid-way.
pub fn classify_stream_error(details: &ErrorDetails, key: Option<&ApiKey>) -> ModelError {
    let text = details.message.clone().unwrap_or_default();
    let label = details.label().unwrap_or("error").to_string();
    let message = shorten(&redact(&format!("{label}: {text}"), key));
    if details.is_context_overflow("") {
        return ModelError::ContextOverflow { message };
    }
    if details.is_quota("") {
        return ModelError::QuotaExhausted { message };
    }
    let code = details.code.as_deref().unwrap_or("");
    let kind = details.kind.as_deref().unwrap_or("");
    let any = |names: &[&str]| names.contains(&code) || names.contains(&kind);
    if any(&["rate_limit_exceeded", "rate_limit_error", "rate_limit"]) {
        ModelError::RateLimited {
            retry_after_ms: retry_after_from_message(&text).map(duration_ms),
            message,
        }
    } else if any(&[
        "invalid_api_key",
        "authentication_error",
        "permission_error",
        "unauthorized",
    ]) {
        ModelError::Auth { message }
    } else if any(&["request_too_large"]) {
        ModelError::ContextOverflow { message }
    } else if any(&[
        "invalid_request_error",
        "invalid_prompt",
        "not_found_error",
        "invalid_value",
        "model_not_found",
    ]) {
        ModelError::InvalidRequest { message }
    } else {
        ModelError::Transient { message }
    }
}

/// Classifies a transport failure (connect, reset, timeout, broken body).
pub fn classify_transport(error: &reqwest::Error, during_body: bool) -> ModelError {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    let message = redact(&message, None);
    if during_body {
        ModelError::StreamInterrupted { message }
    } else if error.is_connect() {
        ModelError::Unreachable {
            host: error.url().map_or_else(|| "the server".to_owned(), host_of),
            message,
        }
    } else {
        ModelError::Transient { message }
    }
}

/// `host:port` when the URL names a port, else the host: what a person
/// typed into the profile, never its path, userinfo or query.
pub(crate) fn host_of(url: &reqwest::Url) -> String {
    let host = url.host_str().unwrap_or("the server");
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn http(status: u16, body: &str) -> ModelError {
        classify_http(status, &HeaderMap::new(), body, None)
    }

    #[test]
    fn a_key_echoed_past_the_message_limit_is_redacted_not_cut_in_half() {
        let key = ApiKey::new("gsk_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
        let padding = "x".repeat(MAX_MESSAGE_CHARS - 60);
        let body = format!("{padding} Incorrect API key provided: {}", key.expose());
        let error = classify_http(401, &HeaderMap::new(), &body, Some(&key));
        let message = error.to_string();
        assert!(!message.contains("gsk_ABCDEF"), "{message}");
    }

    #[test]
    fn auth_statuses_are_auth_errors() {
        assert!(matches!(http(401, "{}"), ModelError::Auth { .. }));
        assert!(matches!(http(403, "forbidden"), ModelError::Auth { .. }));
    }

    #[test]
    fn invalid_request_statuses_are_not_retryable() {
        for status in [400, 404, 422] {
            let error = http(status, r#"{"error":{"message":"bad field"}}"#);
            assert!(
                matches!(error, ModelError::InvalidRequest { .. }),
                "{status}"
            );
            assert!(!error.is_retryable());
        }
    }

    #[test]
    fn server_errors_and_overload_are_transient() {
        for status in [500, 502, 503, 529] {
            assert!(matches!(http(status, ""), ModelError::Transient { .. }));
        }
    }

    #[test]
    fn rate_limits_read_retry_after_headers_and_messages() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after-ms", HeaderValue::from_static("1500"));
        let error = classify_http(429, &headers, "{}", None);
        assert_eq!(
            error,
            ModelError::RateLimited {
                retry_after_ms: Some(1500),
                message: "HTTP 429: {}".into()
            }
        );
        let body = r#"{"error":{"message":"Rate limit reached. Please try again in 1.5s.","code":"rate_limit_exceeded"}}"#;
        let error = http(429, body);
        assert!(matches!(
            error,
            ModelError::RateLimited {
                retry_after_ms: Some(1500),
                ..
            }
        ));
    }

    #[test]
    fn a_429_saying_insufficient_quota_is_quota_not_a_rate_limit() {
        let body = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        let error = http(429, body);
        assert!(matches!(error, ModelError::QuotaExhausted { .. }));
        assert!(!error.is_retryable());
    }

    #[test]
    fn context_overflow_bodies_from_each_provider_are_recognised() {
        let bodies = [
            r#"{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).","type":"BadRequestError","param":null,"code":400}"#,
            r#"{"error":{"message":"The decoder prompt (length 9000) is longer than the model's context length of 8192.","type":"BadRequestError","code":400}}"#,
            r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208000 tokens > 200000 maximum"}}"#,
        ];
        for body in bodies {
            let error = http(400, body);
            assert!(
                matches!(error, ModelError::ContextOverflow { .. }),
                "{body} -> {error:?}"
            );
        }
    }

    #[test]
    fn stream_errors_are_classified_by_code() {
        let details = |code: &str, message: &str| ErrorDetails {
            code: Some(code.into()),
            kind: None,
            message: Some(message.into()),
        };
        assert!(matches!(
            classify_stream_error(&details("context_length_exceeded", "too long"), None),
            ModelError::ContextOverflow { .. }
        ));
        assert!(matches!(
            classify_stream_error(&details("insufficient_quota", "no money"), None),
            ModelError::QuotaExhausted { .. }
        ));
        assert_eq!(
            classify_stream_error(
                &details("rate_limit_exceeded", "Please try again in 11.054s."),
                None
            ),
            ModelError::RateLimited {
                retry_after_ms: Some(11054),
                message: "rate_limit_exceeded: Please try again in 11.054s.".into()
            }
        );
        let overloaded = ErrorDetails::from_value(&serde_json::json!({
            "type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}
        }));
        assert!(matches!(
            classify_stream_error(&overloaded, None),
            ModelError::Transient { .. }
        ));
    }

    #[test]
    fn keys_echoed_by_a_provider_are_redacted() {
        let key = ApiKey::new("sk-proj-abcdefghijklmnop1234");
        let body = r#"{"error":{"message":"Incorrect API key provided: sk-proj-abcdefghijklmnop1234. You can find your API key at https://platform.openai.com/account/api-keys.","code":"invalid_api_key"}}"#;
        let error = classify_http(401, &HeaderMap::new(), body, Some(&key));
        let text = error.to_string();
        assert!(!text.contains("abcdefghijklmnop"), "{text}");
        let masked = redact(
            "Incorrect API key provided: sk-proj-****************1234.",
            None,
        );
        assert_eq!(masked, "Incorrect API key provided: sk-[REDACTED].");
        assert_eq!(redact("task-list is fine", None), "task-list is fine");
    }
}
