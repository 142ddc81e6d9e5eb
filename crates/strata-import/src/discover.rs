//! Finding the session files each tool keeps under a home folder. Only
//! directories are listed: nothing is opened, written, locked or touched,
//! and symbolic links are not followed (a link could lead anywhere).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::Tool;

/// A session file found on disk.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SessionFileRef {
    pub tool: Tool,
    pub path: PathBuf,
    /// In Codex's `archived_sessions`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub archived: bool,
}

/// Every session file of the three tools under `home`:
/// - Codex: `.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` and
///   `.codex/archived_sessions/`, a `.jsonl.zst` only where no plain
///   sibling exists (Codex prefers the plain file);
/// - Claude Code: `.claude/projects/<project>/<session>.jsonl` (subagent
///   `agent-*.jsonl` transcripts belong to their parent session);
/// - Copilot CLI: `.copilot/session-state/<id>/events.jsonl`, and the older
///   `.copilot/session-state/<id>.jsonl`.
///
/// Sorted by tool, then path. Unreadable folders are skipped.
pub fn discover(home: &Path) -> Vec<SessionFileRef> {
    let mut found = Vec::new();
    let codex = home.join(".codex");
    for (folder, archived) in [("sessions", false), ("archived_sessions", true)] {
        let mut rollouts = Vec::new();
        files_within(&codex.join(folder), 3, &mut rollouts);
        let plain: BTreeSet<PathBuf> = rollouts
            .iter()
            .filter(|path| has_suffix(path, ".jsonl"))
            .cloned()
            .collect();
        found.extend(
            rollouts
                .into_iter()
                .filter(|path| is_rollout(path))
                .filter(|path| {
                    !has_suffix(path, ".jsonl.zst") || !plain.contains(&path.with_extension(""))
                })
                .map(|path| SessionFileRef {
                    tool: Tool::Codex,
                    path,
                    archived,
                }),
        );
    }
    for project in dirs_in(&home.join(".claude").join("projects")) {
        let mut files = Vec::new();
        files_within(&project, 0, &mut files);
        found.extend(
            files
                .into_iter()
                .filter(|path| has_suffix(path, ".jsonl") && !name_starts(path, "agent-"))
                .map(|path| SessionFileRef {
                    tool: Tool::ClaudeCode,
                    path,
                    archived: false,
                }),
        );
    }
    let state = home.join(".copilot").join("session-state");
    let mut copilot = Vec::new();
    files_within(&state, 1, &mut copilot);
    found.extend(
        copilot
            .into_iter()
            .filter(|path| {
                let depth = path
                    .strip_prefix(&state)
                    .map_or(0, |rest| rest.components().count());
                match depth {
                    1 => has_suffix(path, ".jsonl"),
                    2 => path.file_name().is_some_and(|name| name == "events.jsonl"),
                    _ => false,
                }
            })
            .map(|path| SessionFileRef {
                tool: Tool::CopilotCli,
                path,
                archived: false,
            }),
    );
    found.sort();
    found
}

fn is_rollout(path: &Path) -> bool {
    name_starts(path, "rollout-") && (has_suffix(path, ".jsonl") || has_suffix(path, ".jsonl.zst"))
}

fn has_suffix(path: &Path, suffix: &str) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.len() > suffix.len() && name.ends_with(suffix))
}

fn name_starts(path: &Path, prefix: &str) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with(prefix))
}

/// The real (not linked) directories directly in `folder`.
fn dirs_in(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .map(|entry| entry.path())
        .collect()
}

/// The regular files in `folder` and in its real subdirectories down to
/// `depth` levels, appended to `out`.
fn files_within(folder: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        // `DirEntry::file_type` does not follow links: a link is neither.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_file() {
            out.push(entry.path());
        } else if kind.is_dir() && depth > 0 {
            files_within(&entry.path(), depth - 1, out);
        }
    }
}
