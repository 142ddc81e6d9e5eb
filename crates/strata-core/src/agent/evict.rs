//! Eviction in the live loop: planned over the history as it is, recorded
//! as one `tool_outputs_evicted` record when it goes ahead (a summary at the
//! same boundary replaces it).

use strata_protocol::{DebugEvent, RecordBody, ToolOutputsEvicted};

use super::Agent;
use super::compact::CompactionCause;
use crate::compaction::{
    EvictionPlan, low_water_mark, pinned_with_partners, plan_eviction_sparing,
};
use crate::error::Result;

impl Agent {
    /// Evicts older tool outputs down to the low-water mark (one record);
    /// returns the estimates before and after (equal when nothing was
    /// evicted) and how many outputs went.
    pub(super) fn evict(&mut self, cause: &CompactionCause<'_>) -> Result<Evicted> {
        let plan = self.plan_eviction(cause);
        self.commit_eviction(cause, plan)
    }

    /// What evicting down to the low-water mark would do now (pinned
    /// outputs spared); nothing recorded.
    pub(super) fn plan_eviction(&self, cause: &CompactionCause<'_>) -> EvictionPlan {
        let history = self.session.history();
        let spared = pinned_with_partners(history.items(), history.pinned());
        plan_eviction_sparing(
            history.items(),
            &spared,
            self.estimate(),
            low_water_mark(cause.threshold),
        )
    }

    /// Records `plan` (planned over the history as it is) as one eviction.
    pub(super) fn commit_eviction(
        &mut self,
        cause: &CompactionCause<'_>,
        plan: EvictionPlan,
    ) -> Result<Evicted> {
        let low_water = low_water_mark(cause.threshold);
        if plan.evicted.is_empty() {
            return Ok(Evicted {
                before: plan.estimated_before,
                after: plan.estimated_before,
                outputs: 0,
            });
        }
        let outputs = plan.evicted.len();
        let eviction = ToolOutputsEvicted {
            trigger: cause.trigger,
            context_tokens: cause.context_tokens,
            threshold: cause.threshold,
            low_water,
            estimated_before: plan.estimated_before,
            estimated_after: plan.estimated_after,
            evicted: plan.evicted,
        };
        let evicted = Evicted {
            before: plan.estimated_before,
            after: plan.estimated_after,
            outputs,
        };
        self.session
            .append(RecordBody::ToolOutputsEvicted(eviction.clone()))?;
        let history_items = u32::try_from(self.session.history().len()).unwrap_or(u32::MAX);
        self.events.debug(DebugEvent::ToolOutputsEvicted {
            turn_id: cause.turn_id,
            eviction,
            history_items,
        });
        Ok(evicted)
    }
}

/// What an eviction did: the estimates before and after, and how many
/// outputs it evicted.
pub(super) struct Evicted {
    pub before: u64,
    pub after: u64,
    pub outputs: usize,
}
