//! Finding sessions: the store under `STRATA_HOME` (or the platform data
//! folder), a session named by id or unique prefix, and the warnings a
//! browsing read owes the person.

use std::sync::Arc;

use strata_app::App;
use strata_core::store::{ReadMode, SessionRead};
use strata_core::{SessionStore, StrataPaths};
use strata_protocol::SessionId;
use strata_providers::config::process_env;

use crate::style::Output;

/// What every command works with: where sessions live and how to write.
pub struct Context {
    /// The application layer the desktop uses too.
    pub app: Arc<App>,
    pub paths: StrataPaths,
    pub store: SessionStore,
    pub out: Output,
}

impl Context {
    pub fn from_env(out: Output) -> strata_core::Result<Self> {
        let paths = StrataPaths::from_env()?;
        let store = SessionStore::from_paths(&paths);
        let app = Arc::new(App::new(paths.clone(), process_env));
        Ok(Self {
            app,
            paths,
            store,
            out,
        })
    }

    /// The session a full id or a unique id prefix names.
    pub fn resolve(&self, query: &str) -> strata_core::Result<SessionId> {
        self.store.resolve(query)
    }

    /// Reads the session for viewing: corrupt lines are skipped and a torn
    /// tail ignored, each with a warning on standard error.
    pub fn browse(&self, query: &str) -> strata_core::Result<SessionRead> {
        let id = self.resolve(query)?;
        let read = self.store.open_reader(id, ReadMode::Browsing)?;
        for skipped in &read.report.skipped {
            self.out.warn(format!(
                "{}:{}: skipped a corrupt record: {}",
                read.path.display(),
                skipped.line,
                skipped.message
            ));
        }
        if let Some(torn) = read.report.torn_tail {
            self.out.warn(format!(
                "{}: ignored {} bytes of an unfinished last line",
                read.path.display(),
                torn.bytes
            ));
        }
        Ok(read)
    }
}
