//! The session's instructions (`AGENTS.md` files) as re-read at a resume.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::items::ResponseItem;

/// `instructions_set` record: what the instruction files say now, written
/// when a resume (or an undo) finds them changed since the session last
/// read them. Replay puts `item` where the session's instructions stand
/// (the developer message after the system prompt), so it survives every
/// compaction as the first ones do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct InstructionsSet {
    /// The developer message that carries them now; `None` when no
    /// instruction file applies any more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub item: Option<ResponseItem>,
    /// The files it was made of, outermost first.
    #[serde(default)]
    pub sources: Vec<InstructionSource>,
}

/// One instruction file as read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct InstructionSource {
    /// Where it is, as shown: `~/.config/strata/AGENTS.md` for the
    /// person's own, else its path from the repository root.
    pub label: String,
    /// The file's size.
    pub bytes: u64,
    /// Bytes of it left out by the size budget.
    #[serde(default)]
    pub omitted: u64,
}
