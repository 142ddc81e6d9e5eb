//! The tools' argument schemas, offered to the model, and the parsing of the
//! arguments it sends back.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use strata_protocol::{ToolSpec, tool_names as names};

use super::error::{ToolError, ToolResult};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListDirectoryArgs {
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadFileArgs {
    pub path: String,
    #[serde(default)]
    pub start_line: Option<u64>,
    #[serde(default)]
    pub end_line: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchTextArgs {
    pub pattern: String,
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WriteFileArgs {
    pub path: String,
    pub content: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApplyEditArgs {
    pub path: String,
    pub old_text: String,
    pub new_text: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunShellArgs {
    pub command: String,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// Parses the model's arguments text; an empty text means `{}`.
pub(crate) fn parse<T: DeserializeOwned>(tool: &'static str, arguments: &str) -> ToolResult<T> {
    let arguments = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    serde_json::from_str(arguments).map_err(|error| ToolError::InvalidArguments {
        tool,
        message: error.to_string(),
    })
}

/// The specs of every built-in tool, in [`names::ALL`] order.
/// How `run_shell` says its commands run, by sandbox: the default for no
/// sandbox, and one line each for the two modes.
pub(crate) const SHELL_UNCONFINED: &str = "with the user's rights (no sandbox)";

/// `shell_rights` completes "Run a command with 'sh -c' in the workspace
/// folder ..." ([`SHELL_UNCONFINED`] or a sandbox's own words).
pub(crate) fn specs(
    max_timeout_ms: u64,
    default_timeout_ms: u64,
    shell_rights: &str,
) -> Vec<ToolSpec> {
    let spec = |name: &str, description: &str, parameters: serde_json::Value| ToolSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters,
    };
    vec![
        spec(
            names::LIST_DIRECTORY,
            "List one directory of the workspace (not recursive). Entries are sorted; \
             directories end with '/'. Hidden entries are included, .git is skipped.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Directory relative to the workspace; '.' or omitted for the workspace itself."}
                },
                "additionalProperties": false
            }),
        ),
        spec(
            names::READ_FILE,
            "Read a UTF-8 text file of the workspace, optionally a range of lines \
             (1-based, inclusive). Long files are truncated with a note saying how to read on.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File relative to the workspace."},
                    "start_line": {"type": "integer", "minimum": 1, "description": "First line to read (1-based)."},
                    "end_line": {"type": "integer", "minimum": 1, "description": "Last line to read, inclusive."}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        ),
        spec(
            names::SEARCH_TEXT,
            "Search the workspace's text files for a regular expression (Rust regex syntax; \
             escape special characters to search literally). Files ignored by .gitignore are \
             skipped. Returns matches as 'path:line: text'.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Regular expression, e.g. 'fn main' or 'TODO\\\\('."},
                    "path": {"type": "string", "description": "File or directory to search, relative to the workspace; the whole workspace if omitted."}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        ),
        spec(
            names::WRITE_FILE,
            "Create or overwrite a file of the workspace with the given content; missing \
             parent directories are created. May need the user's approval.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File relative to the workspace."},
                    "content": {"type": "string", "description": "The complete new content."}
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }),
        ),
        spec(
            names::APPLY_EDIT,
            "Replace one exact occurrence of old_text in a file with new_text. old_text must \
             match the file exactly (whitespace included) and occur exactly once. May need \
             the user's approval.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File relative to the workspace."},
                    "old_text": {"type": "string", "description": "Text to replace; must occur exactly once."},
                    "new_text": {"type": "string", "description": "Replacement text."}
                },
                "required": ["path", "old_text", "new_text"],
                "additionalProperties": false
            }),
        ),
        spec(
            names::RUN_SHELL,
            &format!(
                "Run a command with 'sh -c' in the workspace folder {shell_rights}. Output \
                 (stdout and stderr interleaved) and the exit code are \
                 returned. Timeout {default_timeout_ms} ms unless given, at most \
                 {max_timeout_ms} ms; processes left running are killed. Only PATH, HOME, \
                 LANG and such basic variables are set. May need the user's approval."
            ),
            json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The shell command."},
                    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": max_timeout_ms, "description": "Timeout in milliseconds."}
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_cover_every_tool_name_in_order_with_object_schemas() {
        let specs = specs(600_000, 60_000, SHELL_UNCONFINED);
        let listed: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(listed, names::ALL);
        for spec in &specs {
            assert_eq!(spec.parameters["type"], "object", "{}", spec.name);
            assert!(!spec.description.is_empty());
        }
    }

    #[test]
    fn bad_arguments_say_which_tool_and_what_is_wrong() {
        let error = parse::<ReadFileArgs>(names::READ_FILE, r#"{"start_line": 3}"#).unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with("invalid arguments for read_file: "),
            "{text}"
        );
        assert!(text.contains("missing field `path`"), "{text}");
        assert!(parse::<ListDirectoryArgs>(names::LIST_DIRECTORY, "").is_ok());
        assert!(parse::<RunShellArgs>(names::RUN_SHELL, r#"{"command":"ls","cwd":"/"}"#).is_err());
    }

    #[test]
    fn run_shell_says_it_runs_with_the_users_rights_and_no_sandbox() {
        let specs = specs(600_000, 60_000, SHELL_UNCONFINED);
        let shell = specs.iter().find(|s| s.name == names::RUN_SHELL).unwrap();
        let text = &shell.description;
        assert!(
            !text.contains('\n'),
            "the system prompt shows only the first line"
        );
        for claim in [
            "with the user's rights (no sandbox)",
            "processes left running are killed",
            "Only PATH, HOME, LANG and such basic variables",
        ] {
            assert!(text.contains(claim), "{claim}: {text}");
        }
    }
}
