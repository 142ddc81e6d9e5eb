//! The loss audit on another tool's compaction: Strata's own state-sheet
//! extractor reads the items before the compaction, and whatever it finds
//! (paths, commands, errors, rules) that is absent from what the model saw
//! after it (the readable summary plus the items the file says were kept)
//! is listed as lost. Pure: nothing here reads a file.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::Value;
use strata_core::compaction::{extract, is_person_message, loss_audit};
use strata_import::{
    CompactionKind, ImportedCompaction, ImportedItem, ImportedSession, ImportedSummary, ItemKind,
};
use strata_protocol::{ImportedLossAudit, ResponseItem, StateSheet, tool_names};

/// Every compaction's audit, in order: each one's span starts where the
/// previous full compaction left off.
pub fn session_audits(session: &ImportedSession) -> Vec<Option<ImportedLossAudit>> {
    let mut since = 0;
    session
        .compactions
        .iter()
        .map(|compaction| {
            let audit = audit_compaction(&session.items, since, compaction);
            if audit.is_some() {
                since = compaction.at_item;
            }
            audit
        })
        .collect()
}

/// The audit of `items[start..compaction.at_item]` (the items since the
/// previous compaction); `None` for a microcompaction, which clears tool
/// results without a summary.
pub fn audit_compaction(
    items: &[ImportedItem],
    start: usize,
    compaction: &ImportedCompaction,
) -> Option<ImportedLossAudit> {
    if !matches!(compaction.kind, CompactionKind::Full) {
        return None;
    }
    let end = compaction.at_item.min(items.len());
    let start = start.min(end);
    let mut shells: HashSet<&str> = HashSet::new();
    let before: Vec<ResponseItem> = items[start..end]
        .iter()
        .filter_map(|item| as_strata(item, &mut shells))
        .collect();
    let facts = extract(&before);
    let (against_summary, mut seen) = match &compaction.summary {
        ImportedSummary::Text(text) => (true, text.clone()),
        ImportedSummary::Encrypted | ImportedSummary::Absent => (false, String::new()),
    };
    for text in kept_texts(&items[..end], compaction) {
        seen.push('\n');
        seen.push_str(text);
    }
    let audit = loss_audit(&facts, &seen, &StateSheet::default());
    let mut rules: Vec<String> = Vec::new();
    for rule in facts.rules {
        if !seen.contains(rule.as_str()) && !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    Some(ImportedLossAudit {
        against_summary,
        paths: audit.paths,
        commands: audit.commands,
        errors: audit.errors,
        rules,
    })
}

/// The person's messages the compaction kept verbatim: the last
/// `kept.user_messages` of them, where the file lists what it kept.
fn kept_texts<'a>(items: &'a [ImportedItem], compaction: &ImportedCompaction) -> Vec<&'a str> {
    let wanted = compaction.kept.map_or(0, |kept| {
        usize::try_from(kept.user_messages).unwrap_or(usize::MAX)
    });
    let mut texts: Vec<&str> = items
        .iter()
        .rev()
        .filter_map(|item| match &item.kind {
            ItemKind::User { text } if is_person_message(text) => Some(text.as_str()),
            _ => None,
        })
        .take(wanted)
        .collect();
    texts.reverse();
    texts
}

#[derive(Deserialize)]
struct AnyArgs {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    file_path: Option<String>,
    #[serde(default)]
    command: Option<Value>,
    #[serde(default)]
    cmd: Option<String>,
}

/// One imported item in the shape Strata's extractor reads: other tools'
/// file and shell tools are renamed to Strata's, their arguments reduced to
/// `{"path"}` or `{"command"}`.
/// `shells` collects the shell calls' ids, so their outputs get the exit
/// line the extractor reads.
fn as_strata<'a>(item: &'a ImportedItem, shells: &mut HashSet<&'a str>) -> Option<ResponseItem> {
    match &item.kind {
        ItemKind::User { text } => Some(ResponseItem::user(text.clone())),
        ItemKind::Assistant { text } => Some(ResponseItem::assistant(text.clone())),
        ItemKind::Reasoning { .. } => None,
        ItemKind::ToolCall {
            call_id,
            name,
            arguments,
        } => {
            let (tool, arguments) = strata_call(name, &arguments.text);
            if tool == tool_names::RUN_SHELL {
                shells.insert(call_id);
            }
            Some(ResponseItem::function_call(
                call_id.clone(),
                tool,
                arguments,
            ))
        }
        ItemKind::ToolOutput {
            call_id,
            output,
            is_error,
        } => {
            let mut text = output.text.clone();
            // The extractor reads a shell's failure from Strata's exit-code
            // line; other tools say it with a flag or in their own words.
            // A command whose outcome the file does not state is not listed
            // as an error: the audit claims only what the file shows.
            if shells.contains(call_id.as_str()) && !text.contains("[exit code:") {
                let code = match is_error {
                    Some(failed) => i32::from(*failed),
                    None => stated_exit_code(&text).unwrap_or(0),
                };
                text.push_str(&format!("\n[exit code: {code}]"));
            }
            Some(ResponseItem::function_call_output(call_id.clone(), text))
        }
    }
}

/// Codex's `Exit code: N` line or `"exit_code": N` field.
fn stated_exit_code(output: &str) -> Option<i32> {
    let lower = output.to_lowercase();
    ["exit code: ", "\"exit_code\":"].iter().find_map(|marker| {
        let rest = lower[lower.find(marker)? + marker.len()..].trim_start();
        let end = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(rest.len(), |(i, _)| i);
        rest[..end].parse().ok()
    })
}

fn strata_call(name: &str, arguments: &str) -> (String, String) {
    let args: Option<AnyArgs> = serde_json::from_str(arguments).ok();
    let command = args.as_ref().and_then(|a| match (&a.command, &a.cmd) {
        (Some(Value::String(command)), _) => Some(command.clone()),
        // Codex's `shell` passes an argv: `["bash", "-lc", "cargo test"]`.
        (Some(Value::Array(argv)), _) => argv.last().and_then(Value::as_str).map(str::to_owned),
        (_, Some(cmd)) => Some(cmd.clone()),
        _ => None,
    });
    let path = args.and_then(|a| a.path.or(a.file_path));
    let lower = name.to_lowercase();
    let tool = match lower.as_str() {
        "bash" | "shell" | "exec_command" | "local_shell" | "powershell" => tool_names::RUN_SHELL,
        "read" | "view" | "read_file" => tool_names::READ_FILE,
        "write" | "create" | "write_file" => tool_names::WRITE_FILE,
        "edit" | "multiedit" | "str_replace" | "apply_edit" => tool_names::APPLY_EDIT,
        "ls" | "list_directory" => tool_names::LIST_DIRECTORY,
        "grep" | "glob" | "search_text" => tool_names::SEARCH_TEXT,
        _ => return (name.to_owned(), arguments.to_owned()),
    };
    let arguments = if tool == tool_names::RUN_SHELL {
        serde_json::json!({ "command": command.unwrap_or_default() })
    } else {
        serde_json::json!({ "path": path })
    };
    (tool.to_owned(), arguments.to_string())
}

#[cfg(test)]
#[path = "imported_loss_tests.rs"]
mod tests;
