use std::path::PathBuf;

pub type SandboxResult<T> = Result<T, SandboxError>;

/// Everything that can keep a command from being confined. Every variant
/// means the command did not run.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("the sandbox policy could not be read: {0}")]
    Policy(#[from] serde_json::Error),
    #[error("the sandbox launcher was called wrongly: {0}")]
    Usage(String),
    #[error("this kernel cannot give the {mode} sandbox: {missing}")]
    Unsupported { mode: String, missing: String },
    #[error("could not open {path} for a sandbox rule: {message}")]
    RulePath { path: PathBuf, message: String },
    #[error("could not cut the network (user and network namespace): {0}")]
    Namespace(String),
    #[cfg(target_os = "linux")]
    #[error("Landlock refused the rules: {0}")]
    Landlock(#[from] landlock::RulesetError),
    #[error("could not start the command: {0}")]
    Exec(String),
}
