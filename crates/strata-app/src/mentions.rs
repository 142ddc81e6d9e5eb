//! `@` mentions in the composer's text, for both front ends: the finder's
//! matches over the workspace ([`find`]), and the turn whose user message
//! carries what the mentioned paths hold (`strata_core::mentions`, read as
//! the session's `read_file` and `list_directory` read).

use std::path::Path;
use std::sync::Arc;

use strata_core::agent::{EventHandler, TurnReport};
use strata_core::mentions;
use strata_protocol::{SessionId, WorkspaceFile, WorkspaceFiles};

use crate::App;
use crate::error::AppResult;

/// Matches given when the request names no limit.
pub const DEFAULT_FIND_LIMIT: u32 = 50;
/// The most matches one request gets.
pub const MAX_FIND_LIMIT: u32 = 200;

/// The best `limit` (clamped to 1..=[`MAX_FIND_LIMIT`]) matches of `query`
/// among `workspace`'s paths.
pub fn find(workspace: &Path, query: &str, limit: Option<u32>) -> WorkspaceFiles {
    let limit = limit.unwrap_or(DEFAULT_FIND_LIMIT).clamp(1, MAX_FIND_LIMIT);
    let found = mentions::find(workspace, query, limit as usize);
    WorkspaceFiles {
        files: found
            .paths
            .into_iter()
            .map(|found| WorkspaceFile {
                path: found.path,
                is_dir: found.is_dir,
            })
            .collect(),
        walk_cut: found.walk_cut,
    }
}

impl App {
    /// One turn of `text` in session `id` whose user message also carries
    /// what its `@` mentions hold: the record keeps that message, what the
    /// model saw. Mentions of nothing stay as typed.
    pub async fn run_turn_with_mentions<H>(
        self: &Arc<Self>,
        id: SessionId,
        text: String,
        sink: H,
    ) -> AppResult<TurnReport>
    where
        H: EventHandler + Send + 'static,
    {
        self.run_turn_as(id, text, sink, true).await
    }
}
