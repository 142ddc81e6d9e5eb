//! `strata compact SESSION --preview [--json]`: what a compaction would do
//! now. Reads the session file without a lock, calls no model and writes
//! nothing, so the file stays byte-identical.

use std::io::Write;

use strata_app::context::{PreviewInputs, preview_of};
use strata_core::compaction::item_text;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CompactPreview, CompactionPreview, OutputKind, ResponseItem,
};

use crate::cli::CompactArgs;
use crate::launch::{approval_policy, session_profile};
use crate::store::Context;
use crate::style::{BOLD, COMPACTION, DIM, indented, one_line, paint};
use crate::visible::json_safe;

pub fn preview(ctx: &Context, args: &CompactArgs) -> crate::error::Result<()> {
    let read = ctx.browse(&args.session)?;
    let state = read.replay();
    let history = state.history();
    let profile = session_profile(ctx, &args.agent, &read.meta, state.profile())?;
    // The same preview the app's Preview button shows.
    let preview = preview_of(
        &read,
        &PreviewInputs {
            profile: &profile,
            setting: args.agent.compact_threshold,
            policy: args.agent.compaction,
            approval: args
                .agent
                .approval
                .map(approval_policy)
                .or(state.profile().and_then(|set| set.approval))
                .unwrap_or_default(),
        },
    );
    let mut out = ctx.out.stdout();
    if args.agent.json {
        let line = CompactPreview {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::CompactPreview,
            session_id: read.meta.session_id,
            preview,
        };
        writeln!(out, "{}", json_safe(&serde_json::to_string(&line)?))?;
    } else {
        write!(
            out,
            "{}",
            render(&read.meta.session_id.to_string(), &preview, history.items())
        )?;
    }
    Ok(())
}

fn render(session: &str, preview: &CompactionPreview, items: &[ResponseItem]) -> String {
    let mut out = format!(
        "{}\n{}\n",
        paint(
            BOLD,
            format!(
                "compaction preview of session {session}: policy {}, threshold {} tokens",
                preview.policy.as_str(),
                preview.threshold
            )
        ),
        paint(
            DIM,
            "estimates only: no model was called and nothing was written"
        ),
    );
    let reported = match (preview.reported_tokens, preview.cached_tokens_given_up) {
        (Some(tokens), Some(cached)) => format!(
            "; last reported {tokens}, of which {cached} cached input tokens a compaction gives up"
        ),
        (Some(tokens), None) => format!("; last reported {tokens}"),
        (None, _) => String::new(),
    };
    out.push_str(&format!(
        "now: about {} tokens (estimate){reported}\n",
        preview.estimated_before
    ));
    if !preview.evicted.is_empty() {
        out.push_str(&paint(
            COMPACTION,
            format!(
                "evict {} tool outputs (no model call): about {} → {} tokens\n",
                preview.evicted.len(),
                preview.estimated_before,
                preview.estimated_after_eviction
            ),
        ));
        for evicted in &preview.evicted {
            out.push_str(&format!(
                "  - {} {} ({} chars)\n",
                evicted.item_id, evicted.tool, evicted.chars
            ));
        }
    }
    if preview.summary_needed {
        out.push_str(&paint(
            COMPACTION,
            format!(
                "summarize {} items, keep {} verbatim: about {} tokens after, before the summary's own text\n",
                preview.summarized.len(),
                preview.kept.len(),
                preview.estimated_after_summary
            ),
        ));
        for id in &preview.kept {
            if let Some(item) = items.iter().find(|item| item.id() == *id) {
                out.push_str(&format!(
                    "  keep {id}: {}\n",
                    one_line(&item_text(item), 80)
                ));
            }
        }
    } else {
        out.push_str("no summary needed after the eviction\n");
    }
    if !preview.pinned.is_empty() {
        out.push_str(&format!(
            "pinned, kept verbatim whatever happens: {}\n",
            preview
                .pinned
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !preview.state_sheet.text.is_empty() {
        out.push_str(&format!(
            "state sheet:\n{}\n",
            indented(&preview.state_sheet.text, "  ")
        ));
    }
    out
}
