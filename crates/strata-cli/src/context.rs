//! `strata context SESSION` (the model-visible history after replay) and
//! `strata compactions SESSION` (every compaction and why it happened).

use std::io::Write;

use strata_app::context::estimate_after_compaction;
use strata_app::transcript::text::{compact_arguments, trigger_name};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CompactionEntry, CompactionList, OutputKind, RecordBody, ResponseItem,
    Role, SessionContext,
};

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
    let context_tokens = history
        .last_usage()
        .and_then(|usage| usage.context_tokens());
    // The app's gauge shows the same figure for this file.
    let estimated_tokens = estimate_after_compaction(&state);
    if json {
        let context = SessionContext {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::Context,
            session_id: read.meta.session_id,
            context_tokens,
            estimated_tokens,
            items: history.items().to_vec(),
        };
        writeln!(out, "{}", json_safe(&serde_json::to_string(&context)?))?;
        return Ok(());
    }
    let usage = match (context_tokens, estimated_tokens) {
        (Some(tokens), _) => format!("last reported usage {tokens} tokens"),
        (None, Some(estimate)) => format!(
            "about {estimate} tokens (an estimate of the history the last compaction left; \
             no usage reported since)"
        ),
        (None, None) => "no usage reported since the last compaction".to_owned(),
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
    let entries: Vec<CompactionEntry> = read
        .records
        .iter()
        .filter_map(|record| {
            // Base summaries and layered ones (which carry a state sheet).
            let summary = match &record.body {
                RecordBody::ResponseItem(ResponseItem::CompactionSummary(summary)) => summary,
                RecordBody::LayeredCompaction(layered) => &layered.summary,
                _ => return None,
            };
            Some(CompactionEntry {
                at: record.ts,
                summary: summary.clone(),
                summary_excerpt: one_line(&summary.summary, EXCERPT_CHARS),
                cost: summary.metadata.summarizer_cost.as_ref().map(Into::into),
            })
        })
        .collect();
    let mut out = ctx.out.stdout();
    if json {
        let list = CompactionList {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::Compactions,
            session_id: read.meta.session_id,
            compactions: entries,
        };
        writeln!(out, "{}", json_safe(&serde_json::to_string(&list)?))?;
        return Ok(());
    }
    for (index, entry) in entries.iter().enumerate() {
        let meta = &entry.summary.metadata;
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
                format!(
                    "#{} {}",
                    index + 1,
                    entry.at.format("%Y-%m-%d %H:%M:%S UTC")
                )
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
        let cost = meta.summarizer_cost.as_ref().map_or_else(
            || "no price".to_owned(),
            |cost| {
                format!(
                    "{} (prices of {})",
                    cost.usd,
                    visible_inline(&cost.price_as_of)
                )
            },
        );
        writeln!(out, "  cost:      {cost}")?;
        writeln!(out, "  summary:   {}", entry.summary_excerpt)?;
    }
    if entries.is_empty() {
        writeln!(
            ctx.out.stderr(),
            "session {} has no compactions",
            read.meta.session_id
        )?;
    }
    Ok(())
}
