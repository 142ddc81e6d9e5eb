//! `strata context SESSION` (the model-visible history after replay) and
//! `strata compactions SESSION` (every compaction and why it happened).

use std::io::Write;

use serde_json::json;
use strata_core::transcript::{compact_arguments, trigger_name};
use strata_protocol::{RecordBody, ResponseItem, Role};

use crate::store::Context;
use crate::style::{ASSISTANT, BOLD, COMPACTION, DIM, TOOL, USER, indented, one_line, paint};
use crate::visible::{json_safe, visible_inline};

/// How many characters of a summary `strata compactions` shows.
const EXCERPT_CHARS: usize = 160;

/// `strata context SESSION [--json]`.
pub fn context(ctx: &Context, query: &str, json: bool) -> crate::error::Result<()> {
    let read = ctx.browse(query)?;
    let state = read.replay();
    let history = state.history();
    let mut out = ctx.out.stdout();
    if json {
        for item in history.items() {
            writeln!(out, "{}", json_safe(&serde_json::to_string(item)?))?;
        }
        return Ok(());
    }
    let usage = match history
        .last_usage()
        .and_then(|usage| usage.context_tokens())
    {
        Some(tokens) => format!("last reported usage {tokens} tokens"),
        None => "no usage reported since the last compaction".to_owned(),
    };
    writeln!(
        out,
        "{}\n{}\n",
        paint(
            BOLD,
            format!(
                "model-visible history of session {}: {} items",
                read.meta.session_id,
                history.len()
            )
        ),
        paint(DIM, usage),
    )?;
    for (index, item) in history.items().iter().enumerate() {
        write!(out, "{}", render_item(index + 1, item))?;
    }
    Ok(())
}

fn render_item(number: usize, item: &ResponseItem) -> String {
    // The id a person pins, forks at or compacts up to.
    let number = paint(DIM, format!("[{number}] {}", item.id()));
    match item {
        ResponseItem::Message(message) => {
            let role = match message.role {
                Role::System | Role::Developer => paint(DIM, message.role.as_str()),
                Role::User => paint(USER, "user"),
                Role::Assistant => paint(ASSISTANT, "assistant"),
            };
            format!("{number} {role}\n{}", indented(&message.content, "    "))
        }
        ResponseItem::FunctionCall(call) => format!(
            "{number} {} {} {}\n",
            paint(
                TOOL,
                format!("function_call {}", visible_inline(&call.name))
            ),
            one_line(&compact_arguments(&call.arguments), 160),
            paint(DIM, format!("({})", visible_inline(&call.call_id))),
        ),
        ResponseItem::FunctionCallOutput(output) => format!(
            "{number} {}\n{}",
            paint(
                TOOL,
                format!("function_call_output ({})", visible_inline(&output.call_id))
            ),
            indented(&output.output, "    ")
        ),
        ResponseItem::CompactionSummary(summary) => format!(
            "{number} {}\n{}",
            paint(
                COMPACTION,
                format!(
                    "compaction summary ({}), sent as a user message",
                    trigger_name(summary.metadata.trigger)
                )
            ),
            indented(&summary.summary, "    ")
        ),
        ResponseItem::Reasoning(reasoning) => format!(
            "{number} {}\n",
            paint(
                DIM,
                format!(
                    "reasoning ({}, opaque, sent back as is)",
                    visible_inline(&reasoning.provider)
                )
            )
        ),
    }
}

/// `strata compactions SESSION [--json]`.
pub fn compactions(ctx: &Context, query: &str, json: bool) -> crate::error::Result<()> {
    let read = ctx.browse(query)?;
    let mut out = ctx.out.stdout();
    let mut count = 0;
    for record in &read.records {
        // Base summaries and layered ones (which carry a state sheet).
        let summary = match &record.body {
            RecordBody::ResponseItem(ResponseItem::CompactionSummary(summary)) => summary,
            RecordBody::LayeredCompaction(layered) => &layered.summary,
            _ => continue,
        };
        count += 1;
        let meta = &summary.metadata;
        let excerpt = one_line(&summary.summary, EXCERPT_CHARS);
        if json {
            let line = json!({
                "at": record.ts,
                "item_id": summary.id,
                "trigger": meta.trigger,
                "reason": meta.reason,
                "context_tokens": meta.context_tokens,
                "threshold": meta.threshold,
                "removed": meta.removed,
                "kept": meta.kept,
                "summarizer_model": meta.summarizer_model,
                "summarizer_usage": meta.summarizer_usage,
                "duration_ms": meta.duration_ms,
                "summary_excerpt": excerpt,
                "summary": summary.summary,
            });
            writeln!(out, "{}", json_safe(&line.to_string()))?;
            continue;
        }
        let tokens = meta
            .context_tokens
            .map_or_else(|| "-".to_owned(), |tokens| tokens.to_string());
        let threshold = meta
            .threshold
            .map_or_else(|| "-".to_owned(), |threshold| threshold.to_string());
        writeln!(
            out,
            "{} {}",
            paint(
                COMPACTION,
                format!("#{count} {}", record.ts.format("%Y-%m-%d %H:%M:%S UTC"))
            ),
            paint(BOLD, trigger_name(meta.trigger)),
        )?;
        writeln!(out, "  reason:    {}", visible_inline(&meta.reason))?;
        writeln!(out, "  tokens:    {tokens} (threshold {threshold})")?;
        writeln!(
            out,
            "  items:     {} removed, {} kept",
            meta.removed, meta.kept
        )?;
        writeln!(
            out,
            "  by:        {} in {} ms",
            visible_inline(&meta.summarizer_model),
            meta.duration_ms
        )?;
        writeln!(out, "  summary:   {excerpt}")?;
    }
    if count == 0 && !json {
        writeln!(
            ctx.out.stderr(),
            "session {} has no compactions",
            read.meta.session_id
        )?;
    }
    Ok(())
}
