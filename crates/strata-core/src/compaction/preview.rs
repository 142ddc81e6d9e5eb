//! What a compaction would do now, computed with no model call and no
//! write: the preview `strata compact --preview` and the app show.

use std::collections::HashMap;

use strata_protocol::{
    CompactionPolicy, CompactionPreview, CompactionTrigger, ItemId, ResponseItem, StateSheet,
    ToolOutputsEvicted,
};

use super::CompactionPlan;
use super::estimate::Estimate;
use super::evict::{apply_eviction, low_water_mark, plan_eviction_sparing};
use super::extract::extract;
use super::layered::{
    LayeredPlan, needs_summary, pinned_with_partners, plan_layered_with, span_originals,
};
use super::sheet::{STATE_SHEET_BUDGET_TOKENS, SheetContext, build_state_sheet};
use crate::history::History;

/// A compaction that leaves the estimate above this share of the threshold
/// is ineffective: reported, and not repeated until new content arrives.
pub const INEFFECTIVE_PERCENT: u64 = 90;

pub fn ineffective_level(threshold: u64) -> u64 {
    super::evict::share_of(threshold, INEFFECTIVE_PERCENT)
}

/// The items of `span` with each evicted output put back from `originals`
/// (every item the session file holds, by id).
pub fn restore_originals(
    span: &[ResponseItem],
    originals: &HashMap<ItemId, ResponseItem>,
) -> Vec<ResponseItem> {
    span.iter()
        .map(|item| {
            originals
                .get(&item.id())
                .cloned()
                .unwrap_or_else(|| item.clone())
        })
        .collect()
}

/// The preview of a compaction of `history` under `policy`. `originals`
/// holds the file's items by id (for evicted outputs); `previous_sheet` is
/// the last layered compaction's sheet.
pub fn preview_compaction(
    history: &History,
    policy: CompactionPolicy,
    threshold: u64,
    estimate: Estimate<'_>,
    context: &SheetContext,
    previous_sheet: Option<&StateSheet>,
    originals: &HashMap<ItemId, ResponseItem>,
) -> CompactionPreview {
    let items = history.items();
    let reported = history.last_usage();
    let estimated_before = estimate.items(items);
    let mut preview = CompactionPreview {
        policy,
        threshold,
        reported_tokens: reported.and_then(|usage| usage.context_tokens()),
        cached_tokens_given_up: reported.and_then(|usage| usage.cached_input_tokens),
        estimated_before,
        estimated_after_eviction: estimated_before,
        estimated_after_summary: estimated_before,
        evicted: Vec::new(),
        summary_needed: true,
        summarized: Vec::new(),
        kept: Vec::new(),
        pinned: Vec::new(),
        state_sheet: StateSheet::default(),
    };
    match policy {
        CompactionPolicy::Off | CompactionPolicy::Base => {
            let plan = CompactionPlan::for_history(items);
            let kept: Vec<usize> = plan.leading.iter().chain(&plan.users).copied().collect();
            preview.kept = LayeredPlan::ids(items, &kept);
            preview.summarized = items
                .iter()
                .enumerate()
                .filter(|(index, _)| !kept.contains(index))
                .map(|(_, item)| item.id())
                .collect();
            let kept_items: Vec<ResponseItem> = kept.iter().map(|&i| items[i].clone()).collect();
            preview.estimated_after_summary = estimate.items(&kept_items);
        }
        CompactionPolicy::Layered => {
            let pinned = pinned_with_partners(items, history.pinned());
            let eviction =
                plan_eviction_sparing(items, &pinned, estimate, low_water_mark(threshold));
            let mut after = items.to_vec();
            apply_eviction(
                &mut after,
                &ToolOutputsEvicted {
                    trigger: CompactionTrigger::Manual,
                    context_tokens: None,
                    threshold,
                    low_water: low_water_mark(threshold),
                    estimated_before,
                    estimated_after: eviction.estimated_after,
                    evicted: eviction.evicted.clone(),
                },
            );
            preview.estimated_after_eviction = eviction.estimated_after;
            preview.evicted = eviction.evicted;
            preview.summary_needed = needs_summary(eviction.estimated_after, threshold);
            let plan = plan_layered_with(&after, &pinned, None);
            preview.pinned = after
                .iter()
                .map(ResponseItem::id)
                .filter(|id| pinned.contains(id))
                .collect();
            let facts = extract(&span_originals(restore_originals(
                &after[plan.leading.len()..],
                originals,
            )));
            let sheet = build_state_sheet(
                previous_sheet,
                &facts,
                context,
                estimate,
                STATE_SHEET_BUDGET_TOKENS,
            );
            preview.summarized = LayeredPlan::ids(&after, &plan.span);
            preview.kept =
                LayeredPlan::ids(&after, &[plan.leading.clone(), plan.kept.clone()].concat());
            let kept_items: Vec<ResponseItem> = plan
                .leading
                .iter()
                .chain(&plan.kept)
                .map(|&i| after[i].clone())
                .collect();
            preview.estimated_after_summary =
                estimate.items(&kept_items) + estimate.text(&sheet.text);
            preview.state_sheet = sheet;
        }
    }
    preview
}
