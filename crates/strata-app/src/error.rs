//! The contract's one error type, [`CommandError`]: how the core's and the
//! providers' errors reach both front ends, with a kind that picks the
//! recovery (the UI's wording, the command line's exit code) and a message
//! a person can read. Messages come from the errors' `Display`, which never
//! holds an API key (both crates guarantee that).

use strata_core::CoreError;
use strata_protocol::{CommandError, CommandErrorKind};
use strata_providers::ProviderError;

/// What every command returns.
pub type CommandResult<T> = Result<T, CommandError>;

/// Converts a lower layer's error into the command error the UI sees.
pub trait ToCommandError {
    fn to_command_error(self) -> CommandError;
}

impl ToCommandError for CoreError {
    fn to_command_error(self) -> CommandError {
        let kind = match &self {
            CoreError::SessionNotFound { .. }
            | CoreError::AmbiguousSession { .. }
            | CoreError::ItemNotFound { .. }
            | CoreError::AmbiguousItem { .. } => CommandErrorKind::NotFound,
            CoreError::SessionLocked { .. } => CommandErrorKind::Locked,
            CoreError::MessageTooLong { .. } | CoreError::ContextRefused { .. } => {
                CommandErrorKind::InvalidInput
            }
            CoreError::Io { .. }
            | CoreError::CorruptRecord { .. }
            | CoreError::NotASession { .. }
            | CoreError::SessionWriteFailed { .. }
            | CoreError::NoDataDir => CommandErrorKind::Io,
            CoreError::Encode(_) => CommandErrorKind::Internal,
            CoreError::BroadWorkspace { .. } => CommandErrorKind::BroadWorkspace,
            CoreError::AgentsFileRefused { .. } => CommandErrorKind::InvalidInput,
        };
        let message = match &self {
            CoreError::SessionLocked { .. } => format!(
                "This session is open in another Strata window or process; close it there first. ({self})"
            ),
            _ => capitalised(&self.to_string()),
        };
        logged(CommandError::new(kind, message))
    }
}

impl ToCommandError for ProviderError {
    fn to_command_error(self) -> CommandError {
        let kind = match &self {
            ProviderError::Io { .. } | ProviderError::KeyFile { .. } => CommandErrorKind::Io,
            ProviderError::ConfigParse { .. }
            | ProviderError::ConfigInvalid { .. }
            | ProviderError::UnknownProfile { .. }
            | ProviderError::InvalidArgument { .. } => CommandErrorKind::InvalidInput,
            ProviderError::ConfigEncode { .. } => CommandErrorKind::Internal,
            ProviderError::MissingApiKey { .. } | ProviderError::Keychain { .. } => {
                CommandErrorKind::Provider
            }
        };
        logged(CommandError::new(kind, capitalised(&self.to_string())))
    }
}

/// Failures a person did not cause by their input go to the log too. The
/// messages hold no key (see the module docs).
fn logged(error: CommandError) -> CommandError {
    match error.kind {
        CommandErrorKind::InvalidInput
        | CommandErrorKind::NotFound
        | CommandErrorKind::Busy
        | CommandErrorKind::ProfileUnavailable
        | CommandErrorKind::BroadWorkspace => {
            tracing::debug!(kind = ?error.kind, message = %error.message, "command refused");
        }
        CommandErrorKind::Locked
        | CommandErrorKind::Provider
        | CommandErrorKind::Io
        | CommandErrorKind::Internal => {
            tracing::warn!(kind = ?error.kind, message = %error.message, "command failed");
        }
    }
    error
}

pub fn invalid_input(message: impl Into<String>) -> CommandError {
    CommandError::new(CommandErrorKind::InvalidInput, message)
}

/// A request that does not fit its command's request type (a missing
/// field, an id that is not one, a number out of range): invalid input,
/// whatever the field. The decoder's text can quote the hostile input, so
/// only its start is kept.
pub fn bad_request(command: &str, error: impl std::fmt::Display) -> CommandError {
    let reason: String = error.to_string().chars().take(MAX_REASON_CHARS).collect();
    invalid_input(format!("The {command} request is not valid: {reason}"))
}

/// How much of a decoder's message [`bad_request`] keeps.
const MAX_REASON_CHARS: usize = 200;

pub fn not_found(message: impl Into<String>) -> CommandError {
    CommandError::new(CommandErrorKind::NotFound, message)
}

pub fn profile_unavailable(message: impl Into<String>) -> CommandError {
    CommandError::new(CommandErrorKind::ProfileUnavailable, message)
}

pub fn busy(message: impl Into<String>) -> CommandError {
    CommandError::new(CommandErrorKind::Busy, message)
}

pub fn io(message: impl Into<String>) -> CommandError {
    CommandError::new(CommandErrorKind::Io, message)
}

pub fn internal(message: impl Into<String>) -> CommandError {
    CommandError::new(CommandErrorKind::Internal, message)
}

/// A background task that failed to finish (it panicked or the runtime shut
/// down) is an internal error.
pub fn task_failed(error: impl std::fmt::Display) -> CommandError {
    tracing::error!(%error, "a background task failed");
    internal(format!("A background task failed: {error}"))
}

/// Error texts start lower-case (Rust's convention); the UI shows them as
/// sentences.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use strata_protocol::SessionId;

    use super::*;

    #[test]
    fn core_errors_map_to_kinds_the_ui_can_act_on() {
        let locked = CoreError::SessionLocked {
            session_id: SessionId::new(),
            path: PathBuf::from("/tmp/s.jsonl"),
        }
        .to_command_error();
        assert_eq!(locked.kind, CommandErrorKind::Locked);
        assert!(
            locked.message.starts_with("This session is open"),
            "{locked:?}"
        );

        let missing = CoreError::SessionNotFound {
            query: "0193".into(),
        }
        .to_command_error();
        assert_eq!(missing.kind, CommandErrorKind::NotFound);
        assert_eq!(missing.message, "No session matches \"0193\"");

        let io = CoreError::Io {
            action: "read",
            path: PathBuf::from("/x"),
            source: std::io::Error::other("disk gone"),
        }
        .to_command_error();
        assert_eq!(io.kind, CommandErrorKind::Io);
    }

    #[test]
    fn provider_errors_split_into_input_and_provider_failures() {
        let invalid = ProviderError::ConfigInvalid {
            path: PathBuf::from("config.toml"),
            problems: vec!["profiles.x.model is empty".into()],
        }
        .to_command_error();
        assert_eq!(invalid.kind, CommandErrorKind::InvalidInput);
        let missing_key = ProviderError::MissingApiKey {
            profile: "work".into(),
            hint: "set the environment variable OPENAI_API_KEY".into(),
        }
        .to_command_error();
        assert_eq!(missing_key.kind, CommandErrorKind::Provider);
        assert!(
            missing_key
                .message
                .starts_with("Profile \"work\" needs an API key")
        );
    }
}
