//! `strata sessions show SESSION`: the transcript on a terminal (or as plain
//! text when piped).

use std::io::Write;

use strata_core::store::SessionRead;
use strata_core::transcript::{
    Entry, compact_arguments, compaction_line, decision_text, entries, error_text, outcome_text,
    profile_line,
};
use strata_protocol::Role;
use strata_providers::config::model_label;

use crate::store::Context;
use crate::style::{
    ASSISTANT, BOLD, COMPACTION, DIM, ERROR, TOOL, USER, WARN, indented, one_line, paint,
};
use crate::visible::visible_inline;

/// Tool output lines shown before the rest is folded away (the export keeps all).
const OUTPUT_LINES: usize = 12;

pub fn show(ctx: &Context, query: &str) -> crate::error::Result<()> {
    let read = ctx.browse(query)?;
    let mut out = ctx.out.stdout();
    write!(out, "{}", header(&read))?;
    for entry in entries(&read) {
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
    format!(
        "{} {}\n{}\n\n",
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

fn render(entry: &Entry<'_>) -> String {
    match entry {
        Entry::Title(title) => format!(
            "{}\n",
            paint(DIM, format!("renamed to \"{}\"", visible_inline(title)))
        ),
        Entry::Profile(profile) => {
            format!("{}\n", paint(DIM, visible_inline(&profile_line(profile))))
        }
        Entry::TurnStarted { number, at } => format!(
            "\n{}\n",
            paint(
                DIM,
                format!("── turn {number} · {} ──", at.format("%Y-%m-%d %H:%M:%S"))
            )
        ),
        Entry::Message {
            role,
            content,
            model,
        } => {
            let label = match (role, model) {
                (Role::System, _) => paint(DIM, "system"),
                (Role::Developer, _) => paint(DIM, "developer"),
                (Role::User, _) => paint(USER, "you"),
                (Role::Assistant, Some(model)) => {
                    let label = model_label(model);
                    paint(ASSISTANT, format!("assistant ({})", visible_inline(label)))
                }
                (Role::Assistant, None) => paint(ASSISTANT, "assistant"),
            };
            let body = if matches!(role, Role::System | Role::Developer) {
                paint(DIM, indented(content, "  "))
            } else {
                indented(content, "  ")
            };
            format!("{label}\n{body}")
        }
        Entry::ToolCall { name, arguments } => format!(
            "{} {}\n",
            paint(TOOL, format!("→ {}", visible_inline(name))),
            one_line(&compact_arguments(arguments), 160)
        ),
        Entry::ToolOutput { name, output } => {
            let name = visible_inline(name.unwrap_or("tool output"));
            let label = paint(TOOL, format!("← {name}"));
            format!("{label}\n{}", folded(output))
        }
        Entry::FullToolOutput(full) => format!(
            "{}\n",
            paint(
                DIM,
                format!(
                    "  (the output above was capped in the history; the full {} characters are kept, see `strata sessions export`)",
                    full.chars().count()
                )
            )
        ),
        Entry::Reasoning { provider } => {
            let provider = visible_inline(provider);
            format!("{}\n", paint(DIM, format!("({provider} reasoning)")))
        }
        Entry::Compaction(summary) => format!(
            "\n{}\n{}{}\n",
            paint(COMPACTION, format!("══ {} ══", compaction_line(summary))),
            paint(DIM, indented(&summary.metadata.reason, "  ")),
            indented(&summary.summary, "  ")
        ),
        Entry::StateSheet(text) => format!("{}\n", paint(DIM, indented(text, "  "))),
        Entry::Eviction { outputs, chars } => format!(
            "{}\n",
            paint(
                COMPACTION,
                format!(
                    "── {outputs} older tool outputs ({chars} chars) evicted from the model's view; the originals stay above ──"
                )
            )
        ),
        Entry::ContextNote(note) => format!(
            "{}\n",
            paint(COMPACTION, format!("── {} ──", visible_inline(note)))
        ),
        Entry::Approval { tool, decision } => format!(
            "{}\n",
            paint(
                WARN,
                format!(
                    "approval: {} {}",
                    visible_inline(tool),
                    decision_text(*decision)
                )
            )
        ),
        Entry::Retry(retry) => format!(
            "{}\n",
            paint(
                DIM,
                format!(
                    "retry {}/{} in {} ms: {}",
                    retry.attempt,
                    retry.of,
                    retry.delay_ms,
                    visible_inline(&retry.cause)
                )
            )
        ),
        Entry::Error(error) => format!(
            "{}\n",
            paint(
                ERROR,
                format!("error: {}", visible_inline(&error_text(error)))
            )
        ),
        Entry::TurnFinished { outcome, rounds } => {
            let rounds = match rounds {
                1 => "1 round".to_owned(),
                n => format!("{n} rounds"),
            };
            format!(
                "{}\n",
                paint(DIM, format!("turn {} · {rounds}", outcome_text(*outcome)))
            )
        }
        Entry::Unknown(record_type) => format!(
            "{}\n",
            paint(
                DIM,
                format!(
                    "(a \"{}\" record from a newer Strata, not shown)",
                    visible_inline(record_type)
                )
            )
        ),
    }
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
