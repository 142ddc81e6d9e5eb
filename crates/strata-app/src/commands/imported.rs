//! Other agents' sessions in the library: list, open read-only, search,
//! hide, import from a path, and which of them to show. Every file is only
//! read (`crate::imported`); hiding and importing change the library's
//! preferences, never the other tool's files.

use std::path::Path;
use std::sync::Arc;

use strata_import::discover_path;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, GetImportSettings, HideImported, ImportCounts, ImportReport,
    ImportSessions, ImportSettingsView, ImportSource, ImportedHits, ImportedPage,
    ImportedSearchHit, ImportedSessionView, ListImported, OpenImported, SaveImportSettings,
    SearchImported, SearchSessions, UnreadableImport,
};

use crate::App;
use crate::catalog::plain_snippet;
use crate::error::{CommandResult, invalid_input};
use crate::imported::{ImportPrefs, Scope, UnreadableFile};
use crate::imported_view::{item_entry_id, session_item, session_view, source_of};

/// At most this many paths in one `import_sessions` or saved settings.
const MAX_EXTRA_PATHS: usize = 64;
/// At most this many bytes in one path.
const MAX_PATH_BYTES: usize = 4096;

impl App {
    /// `list_imported`: the imported sessions the library shows (the
    /// chosen tools' standard folders and the added paths), newest first,
    /// hidden ones left out.
    pub async fn list_imported(
        self: &Arc<Self>,
        request: ListImported,
    ) -> CommandResult<ImportedPage> {
        let ListImported {} = request;
        self.blocking(move |app| {
            let listing = app.list_imported_blocking(Scope::Chosen)?;
            let prefs = app.prefs().imported;
            Ok(ImportedPage {
                v: CONTRACT_FORMAT_VERSION,
                sessions: listing
                    .sessions
                    .iter()
                    .filter(|item| !prefs.is_hidden(&item.path))
                    .map(session_item)
                    .collect(),
                unreadable: unreadable_rows(&listing.unreadable),
            })
        })
        .await
    }

    /// `open_imported`: one session read again from its file, as a
    /// transcript, compaction cards and chart points.
    pub async fn open_imported(
        self: &Arc<Self>,
        request: OpenImported,
    ) -> CommandResult<ImportedSessionView> {
        self.blocking(move |app| {
            let (item, session) = app.open_imported_blocking(Scope::Chosen, &request.id)?;
            Ok(session_view(&item, &session))
        })
        .await
    }

    /// `search_imported`: hits in the shown imported sessions' messages
    /// and readable summaries.
    pub async fn search_imported(
        self: &Arc<Self>,
        request: SearchImported,
    ) -> CommandResult<ImportedHits> {
        self.blocking(move |app| {
            let search = SearchSessions {
                query: request.query,
                workspace: None,
                model: None,
                updated_from: None,
                updated_until: None,
                offset: None,
                limit: request.limit,
            };
            let (hits, _) = app.search_imported_blocking(Scope::Chosen, &search)?;
            let prefs = app.prefs().imported;
            let hits = hits
                .iter()
                .filter(|hit| !prefs.is_hidden(&hit.path))
                .map(|hit| {
                    let (snippet, matches) = plain_snippet(&hit.snippet);
                    ImportedSearchHit {
                        source: source_of(hit.source),
                        session_id: hit.session_id.clone(),
                        session_title: hit.session_title.clone(),
                        entry_id: hit
                            .item
                            .and_then(|item| usize::try_from(item).ok())
                            .map(item_entry_id),
                        kind: hit.kind.clone(),
                        snippet,
                        matches,
                    }
                })
                .collect();
            Ok(ImportedHits {
                v: CONTRACT_FORMAT_VERSION,
                hits,
            })
        })
        .await
    }

    /// `hide_imported`: the session's path goes on the library's hidden
    /// list; the file is not touched.
    pub async fn hide_imported(self: &Arc<Self>, request: HideImported) -> CommandResult<()> {
        self.blocking(move |app| {
            let item = app.find_imported_blocking(Scope::Chosen, &request.id)?;
            let path = item.path.to_string_lossy().into_owned();
            app.update_import_prefs(|prefs| {
                if !prefs.hidden.contains(&path) {
                    prefs.hidden.push(path);
                }
            })?;
            Ok(())
        })
        .await
    }

    /// `import_sessions`: adds absolute files or folders to the library's
    /// extra paths and reports the sessions found at them.
    pub async fn import_sessions(
        self: &Arc<Self>,
        request: ImportSessions,
    ) -> CommandResult<ImportReport> {
        let paths = checked_paths(&request.paths)?;
        self.blocking(move |app| {
            for path in &paths {
                if !Path::new(path).exists() {
                    return Err(invalid_input(format!("Nothing is at {path}.")));
                }
            }
            let before = app.prefs().imported.extra_paths;
            let added: Vec<String> = paths
                .iter()
                .filter(|path| !before.contains(path))
                .cloned()
                .collect();
            if before.len() + added.len() > MAX_EXTRA_PATHS {
                return Err(invalid_input(format!(
                    "The library keeps at most {MAX_EXTRA_PATHS} added paths."
                )));
            }
            app.update_import_prefs(|prefs| prefs.extra_paths.extend(added.iter().cloned()))?;
            let listing = app.list_imported_blocking(Scope::Chosen)?;
            let found: Vec<_> = paths
                .iter()
                .flat_map(|path| discover_path(Path::new(path)))
                .map(|file| file.path)
                .collect();
            Ok(ImportReport {
                v: CONTRACT_FORMAT_VERSION,
                kind: "import_report".to_owned(),
                added_paths: added,
                sessions: listing
                    .sessions
                    .iter()
                    .filter(|item| found.contains(&item.path))
                    .map(session_item)
                    .collect(),
                unreadable: unreadable_rows(
                    &listing
                        .unreadable
                        .into_iter()
                        .filter(|file| found.contains(&file.path))
                        .collect::<Vec<_>>(),
                ),
            })
        })
        .await
    }

    /// `import_settings`: the person's choice, and how many session files
    /// each tool's standard folders hold (for the discovery question).
    pub async fn import_settings(
        self: &Arc<Self>,
        request: GetImportSettings,
    ) -> CommandResult<ImportSettingsView> {
        let GetImportSettings {} = request;
        self.blocking(move |app| Ok(settings_view(app, &app.prefs().imported)))
            .await
    }

    /// `save_import_settings`: replaces the choice (the hidden list is
    /// kept).
    pub async fn save_import_settings(
        self: &Arc<Self>,
        request: SaveImportSettings,
    ) -> CommandResult<ImportSettingsView> {
        let settings = request.settings;
        let extra_paths = checked_paths(&settings.extra_paths)?;
        if extra_paths.len() > MAX_EXTRA_PATHS {
            return Err(invalid_input(format!(
                "The library keeps at most {MAX_EXTRA_PATHS} added paths."
            ))
            .into());
        }
        self.blocking(move |app| {
            let prefs = app.update_import_prefs(|prefs| {
                prefs.asked = settings.asked;
                prefs.tools = ImportSource::ALL
                    .into_iter()
                    .filter(|tool| settings.tools.contains(tool))
                    .collect();
                prefs.extra_paths = extra_paths;
            })?;
            Ok(settings_view(app, &prefs))
        })
        .await
    }
}

fn settings_view(app: &App, prefs: &ImportPrefs) -> ImportSettingsView {
    let mut found = ImportCounts::default();
    if let Some(home) = app.import_home() {
        for file in strata_import::discover(&home) {
            let slot = match source_of(file.tool) {
                ImportSource::Codex => &mut found.codex,
                ImportSource::ClaudeCode => &mut found.claude_code,
                ImportSource::CopilotCli => &mut found.copilot_cli,
            };
            *slot = slot.saturating_add(1);
        }
    }
    ImportSettingsView {
        settings: prefs.settings(),
        found,
    }
}

/// Each path absolute, one line, not too long; each once, in order.
fn checked_paths(paths: &[String]) -> crate::error::AppResult<Vec<String>> {
    let mut checked: Vec<String> = Vec::new();
    for path in paths {
        if path.len() > MAX_PATH_BYTES || path.chars().any(char::is_control) {
            return Err(invalid_input(
                "A path to import is too long or holds a control character.",
            ));
        }
        if !Path::new(path).is_absolute() {
            return Err(invalid_input(format!(
                "The path to import must be absolute: {path}"
            )));
        }
        if !checked.contains(path) {
            checked.push(path.clone());
        }
    }
    Ok(checked)
}

fn unreadable_rows(files: &[UnreadableFile]) -> Vec<UnreadableImport> {
    files
        .iter()
        .map(|file| UnreadableImport {
            path: file.path.to_string_lossy().into_owned(),
            reason: file.reason.clone(),
        })
        .collect()
}
