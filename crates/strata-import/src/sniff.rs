//! Finding session files at a path the person named (`strata sessions
//! import PATH`, the desktop's "Open file…", an extra folder in Settings):
//! a file, or a folder holding them anywhere within a few levels. Which
//! tool wrote a file is told by its name where the tools' names are
//! distinctive, else by the first records' shapes. Files are only opened
//! for reading; links are not followed.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::Value;

use crate::discover::{SessionFileRef, discover};
use crate::model::Tool;

/// How deep below a named folder session files are looked for: Codex's
/// `sessions/YYYY/MM/DD` is four levels.
const FOLDER_DEPTH: usize = 5;
/// Bytes of a file's start read to tell its tool.
const SNIFF_BYTES: u64 = 256 * 1024;
/// Records of a file's start read to tell its tool.
const SNIFF_LINES: usize = 20;

/// The session files at `path`: the file itself when it is one of the three
/// tools' (by name or by its first records), or every such file in the
/// folder: as a home folder when it holds the tools' standard folders,
/// and any session file found within [`FOLDER_DEPTH`] levels. Sorted by
/// tool, then path, each once.
pub fn discover_path(path: &Path) -> Vec<SessionFileRef> {
    // `symlink_metadata`: a link named directly is not followed either.
    let Ok(meta) = fs::symlink_metadata(path) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if meta.is_file() {
        found.extend(classify(path));
    } else if meta.is_dir() {
        found = discover(path);
        walk(path, FOLDER_DEPTH, &mut found);
    }
    found.sort();
    found.dedup_by(|a, b| a.path == b.path);
    found
}

fn walk(folder: &Path, depth: usize, out: &mut Vec<SessionFileRef>) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_file() {
            out.extend(classify(&path));
        } else if kind.is_dir() && depth > 0 {
            walk(&path, depth - 1, out);
        }
    }
}

/// The tool that wrote the file at `path`, if it is a session file.
fn classify(path: &Path) -> Option<SessionFileRef> {
    let name = path.file_name()?.to_str()?;
    let jsonl = name.ends_with(".jsonl");
    if name.starts_with("rollout-") && (jsonl || name.ends_with(".jsonl.zst")) {
        return Some(file_ref(Tool::Codex, path));
    }
    // Claude Code's subagent transcripts belong to their parent session.
    if !jsonl || name.starts_with("agent-") {
        return None;
    }
    if name == "events.jsonl" {
        return Some(file_ref(Tool::CopilotCli, path));
    }
    sniff(path).map(|tool| file_ref(tool, path))
}

fn file_ref(tool: Tool, path: &Path) -> SessionFileRef {
    SessionFileRef {
        tool,
        path: path.to_path_buf(),
        archived: false,
    }
}

/// The tool whose records the file's first lines are, when one is plain.
fn sniff(path: &Path) -> Option<Tool> {
    let file = File::open(path).ok()?;
    let reader = BufReader::new(file.take(SNIFF_BYTES));
    for line in reader.lines().take(SNIFF_LINES) {
        // A cut or binary line ends the look: nothing more is told.
        let Ok(line) = line else {
            break;
        };
        let Ok(Value::Object(record)) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(tool) = tool_of(&record) {
            return Some(tool);
        }
    }
    None
}

/// The tool a record's shape belongs to, where it is distinctive.
fn tool_of(record: &serde_json::Map<String, Value>) -> Option<Tool> {
    let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted" => {
            return Some(Tool::Codex);
        }
        _ => {}
    }
    if kind.contains('.') && record.contains_key("data") {
        return Some(Tool::CopilotCli);
    }
    let claude_kind = matches!(kind, "user" | "assistant" | "system" | "summary");
    if claude_kind && (record.contains_key("sessionId") || record.contains_key("leafUuid")) {
        return Some(Tool::ClaudeCode);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(folder: &Path, relative: &str, text: &str) -> std::path::PathBuf {
        let path = folder.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_named_file_is_told_by_its_name_or_first_records_and_others_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let claude = write(
            dir.path(),
            "kept/abc.jsonl",
            "not json\n{\"type\":\"user\",\"sessionId\":\"abc\"}\n",
        );
        let codex = write(
            dir.path(),
            "x/session.jsonl",
            "{\"type\":\"session_meta\",\"payload\":{}}\n",
        );
        let copilot = write(
            dir.path(),
            "y/log.jsonl",
            "{\"type\":\"session.start\",\"data\":{}}\n",
        );
        let other = write(dir.path(), "z/notes.jsonl", "{\"type\":\"note\"}\n");
        let tools = |path: &Path| -> Vec<Tool> {
            discover_path(path).into_iter().map(|f| f.tool).collect()
        };
        assert_eq!(tools(&claude), [Tool::ClaudeCode]);
        assert_eq!(tools(&codex), [Tool::Codex]);
        assert_eq!(tools(&copilot), [Tool::CopilotCli]);
        assert!(tools(&other).is_empty());
        let all = discover_path(dir.path());
        assert_eq!(all.len(), 3, "{all:?}");
    }

    #[test]
    fn a_folder_laid_out_as_a_home_is_found_once_per_file() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            ".claude/projects/-w/abc.jsonl",
            "{\"type\":\"user\",\"sessionId\":\"abc\"}\n",
        );
        write(
            dir.path(),
            ".claude/projects/-w/agent-1.jsonl",
            "{\"type\":\"user\",\"sessionId\":\"abc\"}\n",
        );
        let found = discover_path(dir.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].tool, Tool::ClaudeCode);
    }
}
