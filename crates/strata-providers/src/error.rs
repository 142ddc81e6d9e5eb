//! The error type of `strata-providers` outside the wire: configuration,
//! profile resolution and key storage. Wire failures are `ModelError`s.
//!
//! Messages never contain an API key: variants carry paths, names and
//! parser messages, never a key's value.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("could not {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    ConfigParse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path} is not a valid Strata config:\n{}", bullet_list(problems))]
    ConfigInvalid {
        path: PathBuf,
        problems: Vec<String>,
    },
    #[error("could not encode the config: {message}")]
    ConfigEncode { message: String },
    #[error(
        "no provider profile named {name:?}; configured profiles: {}",
        or_none(available)
    )]
    UnknownProfile {
        name: String,
        available: Vec<String>,
    },
    #[error("profile {profile:?} needs an API key: {hint}")]
    MissingApiKey { profile: String, hint: String },
    #[error("the OS keychain failed: {message}")]
    Keychain { message: String },
    #[error("{path} is not a valid key file: {message}")]
    KeyFile { path: PathBuf, message: String },
    #[error("invalid {what}: {message}")]
    InvalidArgument { what: &'static str, message: String },
}

impl ProviderError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| ProviderError::Io {
            action,
            path,
            source,
        }
    }

    /// Whether trying again may succeed: I/O may recover and a locked
    /// keychain may be unlocked; a bad file or a missing key will not fix
    /// itself.
    pub fn is_retryable(&self) -> bool {
        match self {
            ProviderError::Io { .. } | ProviderError::Keychain { .. } => true,
            ProviderError::ConfigParse { .. }
            | ProviderError::ConfigInvalid { .. }
            | ProviderError::ConfigEncode { .. }
            | ProviderError::UnknownProfile { .. }
            | ProviderError::MissingApiKey { .. }
            | ProviderError::KeyFile { .. }
            | ProviderError::InvalidArgument { .. } => false,
        }
    }
}

fn bullet_list(items: &[String]) -> String {
    items
        .iter()
        .map(|item| format!("  - {item}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

pub type Result<T, E = ProviderError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_config_lists_every_problem() {
        let err = ProviderError::ConfigInvalid {
            path: PathBuf::from("/x/config.toml"),
            problems: vec!["a is wrong".into(), "b is wrong".into()],
        };
        assert_eq!(
            err.to_string(),
            "/x/config.toml is not a valid Strata config:\n  - a is wrong\n  - b is wrong"
        );
        assert!(!err.is_retryable());
    }

    #[test]
    fn unknown_profile_names_the_available_ones() {
        let err = ProviderError::UnknownProfile {
            name: "wrok".into(),
            available: vec!["work".into(), "home".into()],
        };
        assert_eq!(
            err.to_string(),
            "no provider profile named \"wrok\"; configured profiles: work, home"
        );
    }

    #[test]
    fn io_and_keychain_failures_are_retryable() {
        let err = ProviderError::io("read", "/x")(std::io::Error::other("busy"));
        assert!(err.is_retryable());
        assert!(
            ProviderError::Keychain {
                message: "locked".into()
            }
            .is_retryable()
        );
    }
}
