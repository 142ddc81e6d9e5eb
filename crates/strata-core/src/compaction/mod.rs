//! The compaction core: when to compact ([`decide_compaction`]) and what
//! survives ([`apply_compaction`]). Pure functions, no I/O, so the live loop
//! and replay reach the same history from the same records.

mod decide;
mod estimate;
mod evict;
mod extract;
mod in_context;
mod layered;
mod preview;
mod prompt;
mod rules;
mod sheet;
mod threshold;

pub use decide::{
    CompactionDecision, DEFAULT_COMPACTION_THRESHOLD, MIN_HISTORY_ITEMS, SkipReason,
    decide_compaction, threshold_reason,
};
pub use estimate::{
    Calibration, CharEstimator, Estimate, TokenEstimator, estimate_after_compaction, item_text,
};
pub use evict::{
    EVICTED_PREFIX, EvictionPlan, LOW_WATER_PERCENT, RECENT_ROUNDS_KEPT, apply_eviction,
    cache_anchors, digest, eviction_stable_prefix, low_water_mark, placeholder, plan_eviction,
    plan_eviction_sparing, recent_rounds_start, share_of,
};
pub use extract::{Facts, extract, is_person_message, paths_in_command, rules_in};
pub use in_context::{
    IN_CONTEXT_SUMMARY_PREFIX, build_in_context_summary_request, in_context_summary_text,
};
pub use layered::{
    LayeredPlan, SUMMARY_FLOOR_PERCENT, apply_layered_compaction, build_layered_summary_request,
    needs_summary, pinned_with_partners, plan_layered, plan_layered_with, previous_summary_text,
    span_originals,
};
pub use preview::{INEFFECTIVE_PERCENT, ineffective_level, preview_compaction, restore_originals};
pub use prompt::{
    SUMMARY_INSTRUCTIONS, build_compaction_summary_request, serialize_history_for_summary_prompt,
};
pub use rules::rule_violations;
pub use sheet::{
    STATE_SHEET_BUDGET_TOKENS, STATE_SHEET_PREFIX, SheetContext, build_state_sheet, loss_audit,
    sheet_has_path,
};
pub use threshold::{
    LAYERED_THRESHOLD_FLOOR_TOKENS, LAYERED_THRESHOLD_MAX_PERCENT, LAYERED_THRESHOLD_PERCENT,
    OVERFLOW_TARGET_PERCENT, layered_window_threshold, overflow_recovery_threshold,
    policy_default_threshold, resolve_threshold,
};

use strata_protocol::{CompactionSummary, ResponseItem, Role};

/// How many characters (Unicode scalar values) of recent user messages survive
/// a compaction.
pub const USER_MESSAGE_BUDGET_CHARS: usize = 20_000;

/// Which items of a history survive a compaction, before the summary exists.
/// The live loop needs the counts for the summary's metadata; replay needs only
/// the selection. Both come from here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactionPlan {
    before: usize,
    /// Indices of the leading system and developer messages.
    pub(crate) leading: Vec<usize>,
    /// Indices of the kept user messages, oldest first.
    pub(crate) users: Vec<usize>,
}

impl CompactionPlan {
    pub fn for_history(history: &[ResponseItem]) -> Self {
        let (leading, users) = select_kept(history, |_| true);
        Self {
            before: history.len(),
            leading,
            users,
        }
    }

    /// Items in the history before and after.
    pub fn kept(&self) -> usize {
        self.leading.len() + self.users.len()
    }

    /// Items in the history before and not after.
    pub fn removed(&self) -> usize {
        self.before - self.kept()
    }
}

/// The indices a compaction keeps: the leading system and developer
/// messages, and the recent user messages `counts` accepts within
/// [`USER_MESSAGE_BUDGET_CHARS`], oldest first.
pub(crate) fn select_kept(
    history: &[ResponseItem],
    counts: impl Fn(&str) -> bool,
) -> (Vec<usize>, Vec<usize>) {
    select_kept_where(history, |_, text| counts(text))
}

/// [`select_kept`] with the item's index given to `counts` too.
pub(crate) fn select_kept_where(
    history: &[ResponseItem],
    counts: impl Fn(usize, &str) -> bool,
) -> (Vec<usize>, Vec<usize>) {
    let leading: Vec<usize> = history
        .iter()
        .take_while(|item| {
            item.is_message_with_role(Role::System) || item.is_message_with_role(Role::Developer)
        })
        .enumerate()
        .map(|(index, _)| index)
        .collect();
    let mut users = Vec::new();
    let mut spent = 0usize;
    for (index, item) in history.iter().enumerate().skip(leading.len()).rev() {
        let ResponseItem::Message(message) = item else {
            continue;
        };
        if message.role != Role::User || !counts(index, &message.content) {
            continue;
        }
        let chars = message.content.chars().count();
        // The newest user message is always kept, even alone over budget;
        // older ones only while they fit. Stopping at the first that does
        // not fit keeps the selection a suffix of the user messages.
        if !users.is_empty() && spent + chars > USER_MESSAGE_BUDGET_CHARS {
            break;
        }
        spent += chars;
        users.push(index);
    }
    users.reverse();
    (leading, users)
}

/// Replaces `history` by: its leading system/developer messages, the summary,
/// then the recent user messages that fit the budget, oldest first. Everything
/// else (assistant messages, function calls and outputs, reasoning, earlier
/// summaries, which the new summary folds in) is dropped.
pub fn apply_compaction(history: &[ResponseItem], summary: CompactionSummary) -> Vec<ResponseItem> {
    let plan = CompactionPlan::for_history(history);
    let mut compacted = Vec::with_capacity(plan.kept() + 1);
    compacted.extend(plan.leading.iter().map(|&i| history[i].clone()));
    compacted.push(ResponseItem::CompactionSummary(summary));
    compacted.extend(plan.users.iter().map(|&i| history[i].clone()));
    compacted
}

#[cfg(test)]
pub(crate) mod test_support {
    use strata_protocol::{
        CompactionMetadata, CompactionSummary, CompactionTrigger, ItemId, ResponseItem,
    };

    pub(crate) fn summary(text: &str) -> CompactionSummary {
        CompactionSummary {
            id: ItemId::new(),
            summary: text.to_owned(),
            metadata: CompactionMetadata {
                trigger: CompactionTrigger::Auto,
                reason: "test".into(),
                context_tokens: Some(9000),
                threshold: Some(8000),
                removed: 0,
                kept: 0,
                summarizer_model: "test-model".into(),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: 0,
            },
        }
    }

    pub(crate) fn summary_item(text: &str) -> ResponseItem {
        ResponseItem::CompactionSummary(summary(text))
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod thinking_tests;
