//! A redacting wrapper for API keys: it never shows its value through
//! `Debug`, `Display` or serde, so keys cannot leak into logs, errors or
//! session files by accident.

use std::fmt;

/// An API key. The only way to read it is [`ApiKey::expose`], used where the
/// key goes into a request header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The key itself, for a request header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }

    /// Replaces every occurrence of this key in `text` with a marker, for
    /// provider messages that might echo it back.
    pub fn scrub(&self, text: &str) -> String {
        let key = self.0.trim();
        // A very short "key" would redact ordinary words; real keys are long.
        if key.len() < 8 {
            return text.to_string();
        }
        text.replace(key, "[REDACTED]")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([REDACTED])")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[REDACTED]")
    }
}

impl From<String> for ApiKey {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for ApiKey {
    fn from(value: &str) -> Self {
        Self(value.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_never_show_the_key() {
        let key = ApiKey::new("sk-test-1234567890abcdef");
        assert_eq!(format!("{key:?}"), "ApiKey([REDACTED])");
        assert_eq!(key.to_string(), "[REDACTED]");
        assert!(!format!("{:?}", Some(&key)).contains("1234567890"));
    }

    #[test]
    fn scrub_removes_the_key_from_provider_text() {
        let key = ApiKey::new("sk-test-1234567890abcdef");
        let text = "Incorrect API key provided: sk-test-1234567890abcdef.";
        assert_eq!(key.scrub(text), "Incorrect API key provided: [REDACTED].");
    }

    #[test]
    fn expose_returns_the_value_for_headers() {
        assert_eq!(ApiKey::new("abc").expose(), "abc");
    }
}
