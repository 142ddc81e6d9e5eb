//! What a front end sees of the built-in tools: their names (a contract with
//! the offline demo model), the session's approval policy and an approval
//! request. How a call ended is [`crate::ToolCallStatus`].

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The names of the built-in tools, as the model calls them.
pub mod tool_names {
    /// `{path}`: one directory's entries, sorted, directories ending in `/`.
    pub const LIST_DIRECTORY: &str = "list_directory";
    /// `{path, start_line?, end_line?}`: a text file, 1-based inclusive range.
    pub const READ_FILE: &str = "read_file";
    /// `{pattern, path?}`: a regular expression over files not ignored by `.gitignore`.
    pub const SEARCH_TEXT: &str = "search_text";
    /// `{path, content}`: creates or replaces a file.
    pub const WRITE_FILE: &str = "write_file";
    /// `{path, old_text, new_text}`: replaces the one exact occurrence of `old_text`.
    pub const APPLY_EDIT: &str = "apply_edit";
    /// `{command, timeout_ms?}`: `sh -c` in the workspace.
    pub const RUN_SHELL: &str = "run_shell";
    /// `{plan: [{step, status}], explanation?}`: the agent's plan, replaced
    /// whole. Touches nothing: offered under every policy, never asked.
    pub const UPDATE_PLAN: &str = "update_plan";

    /// Every built-in tool, in the order their specs are offered.
    pub const ALL: &[&str] = &[
        LIST_DIRECTORY,
        READ_FILE,
        SEARCH_TEXT,
        WRITE_FILE,
        APPLY_EDIT,
        RUN_SHELL,
    ];
}

/// Which tool calls a session runs without asking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalPolicy {
    /// Reads run; writes and shell commands wait for the person.
    #[default]
    Ask,
    /// Everything runs.
    Auto,
    /// Reads run; writes and shell commands are refused.
    ReadOnly,
}

impl ApprovalPolicy {
    pub const ALL: [ApprovalPolicy; 3] = [
        ApprovalPolicy::Ask,
        ApprovalPolicy::Auto,
        ApprovalPolicy::ReadOnly,
    ];

    /// The name on the wire and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalPolicy::Ask => "ask",
            ApprovalPolicy::Auto => "auto",
            ApprovalPolicy::ReadOnly => "read-only",
        }
    }

    /// The policy named `name` (`ask`, `auto`, `read-only`).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|policy| policy.as_str() == name)
    }
}

impl std::fmt::Display for ApprovalPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool call waiting for the person: what will happen if they allow it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApprovalRequest {
    /// The call this request is about.
    pub call_id: String,
    /// The tool's name, e.g. `write_file`.
    pub tool: String,
    pub kind: ApprovalKind,
    /// What "always allow" would save: for a shell command its program and
    /// stable prefix (`cargo test*`, one per distinct part of a compound
    /// command), for an MCP tool that tool on that launch spec
    /// (`github/search@sha256:…`); empty when nothing safe can be proposed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub proposed_rules: Vec<String>,
}

impl ApprovalRequest {
    /// What the rules in [`Self::proposed_rules`] are about.
    pub fn proposed_rule_kind(&self) -> crate::RuleKind {
        match self.kind {
            ApprovalKind::Mcp { .. } => crate::RuleKind::Mcp,
            ApprovalKind::Shell { .. } => crate::RuleKind::Command,
            ApprovalKind::Write { .. } => crate::RuleKind::Write,
        }
    }

    /// One line for a person, e.g. "write_file src/a.rs" or
    /// "run `cargo test` in /work".
    pub fn summary(&self) -> String {
        match &self.kind {
            ApprovalKind::Write { path, .. } => format!("{} {path}", self.tool),
            ApprovalKind::Shell { command, cwd } => format!("run `{command}` in {cwd}"),
            ApprovalKind::Mcp {
                server,
                tool,
                hints,
                ..
            } => {
                let hints = if hints.is_empty() {
                    String::new()
                } else {
                    format!(" (the server's hints, not verified: {})", hints.join(", "))
                };
                format!("call {tool} on MCP server {server}{hints}")
            }
        }
    }

    /// The full detail: the diff of a write, the command of a shell call.
    pub fn detail(&self) -> &str {
        match &self.kind {
            ApprovalKind::Write { diff, .. } => diff,
            ApprovalKind::Shell { command, .. } => command,
            ApprovalKind::Mcp { arguments, .. } => arguments,
        }
    }
}

/// What an approval request shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ApprovalKind {
    /// A file change: the path relative to the workspace and a unified diff.
    Write { path: String, diff: String },
    /// A shell command and the folder it runs in.
    Shell { command: String, cwd: String },
    /// A call of a tool of an MCP server: the server's configured name, the
    /// tool's name as the server lists it and the call's arguments (both
    /// escaped: control characters shown as `\u{..}`, secrets redacted),
    /// and the annotations the server gave, as hints (e.g. `readOnlyHint`):
    /// the server's word, not verified.
    Mcp {
        server: String,
        tool: String,
        arguments: String,
        hints: Vec<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_policy_is_kebab_case_on_the_wire_and_parses_its_names() {
        for (policy, name) in [
            (ApprovalPolicy::Ask, "ask"),
            (ApprovalPolicy::Auto, "auto"),
            (ApprovalPolicy::ReadOnly, "read-only"),
        ] {
            assert_eq!(serde_json::to_value(policy).unwrap(), name);
            assert_eq!(
                serde_json::from_value::<ApprovalPolicy>(name.into()).unwrap(),
                policy
            );
            assert_eq!(ApprovalPolicy::parse(name), Some(policy));
            assert_eq!(policy.to_string(), name);
        }
        assert_eq!(ApprovalPolicy::parse("read_only"), None);
        assert_eq!(ApprovalPolicy::default(), ApprovalPolicy::Ask);
    }

    #[test]
    fn approval_requests_round_trip_with_a_tagged_kind() {
        let write = ApprovalRequest {
            call_id: "call_1".into(),
            tool: tool_names::WRITE_FILE.into(),
            kind: ApprovalKind::Write {
                path: "src/a.rs".into(),
                diff: "--- a/src/a.rs\n+++ b/src/a.rs\n".into(),
            },
            proposed_rules: Vec::new(),
        };
        assert_eq!(write.summary(), "write_file src/a.rs");
        assert_eq!(write.detail(), "--- a/src/a.rs\n+++ b/src/a.rs\n");
        let value = serde_json::to_value(&write).unwrap();
        assert_eq!(value["kind"]["type"], "write");
        assert!(value.get("proposed_rules").is_none());
        assert_eq!(value["kind"]["path"], "src/a.rs");
        assert_eq!(
            serde_json::from_value::<ApprovalRequest>(value).unwrap(),
            write
        );

        let shell = ApprovalRequest {
            call_id: "call_2".into(),
            tool: tool_names::RUN_SHELL.into(),
            kind: ApprovalKind::Shell {
                command: "cargo test".into(),
                cwd: "/work".into(),
            },
            proposed_rules: vec!["cargo test*".into()],
        };
        assert_eq!(shell.summary(), "run `cargo test` in /work");
        assert_eq!(shell.detail(), "cargo test");
        let value = serde_json::to_value(&shell).unwrap();
        assert_eq!(value["kind"]["type"], "shell");
        assert_eq!(value["proposed_rules"], serde_json::json!(["cargo test*"]));
        assert_eq!(
            serde_json::from_value::<ApprovalRequest>(value).unwrap(),
            shell
        );
    }

    #[test]
    fn an_mcp_request_names_server_and_tool_and_labels_annotations_as_hints() {
        let mut mcp = ApprovalRequest {
            call_id: "call_3".into(),
            tool: "mcp__everything__echo".into(),
            kind: ApprovalKind::Mcp {
                server: "everything".into(),
                tool: "echo".into(),
                arguments: r#"{"message":"hi"}"#.into(),
                hints: vec!["readOnlyHint".into()],
            },
            proposed_rules: Vec::new(),
        };
        assert_eq!(
            mcp.summary(),
            "call echo on MCP server everything (the server's hints, not verified: readOnlyHint)"
        );
        assert_eq!(mcp.detail(), r#"{"message":"hi"}"#);
        let value = serde_json::to_value(&mcp).unwrap();
        assert_eq!(value["kind"]["type"], "mcp");
        assert_eq!(
            serde_json::from_value::<ApprovalRequest>(value).unwrap(),
            mcp
        );
        if let ApprovalKind::Mcp { hints, .. } = &mut mcp.kind {
            hints.clear();
        }
        assert_eq!(mcp.summary(), "call echo on MCP server everything");
    }

    #[test]
    fn tool_names_are_distinct() {
        let mut names = tool_names::ALL.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tool_names::ALL.len());
    }
}
