//! Other agents' sessions (Codex, Claude Code, Copilot CLI) in the person's
//! home folder, read-only through strata-import: listed beside Strata's own
//! and opened by id or unique id prefix. Listing and search read the
//! library's index of them (strata-index's `imported.rs`, kept current by
//! size and modification time); opening reads the file. Their files are
//! never written or locked.

use std::path::{Path, PathBuf};

use strata_core::CoreError;
use strata_import::{ImportedListItem, ImportedSession, discover, read_session};
use strata_index::{ImportedHit, ImportedRefresh};
use strata_protocol::SearchSessions;

use crate::error::AppResult;
use crate::library::search_limit;
use crate::{App, catalog, validate};

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
    /// The sessions of every tool whose standard folders are under `home`,
    /// from the library's index, which first reads again the files whose
    /// size or modification time changed (and drops those gone).
    pub fn list_imported_blocking(&self, home: &Path) -> AppResult<ImportedListing> {
        let (refreshed, sessions) = self.catalog.with(&self.paths, |index| {
            let refreshed = index.refresh_imported(home)?;
            Ok((refreshed, index.imported_sessions()?))
        })?;
        Ok(ImportedListing {
            sessions,
            unreadable: unreadable(refreshed),
        })
    }

    /// The pieces of the other tools' sessions under `home` holding the
    /// search's query, narrowed by its filters, at most its limit (the
    /// index is refreshed first, as for the listing).
    pub fn search_imported_blocking(
        &self,
        home: &Path,
        request: &SearchSessions,
    ) -> AppResult<(Vec<ImportedHit>, Vec<UnreadableFile>)> {
        let query = validate::search_query(&request.query)?;
        let limit = search_limit(request);
        let filters = catalog::filters(request);
        let (refreshed, hits) = self.catalog.with(&self.paths, |index| {
            let refreshed = index.refresh_imported(home)?;
            Ok((refreshed, index.search_imported(&query, &filters, limit)?))
        })?;
        Ok((hits, unreadable(refreshed)))
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

/// The imported session a full id or a unique id prefix names, with its
/// listing line.
pub fn open_imported(home: &Path, query: &str) -> AppResult<(ImportedListItem, ImportedSession)> {
    let not_found = || CoreError::SessionNotFound {
        query: query.to_owned(),
    };
    if query.is_empty() {
        return Err(not_found().into());
    }
    let mut matches = Vec::new();
    for file in discover(home) {
        // A file that does not open cannot be the one asked for.
        let Ok(session) = read_session(&file) else {
            continue;
        };
        let item = session.list_item(&file);
        if item.id.starts_with(query) {
            matches.push((item, session));
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
        assert!(matches!(
            open_imported(home.path(), "ab"),
            Err(crate::error::AppError::Core(CoreError::AmbiguousSession {
                count: 2,
                ..
            }))
        ));
        let (item, session) = open_imported(home.path(), "abc").unwrap();
        assert_eq!(item.id, "abc-1");
        assert_eq!(session.items.len(), 1);
        assert!(matches!(
            open_imported(home.path(), ""),
            Err(crate::error::AppError::Core(
                CoreError::SessionNotFound { .. }
            ))
        ));
    }
}
