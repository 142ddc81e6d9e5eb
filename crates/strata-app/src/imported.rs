//! Other agents' sessions (Codex, Claude Code, Copilot CLI), read-only
//! through strata-import: listed beside Strata's own and opened by id or
//! unique id prefix. Listing and search read the library's index of them
//! (strata-index's `imported.rs`, kept current by size and modification
//! time); opening reads the file. Their files are never written or locked.
//!
//! Which files the library holds: the tools' standard folders under the
//! home folder (the desktop only for the tools the person agreed to show,
//! [`ImportPrefs`]), and every session file at the paths the person added
//! (`strata sessions import`, "Open file…", Settings). Hiding a session
//! puts its path on the library's hidden list; the file stays as it is.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use strata_core::CoreError;
use strata_import::{
    ImportedListItem, ImportedSession, SessionFileRef, discover, discover_path, read_path,
};
use strata_index::{ImportedHit, ImportedRefresh};
use strata_protocol::{ImportSettings, ImportSource, SearchSessions};

use crate::error::{AppResult, io};
use crate::imported_view::source_of;
use crate::library::search_limit;
use crate::settings::DesktopPrefs;
use crate::{App, catalog, validate};

/// What the library keeps of the person's choices about imported sessions
/// (in `desktop.toml`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImportPrefs {
    /// The discovery question was answered: it is not asked again.
    pub asked: bool,
    /// The tools whose standard folders the desktop shows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ImportSource>,
    /// Files and folders the person added.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_paths: Vec<String>,
    /// Paths of sessions taken out of the library.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
}

impl ImportPrefs {
    pub fn is_unset(&self) -> bool {
        *self == Self::default()
    }

    pub fn settings(&self) -> ImportSettings {
        ImportSettings {
            asked: self.asked,
            tools: self.tools.clone(),
            extra_paths: self.extra_paths.clone(),
        }
    }

    pub fn is_hidden(&self, path: &Path) -> bool {
        path.to_str()
            .is_some_and(|path| self.hidden.iter().any(|hidden| hidden == path))
    }
}

/// Which standard folders a listing reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every tool's (the command line lists them all when asked to).
    AllTools,
    /// Only those the person agreed to show (the desktop).
    Chosen,
}

/// Every imported session found, newest first, and the files that would
/// not open.
#[derive(Debug, Default)]
pub struct ImportedListing {
    pub sessions: Vec<ImportedListItem>,
    pub unreadable: Vec<UnreadableFile>,
}

#[derive(Debug)]
pub struct UnreadableFile {
    pub path: PathBuf,
    pub reason: String,
}

impl App {
    /// The folder the other tools keep their sessions under.
    pub fn import_home(&self) -> Option<PathBuf> {
        if let Some(home) = &self.import_home {
            return Some(home.clone());
        }
        (self.env)("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from)
    }

    /// The session files the library holds: the standard folders (all, or
    /// the chosen tools'), then the added paths', each once.
    pub fn imported_files(&self, prefs: &ImportPrefs, scope: Scope) -> Vec<SessionFileRef> {
        let mut files: Vec<SessionFileRef> = self
            .import_home()
            .map(|home| discover(&home))
            .unwrap_or_default()
            .into_iter()
            .filter(|file| scope == Scope::AllTools || prefs.tools.contains(&source_of(file.tool)))
            .collect();
        for path in &prefs.extra_paths {
            files.extend(discover_path(Path::new(path)));
        }
        let mut seen = BTreeSet::new();
        files.retain(|file| seen.insert(file.path.clone()));
        files
    }

    /// The imported sessions of `scope`, from the library's index, which
    /// first reads again the files whose size or modification time changed
    /// (and drops those no longer found).
    pub fn list_imported_blocking(&self, scope: Scope) -> AppResult<ImportedListing> {
        let files = self.imported_files(&self.prefs().imported, scope);
        let (refreshed, sessions) = self.catalog.with(&self.paths, |index| {
            let refreshed = index.refresh_imported_files(&files)?;
            Ok((refreshed, index.imported_sessions()?))
        })?;
        Ok(ImportedListing {
            sessions,
            unreadable: unreadable(refreshed),
        })
    }

    /// The pieces of the imported sessions of `scope` holding the search's
    /// query, narrowed by its filters, at most its limit (the index is
    /// refreshed first, as for the listing).
    pub fn search_imported_blocking(
        &self,
        scope: Scope,
        request: &SearchSessions,
    ) -> AppResult<(Vec<ImportedHit>, Vec<UnreadableFile>)> {
        let query = validate::search_query(&request.query)?;
        let limit = search_limit(request);
        let filters = catalog::filters(request);
        let files = self.imported_files(&self.prefs().imported, scope);
        let (refreshed, hits) = self.catalog.with(&self.paths, |index| {
            let refreshed = index.refresh_imported_files(&files)?;
            Ok((refreshed, index.search_imported(&query, &filters, limit)?))
        })?;
        Ok((hits, unreadable(refreshed)))
    }

    /// The listing line of the imported session of `scope` a full id or a
    /// unique id prefix names (the desktop's scope leaves hidden ones out).
    pub fn find_imported_blocking(&self, scope: Scope, query: &str) -> AppResult<ImportedListItem> {
        let listing = self.list_imported_blocking(scope)?;
        let prefs = self.prefs().imported;
        unique_match(
            listing
                .sessions
                .into_iter()
                .filter(|item| scope == Scope::AllTools || !prefs.is_hidden(&item.path)),
            query,
        )
    }

    /// [`App::find_imported_blocking`]'s session, read from its file.
    pub fn open_imported_blocking(
        &self,
        scope: Scope,
        query: &str,
    ) -> AppResult<(ImportedListItem, ImportedSession)> {
        let item = self.find_imported_blocking(scope, query)?;
        let session = read_path(item.source, &item.path)
            .map_err(|error| io(format!("Could not read that session's file again: {error}")))?;
        Ok((item, session))
    }

    /// Changes the import preferences with `change` and saves them.
    pub fn update_import_prefs(
        &self,
        change: impl FnOnce(&mut ImportPrefs),
    ) -> AppResult<ImportPrefs> {
        let mut prefs: DesktopPrefs = self.prefs();
        change(&mut prefs.imported);
        prefs
            .save(&self.paths.config)
            .map_err(|error| io(format!("Could not save the desktop preferences: {error}")))?;
        Ok(prefs.imported)
    }
}

fn unreadable(refreshed: ImportedRefresh) -> Vec<UnreadableFile> {
    refreshed
        .unreadable
        .into_iter()
        .map(|file| UnreadableFile {
            path: file.path,
            reason: file.reason,
        })
        .collect()
}

/// The one item whose id is `query` or starts with it.
fn unique_match(
    items: impl Iterator<Item = ImportedListItem>,
    query: &str,
) -> AppResult<ImportedListItem> {
    let not_found = || CoreError::SessionNotFound {
        query: query.to_owned(),
    };
    if query.is_empty() {
        return Err(not_found().into());
    }
    let mut matches: Vec<ImportedListItem> = Vec::new();
    for item in items {
        if item.id == query {
            return Ok(item);
        }
        if item.id.starts_with(query) {
            matches.push(item);
        }
    }
    match matches.len() {
        0 => Err(not_found().into()),
        1 => Ok(matches.remove(0)),
        count => Err(CoreError::AmbiguousSession {
            query: query.to_owned(),
            count,
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::AppError;

    fn claude_file(home: &Path, id: &str, when: &str) {
        let folder = home.join(".claude/projects/-work");
        std::fs::create_dir_all(&folder).unwrap();
        let line = format!(
            r#"{{"type":"user","sessionId":"{id}","uuid":"u","timestamp":"{when}","message":{{"role":"user","content":"hello"}}}}"#
        );
        std::fs::write(folder.join(format!("{id}.jsonl")), line).unwrap();
    }

    #[test]
    fn a_prefix_two_sessions_share_is_ambiguous_and_a_longer_one_opens_its_session() {
        let home = tempfile::tempdir().unwrap();
        claude_file(home.path(), "abc-1", "2026-01-01T00:00:00Z");
        claude_file(home.path(), "abd-2", "2026-02-01T00:00:00Z");
        let app = App::new(
            strata_core::StrataPaths::under(&home.path().join(".strata")),
            |_| None,
        )
        .with_import_home(home.path().to_path_buf());
        assert!(matches!(
            app.open_imported_blocking(Scope::AllTools, "ab"),
            Err(AppError::Core(CoreError::AmbiguousSession { count: 2, .. }))
        ));
        let (item, session) = app.open_imported_blocking(Scope::AllTools, "abc").unwrap();
        assert_eq!(item.id, "abc-1");
        assert_eq!(session.items.len(), 1);
        assert!(matches!(
            app.open_imported_blocking(Scope::AllTools, ""),
            Err(AppError::Core(CoreError::SessionNotFound { .. }))
        ));
        // The desktop shows only the tools the person chose.
        assert!(matches!(
            app.open_imported_blocking(Scope::Chosen, "abc"),
            Err(AppError::Core(CoreError::SessionNotFound { .. }))
        ));
    }
}
