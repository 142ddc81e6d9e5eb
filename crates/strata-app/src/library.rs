//! The session library: list and search, open read-only, rename, delete,
//! export, switch a session's profile, and the debug console's views. The
//! session file is never rewritten: a rename appends a `title_set` record,
//! a switch a `profile_set`.

use std::sync::Arc;

use strata_core::ReadMode;
use strata_core::store::{
    SessionRead, compaction_views as views_of, read_session_tail, round_requests as rounds_of,
};
use strata_index::{Filters, PageRequest, TailCheck};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CompactionView, DeleteSession, ExportSession, GetCompactionViews,
    GetRoundRequests, ListSessions, OpenSession, ProfileChange, ProfileSet, RenameSession,
    RoundPage, SearchResults, SearchSessions, SessionExport, SessionId, SessionListItem,
    SessionPage, SessionView, SwitchProfile,
};
use strata_providers::config::{resolve_profile, with_key};
use strata_providers::{ProfileFlags, ProviderKind};

use crate::catalog::{self, Note};
use crate::error::{AppError, AppResult, CommandResult};
use crate::profile::profile_set;
use crate::settings::DEMO_PROFILE_IDS;
use crate::views::list_item_of_replay;
use crate::{App, export, validate};

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

fn to_usize(value: u32) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

fn to_u32(value: usize) -> u32 {
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

    /// `list_sessions`: newest first, filtered by `query` (title, first user
    /// message, workspace; ASCII case ignored), one page of them, read from
    /// the library's index after a cheap refresh.
    pub async fn list_sessions(
        self: &Arc<Self>,
        request: ListSessions,
    ) -> CommandResult<SessionPage> {
        self.blocking(move |app| app.list_sessions_blocking(&request))
            .await
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

    /// `search_sessions`: a page of full-text hits from the library's index.
    pub async fn search_sessions(
        self: &Arc<Self>,
        request: SearchSessions,
    ) -> CommandResult<SearchResults> {
        self.blocking(move |app| app.search_sessions_blocking(&request))
            .await
    }

    /// [`Self::search_sessions`] on the calling thread.
    pub fn search_sessions_blocking(&self, request: &SearchSessions) -> AppResult<SearchResults> {
        let query = validate::search_query(&request.query)?;
        let offset = to_usize(request.offset.unwrap_or(0));
        let limit = to_usize(
            request
                .limit
                .unwrap_or(DEFAULT_SEARCH_PAGE)
                .min(MAX_SEARCH_PAGE),
        );
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

    /// `open_session`: a read-only snapshot: the records from `from_record`
    /// on (none with `without_records`, as the desktop asks when a session
    /// opens), and the model-visible history the core replays from all of
    /// them. Asked for no records, only the file's tail is read.
    pub async fn open_session(
        self: &Arc<Self>,
        request: OpenSession,
    ) -> CommandResult<SessionView> {
        let id = request.session_id;
        let live = self.live(id);
        self.blocking(move |app| {
            app.check_indexed_tail(id);
            app.mark_shown(id);
            // Records asked for from the start (the console) need the whole
            // file: the tail's replay would only be thrown away.
            if request.at_item.is_none()
                && (request.without_records || request.from_record.is_some())
            {
                let replay = app.replay_from_tail(id)?;
                let from = to_usize(request.from_record.unwrap_or(0));
                if request.without_records || from >= replay.records() {
                    return Ok(app.session_view(&replay, live.as_deref(), Vec::new()));
                }
            }
            let read = app.browse(id)?;
            if let Some(item) = request.at_item
                && !holds_item(&read.records, item)
            {
                return Err(crate::error::not_found(
                    "That part of the session is no longer in its file.",
                ));
            }
            let from = if request.without_records {
                read.records.len()
            } else {
                to_usize(request.from_record.unwrap_or(0)).min(read.records.len())
            };
            Ok(app.session_view(
                &read.replay(),
                live.as_deref(),
                read.records[from..].to_vec(),
            ))
        })
        .await
    }

    /// A snapshot of `replay` carrying `records`.
    fn session_view(
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
            summary: list_item_of_replay(replay),
            context: history.items().to_vec(),
            context_tokens: last_usage.as_ref().and_then(|usage| usage.context_tokens()),
            last_usage,
            threshold,
            context_window,
            live: live.is_some(),
            held_elsewhere,
            profile: replay.profile().cloned(),
            record_count: to_u32(replay.records()),
            records,
        }
    }

    /// Opening a session checks that its file still ends in the record the
    /// index last read, and reindexes it when not (something other than a
    /// noted writer changed it). Best effort: the index is derived.
    fn check_indexed_tail(&self, id: SessionId) {
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

    /// `rename_session`: a `title_set` record. A live session is renamed
    /// through its agent, which stays live as it was; refused while
    /// something runs in it.
    pub async fn rename_session(
        self: &Arc<Self>,
        request: RenameSession,
    ) -> CommandResult<SessionListItem> {
        let title = validate::title(&request.title)?;
        let id = request.session_id;
        let _opening = self.live.opening.lock().await;
        let live = self.idle_agent(id)?;
        self.blocking(move |app| match live {
            Some(mut live) => {
                live.agent.set_title(title)?;
                Ok(list_item_of_replay(live.agent.session().state()))
            }
            None => {
                let mut session = app.store.open_writer(id)?;
                session.set_title(title).and_then(|()| session.sync())?;
                let item = list_item_of_replay(session.state());
                drop(session);
                app.mark_own_write(id);
                catalog::note(&app.paths, id, Note::Appended);
                Ok(item)
            }
        })
        .await
    }

    /// `switch_profile`: the session talks to the settings' profile
    /// `profile_id` from its next turn on. The choice is a `profile_set`
    /// record; a live session closes so its next turn resumes on it.
    pub async fn switch_profile(
        self: &Arc<Self>,
        request: SwitchProfile,
    ) -> CommandResult<SessionListItem> {
        let profile_id = validate::profile_id(&request.profile_id)?;
        let id = request.session_id;
        let _opening = self.live.opening.lock().await;
        self.close_locked(id)?;
        self.blocking(move |app| {
            let config = app.config()?;
            let flags = flags_for(&config, &profile_id);
            let profile = resolve_profile(&config, &flags, app.env())?;
            // Refuses a profile whose key is missing now, not at the turn.
            let resolved = with_key(&app.paths, &config, profile, app.env())?;
            let mut session = app.store.open_writer(id)?;
            app.check_not_stale(id)?;
            // The session's approval policy goes on with it.
            let record = ProfileSet {
                approval: session.state().profile().and_then(|set| set.approval),
                ..profile_set(&resolved.profile, ProfileChange::Switched)
            };
            session
                .append(strata_protocol::RecordBody::ProfileSet(record))
                .and_then(|_| session.sync())?;
            tracing::info!(session = %id, profile = %profile_id, "session switched to another profile");
            let item = list_item_of_replay(session.state());
            drop(session);
            app.mark_own_write(id);
            catalog::note(&app.paths, id, Note::Appended);
            Ok(item)
        })
        .await
    }

    /// `delete_session`: deletes the session's file; refused while a turn
    /// runs in it.
    pub async fn delete_session(self: &Arc<Self>, request: DeleteSession) -> CommandResult<()> {
        let id = request.session_id;
        self.close(id).await?;
        self.blocking(move |app| app.delete_blocking(id)).await
    }

    /// [`Self::delete_session`] for a session this app does not hold open.
    pub fn delete_blocking(&self, id: SessionId) -> AppResult<()> {
        self.store.delete(id)?;
        catalog::note(&self.paths, id, Note::Removed);
        tracing::info!(session = %id, "session deleted");
        Ok(())
    }

    /// `export_session`: the session as Markdown or JSON lines; the front
    /// end writes it where the person chose.
    pub async fn export_session(
        self: &Arc<Self>,
        request: ExportSession,
    ) -> CommandResult<SessionExport> {
        let id = request.session_id;
        self.blocking(move |app| {
            let read = app.browse(id)?;
            let text = export::render(&read, request.format)?;
            tracing::info!(session = %id, format = ?request.format, "session exported");
            Ok(SessionExport {
                session_id: id,
                format: request.format,
                text,
            })
        })
        .await
    }

    /// The session's current sidebar row; `None` when its file is gone (or
    /// is not a session any more).
    pub fn session_row(&self, id: SessionId) -> AppResult<Option<SessionListItem>> {
        match self.store.open_reader(id, ReadMode::Browsing) {
            Ok(read) => Ok(Some(list_item_of_replay(&read.replay()))),
            Err(strata_core::CoreError::SessionNotFound { .. }) => Ok(None),
            Err(error) => Err(AppError::from(error)),
        }
    }

    /// `compaction_views`: every compaction of the session, in order, with
    /// the history before and after it, sized as the gauge sizes a history.
    pub async fn compaction_views(
        self: &Arc<Self>,
        request: GetCompactionViews,
    ) -> CommandResult<Vec<CompactionView>> {
        self.blocking(move |app| {
            let read = app.browse(request.session_id)?;
            Ok(views_of(
                &read.meta,
                &read.records,
                crate::context::recorded_estimate,
            ))
        })
        .await
    }

    /// `round_requests`: a page of the session's rounds (at most
    /// [`MAX_ROUND_PAGE`]), each with the exact request it sent.
    pub async fn round_requests(
        self: &Arc<Self>,
        request: GetRoundRequests,
    ) -> CommandResult<RoundPage> {
        let (offset, limit) = page_bounds(request.offset, request.limit);
        self.blocking(move |app| {
            let read = app.browse(request.session_id)?;
            Ok(rounds_of(&read.meta, &read.records, offset, limit))
        })
        .await
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
fn holds_item(records: &[strata_protocol::Record], item: strata_protocol::ItemId) -> bool {
    use strata_protocol::RecordBody;
    records.iter().any(|record| {
        matches!(&record.body, RecordBody::ResponseItem(committed) if committed.id() == item)
            || matches!(&record.body, RecordBody::FullToolOutput(full) if full.item_id == item)
            || matches!(&record.body, RecordBody::LayeredCompaction(layered) if layered.summary.id == item)
    })
}

/// The window a `round_requests` call asks for, clamped to one page.
fn page_bounds(offset: Option<u32>, limit: Option<u32>) -> (usize, usize) {
    let limit = limit.unwrap_or(DEFAULT_ROUND_PAGE).min(MAX_ROUND_PAGE);
    (to_usize(offset.unwrap_or(0)), to_usize(limit))
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
