//! A replay's state to and from a `checkpoint` record: resuming starts
//! from the last one instead of replaying the whole file.

use super::*;

impl Replay {
    /// The state as a `checkpoint` record stores it. Every field is named
    /// here, so a field added to the replay cannot be left out of it.
    pub fn checkpoint(&self) -> Checkpoint {
        let Replay {
            meta: _,
            history,
            explicit_title,
            derived_title,
            profile,
            records,
            response_items,
            compactions,
            unknown_records,
            inconsistent_rounds,
            evictions,
            policy,
            reasoning,
            sandbox,
            mcp_catalog,
            last_round_model,
            last_cache_anchor,
            last_state_sheet,
            switched_since_round,
            guards,
            undos,
            forked_from,
            imported_from,
            estimated_tokens,
            // The checkpoint record's own timestamp restores it.
            last_record_at: _,
        } = self;
        Checkpoint {
            history: history.items().to_vec(),
            last_usage: history.last_usage().map(|usage| CheckpointUsage {
                usage: usage.clone(),
                items: to_u64(history.items_at_last_usage()),
            }),
            state: CheckpointState {
                records: to_u64(*records),
                response_items: to_u64(*response_items),
                compactions: to_u64(*compactions),
                evictions: to_u64(*evictions),
                unknown_records: to_u64(*unknown_records),
                inconsistent_rounds: to_u64(*inconsistent_rounds),
                explicit_title: explicit_title.clone(),
                derived_title: derived_title.clone(),
                profile: profile.clone(),
                policy: policy.clone(),
                reasoning: *reasoning,
                sandbox: sandbox.as_ref().map(|set| set.mode),
                sandbox_network: sandbox.as_ref().map(|set| set.network).unwrap_or_default(),
                sandbox_allow_domains: sandbox
                    .as_ref()
                    .map(|set| set.allow_domains.clone())
                    .unwrap_or_default(),
                mcp_catalog: mcp_catalog.clone(),
                last_round_model: last_round_model.clone(),
                last_cache_anchor: *last_cache_anchor,
                last_state_sheet: last_state_sheet.clone(),
                switched_since_round: *switched_since_round,
                summary_failures_in_a_row: guards.failures_in_a_row,
                last_summary_failure: guards.last_failure.clone(),
                ineffective_at: guards.ineffective_at,
                refused_span: guards.refused_span,
                undos: to_u64(*undos),
                pinned: history.pinned().iter().copied().collect(),
                undo_ref: history.undo_point().map(UndoPoint::to_checkpoint),
                undo_point: None,
                forked_from: forked_from.clone(),
                imported_from: imported_from.clone(),
                estimated_tokens: *estimated_tokens,
            },
        }
    }

    /// The state a checkpoint stored, before the checkpoint record itself
    /// is folded (fold it next, then the records after it).
    pub fn from_checkpoint(meta: SessionMeta, checkpoint: &Checkpoint) -> Self {
        let state = &checkpoint.state;
        let last_usage = checkpoint
            .last_usage
            .as_ref()
            .map(|last| (last.usage.clone(), to_usize(last.items)));
        Self {
            last_record_at: meta.created_at,
            meta,
            history: History::restored(checkpoint.history.clone(), last_usage).with_recall_state(
                state.pinned.iter().copied().collect(),
                UndoPoint::from_checkpoint(state.undo_ref.as_ref(), state.undo_point.as_ref()),
            ),
            explicit_title: state.explicit_title.clone(),
            derived_title: state.derived_title.clone(),
            profile: state.profile.clone(),
            records: to_usize(state.records),
            response_items: to_usize(state.response_items),
            compactions: to_usize(state.compactions),
            unknown_records: to_usize(state.unknown_records),
            inconsistent_rounds: to_usize(state.inconsistent_rounds),
            evictions: to_usize(state.evictions),
            policy: state.policy.clone(),
            reasoning: state.reasoning,
            sandbox: state.sandbox.map(|mode| strata_protocol::SandboxSet {
                mode,
                network: state.sandbox_network,
                allow_domains: state.sandbox_allow_domains.clone(),
            }),
            mcp_catalog: state.mcp_catalog.clone(),
            last_round_model: state.last_round_model.clone(),
            last_cache_anchor: state.last_cache_anchor,
            last_state_sheet: state.last_state_sheet.clone(),
            switched_since_round: state.switched_since_round,
            guards: CompactionGuards {
                failures_in_a_row: state.summary_failures_in_a_row,
                ineffective_at: state.ineffective_at,
                last_failure: state.last_summary_failure.clone(),
                refused_span: state.refused_span,
            },
            undos: to_usize(state.undos),
            forked_from: state.forked_from.clone(),
            imported_from: state.imported_from.clone(),
            estimated_tokens: state.estimated_tokens,
        }
    }
}
