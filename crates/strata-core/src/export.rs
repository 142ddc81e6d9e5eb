//! A session exported for people and programs, the same from every front
//! end: a readable Markdown transcript ([`export_markdown`]), or the
//! session's records as JSON lines, exactly the objects of the file
//! ([`export_json_lines`]).

use std::fmt::Write as _;

use strata_protocol::{ExportFormat, Role};

use crate::error::Result;
use crate::store::SessionRead;
use crate::transcript::{
    Entry, compaction_details, decision_text, entries, error_text, outcome_text, pretty_arguments,
    profile_line,
};

/// What a person reads for a model id (a catalog's label, say); `|id| id`
/// shows the ids as written.
pub type ModelLabel = fn(&str) -> &str;

/// The export of `read` in `format`.
pub fn export(read: &SessionRead, format: ExportFormat, model_label: ModelLabel) -> Result<String> {
    match format {
        ExportFormat::Md => Ok(export_markdown(read, model_label)),
        ExportFormat::Json => export_json_lines(read),
    }
}

/// Every record the read kept, one JSON object per line, as in the file.
pub fn export_json_lines(read: &SessionRead) -> Result<String> {
    let mut text = String::new();
    for record in &read.records {
        text.push_str(&serde_json::to_string(record)?);
        text.push('\n');
    }
    Ok(text)
}

/// The transcript as Markdown, in write order: what compaction later
/// removed from the model's view stays, with a divider where each
/// compaction was.
pub fn export_markdown(read: &SessionRead, model_label: ModelLabel) -> String {
    let state = read.replay();
    let meta = &read.meta;
    let mut md = String::new();
    let title = state
        .title()
        .unwrap_or_else(|| "Untitled session".to_owned());
    // Writing into a String cannot fail.
    let _ = writeln!(md, "# {}\n", one_line(&title));
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
        md.push_str(&render(&entry, model_label));
    }
    md
}

fn render(entry: &Entry<'_>, model_label: ModelLabel) -> String {
    match entry {
        Entry::Title(title) => format!("*Renamed to “{}”.*\n\n", one_line(title)),
        Entry::Profile(profile) => format!("*{}.*\n\n", one_line(&profile_line(profile))),
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
            (Role::Assistant, Some(model)) => {
                format!("**Assistant** ({}):\n\n{content}\n\n", model_label(model))
            }
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
            "---\n\n**History compacted {}.** {}\n\n> {}\n\n---\n\n",
            compaction_details(summary),
            one_line(&summary.metadata.reason),
            summary.summary.lines().collect::<Vec<_>>().join("\n> ")
        ),
        Entry::StateSheet(text) => format!(
            "<details><summary>State sheet</summary>\n\n{}\n</details>\n\n",
            fenced(text, "text")
        ),
        Entry::Eviction { outputs, chars } => format!(
            "*{outputs} older tool outputs ({chars} characters) were replaced by placeholders in the model's view; the originals are above.*\n\n"
        ),
        Entry::ContextNote(note) => format!("*{}.*\n\n", one_line(note)),
        Entry::Approval { tool, decision } => {
            format!("*Approval: `{tool}` {}.*\n\n", decision_text(*decision))
        }
        Entry::Retry(retry) => format!(
            "*Retry {}/{} in {} ms: {}*\n\n",
            retry.attempt,
            retry.of,
            retry.delay_ms,
            one_line(&retry.cause)
        ),
        Entry::Error(error) => format!("> **Error:** {}\n\n", one_line(&error_text(error))),
        Entry::TurnFinished { outcome, rounds } => format!(
            "*Turn {} after {rounds} round(s).*\n\n",
            outcome_text(*outcome)
        ),
        Entry::Unknown(record_type) => {
            format!("*(A `{record_type}` record from a newer Strata, not shown.)*\n\n")
        }
    }
}

/// `text` in a fenced code block whose fence is longer than any backtick run
/// inside it.
fn fenced(text: &str, language: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}{language}\n{body}\n{fence}\n")
}

/// `text` on one line, its runs of white space folded into single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
