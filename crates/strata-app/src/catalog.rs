//! The session library's index (strata-index) as both front ends use it:
//! listing, search and counts read it; writers tell it what they do.
//!
//! The index is derived from the session files and lives beside them
//! (`library.sqlite3`). Several Strata processes share it (SQLite WAL with a
//! busy timeout). A writer marks its session open for writing when it
//! launches and closed when it lets go ([`WritingNote`]), so a listing in
//! any process stats that file and shows its appends mid-turn; a listing
//! otherwise stats only the sessions folder (see strata-index). Deleting
//! the index file loses nothing: the next listing rebuilds it; a damaged
//! one is set aside and rebuilt, and the listing says so once.

use std::path::PathBuf;
use std::sync::Mutex;

use strata_core::StrataPaths;
use strata_index::{FileIdentity, Filters, Index, IndexNotice, file_identity, snippet_spans};
use strata_protocol::{ItemId, SearchHit, SearchHitKind, SessionId, SessionListItem, TextRange};

use crate::error::AppResult;
use crate::manager::lock;
use crate::memory;

/// The app's open index, reopened when its file was deleted or replaced
/// (another process then rebuilds into a new file, which this one must
/// share rather than keep writing an unlinked one). A damaged index is set
/// aside and rebuilt, an unwritable one replaced by one in memory (see
/// strata-index's `recover.rs`); what that took waits in `notice` until a
/// listing passes it on, so the person hears of it once.
#[derive(Default)]
pub(crate) struct Catalog {
    open: Mutex<Option<OpenIndex>>,
    notice: Mutex<Option<IndexNotice>>,
}

struct OpenIndex {
    index: Index,
    identity: Option<FileIdentity>,
}

impl Catalog {
    /// Runs `work` on the index, opening it first (or again), recovering
    /// from damage found on opening or by `work` (which then runs again).
    pub(crate) fn with<T>(
        &self,
        paths: &StrataPaths,
        work: impl FnMut(&mut Index) -> strata_index::Result<T>,
    ) -> AppResult<T> {
        let mut open = lock(&self.open);
        let path: PathBuf = strata_index::index_path(paths);
        let stale = match open.as_ref() {
            // Its file could not be written: kept for this process's life,
            // rather than failing (and warning) again on every listing.
            Some(current) if current.index.is_in_memory() => false,
            Some(current) => current.identity.is_none() || current.identity != file_identity(&path),
            None => true,
        };
        if stale {
            *open = None;
            let opened = Index::open_recovering(paths)?;
            self.tell(opened.notice);
            *open = Some(OpenIndex {
                index: opened.index,
                identity: file_identity(&path),
            });
        }
        let Some(current) = open.as_mut() else {
            return Err(crate::error::internal("the session index is not open"));
        };
        let (value, notice) = match current.index.run_recovering(work) {
            Ok(done) => done,
            Err(error) => {
                // A recovery that failed half way may have left a
                // placeholder in memory: open the file afresh next time
                // (a bad cursor is the request's fault, not the index's).
                if !matches!(error, strata_index::IndexError::BadCursor(_)) {
                    *open = None;
                }
                return Err(error.into());
            }
        };
        if notice.is_some() {
            current.identity = file_identity(&path);
            self.tell(notice);
        }
        Ok(value)
    }

    fn tell(&self, notice: Option<IndexNotice>) {
        if let Some(notice) = notice {
            *lock(&self.notice) = Some(notice);
        }
    }

    /// What recovering the index took since it was last asked, for the
    /// person (once).
    pub(crate) fn take_notice(&self) -> Option<String> {
        lock(&self.notice).take().map(|notice| notice.to_string())
    }
}

/// Brings the index up to date with the sessions folder, then hands back
/// what a large reindex freed ([`crate::memory`]).
pub(crate) fn refresh(index: &mut Index) -> strata_index::Result<()> {
    let report = index.refresh()?;
    if memory::worth_trimming(&report) {
        memory::trim_freed_memory();
    }
    Ok(())
}

/// What a writer tells the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// The session is held open for writing from now on.
    Writing,
    /// Records were appended.
    Appended,
    /// The writer let go.
    Closed,
    /// The file was deleted.
    Removed,
}

/// Tells the index of `paths` about session `id`. The index is derived, so
/// a failure is logged, never the writer's failure: the next full pass or
/// the open-time tail check catches up.
pub fn note(paths: &StrataPaths, id: SessionId, what: Note) {
    let noted = Index::open(paths).and_then(|mut index| match what {
        Note::Writing => index.note_writing(id),
        Note::Appended => index.note_appended(id),
        Note::Closed => index.note_closed(id),
        Note::Removed => index.remove(id),
    });
    if let Err(error) = noted {
        tracing::warn!(session = %id, ?what, %error, "could not update the session index");
    }
}

/// Held beside a session's writer: marks the session open for writing in
/// the index while it lives, closed (and brought up to date) when dropped.
pub struct WritingNote {
    paths: StrataPaths,
    id: SessionId,
}

impl WritingNote {
    pub fn new(paths: &StrataPaths, id: SessionId) -> Self {
        note(paths, id, Note::Writing);
        Self {
            paths: paths.clone(),
            id,
        }
    }
}

impl Drop for WritingNote {
    fn drop(&mut self) {
        note(&self.paths, self.id, Note::Closed);
    }
}

fn count(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// A sidebar row from the index.
pub fn list_item(summary: &strata_index::SessionSummary) -> SessionListItem {
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
        forked_from: summary.forked_from.clone(),
        cost: summary.cost.clone(),
    }
}

fn hit_kind(kind: &str) -> SearchHitKind {
    match kind {
        "user" => SearchHitKind::User,
        "assistant" => SearchHitKind::Assistant,
        "tool_call" => SearchHitKind::ToolCall,
        "summary" => SearchHitKind::Summary,
        _ => SearchHitKind::ToolOutput,
    }
}

/// A contract hit from the index's: the snippet as plain text and its
/// matches as character ranges (the markers never reach a front end).
pub fn search_hit(hit: &strata_index::SearchHit) -> SearchHit {
    let (snippet, matches) = plain_snippet(&hit.snippet);
    SearchHit {
        session_id: hit.session_id,
        session_title: hit.session_title.clone(),
        item_id: hit
            .item_id
            .as_deref()
            .and_then(|id| id.parse::<ItemId>().ok()),
        kind: hit_kind(&hit.kind),
        snippet,
        matches,
        updated_at: hit.updated,
    }
}

/// A marked snippet as plain text and its matches as character ranges.
pub fn plain_snippet(marked: &str) -> (String, Vec<TextRange>) {
    let mut snippet = String::new();
    let mut matches = Vec::new();
    let mut at = 0u32;
    for span in snippet_spans(marked) {
        let length = count(span.text.chars().count() as u64);
        if span.matched {
            matches.push(TextRange {
                start: at,
                end: at + length,
            });
        }
        at += length;
        snippet.push_str(&span.text);
    }
    (snippet, matches)
}

/// The filters of a search request.
pub fn filters(request: &strata_protocol::SearchSessions) -> Filters {
    Filters {
        text: None,
        workspace: request.workspace.clone(),
        model: request.model.clone(),
        updated_from: request.updated_from,
        updated_until: request.updated_until,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_index::{MATCH_END, MATCH_START};

    #[test]
    fn snippets_lose_their_markers_and_matches_count_characters() {
        let hit = strata_index::SearchHit {
            session_id: SessionId::new(),
            session_title: None,
            item_id: Some("not an id".into()),
            kind: "tool_call".into(),
            snippet: format!(
                "…é {MATCH_START}Needle{MATCH_END} <b>x</b> {MATCH_START}ne{MATCH_END}"
            ),
            updated: chrono::Utc::now(),
        };
        let converted = search_hit(&hit);
        assert_eq!(converted.snippet, "…é Needle <b>x</b> ne");
        assert_eq!(
            converted.matches,
            [
                TextRange { start: 3, end: 9 },
                TextRange { start: 19, end: 21 }
            ]
        );
        let chars: Vec<char> = converted.snippet.chars().collect();
        assert_eq!(chars[3..9].iter().collect::<String>(), "Needle");
        assert_eq!(converted.kind, SearchHitKind::ToolCall);
        assert_eq!(converted.item_id, None);
    }
}
