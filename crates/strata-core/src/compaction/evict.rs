//! Tool-output eviction, the layered policy's first and cheapest step: no
//! model call. Older tool outputs are replaced, oldest first and in one
//! batch, by a placeholder naming the item id, the tool, the size and a
//! one-line digest, until the estimate is down to the low-water mark. The
//! last [`RECENT_ROUNDS_KEPT`] rounds, every user message and pinned items
//! stay whole; the original stays in the session file.

use std::collections::{HashMap, HashSet};

use strata_protocol::{EvictedOutput, ItemId, ResponseItem, ToolOutputsEvicted};

use super::estimate::Estimate;

/// Rounds at the end of the history whose tool outputs are never evicted:
/// the model is still working with them.
pub const RECENT_ROUNDS_KEPT: usize = 3;

/// Eviction (which runs when reported usage reaches the threshold) aims at
/// this share of the threshold, so the context grows for several rounds
/// before the next eviction and the provider's prompt cache lives between
/// them. Measured by `make bench-context` (docs/CONTEXT.md).
pub const LOW_WATER_PERCENT: u64 = 25;

/// `percent` of `tokens`, without overflow for any `tokens`.
pub fn share_of(tokens: u64, percent: u64) -> u64 {
    tokens / 100 * percent + tokens % 100 * percent / 100
}

/// Every placeholder starts with this, so a placeholder is never evicted again.
pub const EVICTED_PREFIX: &str = "[tool output evicted";

/// Characters of a digest line.
const DIGEST_CHARS: usize = 100;

/// The estimate eviction aims below.
pub fn low_water_mark(threshold: u64) -> u64 {
    share_of(threshold, LOW_WATER_PERCENT)
}

/// The index where the last [`RECENT_ROUNDS_KEPT`] rounds begin. A round
/// begins with a model item (reasoning, assistant message or call) that
/// follows anything else.
pub fn recent_rounds_start(items: &[ResponseItem]) -> usize {
    let mut starts = 0usize;
    for index in (0..items.len()).rev() {
        let predecessor_is_model = index > 0 && is_model_item(&items[index - 1]);
        if is_model_item(&items[index]) && !predecessor_is_model {
            starts += 1;
            if starts == RECENT_ROUNDS_KEPT {
                return index;
            }
        }
    }
    0
}

fn is_model_item(item: &ResponseItem) -> bool {
    match item {
        ResponseItem::Message(message) => message.role == strata_protocol::Role::Assistant,
        ResponseItem::FunctionCall(_) | ResponseItem::Reasoning(_) => true,
        ResponseItem::FunctionCallOutput(_) | ResponseItem::CompactionSummary(_) => false,
    }
}

/// The first non-blank line of an output, cut to [`DIGEST_CHARS`], plus the
/// shell's exit code line when there is one.
pub fn digest(output: &str) -> String {
    let first = output
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("(empty)");
    let mut line: String = first.chars().take(DIGEST_CHARS).collect();
    if first.chars().count() > DIGEST_CHARS {
        line.push('…');
    }
    if let Some(exit) = output
        .lines()
        .rev()
        .find(|line| line.starts_with("[exit code:"))
        .filter(|exit| *exit != first)
    {
        line.push(' ');
        line.push_str(exit);
    }
    line
}

/// The text that replaces an evicted output.
pub fn placeholder(item_id: ItemId, tool: &str, chars: u64, output: &str) -> String {
    format!(
        "{EVICTED_PREFIX}: item {item_id}, {tool}, {chars} chars; recall returns it; starts: {}]",
        digest(output)
    )
}

/// How many leading items of a history the next eviction leaves
/// byte-identical: those before the first output it could replace
/// (eviction only replaces whole outputs longer than their placeholder,
/// oldest first). A provider's prompt cache can anchor there, so an eviction
/// rewrites only what follows the anchor. A summary rewrites everything: one
/// deliberate break. A pinned output is never evicted but counts as
/// replaceable here (the anchor only moves earlier, never past an item that
/// may change).
pub fn eviction_stable_prefix(items: &[ResponseItem]) -> usize {
    let mut tools: HashMap<&str, &str> = HashMap::new();
    let replaceable = items.iter().position(|item| match item {
        ResponseItem::FunctionCall(call) => {
            tools.insert(&call.call_id, &call.name);
            false
        }
        ResponseItem::FunctionCallOutput(output) if !output.output.starts_with(EVICTED_PREFIX) => {
            let tool = tools
                .get(output.call_id.as_str())
                .copied()
                .unwrap_or("tool");
            let chars = output.output.chars().count();
            let text = placeholder(output.id, tool, chars as u64, &output.output);
            text.chars().count().div_ceil(4) < chars.div_ceil(4)
        }
        ResponseItem::FunctionCallOutput(_)
        | ResponseItem::Message(_)
        | ResponseItem::CompactionSummary(_)
        | ResponseItem::Reasoning(_) => false,
    });
    replaceable.unwrap_or(items.len())
}

/// The stable prefixes a round's request announces
/// ([`strata_protocol::ModelRequest::cache_anchors`]): the one the previous
/// round announced (`previous`; what the provider cached up to before an
/// eviction that has happened since) when it is still shorter, then
/// [`eviction_stable_prefix`]. A stale `previous` (after a summary or an
/// undo) costs nothing: a breakpoint over a changed prefix is written only
/// for the tokens it adds past the previous breakpoint.
pub fn cache_anchors(items: &[ResponseItem], previous: Option<u32>) -> Vec<u32> {
    let stable = u32::try_from(eviction_stable_prefix(items)).unwrap_or(u32::MAX);
    previous
        .filter(|&previous| previous < stable)
        .into_iter()
        .chain([stable])
        .collect()
}

/// What eviction would do: the outputs (oldest first) and the estimates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvictionPlan {
    pub evicted: Vec<EvictedOutput>,
    pub estimated_before: u64,
    pub estimated_after: u64,
}

/// Chooses the outputs to evict, oldest first, until the estimate is at or
/// below `low_water`. Outputs of the last rounds, placeholders, and outputs
/// no longer than their placeholder are left alone.
pub fn plan_eviction(
    items: &[ResponseItem],
    estimate: Estimate<'_>,
    low_water: u64,
) -> EvictionPlan {
    plan_eviction_sparing(items, &HashSet::new(), estimate, low_water)
}

/// [`plan_eviction`], leaving the outputs in `spared` (pinned ones) whole.
pub fn plan_eviction_sparing(
    items: &[ResponseItem],
    spared: &HashSet<ItemId>,
    estimate: Estimate<'_>,
    low_water: u64,
) -> EvictionPlan {
    let estimated_before = estimate.items(items);
    let protected_from = recent_rounds_start(items);
    let mut tools: HashMap<&str, &str> = HashMap::new();
    let mut evicted = Vec::new();
    let mut current = estimated_before;
    for item in &items[..protected_from] {
        if current <= low_water {
            break;
        }
        match item {
            ResponseItem::FunctionCall(call) => {
                tools.insert(&call.call_id, &call.name);
            }
            ResponseItem::FunctionCallOutput(output)
                if !output.output.starts_with(EVICTED_PREFIX) && !spared.contains(&output.id) =>
            {
                let tool = tools
                    .get(output.call_id.as_str())
                    .copied()
                    .unwrap_or("tool");
                let chars = u64::try_from(output.output.chars().count()).unwrap_or(u64::MAX);
                let text = placeholder(output.id, tool, chars, &output.output);
                let (old, new) = (estimate.text(&output.output), estimate.text(&text));
                if new >= old {
                    continue;
                }
                current = current.saturating_sub(old - new);
                evicted.push(EvictedOutput {
                    item_id: output.id,
                    call_id: output.call_id.clone(),
                    tool: tool.to_owned(),
                    chars,
                    placeholder: text,
                });
            }
            ResponseItem::FunctionCallOutput(_)
            | ResponseItem::Message(_)
            | ResponseItem::CompactionSummary(_)
            | ResponseItem::Reasoning(_) => {}
        }
    }
    EvictionPlan {
        evicted,
        estimated_before,
        estimated_after: current,
    }
}

/// Replay's half: puts each stored placeholder in place of its output, by
/// item id. Returns how many outputs were replaced.
pub fn apply_eviction(items: &mut [ResponseItem], record: &ToolOutputsEvicted) -> usize {
    let placeholders: HashMap<ItemId, &str> = record
        .evicted
        .iter()
        .map(|evicted| (evicted.item_id, evicted.placeholder.as_str()))
        .collect();
    let mut replaced = 0;
    for item in items.iter_mut() {
        if let ResponseItem::FunctionCallOutput(output) = item
            && let Some(text) = placeholders.get(&output.id)
        {
            output.output = (*text).to_owned();
            replaced += 1;
        }
    }
    replaced
}

#[cfg(test)]
mod tests {
    use strata_protocol::CompactionTrigger;

    use super::*;
    use crate::compaction::estimate::{Calibration, CharEstimator};

    fn round(call_id: &str, output_chars: usize) -> Vec<ResponseItem> {
        vec![
            ResponseItem::function_call(call_id, "read_file", r#"{"path":"src/a.rs"}"#),
            ResponseItem::function_call_output(call_id, "x".repeat(output_chars)),
        ]
    }

    fn history(rounds: usize) -> Vec<ResponseItem> {
        let mut items = vec![ResponseItem::system("sys"), ResponseItem::user("go")];
        for n in 0..rounds {
            items.extend(round(&format!("c{n}"), 4_000));
        }
        items
    }

    /// The record of `plan`, as the agent appends it.
    fn record(plan: &EvictionPlan) -> ToolOutputsEvicted {
        ToolOutputsEvicted {
            trigger: CompactionTrigger::Auto,
            context_tokens: None,
            threshold: 1,
            low_water: 0,
            estimated_before: plan.estimated_before,
            estimated_after: plan.estimated_after,
            evicted: plan.evicted.clone(),
        }
    }

    fn estimate() -> Estimate<'static> {
        Estimate::new(&CharEstimator, Calibration::default())
    }

    #[test]
    fn evicts_oldest_outputs_first_down_to_the_low_water_mark_and_spares_the_last_rounds() {
        let items = history(8);
        let plan = plan_eviction(&items, estimate(), 4_000);
        assert!(plan.estimated_after <= 4_000, "{plan:?}");
        assert!(plan.estimated_after < plan.estimated_before);
        let ids: Vec<ItemId> = plan.evicted.iter().map(|e| e.item_id).collect();
        let outputs: Vec<ItemId> = items
            .iter()
            .filter(|i| matches!(i, ResponseItem::FunctionCallOutput(_)))
            .map(ResponseItem::id)
            .collect();
        assert_eq!(ids, outputs[..ids.len()], "oldest first");
        assert!(ids.len() <= 8 - RECENT_ROUNDS_KEPT);
        let first = &plan.evicted[0];
        assert_eq!(first.tool, "read_file");
        assert_eq!(first.chars, 4_000);
        assert!(first.placeholder.starts_with(EVICTED_PREFIX));
        assert!(first.placeholder.contains(&first.item_id.to_string()));
    }

    #[test]
    fn nothing_is_evicted_below_the_low_water_mark_or_inside_the_last_rounds() {
        assert!(
            plan_eviction(&history(8), estimate(), 1_000_000)
                .evicted
                .is_empty()
        );
        let plan = plan_eviction(&history(RECENT_ROUNDS_KEPT), estimate(), 0);
        assert!(plan.evicted.is_empty());
    }

    #[test]
    fn the_next_eviction_changes_nothing_before_the_stable_prefix() {
        let mut items = history(10);
        assert_eq!(eviction_stable_prefix(&items), 3, "up to the first output");
        // A short output eviction never replaces does not hold the anchor.
        items.insert(2, ResponseItem::function_call("short", "run_shell", "{}"));
        items.insert(3, ResponseItem::function_call_output("short", "ok"));
        let first = plan_eviction(&items, estimate(), 6_000);
        apply_eviction(&mut items, &record(&first));
        let stable = eviction_stable_prefix(&items);
        let before = items[..stable].to_vec();
        // The session goes on, and the next eviction leaves the prefix alone.
        for n in 10..14 {
            items.extend(round(&format!("c{n}"), 4_000));
        }
        let second = plan_eviction(&items, estimate(), 0);
        assert!(!second.evicted.is_empty());
        apply_eviction(&mut items, &record(&second));
        assert_eq!(items[..stable], before[..]);
        assert!(stable > 4, "past the short output: {stable}");
        // The anchor is the first output eviction can still replace.
        assert!(
            matches!(&items[stable], ResponseItem::FunctionCallOutput(o) if o.output.starts_with(EVICTED_PREFIX))
        );
    }

    #[test]
    fn a_round_announces_the_previous_rounds_anchor_until_an_eviction_moves_past_it() {
        let mut items = history(8);
        assert_eq!(cache_anchors(&items, None), [3]);
        // Nothing evicted since: the same anchor, once.
        assert_eq!(cache_anchors(&items, Some(3)), [3]);
        let plan = plan_eviction(&items, estimate(), 0);
        apply_eviction(&mut items, &record(&plan));
        // After it: the old anchor, where the cache was, then the new one.
        let anchors = cache_anchors(&items, Some(3));
        assert_eq!(anchors[0], 3);
        assert!(anchors[1] > 3 && anchors.len() == 2, "{anchors:?}");
        assert_eq!(cache_anchors(&items, Some(anchors[1])), [anchors[1]]);
    }

    #[test]
    fn pinned_outputs_are_never_evicted() {
        let items = history(8);
        let pinned = items[3].id();
        assert!(matches!(items[3], ResponseItem::FunctionCallOutput(_)));
        let plan = plan_eviction_sparing(&items, &HashSet::from([pinned]), estimate(), 0);
        assert_eq!(plan.evicted.len(), 8 - RECENT_ROUNDS_KEPT - 1);
        assert!(plan.evicted.iter().all(|e| e.item_id != pinned));
    }

    #[test]
    fn applying_the_record_replaces_exactly_the_named_outputs() {
        let mut items = history(6);
        let plan = plan_eviction(&items, estimate(), 0);
        assert_eq!(
            apply_eviction(&mut items, &record(&plan)),
            plan.evicted.len()
        );
        assert_eq!(estimate().items(&items), plan.estimated_after);
        // Placeholders are not evicted again.
        assert!(plan_eviction(&items, estimate(), 0).evicted.is_empty());
    }

    #[test]
    fn the_digest_is_the_first_line_and_the_exit_code() {
        assert_eq!(
            digest("\n  error[E0308]: mismatched\nmore\n[exit code: 101]"),
            "error[E0308]: mismatched [exit code: 101]"
        );
        assert_eq!(digest(""), "(empty)");
        assert_eq!(low_water_mark(10_000), 2_500);
        assert_eq!(share_of(u64::MAX, 100), u64::MAX);
    }
}
