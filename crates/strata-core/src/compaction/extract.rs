//! The state sheet's extractor: what a span of history did, read from the
//! items themselves with no model call. The loss audit uses the same
//! extractor, so what the sheet promises and what the audit checks agree.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;
use strata_protocol::{COMPACTION_SUMMARY_PREFIX, ResponseItem, Role, tool_names};

use super::sheet::STATE_SHEET_PREFIX;

/// What one file-tool call or shell command did to a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileTouch {
    pub path: String,
    pub action: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandRun {
    pub command: String,
    pub exit_code: Option<i32>,
}

/// A failed call: its subject (tool and path, or the command) and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedCall {
    pub subject: String,
    pub message: String,
}

/// Everything the extractor finds in a span, in history order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub requests: Vec<String>,
    pub rules: Vec<String>,
    pub files: Vec<FileTouch>,
    pub commands: Vec<CommandRun>,
    pub errors: Vec<FailedCall>,
    /// Subjects of calls that succeeded, in order (a later success fixes an
    /// earlier error of the same subject).
    pub successes: Vec<String>,
    pub next_step: Option<String>,
}

#[derive(Deserialize)]
struct PathArgs {
    path: Option<String>,
}

#[derive(Deserialize)]
struct ShellArgs {
    command: String,
}

/// Words that make a sentence of the person's a rule.
const RULE_MARKERS: &[&str] = &[
    "never ",
    "always ",
    "do not ",
    "don't ",
    "must ",
    "must not ",
    "rule:",
];

/// Words that make an assistant line a plan or next step.
const NEXT_STEP_MARKERS: &[&str] = &["next step", "next:", "plan:", "next, i", "then i will"];

/// Short tool outputs that read like these are failures.
const ERROR_MARKERS: &[&str] = &[
    "does not exist",
    "was not found",
    "invalid arguments",
    "denied",
    "escapes the workspace",
    "is not a directory",
    "is a directory",
    "is not utf-8",
    "could not",
    "unknown tool",
    "refused",
    "timed out",
];

static PATH_LIKE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?:[A-Za-z0-9_.\-]+/)+[A-Za-z0-9_.\-]*|[A-Za-z0-9_\-]+\.[A-Za-z][A-Za-z0-9]{0,7}\b",
    )
    .ok()
});

static EXIT_CODE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\[exit code: (-?\d+)\]").ok());

/// Path-like words of a shell command (`src/a.rs`, `vendor/`, `Cargo.toml`).
pub fn paths_in_command(command: &str) -> Vec<String> {
    let Some(regex) = PATH_LIKE.as_ref() else {
        return Vec::new();
    };
    let mut paths: Vec<String> = Vec::new();
    for found in regex.find_iter(command) {
        let path = found.as_str().trim_matches(|c| c == '.' || c == '-');
        if path.is_empty() || path.starts_with("..") || path.chars().all(|c| c == '/') {
            continue;
        }
        if !paths.iter().any(|p| p == path) {
            paths.push(path.to_owned());
        }
    }
    paths
}

fn exit_code(output: &str) -> Option<i32> {
    EXIT_CODE
        .as_ref()?
        .captures_iter(output)
        .last()
        .and_then(|captures| captures.get(1)?.as_str().parse().ok())
}

fn looks_failed(tool: &str, output: &str) -> bool {
    if tool == tool_names::RUN_SHELL {
        return exit_code(output).is_none_or(|code| code != 0);
    }
    // File contents can say anything; only a short, one- or two-line
    // output is a tool's own error message.
    if output.len() > 300 || output.lines().count() > 2 {
        return false;
    }
    let lower = output.to_lowercase();
    ERROR_MARKERS.iter().any(|marker| lower.contains(marker))
}

fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    line.chars().take(200).collect()
}

/// The sentences of a person's message that state a rule, verbatim.
pub fn rules_in(text: &str) -> Vec<String> {
    text.split(['\n', '.', '!', ';'])
        .map(str::trim)
        .filter(|sentence| {
            let lower = format!("{} ", sentence.to_lowercase());
            RULE_MARKERS
                .iter()
                .any(|marker| lower.starts_with(marker) || lower.contains(&format!(" {marker}")))
        })
        .map(str::to_owned)
        .collect()
}

/// The last line of an assistant message that states a plan or next step.
fn next_step_in(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .rfind(|line| {
            let lower = line.to_lowercase();
            NEXT_STEP_MARKERS
                .iter()
                .any(|marker| lower.contains(marker))
        })
        .map(str::to_owned)
}

/// Whether a user-role message is the person's (not a state sheet).
pub fn is_person_message(content: &str) -> bool {
    !content.starts_with(STATE_SHEET_PREFIX) && !content.starts_with(COMPACTION_SUMMARY_PREFIX)
}

/// Reads a span of history (originals, not placeholders) into facts.
pub fn extract(span: &[ResponseItem]) -> Facts {
    let mut facts = Facts::default();
    let mut calls: HashMap<&str, (&str, &str)> = HashMap::new();
    for item in span {
        match item {
            ResponseItem::Message(message) => match message.role {
                Role::User if is_person_message(&message.content) => {
                    facts.requests.push(message.content.clone());
                    facts.rules.extend(rules_in(&message.content));
                }
                Role::Assistant => {
                    if let Some(step) = next_step_in(&message.content) {
                        facts.next_step = Some(step);
                    }
                }
                Role::User | Role::System | Role::Developer => {}
            },
            ResponseItem::FunctionCall(call) => {
                calls.insert(&call.call_id, (&call.name, &call.arguments));
            }
            ResponseItem::FunctionCallOutput(output) => {
                let Some((tool, arguments)) = calls.remove(output.call_id.as_str()) else {
                    continue;
                };
                record_call(&mut facts, tool, arguments, &output.output);
            }
            ResponseItem::CompactionSummary(_) | ResponseItem::Reasoning(_) => {}
        }
    }
    facts
}

fn record_call(facts: &mut Facts, tool: &str, arguments: &str, output: &str) {
    let failed = looks_failed(tool, output);
    let subject = if tool == tool_names::RUN_SHELL {
        let Ok(args) = serde_json::from_str::<ShellArgs>(arguments) else {
            return;
        };
        facts.commands.push(CommandRun {
            command: args.command.clone(),
            exit_code: exit_code(output),
        });
        for path in paths_in_command(&args.command) {
            facts.files.push(FileTouch {
                path,
                action: "shell",
            });
        }
        format!("{tool} `{}`", args.command)
    } else {
        let path = serde_json::from_str::<PathArgs>(arguments)
            .ok()
            .and_then(|args| args.path)
            .unwrap_or_else(|| ".".to_owned());
        let action = match tool {
            tool_names::READ_FILE => "read",
            tool_names::LIST_DIRECTORY => "listed",
            tool_names::SEARCH_TEXT => "searched",
            tool_names::WRITE_FILE => "written",
            tool_names::APPLY_EDIT => "edited",
            _ => "used",
        };
        if !failed {
            facts.files.push(FileTouch {
                path: path.clone(),
                action,
            });
        }
        format!("{tool} {path}")
    };
    if failed {
        facts.errors.push(FailedCall {
            subject,
            message: first_line(output),
        });
    } else {
        facts.successes.push(subject);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, tool: &str, args: &str, output: &str) -> Vec<ResponseItem> {
        vec![
            ResponseItem::function_call(id, tool, args),
            ResponseItem::function_call_output(id, output),
        ]
    }

    #[test]
    fn finds_paths_commands_errors_rules_and_the_next_step() {
        let mut span = vec![ResponseItem::user(
            "Fix the rounding bug. Never edit vendor/ under any circumstances.",
        )];
        span.extend(call(
            "a",
            "read_file",
            r#"{"path":"src/billing/tax.rs"}"#,
            "fn tax() {}",
        ));
        span.extend(call(
            "b",
            "run_shell",
            r#"{"command":"cargo test -p billing"}"#,
            "failed\n[exit code: 101]",
        ));
        span.extend(call(
            "c",
            "apply_edit",
            r#"{"path":"src/billing/tax.rs","old_text":"a","new_text":"b"}"#,
            "Edited src/billing/tax.rs",
        ));
        span.extend(call(
            "d",
            "read_file",
            r#"{"path":"nope.rs"}"#,
            "nope.rs does not exist",
        ));
        span.push(ResponseItem::assistant(
            "Fixed it.\nNext step: run cargo test again.",
        ));
        let facts = extract(&span);
        assert_eq!(facts.rules, ["Never edit vendor/ under any circumstances"]);
        assert_eq!(
            facts.commands,
            [CommandRun {
                command: "cargo test -p billing".into(),
                exit_code: Some(101)
            }]
        );
        let paths: Vec<(&str, &str)> = facts
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.action))
            .collect();
        assert_eq!(
            paths,
            [
                ("src/billing/tax.rs", "read"),
                ("src/billing/tax.rs", "edited")
            ]
        );
        assert_eq!(facts.errors.len(), 2);
        assert_eq!(facts.errors[0].subject, "run_shell `cargo test -p billing`");
        assert_eq!(facts.errors[1].message, "nope.rs does not exist");
        assert_eq!(
            facts.next_step.as_deref(),
            Some("Next step: run cargo test again.")
        );
    }

    #[test]
    fn shell_commands_name_their_paths() {
        assert_eq!(
            paths_in_command("grep -rn TODO src/parser vendor/ && cat Cargo.toml"),
            ["src/parser", "vendor/", "Cargo.toml"]
        );
        assert!(paths_in_command("ls -la").is_empty());
    }
}
