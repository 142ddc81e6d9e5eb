//! `strata sessions export SESSION --format md|json`: a readable Markdown
//! transcript, or the session's records as JSON lines.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use strata_core::store::SessionRead;
use strata_protocol::Role;

use crate::cli::ExportFormat;
use crate::error::CliError;
use crate::store::Context;
use crate::transcript::{Entry, compaction_line, decision_text, entries, outcome_text};

pub fn export(
    ctx: &Context,
    query: &str,
    format: ExportFormat,
    output: Option<&Path>,
) -> crate::error::Result<()> {
    let read = ctx.browse(query)?;
    let text = match format {
        ExportFormat::Md => markdown(&read),
        ExportFormat::Json => json_lines(&read)?,
    };
    match output {
        Some(path) => std::fs::write(path, text).map_err(|source| CliError::Io {
            action: "write",
            path: path.to_owned(),
            source,
        })?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(())
}

/// Every record the read kept, one JSON object per line, as in the file.
fn json_lines(read: &SessionRead) -> serde_json::Result<String> {
    let mut text = String::new();
    for record in &read.records {
        text.push_str(&serde_json::to_string(record)?);
        text.push('\n');
    }
    Ok(text)
}

/// The transcript as Markdown.
pub fn markdown(read: &SessionRead) -> String {
    let state = read.replay();
    let meta = &read.meta;
    let mut md = String::new();
    let title = state
        .title()
        .unwrap_or_else(|| "Untitled session".to_owned());
    // Writing into a String cannot fail.
    let _ = writeln!(md, "# {}\n", one_line_md(&title));
    let _ = writeln!(md, "- Session: `{}`", meta.session_id);
    let _ = writeln!(
        md,
        "- Created: {}",
        meta.created_at.format("%Y-%m-%d %H:%M:%S UTC")
    );
    let _ = writeln!(md, "- Workspace: `{}`", meta.workspace);
    let _ = writeln!(md, "- Model: {} / {}", meta.provider_kind, meta.model);
    let _ = writeln!(
        md,
        "- Items: {}, compactions: {}\n",
        state.response_items(),
        state.compactions()
    );
    for entry in entries(read) {
        md.push_str(&render(&entry));
    }
    md
}

fn render(entry: &Entry<'_>) -> String {
    match entry {
        Entry::Title(title) => format!("*Renamed to “{}”.*\n\n", one_line_md(title)),
        Entry::TurnStarted { number, at } => format!(
            "## Turn {number}\n\n*{}*\n\n",
            at.format("%Y-%m-%d %H:%M:%S UTC")
        ),
        Entry::Message {
            role,
            content,
            model,
        } => match (role, model) {
            (Role::System | Role::Developer, _) => format!(
                "<details><summary>{} prompt</summary>\n\n{}\n</details>\n\n",
                role.as_str(),
                fenced(content, "text")
            ),
            (Role::User, _) => format!("**You:**\n\n{content}\n\n"),
            (Role::Assistant, Some(model)) => format!("**Assistant** ({model}):\n\n{content}\n\n"),
            (Role::Assistant, None) => format!("**Assistant:**\n\n{content}\n\n"),
        },
        Entry::ToolCall { name, arguments } => format!(
            "**Tool call** `{name}`:\n\n{}\n",
            fenced(&pretty_arguments(arguments), "json")
        ),
        Entry::ToolOutput { name, output } => format!(
            "**Tool output**{}:\n\n{}\n",
            name.map(|name| format!(" `{name}`")).unwrap_or_default(),
            fenced(output, "text")
        ),
        Entry::FullToolOutput(full) => format!(
            "<details><summary>Full output ({} characters; the history holds the capped text above)</summary>\n\n{}\n</details>\n\n",
            full.chars().count(),
            fenced(full, "text")
        ),
        Entry::Reasoning { provider } => format!("*({provider} reasoning)*\n\n"),
        Entry::Compaction(summary) => format!(
            "---\n\n**{}.** {}\n\n> {}\n\n---\n\n",
            capitalised(&compaction_line(summary)),
            one_line_md(&summary.metadata.reason),
            summary.summary.lines().collect::<Vec<_>>().join("\n> ")
        ),
        Entry::Approval { tool, decision } => {
            format!("*Approval: `{tool}` {}.*\n\n", decision_text(*decision))
        }
        Entry::Retry(retry) => format!(
            "*Retry {}/{} in {} ms: {}*\n\n",
            retry.attempt,
            retry.of,
            retry.delay_ms,
            one_line_md(&retry.cause)
        ),
        Entry::Error(error) => {
            let detail = error
                .model_error
                .as_ref()
                .map(|model_error| format!(" ({model_error})"))
                .unwrap_or_default();
            format!(
                "> **Error:** {}\n\n",
                one_line_md(&format!("{}{detail}", error.message))
            )
        }
        Entry::TurnFinished { outcome, rounds } => {
            format!(
                "*Turn {} after {rounds} round(s).*\n\n",
                outcome_text(*outcome)
            )
        }
        Entry::Unknown(record_type) => {
            format!("*(A `{record_type}` record from a newer Strata, not shown.)*\n\n")
        }
    }
}

/// A function call's arguments, pretty-printed when they parse as JSON.
fn pretty_arguments(arguments: &str) -> String {
    serde_json::from_str::<serde_json::Value>(arguments)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| arguments.to_owned())
}

/// `text` in a fenced code block whose fence is longer than any backtick run
/// inside it.
fn fenced(text: &str, language: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}{language}\n{body}\n{fence}\n")
}

fn one_line_md(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backtick_runs_inside() {
        assert_eq!(fenced("a", "text"), "```text\na\n```\n");
        assert_eq!(fenced("x ```` y\n", ""), "`````\nx ```` y\n`````\n");
    }
}
