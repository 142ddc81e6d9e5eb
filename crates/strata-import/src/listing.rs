//! One line of a library listing for an imported session.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::discover::SessionFileRef;
use crate::model::{ImportedSession, Tool};

/// What a session list shows of an imported session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedListItem {
    pub source: Tool,
    /// The tool's session id, else the one its file name carries.
    pub id: String,
    pub path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    pub models: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
    pub item_count: usize,
    pub compaction_count: usize,
    /// The context the last model request filled, where the file says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
}

impl ImportedSession {
    /// This session's line in a listing of `file`.
    pub fn list_item(&self, file: &SessionFileRef) -> ImportedListItem {
        ImportedListItem {
            source: self.source,
            id: self.id.clone().unwrap_or_else(|| id_from_name(&file.path)),
            path: file.path.clone(),
            tool_version: self.tool_version.clone(),
            title: self.title.clone(),
            workspace: self.workspace.clone(),
            models: self.models.clone(),
            updated_at: self.updated_at,
            item_count: self.items.len(),
            compaction_count: self.compactions.len(),
            context_tokens: self
                .rounds
                .iter()
                .rev()
                .find_map(|round| round.context_tokens),
        }
    }
}

/// The session id a file's name carries: Codex's `rollout-<time>-<uuid>`
/// ends in the thread's UUID, Claude Code names the file after the session,
/// Copilot CLI the folder holding `events.jsonl`.
fn id_from_name(path: &Path) -> String {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default();
    let stem = name.split('.').next().unwrap_or_default();
    if stem == "events" {
        return path
            .parent()
            .and_then(Path::file_name)
            .and_then(|name| name.to_str())
            .unwrap_or_default()
            .to_owned();
    }
    // A UUID is 36 characters: the last five dash-separated groups.
    match stem.strip_prefix("rollout-") {
        Some(rest) if rest.len() >= 36 && rest.is_char_boundary(rest.len() - 36) => {
            rest[rest.len() - 36..].to_owned()
        }
        Some(rest) => rest.to_owned(),
        None => stem.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_in_each_tools_file_name() {
        let id = |path: &str| id_from_name(Path::new(path));
        assert_eq!(
            id(
                "/h/.codex/sessions/2026/06/26/rollout-2026-06-26T12-20-52-019f03e0-321f-7eb2-83cc-b54ecd71be23.jsonl.zst"
            ),
            "019f03e0-321f-7eb2-83cc-b54ecd71be23"
        );
        assert_eq!(
            id("/h/.claude/projects/-w/0cf3db51-1c73.jsonl"),
            "0cf3db51-1c73"
        );
        assert_eq!(
            id("/h/.copilot/session-state/10fb4666/events.jsonl"),
            "10fb4666"
        );
        assert_eq!(id("/h/.codex/sessions/rollout-short.jsonl"), "short");
    }
}
