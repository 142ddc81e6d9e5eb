//! The library's commands: list, search and open sessions and their
//! transcripts, create, rename, delete, export and fork them, and the
//! new-session sheet's memory of recent folders.

use std::sync::Arc;

use strata_protocol::{
    CreateSession, DeleteSession, ExportSession, ForkFiles, ForkPreview, ForkSession, GetRecent,
    ListSessions, OpenSession, OpenTranscript, PreviewFork, Recent, RememberOpen, RenameSession,
    SearchResults, SearchSessions, SessionExport, SessionForkView, SessionListItem, SessionPage,
    SessionView, TranscriptPage,
};
use strata_providers::ProfileFlags;

use crate::App;
use crate::catalog::{self, Note};
use crate::error::{CommandResult, invalid_input, io, not_found};
use crate::launch::{self, LaunchOptions};
use crate::library::{holds_item, to_usize};
use crate::manager::LiveSlot;
use crate::recent::{LIBRARY_SESSIONS, Stored, merged};
use crate::transcript::{PageAnchor, entry_of_item, from_read, page, tail};
use crate::views::list_item_of_replay;
use crate::{export, validate};

impl App {
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

    /// `search_sessions`: a page of full-text hits from the library's index.
    pub async fn search_sessions(
        self: &Arc<Self>,
        request: SearchSessions,
    ) -> CommandResult<SearchResults> {
        self.blocking(move |app| app.search_sessions_blocking(&request))
            .await
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

    /// `open_transcript`: a page of what the conversation shows, newest first.
    pub async fn open_transcript(
        self: &Arc<Self>,
        request: OpenTranscript,
    ) -> CommandResult<TranscriptPage> {
        self.blocking(move |app| {
            let path = app.store().session_path(request.session_id);
            if let Some(page) = tail::open_page(&path, &request, tail::FIRST_WINDOW)? {
                return Ok(page);
            }
            let read = app.browse(request.session_id)?;
            let target = match (&request.before, &request.at_item) {
                (Some(_), Some(_)) => {
                    return Err(invalid_input(
                        "A transcript page is cut before an entry or at an item, not both.",
                    ));
                }
                (None, Some(item)) => Some(
                    entry_of_item(&read.records, item)
                        .ok_or_else(|| not_found("That item is not shown in the transcript."))?,
                ),
                _ => None,
            };
            let anchor = PageAnchor::of(target.as_deref(), request.before.as_deref());
            page(request.session_id, from_read(&read), anchor, request.limit)
        })
        .await
    }

    /// `create_session`: a session in `workspace` on the saved profile
    /// `profile_id` (none: the active one), its system prompt and profile
    /// committed, kept live; the folder is offered first next time. `/` or
    /// the home folder only when the person confirmed it
    /// (`allow_broad_workspace`). An `approval_policy` becomes the
    /// desktop's first (as saving it in Settings would); a `sandbox` is
    /// this session's (recorded in it), else the settings' applies.
    pub async fn create_session(
        self: &Arc<Self>,
        request: CreateSession,
    ) -> CommandResult<SessionListItem> {
        let workspace = validate::workspace(&request.workspace)?;
        let profile_id = request
            .profile_id
            .as_deref()
            .map(validate::profile_id)
            .transpose()?;
        if let Some(policy) = request.approval_policy {
            self.set_approval_policy(policy).await?;
        }
        let _opening = self.live.opening.lock().await;
        let (id, item, slot) = self
            .blocking(move |app| {
                // A new session records the settings' threshold; the config
                // file's policy (which the settings write) picks its policy.
                let profile = match &profile_id {
                    Some(profile_id) => crate::library::flags_for(&app.config()?, profile_id),
                    None => ProfileFlags::default(),
                };
                let options = LaunchOptions {
                    profile,
                    allow_broad_workspace: request.allow_broad_workspace,
                    compact_threshold: app.prefs().compact_threshold,
                    sandbox: request.sandbox,
                    network: request.network,
                    ..app.launch_options()
                };
                let launched =
                    launch::start(&app.store, &app.paths, app.env(), &workspace, &options)?;
                app.remember_workspace(&workspace);
                let id = launched.agent.id();
                let item = list_item_of_replay(launched.agent.session().state());
                Ok((id, item, LiveSlot::new(launched)))
            })
            .await?;
        self.insert_live(id, Arc::new(slot));
        Ok(item)
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
                app.row_after_write(id, list_item_of_replay(live.agent.session().state()))
            }
            None => {
                let mut session = app.store.open_writer(id)?;
                session.set_title(title).and_then(|()| session.sync())?;
                let fallback = list_item_of_replay(session.state());
                drop(session);
                app.mark_own_write(id);
                catalog::note(&app.paths, id, Note::Appended);
                app.row_after_write(id, fallback)
            }
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

    /// `fork_session`: with files in place, the parent's live session
    /// closes first (as for a restore; refused while a turn runs).
    pub async fn fork_session(
        self: &Arc<Self>,
        request: ForkSession,
    ) -> CommandResult<SessionForkView> {
        let in_place = request.files == Some(ForkFiles::InPlace);
        let _opening = match in_place {
            true => Some(self.live.opening.lock().await),
            false => None,
        };
        if in_place {
            self.close_locked(request.session_id)?;
        }
        self.blocking(move |app| crate::changes::fork_files::fork(app, &request))
            .await
    }

    /// `preview_fork`: what a fork with files would do; writes nothing.
    pub async fn preview_fork(
        self: &Arc<Self>,
        request: PreviewFork,
    ) -> CommandResult<ForkPreview> {
        self.blocking(move |app| {
            crate::changes::fork_files::preview(app, request.session_id, &request.point)
        })
        .await
    }

    /// `recent`: the folders to offer a new session (remembered ones, then
    /// those of the library's newest sessions) and the session to reopen.
    pub async fn recent(self: &Arc<Self>, _request: GetRecent) -> CommandResult<Recent> {
        self.blocking(|app| {
            let stored = Stored::load(&app.paths.config);
            let library = app.list_sessions_blocking(&ListSessions {
                limit: Some(LIBRARY_SESSIONS),
                ..Default::default()
            })?;
            let last_session = stored
                .last_session
                .filter(|id| app.store.session_path(*id).is_file());
            Ok(Recent {
                workspaces: merged(
                    stored.workspaces,
                    library.sessions.into_iter().map(|row| row.workspace),
                ),
                last_session,
            })
        })
        .await
    }

    /// `remember_open`: the session the window shows now.
    pub async fn remember_open(self: &Arc<Self>, request: RememberOpen) -> CommandResult<()> {
        self.blocking(move |app| {
            let mut stored = Stored::load(&app.paths.config);
            if stored.last_session != Some(request.session_id) {
                stored.last_session = Some(request.session_id);
                stored
                    .save(&app.paths.config)
                    .map_err(|error| io(format!("Could not remember the open session: {error}")))?;
            }
            Ok(())
        })
        .await
    }
}
