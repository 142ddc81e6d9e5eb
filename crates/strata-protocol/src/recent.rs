//! What the desktop remembers between runs to start work quickly: the
//! folders sessions were started in, and the session that was open last
//! (reopened on start).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::SessionId;

/// `recent`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetRecent {}

/// What the new-session sheet offers and what the app reopens on start.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Recent {
    /// Folders new sessions were started in, then the folders of the
    /// library's sessions, most recent first, each once; only folders that
    /// still exist.
    pub workspaces: Vec<String>,
    /// The session that was open when the app last showed one, if its file
    /// is still there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_session: Option<SessionId>,
}

/// `remember_open`: the session the window shows now, reopened on the
/// next start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RememberOpen {
    pub session_id: SessionId,
}
