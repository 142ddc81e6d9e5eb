//! Exports: a readable Markdown transcript, made from the same transcript
//! entries the desktop shows and `strata sessions show` prints, or the
//! session's records as JSON lines. The front end writes the text where the
//! person chose (the desktop through its fs plugin, to the one path its save
//! dialog allowed).

use std::fmt::Write as _;

use strata_core::store::SessionRead;
use strata_protocol::{ExportFormat, TranscriptEntry};
use strata_providers::config::model_label;

use crate::error::AppResult;
use crate::transcript::text::{
    compaction_details, created_line, decision_text, error_text, evicted_first, lower_first,
    outcome_text, pretty_arguments, upper_first,
};
use crate::transcript::{TurnNumbers, from_read, instructions, tool_output};

/// The export's text.
pub fn render(read: &SessionRead, format: ExportFormat) -> AppResult<String> {
    match format {
        ExportFormat::Md => Ok(markdown(read, model_label)),
        ExportFormat::Json => Ok(strata_core::export::export_json_lines(read)?),
    }
}

/// What a person reads for a model id (a catalog's label, say).
pub type ModelLabel = fn(&str) -> &str;

/// The transcript as Markdown, in write order: what compaction later
/// removed from the model's view stays, with a divider where each
/// compaction was; tool outputs in full.
pub fn markdown(read: &SessionRead, model_label: ModelLabel) -> String {
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
    if let Some(created) = created_line(&read.records) {
        let _ = writeln!(md, "- Profile: {}", one_line(&created));
    }
    let _ = writeln!(md, "- Compaction policy: {}", state.policy().as_str());
    let _ = writeln!(
        md,
        "- Items: {}, compactions: {}\n",
        state.response_items(),
        state.compactions()
    );
    for (role, text) in instructions(&read.records) {
        let _ = write!(
            md,
            "<details><summary>{} prompt</summary>\n\n{}\n</details>\n\n",
            role.as_str(),
            fenced(text, "text")
        );
    }
    let mut turns = TurnNumbers::default();
    for entry in from_read(read) {
        if let Some(number) = turns.starts(&entry) {
            let _ = write!(md, "## Turn {number}\n\n");
        }
        md.push_str(&render_entry(&entry, read, model_label));
    }
    md
}

fn render_entry(entry: &TranscriptEntry, read: &SessionRead, model_label: ModelLabel) -> String {
    match entry {
        TranscriptEntry::User { text, .. } => format!("**You:**\n\n{text}\n\n"),
        TranscriptEntry::Thinking { text, .. } => {
            let quoted: Vec<String> = text.lines().map(|line| format!("> {line}")).collect();
            format!("**Thinking:**\n\n{}\n\n", quoted.join("\n"))
        }
        TranscriptEntry::Assistant {
            text,
            model,
            unsaved,
            ..
        } => {
            let who = match model {
                Some(model) => format!("**Assistant** ({}):", model_label(model)),
                None => "**Assistant:**".to_owned(),
            };
            let unsaved = match unsaved {
                Some(_) => " *(not saved: the turn ended before the answer did)*",
                None => "",
            };
            format!("{who}{unsaved}\n\n{text}\n\n")
        }
        TranscriptEntry::Tool(tool) => {
            let mut text = format!(
                "**Tool call** `{}`:\n\n{}\n",
                tool.name,
                fenced(&pretty_arguments(&tool.arguments), "json")
            );
            if let Some(output) = tool_output(&read.records, &tool.call_id) {
                let _ = write!(
                    text,
                    "**Tool output** `{}`:\n\n{}\n",
                    tool.name,
                    fenced(&output, "text")
                );
            }
            if let Some(decision) = tool.approval.as_ref().and_then(|a| a.decision) {
                let _ = write!(
                    text,
                    "*Approval: `{}` {}.*\n\n",
                    tool.name,
                    decision_text(decision)
                );
            }
            text
        }
        TranscriptEntry::Compaction {
            summary,
            state_sheet,
            undone,
            eviction,
            ..
        } => {
            let mut text = format!(
                "---\n\n**History compacted {}.** {}\n\n> {}\n\n",
                compaction_details(summary),
                one_line(&summary.metadata.reason),
                summary.summary.lines().collect::<Vec<_>>().join("\n> ")
            );
            if let Some(sheet) = state_sheet {
                let _ = write!(
                    text,
                    "<details><summary>State sheet</summary>\n\n{}\n</details>\n\n",
                    fenced(sheet, "text")
                );
            }
            if let Some(eviction) = eviction {
                let _ = write!(text, "*{}.*\n\n", upper_first(&evicted_first(eviction)));
            }
            if *undone {
                text.push_str("*This compaction was undone.*\n\n");
            }
            text.push_str("---\n\n");
            text
        }
        TranscriptEntry::Eviction { eviction, .. } => format!(
            "*{} older tool outputs ({} characters) were replaced by placeholders in the model's view; the originals are above.*\n\n",
            eviction.evicted.len(),
            eviction.evicted.iter().map(|e| e.chars).sum::<u64>()
        ),
        TranscriptEntry::Error {
            message,
            model_error,
            ..
        } => format!(
            "> **Error:** {}\n\n",
            one_line(&error_text(message, model_error.as_ref()))
        ),
        TranscriptEntry::CompactionProblem { message, .. } => {
            format!("> **Warning:** {}\n\n", one_line(message))
        }
        TranscriptEntry::Retry {
            attempt,
            of,
            delay_ms,
            cause,
            ..
        } => format!(
            "*Retry {attempt}/{of} in {delay_ms} ms: {}*\n\n",
            one_line(cause)
        ),
        TranscriptEntry::TurnEnd {
            outcome, rounds, ..
        } => format!(
            "*Turn {} after {rounds} round(s).*\n\n",
            outcome_text(*outcome)
        ),
        TranscriptEntry::Fork { text, origin, .. } => format!(
            "*{}.* (Parent session: `{}`.)\n\n",
            one_line(text),
            origin.parent_session_id
        ),
        TranscriptEntry::Notice { text, .. } => {
            format!("*{}.*\n\n", one_line(&lower_first(text)))
        }
        TranscriptEntry::Recovery { text, .. } => {
            format!("> **Recovered:** {}\n\n", one_line(text))
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
#[path = "export_tests.rs"]
mod tests;
