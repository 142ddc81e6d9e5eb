//! `search_text`: a regular expression over the workspace's text files,
//! skipping what `.gitignore` (and `.ignore`) exclude, like ripgrep does.

use std::path::Path;

use regex::Regex;
use tokio_util::sync::CancellationToken;

use super::error::{ToolError, ToolResult};
use super::workspace::{Resolved, Workspace};

/// Files above this are skipped: they are rarely source and slow to scan.
const SEARCH_MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Matched lines longer than this are shortened in the output.
const MAX_LINE_CHARS: usize = 300;

#[derive(Clone, Debug)]
pub(crate) struct SearchPlan {
    pub regex: Regex,
    pub path: Resolved,
}

pub(crate) fn compile(pattern: &str) -> ToolResult<Regex> {
    if pattern.is_empty() {
        return Err(ToolError::InvalidPattern {
            message: "the pattern is empty".into(),
        });
    }
    Regex::new(pattern).map_err(|error| ToolError::InvalidPattern {
        message: format!(
            "{error}\n(the pattern is a regular expression; escape characters such as ( [ . * + ? to match them literally)"
        ),
    })
}

/// `Ok(None)` when cancelled part way.
pub(crate) fn search(
    plan: &SearchPlan,
    workspace: &Workspace,
    max_matches: usize,
    cancel: &CancellationToken,
) -> ToolResult<Option<String>> {
    if !plan.path.exists {
        return Err(ToolError::NotFound {
            path: plan.path.display.clone(),
        });
    }
    // The walker lists by path and never follows a link (follow_links is
    // off); every file is then resolved and opened beneath the root, so a
    // link, or a folder swapped for one mid-walk, never leads a read outside.
    let walker = ignore::WalkBuilder::new(workspace.abs(&plan.path))
        .hidden(false)
        .follow_links(false)
        // Honour .gitignore in folders that are not (yet) git repositories.
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();

    let mut matches = Vec::new();
    let mut truncated = false;
    'files: for entry in walker {
        if cancel.is_cancelled() {
            return Ok(None);
        }
        // Unreadable entries are skipped, as a search tool would.
        let Ok(entry) = entry else { continue };
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            continue;
        }
        let Some((display, text)) = read_text(workspace, entry.path()) else {
            continue;
        };
        for (index, line) in text.lines().enumerate() {
            if plan.regex.is_match(line) {
                if matches.len() == max_matches {
                    truncated = true;
                    break 'files;
                }
                matches.push(format!(
                    "{display}:{}: {}",
                    index + 1,
                    shorten(line.trim_end())
                ));
            }
        }
    }

    if matches.is_empty() {
        return Ok(Some(format!(
            "No matches for /{}/ in {}.",
            plan.regex.as_str(),
            plan.path.display
        )));
    }
    let mut out = matches.join("\n");
    if truncated {
        out.push_str(&format!(
            "\n[stopped after {max_matches} matches; narrow the pattern or the path]"
        ));
    }
    Ok(Some(out))
}

/// The real path and text of a walked file, or `None` for what is skipped:
/// links out, secret files, anything not regular, big or binary files.
fn read_text(workspace: &Workspace, path: &Path) -> Option<(String, String)> {
    let relative = path.strip_prefix(workspace.root()).ok()?.to_str()?;
    let resolved = workspace.resolve(relative).ok()?;
    let bytes = workspace
        .read_bytes(&resolved, SEARCH_MAX_FILE_BYTES, "search_text")
        .ok()?;
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return None;
    }
    Some((
        resolved.display,
        String::from_utf8_lossy(&bytes).into_owned(),
    ))
}
fn shorten(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path(), Default::default()).unwrap();
        (dir, ws)
    }

    fn run(ws: &Workspace, pattern: &str, max: usize) -> String {
        let plan = SearchPlan {
            regex: compile(pattern).unwrap(),
            path: ws.resolve(".").unwrap(),
        };
        search(&plan, ws, max, &CancellationToken::new())
            .unwrap()
            .unwrap()
    }

    #[test]
    fn matches_are_path_line_text_and_capped_with_a_note() {
        let (_dir, ws) = setup();
        std::fs::create_dir(ws.root().join("src")).unwrap();
        std::fs::write(
            ws.root().join("src/a.rs"),
            "fn a() {}\nlet x = 1;\nfn b() {}\n",
        )
        .unwrap();
        std::fs::write(ws.root().join("z.txt"), "fn zed\n").unwrap();
        assert_eq!(
            run(&ws, r"fn \w+", 10),
            "src/a.rs:1: fn a() {}\nsrc/a.rs:3: fn b() {}\nz.txt:1: fn zed"
        );
        assert_eq!(
            run(&ws, "fn", 2),
            "src/a.rs:1: fn a() {}\nsrc/a.rs:3: fn b() {}\n[stopped after 2 matches; narrow the pattern or the path]"
        );
        assert_eq!(
            run(&ws, "nothing_here", 10),
            "No matches for /nothing_here/ in .."
        );
    }

    #[test]
    fn binary_files_and_the_git_folder_are_skipped() {
        let (_dir, ws) = setup();
        std::fs::create_dir(ws.root().join(".git")).unwrap();
        std::fs::write(ws.root().join(".git/config"), "needle\n").unwrap();
        std::fs::write(ws.root().join("blob.bin"), b"needle\0\x01").unwrap();
        std::fs::write(ws.root().join(".hidden"), "needle\n").unwrap();
        assert_eq!(run(&ws, "needle", 10), ".hidden:1: needle");
    }

    #[test]
    fn an_invalid_pattern_explains_it_is_a_regex() {
        let text = compile("foo(").unwrap_err().to_string();
        assert!(text.starts_with("invalid pattern: "), "{text}");
        assert!(text.contains("regular expression"), "{text}");
    }

    #[test]
    fn a_cancelled_search_stops() {
        let (_dir, ws) = setup();
        std::fs::write(ws.root().join("a"), "x\n").unwrap();
        let cancel = CancellationToken::new();
        cancel.cancel();
        let plan = SearchPlan {
            regex: compile("x").unwrap(),
            path: ws.resolve(".").unwrap(),
        };
        assert_eq!(search(&plan, &ws, 10, &cancel).unwrap(), None);
    }
}
