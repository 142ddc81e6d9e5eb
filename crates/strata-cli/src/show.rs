//! `strata sessions show SESSION`: the transcript on a terminal (or as plain
//! text when piped): the same entries strata-app folds for the desktop, the
//! session's instructions under the header.

use std::io::Write;

use strata_app::transcript::text::{
    compact_arguments, compaction_line, created_line, decision_text, error_text, evicted_first,
    lower_first, outcome_text, trigger_name,
};
use strata_app::transcript::{TurnNumbers, from_read, instructions};
use strata_core::CoreError;
use strata_core::store::SessionRead;
use strata_protocol::{CompactionProblem, ToolEntry, TranscriptEntry};
use strata_providers::config::model_label;

use crate::store::Context;
use crate::style::{
    ASSISTANT, BOLD, COMPACTION, DIM, ERROR, TOOL, USER, WARN, indented, one_line, paint,
};
use crate::visible::visible_inline;

/// Tool output lines shown before the rest is folded away (the export keeps all).
const OUTPUT_LINES: usize = 12;

pub fn show(ctx: &Context, query: &str) -> crate::error::Result<()> {
    let read = match ctx.browse(query) {
        Ok(read) => read,
        Err(missing @ CoreError::SessionNotFound { .. }) => {
            return crate::imported::show_instead(ctx, query, false, missing);
        }
        Err(error) => return Err(error.into()),
    };
    let mut out = ctx.out.stdout();
    write!(out, "{}", header(&read))?;
    for (role, text) in instructions(&read.records) {
        write!(
            out,
            "{}\n{}",
            paint(DIM, role.as_str()),
            paint(DIM, indented(text, "  "))
        )?;
    }
    let mut turns = TurnNumbers::default();
    for entry in from_read(&read) {
        if let Some(number) = turns.starts(&entry) {
            write!(out, "\n{}\n", paint(DIM, format!("── turn {number} ──")))?;
        }
        write!(out, "{}", render(&entry))?;
    }
    Ok(())
}

fn header(read: &SessionRead) -> String {
    let state = read.replay();
    let meta = &read.meta;
    let title = state.title().unwrap_or_else(|| "(untitled)".to_owned());
    let compactions = match state.compactions() {
        1 => "1 compaction".to_owned(),
        n => format!("{n} compactions"),
    };
    // What the session was created on and its policy: the desktop's header
    // info, not lines of the transcript.
    let created = created_line(&read.records)
        .map(|line| format!("{} · ", visible_inline(&line)))
        .unwrap_or_default();
    let tally = strata_core::store::session_cost(&meta.model, &read.records);
    let cost = match (&tally.total, tally.unpriced_rounds) {
        (Some(total), 0) => format!("cost {} (prices of {})", total.usd, total.price_as_of),
        (Some(total), n) => format!(
            "cost {} (prices of {}) + {n} model calls with no price",
            total.usd, total.price_as_of
        ),
        (None, _) => "cost: no price".to_owned(),
    };
    let facts = paint(
        DIM,
        format!(
            "{created}compaction policy: {} · {}",
            state.policy().as_str(),
            visible_inline(&cost)
        ),
    );
    format!(
        "{} {}\n{}\n{facts}\n\n",
        paint(BOLD, format!("session {}", meta.session_id)),
        paint(BOLD, visible_inline(&title)),
        paint(
            DIM,
            format!(
                "created {} · {} · {}/{} · {} items · {compactions}",
                meta.created_at.format("%Y-%m-%d %H:%M:%S UTC"),
                visible_inline(&meta.workspace),
                visible_inline(&meta.provider_kind),
                visible_inline(&meta.model),
                state.response_items(),
            )
        ),
    )
}

/// One entry as terminal text.
pub fn render(entry: &TranscriptEntry) -> String {
    let line = |style, text: String| format!("{}\n", paint(style, visible_inline(&text)));
    match entry {
        TranscriptEntry::User { text, .. } => {
            format!("{}\n{}", paint(USER, "you"), indented(text, "  "))
        }
        TranscriptEntry::Assistant {
            text,
            model,
            unsaved,
            ..
        } => {
            let label = match model {
                Some(model) => paint(
                    ASSISTANT,
                    format!("assistant ({})", visible_inline(model_label(model))),
                ),
                None => paint(ASSISTANT, "assistant"),
            };
            let unsaved = match unsaved {
                Some(_) => paint(DIM, " (not saved: the turn ended before the answer did)"),
                None => String::new(),
            };
            format!("{label}{unsaved}\n{}", indented(text, "  "))
        }
        TranscriptEntry::Thinking { text, .. } => {
            format!(
                "{}\n{}",
                paint(DIM, "thinking"),
                paint(DIM, indented(text, "  "))
            )
        }
        TranscriptEntry::Tool(tool) => tool_card(tool),
        TranscriptEntry::Compaction {
            summary,
            state_sheet,
            undone,
            eviction,
            ..
        } => {
            let mut text = format!(
                "\n{}\n{}{}",
                paint(COMPACTION, format!("══ {} ══", compaction_line(summary))),
                paint(DIM, indented(&summary.metadata.reason, "  ")),
                indented(&summary.summary, "  ")
            );
            if let Some(sheet) = state_sheet {
                text.push_str(&paint(DIM, indented(sheet, "  ")));
            }
            if let Some(eviction) = eviction {
                text.push_str(&line(DIM, format!("  ({})", evicted_first(eviction))));
            }
            if *undone {
                text.push_str(&line(DIM, "  (this compaction was undone)".to_owned()));
            }
            text.push('\n');
            text
        }
        TranscriptEntry::Eviction { eviction, .. } => line(
            COMPACTION,
            format!(
                "── {} older tool outputs ({} chars) evicted from the model's view; the originals stay above ──",
                eviction.evicted.len(),
                eviction.evicted.iter().map(|e| e.chars).sum::<u64>()
            ),
        ),
        TranscriptEntry::Error {
            message,
            model_error,
            ..
        } => line(
            ERROR,
            format!("error: {}", error_text(message, model_error.as_ref())),
        ),
        TranscriptEntry::CompactionProblem {
            problem,
            message,
            trigger,
            ..
        } => {
            let what = match problem {
                CompactionProblem::SummaryFailed => "compaction failed",
                CompactionProblem::Refused => "compaction refused by the rule check",
            };
            let trigger = trigger
                .map(|trigger| format!(" ({})", trigger_name(trigger)))
                .unwrap_or_default();
            line(WARN, format!("{what}{trigger}: {message}"))
        }
        TranscriptEntry::Retry {
            attempt,
            of,
            delay_ms,
            cause,
            ..
        } => line(
            DIM,
            format!("retry {attempt}/{of} in {delay_ms} ms: {cause}"),
        ),
        TranscriptEntry::TurnEnd {
            outcome, rounds, ..
        } => {
            let rounds = match rounds {
                1 => "1 round".to_owned(),
                n => format!("{n} rounds"),
            };
            line(DIM, format!("turn {} · {rounds}", outcome_text(*outcome)))
        }
        TranscriptEntry::Notice { text, .. } => line(DIM, lower_first(text)),
        // A terminal names the parent by its id: what `sessions show` takes.
        TranscriptEntry::Fork { text, origin, .. } => line(
            DIM,
            format!(
                "{} (parent session {})",
                lower_first(text),
                origin.parent_session_id
            ),
        ),
        TranscriptEntry::Recovery { text, .. } => line(WARN, format!("recovered: {text}")),
    }
}

/// A tool call, its output (folded after a few lines) and its approval.
fn tool_card(tool: &ToolEntry) -> String {
    let name = visible_inline(&tool.name);
    let mut text = format!(
        "{} {}\n",
        paint(TOOL, format!("→ {name}")),
        one_line(&compact_arguments(&tool.arguments), 160)
    );
    if let Some(output) = &tool.output {
        text.push_str(&format!(
            "{}\n{}",
            paint(TOOL, format!("← {name}")),
            folded(&output.preview)
        ));
        if tool.capped {
            text.push_str(&format!(
                "{}\n",
                paint(
                    DIM,
                    format!(
                        "  (the output was capped in the history; the full {} characters are kept, see `strata sessions export`)",
                        output.chars
                    )
                )
            ));
        }
    }
    if let Some(decision) = tool.approval.as_ref().and_then(|a| a.decision) {
        text.push_str(&format!(
            "{}\n",
            paint(
                WARN,
                format!("approval: {name} {}", decision_text(decision))
            )
        ));
    }
    text
}

/// A tool output indented, cut after [`OUTPUT_LINES`] lines.
fn folded(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    if lines.len() <= OUTPUT_LINES {
        return indented(output, "  ");
    }
    let shown = lines[..OUTPUT_LINES].join("\n");
    format!(
        "{}{}\n",
        indented(&shown, "  "),
        paint(
            DIM,
            format!("  … {} more lines", lines.len() - OUTPUT_LINES)
        )
    )
}
