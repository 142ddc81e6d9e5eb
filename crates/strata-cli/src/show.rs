//! `strata sessions show SESSION`: the transcript on a terminal (or as plain
//! text when piped).

use std::io::Write;

use strata_core::store::SessionRead;
use strata_core::transcript::{
    Entry, compact_arguments, compaction_line, decision_text, entries, error_text, outcome_text,
};
use strata_protocol::Role;
use strata_providers::config::model_label;

use crate::store::Context;
use crate::style::{
    ASSISTANT, BOLD, COMPACTION, DIM, ERROR, TOOL, USER, WARN, indented, one_line, paint,
};

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
        paint(BOLD, title),
        paint(
            DIM,
            format!(
                "created {} · {} · {}/{} · {} items · {compactions}",
                meta.created_at.format("%Y-%m-%d %H:%M:%S UTC"),
                meta.workspace,
                meta.provider_kind,
                meta.model,
                state.response_items(),
            )
        ),
    )
}

fn render(entry: &Entry<'_>) -> String {
    match entry {
        Entry::Title(title) => format!("{}\n", paint(DIM, format!("renamed to {title:?}"))),
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
                    paint(ASSISTANT, format!("assistant ({})", model_label(model)))
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
            paint(TOOL, format!("→ {name}")),
            one_line(&compact_arguments(arguments), 160)
        ),
        Entry::ToolOutput { name, output } => {
            let label = paint(TOOL, format!("← {}", name.unwrap_or("tool output")));
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
            format!("{}\n", paint(DIM, format!("({provider} reasoning)")))
        }
        Entry::Compaction(summary) => format!(
            "\n{}\n{}{}\n",
            paint(COMPACTION, format!("══ {} ══", compaction_line(summary))),
            paint(DIM, indented(&summary.metadata.reason, "  ")),
            indented(&summary.summary, "  ")
        ),
        Entry::Approval { tool, decision } => format!(
            "{}\n",
            paint(
                WARN,
                format!("approval: {tool} {}", decision_text(*decision))
            )
        ),
        Entry::Retry(retry) => format!(
            "{}\n",
            paint(
                DIM,
                format!(
                    "retry {}/{} in {} ms: {}",
                    retry.attempt, retry.of, retry.delay_ms, retry.cause
                )
            )
        ),
        Entry::Error(error) => format!(
            "{}\n",
            paint(ERROR, format!("error: {}", error_text(error)))
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
                format!("(a {record_type:?} record from a newer Strata, not shown)")
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
