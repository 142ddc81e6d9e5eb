//! Tool failures. They are not errors of the agent: each becomes the text of
//! a tool output the model reads and can act on, so messages say what to do.

use strata_protocol::ToolCallStatus;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error("unknown tool {name:?}; the tools are: {available}")]
    UnknownTool { name: String, available: String },
    #[error("invalid arguments for {tool}: {message}")]
    InvalidArguments { tool: &'static str, message: String },
    #[error("path escapes the workspace: {path}")]
    PathEscape { path: String },
    #[error("{path} does not exist")]
    NotFound { path: String },
    #[error("{path} is not a directory")]
    NotADirectory { path: String },
    #[error("{path} is a directory, not a file")]
    IsADirectory { path: String },
    #[error("{path} is a symlink whose target does not exist")]
    BrokenSymlink { path: String },
    #[error("{path} is not UTF-8 text")]
    NotText { path: String },
    #[error(
        "{path} is not UTF-8 text; apply_edit only edits UTF-8 files (it never rewrites bytes it cannot show), so leave it or ask the user"
    )]
    EditNotText { path: String },
    #[error(
        "{path} is not a regular file (a FIFO, socket or device); only regular files are read or written"
    )]
    NotRegular { path: String },
    #[error(
        "{path} changed while it was being opened (a folder became a symlink); it was not touched"
    )]
    PathChanged { path: String },
    #[error("{path} has too many levels of symbolic links (a loop?)")]
    SymlinkLoop { path: String },
    #[error(
        "{path} looks like a secret file (keys, credentials, .env); the tools do not touch it unless the user allows it in Strata's settings"
    )]
    SecretFile { path: String },
    #[error(
        "{path} belongs to Strata itself (its config, keys, sessions or logs); the tools never touch it"
    )]
    StrataFile { path: String },
    #[error(
        "{path} changed since the call was approved; it was not written. Read it again and retry"
    )]
    ChangedSinceApproval { path: String },
    #[error("{path} is {size} bytes, over the {limit}-byte limit for {tool}; {hint}")]
    TooLarge {
        tool: &'static str,
        path: String,
        size: u64,
        limit: u64,
        hint: &'static str,
    },
    #[error("{action} {path}: {message}")]
    Io {
        action: &'static str,
        path: String,
        message: String,
    },
    #[error(
        "old_text was not found in {path}; read the file and copy the exact text, including whitespace"
    )]
    EditNotFound { path: String },
    #[error(
        "old_text occurs {count} times in {path}; include more surrounding lines so it matches exactly once"
    )]
    EditAmbiguous { path: String, count: usize },
    #[error("invalid pattern: {message}")]
    InvalidPattern { message: String },
    #[error("could not start the command: {message}")]
    Spawn { message: String },
    #[error(
        "{tool} was refused: this session is read-only (approval policy read-only); only list_directory, read_file and search_text may run"
    )]
    ReadOnly { tool: &'static str },
    #[error("The user denied this {what}. Do not retry it; ask the user how to proceed.")]
    Denied { what: String },
    #[error(
        "{tool} was refused: this session is read-only (approval policy read-only) and the user has not marked this MCP tool as read-only"
    )]
    McpReadOnly { tool: String },
    #[error("invalid arguments for {tool}: {message}")]
    InvalidMcpArguments { tool: String, message: String },
    #[error(
        "Not run: the approval rule {rule} denies this {what}. Do not retry it or work around \
         it; ask the user how to proceed."
    )]
    DeniedByRule { what: String, rule: String },
}

impl ToolError {
    /// How a call that failed this way ended.
    pub fn status(&self) -> ToolCallStatus {
        match self {
            ToolError::ReadOnly { .. }
            | ToolError::Denied { .. }
            | ToolError::McpReadOnly { .. }
            | ToolError::DeniedByRule { .. } => ToolCallStatus::Denied,
            _ => ToolCallStatus::Error,
        }
    }

    pub(crate) fn io(action: &'static str, path: &str, source: &std::io::Error) -> Self {
        ToolError::Io {
            action,
            path: path.to_owned(),
            message: source.to_string(),
        }
    }
}

pub type ToolResult<T> = std::result::Result<T, ToolError>;
