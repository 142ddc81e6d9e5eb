//! The session library: list and search, open read-only, rename, delete,
//! export, switch a session's profile, and the debug console's views. The
//! session file is never rewritten: a rename appends a `title_set` record,
//! a switch a `profile_set`.

use strata_core::ReadMode;
use strata_core::store::{SessionRead, read_session_tail};
use strata_index::{Filters, PageRequest, TailCheck};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, ListSessions, SearchResults, SearchSessions, SessionId,
    SessionListItem, SessionPage, SessionView,
};
use strata_providers::{ProfileFlags, ProviderKind};

use crate::catalog::{self, Note};
use crate::error::{AppError, AppResult};
use crate::settings::DEMO_PROFILE_IDS;
use crate::views::list_item_of_records;
use crate::{App, validate};

/// Sessions per page when the caller does not say.
pub const DEFAULT_SESSION_PAGE: u32 = 500;
/// Search hits per page when the caller does not say.
pub const DEFAULT_SEARCH_PAGE: u32 = 50;
/// The most hits one call returns.
pub const MAX_SEARCH_PAGE: u32 = 500;
/// Rounds per page when the caller does not say.
pub const DEFAULT_ROUND_PAGE: u32 = 50;
/// The most rounds one call returns: each carries its whole request.
pub const MAX_ROUND_PAGE: u32 = 200;

pub(crate) fn to_usize(value: u32) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

/// The hits a search asks for, within [`MAX_SEARCH_PAGE`].
pub(crate) fn search_limit(request: &SearchSessions) -> usize {
    to_usize(
        request
            .limit
            .unwrap_or(DEFAULT_SEARCH_PAGE)
            .min(MAX_SEARCH_PAGE),
    )
}

pub(crate) fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

impl App {
    /// Reads the session for viewing: corrupt lines are skipped and a torn
    /// tail ignored; nothing is written.
    pub fn browse(&self, id: SessionId) -> AppResult<SessionRead> {
        Ok(self.store.open_reader(id, ReadMode::Browsing)?)
    }

    /// The session's replay read from its file's tail (the last checkpoint
    /// and what follows), so its cost grows with the model-visible history;
    /// from the whole file when the tail does not read strictly.
    pub fn replay_from_tail(&self, id: SessionId) -> AppResult<strata_core::Replay> {
        match read_session_tail(&self.store.session_path(id)) {
            Ok(tail) if tail.meta.session_id == id => Ok(tail.replay()),
            _ => Ok(self.browse(id)?.replay()),
        }
    }

    /// [`Self::list_sessions`] on the calling thread (the command line's).
    pub fn list_sessions_blocking(&self, request: &ListSessions) -> AppResult<SessionPage> {
        let offset = to_usize(request.offset.unwrap_or(0));
        let limit = to_usize(request.limit.unwrap_or(DEFAULT_SESSION_PAGE));
        let page = self.catalog.with(&self.paths, |index| {
            catalog::refresh(index)?;
            index.list(&PageRequest {
                limit,
                offset,
                cursor: None,
                filters: Filters {
                    text: request.query.clone(),
                    ..Filters::default()
                },
            })
        })?;
        let sessions: Vec<SessionListItem> = page.items.iter().map(catalog::list_item).collect();
        let end = offset.saturating_add(sessions.len());
        Ok(SessionPage {
            v: CONTRACT_FORMAT_VERSION,
            sessions,
            total: to_u32(page.total),
            next_offset: (end < page.total).then(|| to_u32(end)),
            notice: self.catalog.take_notice(),
        })
    }

    /// What recovering the library's index took (it was damaged and
    /// rebuilt, or cannot be written), said once: a listing carries it in
    /// its page; the command line asks after a search.
    pub fn take_library_notice(&self) -> Option<String> {
        self.catalog.take_notice()
    }

    /// [`Self::search_sessions`] on the calling thread.
    pub fn search_sessions_blocking(&self, request: &SearchSessions) -> AppResult<SearchResults> {
        let query = validate::search_query(&request.query)?;
        let offset = to_usize(request.offset.unwrap_or(0));
        let limit = search_limit(request);
        let filters = catalog::filters(request);
        let page = self.catalog.with(&self.paths, |index| {
            catalog::refresh(index)?;
            index.search_page(&query, &filters, offset, limit)
        })?;
        Ok(SearchResults {
            v: CONTRACT_FORMAT_VERSION,
            query,
            hits: page.hits.iter().map(catalog::search_hit).collect(),
            total: to_u32(page.total),
            total_capped: page.total_capped,
            next_offset: page.next_offset.map(to_u32),
        })
    }

    /// A snapshot of `replay` carrying `records`.
    pub(crate) fn session_view(
        &self,
        replay: &strata_core::Replay,
        live: Option<&crate::manager::LiveSlot>,
        records: Vec<strata_protocol::Record>,
    ) -> SessionView {
        let history = replay.history();
        let last_usage = history.last_usage().cloned();
        let (threshold, context_window) = match live {
            Some(slot) => (slot.threshold, slot.context_window),
            None => self.limits_for(replay),
        };
        let id = replay.meta().session_id;
        // Best effort: a lock that cannot be asked about shows the session
        // as the person's own; a write then says what stops it.
        let held_elsewhere = live.is_none() && self.store.is_held(id).unwrap_or(false);
        SessionView {
            summary: list_item_of_records(replay, &records),
            context: history.items().to_vec(),
            context_tokens: last_usage.as_ref().and_then(|usage| usage.context_tokens()),
            last_usage,
            threshold,
            context_window,
            live: live.is_some(),
            held_elsewhere,
            profile: replay.profile().cloned(),
            reasoning: replay
                .reasoning()
                .or_else(|| self.view_profile(replay).and_then(|p| p.reasoning)),
            can_reason: model_can_reason(replay),
            sandbox: replay.sandbox(),
            sandbox_network: replay
                .sandbox_set()
                .map(|set| set.network)
                .unwrap_or_default(),
            sandbox_allow_domains: replay
                .sandbox_set()
                .map(|set| set.allow_domains.clone())
                .unwrap_or_default(),
            record_count: to_u32(replay.records()),
            records,
        }
    }

    /// Opening a session checks that its file still ends in the record the
    /// index last read, and reindexes it when not (something other than a
    /// noted writer changed it). Best effort: the index is derived.
    pub(crate) fn check_indexed_tail(&self, id: SessionId) {
        let checked = self.catalog.with(&self.paths, |index| {
            if index.check_tail(id)? != TailCheck::Matches {
                index.note_appended(id)?;
            }
            Ok(())
        });
        if let Err(error) = checked {
            tracing::debug!(session = %id, %error, "tail check skipped");
        }
    }

    /// The compaction threshold and context window a session that is not
    /// live is shown with: those an agent on its recorded profile would use
    /// under its recorded policy and threshold override (the active
    /// profile's when that cannot be resolved).
    pub(crate) fn limits_for(&self, replay: &strata_core::Replay) -> (u64, Option<u64>) {
        match self.view_profile(replay) {
            Some(profile) => {
                let mut config = strata_providers::agent_config(&profile);
                config.threshold_setting = replay.policy_record().and_then(|r| r.threshold);
                (
                    config.effective_threshold(replay.policy()),
                    config.context_window,
                )
            }
            None => (0, None),
        }
    }

    /// [`Self::delete_session`] for a session this app does not hold open.
    pub fn delete_blocking(&self, id: SessionId) -> AppResult<()> {
        self.store.delete(id)?;
        catalog::note(&self.paths, id, Note::Removed);
        tracing::info!(session = %id, "session deleted");
        Ok(())
    }

    /// The sidebar row to answer a rename or a profile switch with: the
    /// whole file's, so the row keeps its cost (a replay alone has none),
    /// else the replay's `fallback` when the file is gone.
    pub fn row_after_write(
        &self,
        id: SessionId,
        fallback: SessionListItem,
    ) -> AppResult<SessionListItem> {
        Ok(self.session_row(id)?.unwrap_or(fallback))
    }

    /// The session's current sidebar row; `None` when its file is gone (or
    /// is not a session any more).
    pub fn session_row(&self, id: SessionId) -> AppResult<Option<SessionListItem>> {
        match self.store.open_reader(id, ReadMode::Browsing) {
            Ok(read) => Ok(Some(list_item_of_records(&read.replay(), &read.records))),
            Err(strata_core::CoreError::SessionNotFound { .. }) => Ok(None),
            Err(error) => Err(AppError::from(error)),
        }
    }
}

/// The flags that pick the settings' profile `profile_id`: a saved profile,
/// or the built-in demo under the id the settings show it with.
pub(crate) fn flags_for(config: &strata_providers::StrataConfig, profile_id: &str) -> ProfileFlags {
    if !config.profiles.contains_key(profile_id) && DEMO_PROFILE_IDS.contains(&profile_id) {
        ProfileFlags {
            kind: Some(ProviderKind::Demo),
            ..Default::default()
        }
    } else {
        ProfileFlags {
            profile: Some(profile_id.to_owned()),
            ..Default::default()
        }
    }
}

/// Whether the records hold the history item `item` (or the full text of
/// a capped one), what a search hit's `item_id` names.
pub(crate) fn holds_item(
    records: &[strata_protocol::Record],
    item: strata_protocol::ItemId,
) -> bool {
    use strata_protocol::RecordBody;
    records.iter().any(|record| {
        matches!(&record.body, RecordBody::ResponseItem(committed) if committed.id() == item)
            || matches!(&record.body, RecordBody::FullToolOutput(full) if full.item_id == item)
            || matches!(&record.body, RecordBody::LayeredCompaction(layered) if layered.summary.id == item)
    })
}

/// The window a `round_requests` call asks for, clamped to one page.
pub(crate) fn page_bounds(offset: Option<u32>, limit: Option<u32>) -> (usize, usize) {
    let limit = limit.unwrap_or(DEFAULT_ROUND_PAGE).min(MAX_ROUND_PAGE);
    (to_usize(offset.unwrap_or(0)), to_usize(limit))
}

/// Whether the model the session talks to now takes a reasoning setting.
fn model_can_reason(replay: &strata_core::Replay) -> bool {
    let model = replay
        .profile()
        .map_or(replay.meta().model.as_str(), |profile| {
            profile.model.as_str()
        });
    strata_providers::reasoning_form(model).can_reason()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_pages_default_and_are_capped() {
        assert_eq!(page_bounds(None, None), (0, 50));
        assert_eq!(page_bounds(Some(4_950), Some(10_000)), (4_950, 200));
        assert_eq!(page_bounds(Some(3), Some(0)), (3, 0));
    }
}
