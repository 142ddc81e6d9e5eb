//! `export_session`: a readable Markdown transcript, or the session's records
//! as one JSON array (the objects are exactly the file's lines). Written by
//! the shell, so the UI needs no filesystem access: it only picks the path.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use strata_core::store::SessionRead;
use strata_protocol::{ExportFormat, RecordBody, ResponseItem, Role, TurnOutcome};

use crate::errors::{CommandResult, internal, invalid_input, io};

fn extension(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Md => "md",
        ExportFormat::Json => "json",
    }
}

/// Where the export goes: the chosen path, with the format's extension
/// added when the save dialog returned a name without one.
pub fn target_path(chosen: &str, format: ExportFormat) -> CommandResult<PathBuf> {
    let path = PathBuf::from(chosen.trim());
    if !path.is_absolute() || path.file_name().is_none() {
        return Err(invalid_input(format!(
            "Choose a file to export to (got {chosen:?})."
        )));
    }
    if path.extension().is_none() {
        return Ok(path.with_extension(extension(format)));
    }
    Ok(path)
}

/// The export's text.
pub fn render(read: &SessionRead, format: ExportFormat) -> CommandResult<String> {
    match format {
        ExportFormat::Md => Ok(markdown(read)),
        ExportFormat::Json => serde_json::to_string_pretty(&read.records)
            .map(|mut text| {
                text.push('\n');
                text
            })
            .map_err(|error| internal(format!("Could not encode the session: {error}"))),
    }
}

/// Writes `text` to `path`, which must be in an existing folder.
pub fn write(path: &Path, text: &str) -> CommandResult<()> {
    std::fs::write(path, text)
        .map_err(|error| io(format!("Could not write {}: {error}", path.display())))
}

/// The transcript as Markdown, in write order: what compaction later removed
/// from the model's view stays, with a divider where each compaction was.
pub fn markdown(read: &SessionRead) -> String {
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
        meta.created_at.format("%Y-%m-%d %H:%M UTC")
    );
    let _ = writeln!(md, "- Workspace: `{}`", meta.workspace);
    let _ = writeln!(md, "- Model: {} ({})\n", meta.model, meta.provider_kind);
    for record in &read.records {
        match &record.body {
            RecordBody::ResponseItem(item) => item_markdown(&mut md, item),
            RecordBody::TurnFinished(finished) if finished.outcome != TurnOutcome::Completed => {
                let _ = writeln!(md, "*The turn ended: {:?}.*\n", finished.outcome);
            }
            RecordBody::Error(error) => {
                let _ = writeln!(md, "> **Error:** {}\n", one_line(&error.message));
            }
            RecordBody::TitleSet(title) => {
                let _ = writeln!(md, "*Renamed to “{}”.*\n", one_line(&title.title));
            }
            _ => {}
        }
    }
    md
}

fn item_markdown(md: &mut String, item: &ResponseItem) {
    match item {
        ResponseItem::Message(message) => match message.role {
            Role::System | Role::Developer => {}
            Role::User => {
                let _ = writeln!(md, "## You\n\n{}\n", message.content);
            }
            Role::Assistant => {
                let _ = writeln!(md, "## Strata\n\n{}\n", message.content);
            }
        },
        ResponseItem::FunctionCall(call) => {
            let _ = writeln!(
                md,
                "**Tool call** `{}`\n\n{}",
                call.name,
                fenced(&call.arguments, "json")
            );
        }
        ResponseItem::FunctionCallOutput(output) => {
            let _ = writeln!(md, "**Tool output**\n\n{}", fenced(&output.output, "text"));
        }
        ResponseItem::CompactionSummary(summary) => {
            let quoted = summary.summary.lines().collect::<Vec<_>>().join("\n> ");
            let _ = writeln!(
                md,
                "---\n\n**History compacted** ({} items summarised, {} kept).\n\n> {quoted}\n\n---\n",
                summary.metadata.removed, summary.metadata.kept
            );
        }
        ResponseItem::Reasoning(_) => {}
    }
}

/// `text` in a fenced block whose fence outgrows any backtick run inside.
fn fenced(text: &str, language: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}{language}\n{body}\n{fence}\n")
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_without_extension_gets_the_formats() {
        let path = target_path("/tmp/notes", ExportFormat::Md).unwrap();
        assert_eq!(path, Path::new("/tmp/notes.md"));
        let path = target_path("/tmp/notes.txt", ExportFormat::Json).unwrap();
        assert_eq!(path, Path::new("/tmp/notes.txt"));
        assert!(target_path("notes.md", ExportFormat::Md).is_err());
        assert!(target_path("", ExportFormat::Md).is_err());
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fenced("a", "text"), "```text\na\n```\n");
        assert_eq!(fenced("x ```` y", ""), "`````\nx ```` y\n`````\n");
    }
}
