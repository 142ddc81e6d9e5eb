//! "Continue in Strata": a new session whose history is another tool's,
//! converted (see `strata_import::continue_history`), with a
//! `session_imported` record naming where it came from. The other tool's
//! file is never opened here.

use std::path::Path;

use strata_protocol::{RecordBody, ResponseItem, SessionImported};

use super::SessionStore;
use crate::error::Result;
use crate::session::LiveSession;

/// What the new session starts from.
pub struct ContinuedSession<'a> {
    pub workspace: &'a Path,
    pub provider_kind: &'a str,
    pub model: &'a str,
    pub lineage: SessionImported,
    /// The converted history, calls and outputs paired.
    pub items: Vec<ResponseItem>,
    pub title: Option<String>,
}

impl SessionStore {
    /// Writes the new session: `session_meta`, `session_imported`, the
    /// items, its title, then a checkpoint, so it resumes like any other.
    pub fn continue_imported(&self, from: ContinuedSession<'_>) -> Result<LiveSession> {
        let mut session = self.create(from.workspace, from.provider_kind, from.model)?;
        session.append(RecordBody::SessionImported(from.lineage))?;
        for item in from.items {
            session.append(RecordBody::ResponseItem(item))?;
        }
        if let Some(title) = from.title {
            session.set_title(title)?;
        }
        crate::context_ops::after_history_replaced(&mut session)?;
        Ok(session)
    }
}
