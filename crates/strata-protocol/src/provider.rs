//! Provider identity: the one [`ProviderKind`] every crate and the UI use,
//! and the profile a session runs on as its file records it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::tools::ApprovalPolicy;

/// The wire protocol a profile speaks. Its kebab-case name is what config
/// files, flags, session records and the UI use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// OpenAI Responses API (`POST {base_url}/responses`).
    OpenaiResponses,
    /// OpenAI-compatible Chat Completions (`POST {base_url}/chat/completions`).
    OpenaiChat,
    /// Anthropic Messages (`POST {base_url}/messages`).
    Anthropic,
    /// The offline demo model: no network, no key.
    Demo,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 4] = [
        ProviderKind::OpenaiResponses,
        ProviderKind::OpenaiChat,
        ProviderKind::Anthropic,
        ProviderKind::Demo,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::OpenaiResponses => "openai-responses",
            ProviderKind::OpenaiChat => "openai-chat",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Demo => "demo",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a provider kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{given:?} is not one of openai-responses, openai-chat, anthropic, demo")]
pub struct UnknownProviderKind {
    pub given: String,
}

impl FromStr for ProviderKind {
    type Err = UnknownProviderKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProviderKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| UnknownProviderKind {
                given: s.to_owned(),
            })
    }
}

/// Why a session's profile was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ProfileChange {
    /// The session was created on it.
    Created,
    /// A person chose it for a session made on another.
    Switched,
}

/// The `profile_set` record: the provider a session talks to from here on.
/// Never a key: the endpoint is kept without userinfo or query string, and
/// resume finds the key the way the profile it names does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProfileSet {
    pub provider_kind: ProviderKind,
    /// The base URL (version segment included); `None` for the demo model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    pub model: String,
    /// The config file's profile it came from; `None` when flags, the
    /// environment or the demo default chose it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    pub change: ProfileChange,
    /// The approval policy the session was created with, carried on by each
    /// switch: a resume without `--approval` runs with it. Absent in files
    /// written before it was recorded (they resume as `ask`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalPolicy>,
}

/// `url` without userinfo, query string or fragment (and without a trailing
/// slash), so a session file never holds credentials someone put in a URL.
/// Text that does not parse as `scheme://host…` is kept up to its first `?`
/// or `#`, with anything before an `@` in the authority dropped.
pub fn endpoint_without_secrets(url: &str) -> String {
    let cut = url.find(['?', '#']).map_or(url, |end| &url[..end]);
    let (scheme, rest) = match cut.find("://") {
        Some(at) => (&cut[..at + 3], &cut[at + 3..]),
        None => ("", cut),
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    format!("{scheme}{host}{path}")
        .trim_end_matches('/')
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_use_kebab_case_names_everywhere() {
        for kind in ProviderKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            assert_eq!(kind.as_str().parse::<ProviderKind>().unwrap(), kind);
        }
        let err = "openai".parse::<ProviderKind>().unwrap_err().to_string();
        assert!(
            err.contains("openai-responses, openai-chat, anthropic, demo"),
            "{err}"
        );
    }

    #[test]
    fn endpoints_lose_userinfo_query_and_fragment() {
        assert_eq!(
            endpoint_without_secrets("https://user:sk-secret@example.com/v1/?key=sk-2#x"),
            "https://example.com/v1"
        );
        assert_eq!(
            endpoint_without_secrets("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(endpoint_without_secrets("host/v1?k=1"), "host/v1");
    }
}
