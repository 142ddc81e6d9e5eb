//! When to compact.

use strata_protocol::{ResponseItem, TokenUsage};

/// The threshold until per-model thresholds arrive.
pub const DEFAULT_COMPACTION_THRESHOLD: u64 = 8_000;

/// Shorter histories are never compacted: there is nothing to gain.
pub const MIN_HISTORY_ITEMS: usize = 4;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompactionDecision {
    Skip(SkipReason),
    Compact {
        context_tokens: u64,
        threshold: u64,
        reason: String,
    },
}

/// Why no compaction happens; the debug console shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// The round reported no usage (or no input/output figures).
    NoUsage,
    BelowThreshold {
        context_tokens: u64,
        threshold: u64,
    },
    HistoryTooShort {
        items: usize,
    },
    /// Nothing from the assistant or tools since the last summary: compacting
    /// again would only loop.
    NothingNewSinceLastSummary,
}

/// The reason text recorded with an automatic compaction.
pub fn threshold_reason(context_tokens: u64, threshold: u64) -> String {
    format!("Reported token usage {context_tokens} reached the compaction threshold {threshold}")
}

/// Decides from the usage the finished round reported (never an estimate).
pub fn decide_compaction(
    usage: Option<&TokenUsage>,
    threshold: u64,
    history: &[ResponseItem],
) -> CompactionDecision {
    let Some(context_tokens) = usage.and_then(TokenUsage::context_tokens) else {
        return CompactionDecision::Skip(SkipReason::NoUsage);
    };
    if context_tokens < threshold {
        return CompactionDecision::Skip(SkipReason::BelowThreshold {
            context_tokens,
            threshold,
        });
    }
    if history.len() < MIN_HISTORY_ITEMS {
        return CompactionDecision::Skip(SkipReason::HistoryTooShort {
            items: history.len(),
        });
    }
    let since_last_summary = history
        .iter()
        .rposition(|item| matches!(item, ResponseItem::CompactionSummary(_)))
        .map_or(history, |index| &history[index + 1..]);
    if !since_last_summary
        .iter()
        .any(ResponseItem::is_assistant_or_tool)
    {
        return CompactionDecision::Skip(SkipReason::NothingNewSinceLastSummary);
    }
    CompactionDecision::Compact {
        context_tokens,
        threshold,
        reason: threshold_reason(context_tokens, threshold),
    }
}
