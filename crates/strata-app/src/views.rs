//! The core's session data in the shapes the UI reads (strata-protocol's
//! desktop DTOs).

use strata_core::Replay;
use strata_protocol::SessionListItem;

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A sidebar row from a replay (a live session's, or a browsing read's).
pub fn list_item_of_replay(state: &Replay) -> SessionListItem {
    let meta = state.meta();
    SessionListItem {
        id: meta.session_id,
        title: state.title(),
        workspace: meta.workspace.clone(),
        provider_kind: state.provider_kind(),
        model: state.model(),
        created_at: meta.created_at,
        updated_at: state.last_record_at(),
        item_count: count(state.response_items()),
        compaction_count: count(state.compactions()),
        forked_from: state
            .forked_from()
            .map(|forked| strata_protocol::ForkOrigin {
                parent_session_id: forked.parent_session_id,
                point: forked.point.clone(),
            }),
        cost: None,
    }
}

/// A sidebar row from a whole file's replay and records, its cost included.
pub fn list_item_of_records(
    state: &Replay,
    records: &[strata_protocol::Record],
) -> SessionListItem {
    SessionListItem {
        cost: strata_core::store::session_cost(&state.meta().model, records).total,
        ..list_item_of_replay(state)
    }
}
