//! The core's session data in the shapes the UI reads (strata-protocol's
//! desktop DTOs).

use strata_core::store::SessionRead;
use strata_core::{Replay, SessionSummary};
use strata_protocol::{RecordBody, ResponseItem, Role, SessionListItem};

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A sidebar row from a listing.
pub fn list_item(summary: &SessionSummary) -> SessionListItem {
    SessionListItem {
        id: summary.id,
        title: summary.title.clone(),
        workspace: summary.workspace.clone(),
        provider_kind: summary.provider_kind.clone(),
        model: summary.model.clone(),
        created_at: summary.created,
        updated_at: summary.updated,
        item_count: count(summary.items),
        compaction_count: count(summary.compactions),
    }
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
    }
}

/// The session's first user message, as written (compaction never removes
/// it from the file).
pub fn first_user_message(read: &SessionRead) -> Option<&str> {
    read.records.iter().find_map(|record| match &record.body {
        RecordBody::ResponseItem(ResponseItem::Message(message)) if message.role == Role::User => {
            Some(message.content.as_str())
        }
        _ => None,
    })
}

/// A search needle: trimmed and lower-cased; `None` matches everything.
pub fn needle(query: Option<&str>) -> Option<String> {
    query
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_lowercase)
}

/// Whether `haystack` contains the (lower-cased) needle, ignoring case.
pub fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(needle)
}

/// Whether the row's title or workspace matches; the first user message is
/// checked separately, as it needs the file.
pub fn row_matches(item: &SessionListItem, needle: &str) -> bool {
    item.title.as_deref().is_some_and(|t| contains(t, needle)) || contains(&item.workspace, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needles_ignore_case_and_blank_queries() {
        assert_eq!(needle(Some("  CSV ")), Some("csv".to_owned()));
        assert_eq!(needle(Some("   ")), None);
        assert_eq!(needle(None), None);
        assert!(contains("Fix the CSV parser", "csv"));
        assert!(!contains("Fix the parser", "csv"));
    }
}
