//! The debug console's read-only views of a session file: each compaction
//! with the history just before and after it, and each round's exact
//! request. Both are folded by the core's own replay
//! (`strata_core::store::{compaction_views, round_requests}`); nothing here
//! writes.

use strata_core::store::{compaction_views as views_of, round_requests as rounds_of};
use strata_protocol::{CompactionView, RoundPage};
use tauri::State;

use super::{Shared, blocking, parse_id};
use crate::errors::CommandResult;

/// Rounds per page when the UI does not say.
pub const DEFAULT_ROUND_PAGE: u32 = 50;
/// The most rounds one call returns: each carries its whole request.
pub const MAX_ROUND_PAGE: u32 = 200;

/// Every compaction of the session, in order, with the history before and
/// after it.
#[tauri::command]
pub async fn compaction_views(
    state: State<'_, Shared>,
    session_id: String,
) -> CommandResult<Vec<CompactionView>> {
    let id = parse_id(&session_id)?;
    blocking(&state, move |state| {
        let read = state.browse(id)?;
        Ok(views_of(&read.meta, &read.records))
    })
    .await
}

/// A page of the session's rounds (`offset` from 0, at most
/// [`MAX_ROUND_PAGE`]), each with the exact request it sent.
#[tauri::command]
pub async fn round_requests(
    state: State<'_, Shared>,
    session_id: String,
    offset: Option<u32>,
    limit: Option<u32>,
) -> CommandResult<RoundPage> {
    let id = parse_id(&session_id)?;
    let (offset, limit) = page_bounds(offset, limit);
    blocking(&state, move |state| {
        let read = state.browse(id)?;
        Ok(rounds_of(&read.meta, &read.records, offset, limit))
    })
    .await
}

/// The window a `round_requests` call asks for, clamped to one page.
fn page_bounds(offset: Option<u32>, limit: Option<u32>) -> (usize, usize) {
    let limit = limit.unwrap_or(DEFAULT_ROUND_PAGE).min(MAX_ROUND_PAGE);
    let to_usize = |value: u32| usize::try_from(value).unwrap_or(usize::MAX);
    (to_usize(offset.unwrap_or(0)), to_usize(limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_default_and_are_capped() {
        assert_eq!(page_bounds(None, None), (0, 50));
        assert_eq!(page_bounds(Some(4_950), Some(10_000)), (4_950, 200));
        assert_eq!(page_bounds(Some(3), Some(0)), (3, 0));
    }
}
