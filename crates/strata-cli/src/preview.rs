//! `strata compact SESSION --preview [--json]`: what a compaction would do
//! now. Reads the session file without a lock, calls no model and writes
//! nothing, so the file stays byte-identical.

use std::io::Write;

use strata_core::compaction::{
    Calibration, Estimate, SheetContext, item_text, preview_compaction, resolve_threshold,
};
use strata_core::store::original_items;
use strata_protocol::{CompactionPreview, ResponseItem, Role};
use strata_providers::estimator_for;

use crate::cli::CompactArgs;
use crate::launch::{approval_policy, session_profile};
use crate::store::Context;
use crate::style::{BOLD, COMPACTION, DIM, indented, one_line, paint};

pub fn preview(ctx: &Context, args: &CompactArgs) -> crate::error::Result<()> {
    let read = ctx.browse(&args.session)?;
    let state = read.replay();
    let history = state.history();
    let profile = session_profile(ctx, &args.agent, &read.meta, state.profile())?;
    let setting = args
        .agent
        .compact_threshold
        .or_else(|| state.policy_record().and_then(|record| record.threshold));
    let threshold = resolve_threshold(
        setting,
        profile.compaction_threshold,
        Some(profile.context_window),
        u32::try_from(profile.max_output_tokens).ok(),
    );
    let policy = args.agent.compaction.unwrap_or(state.policy());
    let estimator = estimator_for(profile.kind, &profile.model);
    // Calibrated, as the live agent is, against the last reported usage and
    // the history it described.
    let raw = Estimate::new(estimator.as_ref(), Calibration::default());
    let reported_part = &history.items()[..history.len() - history.items_since_last_usage().len()];
    let calibration = history
        .last_usage()
        .and_then(|usage| usage.context_tokens())
        .map_or_else(Calibration::default, |reported| {
            Calibration::from_report(reported, raw.items(reported_part))
        });
    let sheet_context = SheetContext {
        approval_policy: approval_policy(args.agent.approval).as_str().to_owned(),
        has_agents_file: history
            .items()
            .iter()
            .take_while(|item| !matches!(item, ResponseItem::Message(m) if m.role == Role::User))
            .any(|item| item.is_message_with_role(Role::Developer)),
    };
    let preview = preview_compaction(
        history,
        policy,
        threshold,
        Estimate::new(estimator.as_ref(), calibration),
        &sheet_context,
        state.last_state_sheet(),
        &original_items(&read.records),
    );
    let mut out = ctx.out.stdout();
    if args.agent.json {
        writeln!(out, "{}", serde_json::to_string(&preview)?)?;
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
