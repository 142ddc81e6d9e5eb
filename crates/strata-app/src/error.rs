//! strata-app's one error, [`AppError`]: the core's and the providers'
//! errors, and the refusals made here (invalid input, a busy session, …)
//! as the contract's [`CommandError`]. `?` turns each into it, and at the
//! contract's edge ([`CommandResult`], what every command returns) it
//! becomes the [`CommandError`] both front ends see: a kind that picks the
//! recovery (the UI's wording, the command line's exit code) and a message
//! a person can read. Messages come from the errors' `Display`, which never
//! holds an API key (both crates guarantee that).

use strata_core::CoreError;
use strata_index::IndexError;
use strata_protocol::{CommandError, CommandErrorKind};
use strata_providers::ProviderError;

/// What every command returns.
pub type CommandResult<T> = Result<T, CommandError>;

/// What the work behind a command returns.
pub type AppResult<T> = Result<T, AppError>;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Core(#[from] CoreError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Refused or failed here, already with the kind the front ends see.
    #[error(transparent)]
    Command(#[from] CommandError),
}

impl From<AppError> for CommandError {
    fn from(error: AppError) -> Self {
        match error {
            AppError::Core(error) => from_core(error),
            AppError::Provider(error) => from_provider(error),
            AppError::Index(error) => from_index(error),
            AppError::Command(error) => error,
        }
    }
}

fn from_core(error: CoreError) -> CommandError {
    let kind = match &error {
        CoreError::SessionNotFound { .. }
        | CoreError::AmbiguousSession { .. }
        | CoreError::ItemNotFound { .. }
        | CoreError::AmbiguousItem { .. } => CommandErrorKind::NotFound,
        CoreError::SessionLocked { .. } => CommandErrorKind::Locked,
        CoreError::MessageTooLong { .. }
        | CoreError::PromptCommand { .. }
        | CoreError::ContextRefused { .. }
        | CoreError::RestoreRefused { .. } => CommandErrorKind::InvalidInput,
        CoreError::Io { .. }
        | CoreError::CorruptRecord { .. }
        | CoreError::NotASession { .. }
        | CoreError::SessionWriteFailed { .. }
        | CoreError::NoDataDir => CommandErrorKind::Io,
        CoreError::Encode(_) => CommandErrorKind::Internal,
        CoreError::BroadWorkspace { .. } => CommandErrorKind::BroadWorkspace,
        CoreError::AgentsFileRefused { .. } | CoreError::InvalidRules { .. } => {
            CommandErrorKind::InvalidInput
        }
    };
    let message = match &error {
        CoreError::SessionLocked { .. } => format!(
            "This session is open in another Strata window or process; close it there first. ({error})"
        ),
        _ => capitalised(&error.to_string()),
    };
    logged(CommandError::new(kind, message))
}

fn from_provider(error: ProviderError) -> CommandError {
    let kind = match &error {
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
    logged(CommandError::new(kind, capitalised(&error.to_string())))
}

fn from_index(error: IndexError) -> CommandError {
    let kind = match &error {
        IndexError::BadCursor(_) => CommandErrorKind::InvalidInput,
        IndexError::Core(_)
        | IndexError::Io { .. }
        | IndexError::Sqlite(_)
        | IndexError::Listing(_)
        | IndexError::SchemaMismatch => CommandErrorKind::Io,
    };
    tracing::warn!(%error, "session index failed");
    CommandError::new(kind, format!("The session index failed: {error}"))
}

/// Failures a person did not cause by their input go to the log too. The
/// messages hold no key (see the module docs).
fn logged(error: CommandError) -> CommandError {
    match error.kind {
        CommandErrorKind::InvalidInput
        | CommandErrorKind::NotFound
        | CommandErrorKind::Busy
        | CommandErrorKind::ProfileUnavailable
        | CommandErrorKind::BroadWorkspace
        | CommandErrorKind::Stale => {
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

pub fn invalid_input(message: impl Into<String>) -> AppError {
    AppError::Command(CommandError::new(CommandErrorKind::InvalidInput, message))
}

/// A request that does not fit its command's request type (a missing
/// field, an id that is not one, a number out of range): invalid input,
/// whatever the field. The decoder's text can quote the hostile input, so
/// only its start is kept.
pub fn bad_request(command: &str, error: impl std::fmt::Display) -> CommandError {
    let reason: String = error.to_string().chars().take(MAX_REASON_CHARS).collect();
    invalid_input(format!("The {command} request is not valid: {reason}")).into()
}

/// How much of a decoder's message [`bad_request`] keeps.
const MAX_REASON_CHARS: usize = 200;

pub fn not_found(message: impl Into<String>) -> AppError {
    AppError::Command(CommandError::new(CommandErrorKind::NotFound, message))
}

pub fn profile_unavailable(message: impl Into<String>) -> AppError {
    AppError::Command(CommandError::new(
        CommandErrorKind::ProfileUnavailable,
        message,
    ))
}

pub fn busy(message: impl Into<String>) -> AppError {
    AppError::Command(CommandError::new(CommandErrorKind::Busy, message))
}

pub fn io(message: impl Into<String>) -> AppError {
    AppError::Command(CommandError::new(CommandErrorKind::Io, message))
}

pub fn internal(message: impl Into<String>) -> AppError {
    AppError::Command(CommandError::new(CommandErrorKind::Internal, message))
}

/// A background task that failed to finish (it panicked or the runtime shut
/// down) is an internal error.
pub fn task_failed(error: impl std::fmt::Display) -> AppError {
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

    /// What a command returns when the work behind it failed with `error`.
    trait IntoCommandError {
        fn into_command_error(self) -> CommandError;
    }

    impl<E: Into<AppError>> IntoCommandError for E {
        fn into_command_error(self) -> CommandError {
            CommandError::from(self.into())
        }
    }

    #[test]
    fn core_errors_map_to_kinds_the_ui_can_act_on() {
        let locked = CoreError::SessionLocked {
            session_id: SessionId::new(),
            path: PathBuf::from("/tmp/s.jsonl"),
        }
        .into_command_error();
        assert_eq!(locked.kind, CommandErrorKind::Locked);
        assert!(
            locked.message.starts_with("This session is open"),
            "{locked:?}"
        );

        let missing = CoreError::SessionNotFound {
            query: "0193".into(),
        }
        .into_command_error();
        assert_eq!(missing.kind, CommandErrorKind::NotFound);
        assert_eq!(missing.message, "No session matches \"0193\"");

        let io = CoreError::Io {
            action: "read",
            path: PathBuf::from("/x"),
            source: std::io::Error::other("disk gone"),
        }
        .into_command_error();
        assert_eq!(io.kind, CommandErrorKind::Io);
    }

    #[test]
    fn provider_errors_split_into_input_and_provider_failures() {
        let invalid = ProviderError::ConfigInvalid {
            path: PathBuf::from("config.toml"),
            problems: vec!["profiles.x.model is empty".into()],
        }
        .into_command_error();
        assert_eq!(invalid.kind, CommandErrorKind::InvalidInput);
        let missing_key = ProviderError::MissingApiKey {
            profile: "work".into(),
            hint: "set the environment variable OPENAI_API_KEY".into(),
        }
        .into_command_error();
        assert_eq!(missing_key.kind, CommandErrorKind::Provider);
        assert!(
            missing_key
                .message
                .starts_with("Profile \"work\" needs an API key")
        );
    }

    #[test]
    fn question_marks_in_the_work_give_the_command_the_same_error_as_the_lower_layer() {
        fn work(cursor: &str) -> AppResult<()> {
            Err(IndexError::BadCursor(cursor.to_owned()))?
        }
        fn command() -> CommandResult<()> {
            work("zz")?;
            Ok(())
        }
        let error = command().unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
        assert_eq!(
            error.message,
            "The session index failed: invalid list cursor \"zz\""
        );
        let refused: CommandError = busy("A turn is running.").into();
        assert_eq!(
            refused,
            CommandError::new(CommandErrorKind::Busy, "A turn is running.")
        );
    }

    #[test]
    fn a_request_that_does_not_decode_is_invalid_input_with_a_bounded_reason() {
        let hostile = "x".repeat(10_000);
        let error = bad_request("open_session", format!("invalid value {hostile}"));
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
        assert!(
            error
                .message
                .starts_with("The open_session request is not valid: invalid value x")
        );
        assert!(
            error.message.chars().count() < 300,
            "{}",
            error.message.len()
        );
    }
}
