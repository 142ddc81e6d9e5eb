//! What a new session starts with: the default system prompt and the
//! workspace's `AGENTS.md` as a developer message.

use std::fmt::Write as _;
use std::path::Path;

use strata_protocol::ToolSpec;

use crate::error::{CoreError, Result};

/// The workspace file whose text joins a new session as a developer message.
pub const AGENTS_FILE: &str = "AGENTS.md";

/// How much of `AGENTS.md` is used; a larger file is cut with a note, so a
/// stray huge file cannot fill the context before the first turn.
pub const AGENTS_FILE_MAX_BYTES: usize = 32 * 1024;

/// The leading system message of a new session: what Strata is, the
/// workspace, and the tools (first line of each description).
pub fn default_system_prompt(workspace: &Path, tools: &[ToolSpec]) -> String {
    let mut prompt = format!(
        "You are Strata, a coding agent working on the user's computer in the workspace \
         folder {}. Paths you give tools are relative to it, and tools cannot reach \
         outside it.\n",
        workspace.display()
    );
    if !tools.is_empty() {
        prompt.push_str("\nYour tools:\n");
        for tool in tools {
            let first_line = tool.description.lines().next().unwrap_or_default();
            // Writing to a String cannot fail.
            let _ = writeln!(prompt, "- {}: {first_line}", tool.name);
        }
    }
    prompt.push_str(
        "\nWork in small, checked steps: look before you change anything, read a file \
         before you edit it, and run commands to verify your work. Depending on the \
         session's approval policy, writes and shell commands may wait for the user's \
         approval or be refused; when a call is denied or refused, do not retry it: ask \
         the user how to proceed. When you are done, say briefly what you did and what \
         remains.",
    );
    prompt
}

/// The developer message made of the workspace's `AGENTS.md`, if it has one.
/// A file that exists but cannot be read is an error, so instructions the
/// person wrote are never silently ignored.
pub fn agents_instructions(workspace: &Path) -> Result<Option<String>> {
    let path = workspace.join(AGENTS_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(CoreError::Io {
                action: "read",
                path,
                source,
            });
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let mut message = format!("Instructions from {AGENTS_FILE} in the workspace:\n\n");
    if text.len() <= AGENTS_FILE_MAX_BYTES {
        message.push_str(text);
    } else {
        let cut = floor_char_boundary(text, AGENTS_FILE_MAX_BYTES);
        message.push_str(&text[..cut]);
        let _ = write!(
            message,
            "\n\n[{AGENTS_FILE} continues: {} more bytes not included]",
            text.len() - cut
        );
    }
    Ok(Some(message))
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|&index| text.is_char_boundary(index))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters: serde_json::json!({"type": "object"}),
        }
    }

    #[test]
    fn the_system_prompt_names_strata_the_workspace_and_each_tool() {
        let prompt = default_system_prompt(
            Path::new("/home/ada/tally"),
            &[
                spec("read_file", "Reads a file.\nMore detail."),
                spec("run_shell", "Runs a command."),
            ],
        );
        assert!(prompt.starts_with("You are Strata"));
        assert!(prompt.contains("/home/ada/tally"));
        assert!(prompt.contains("- read_file: Reads a file.\n"));
        assert!(prompt.contains("- run_shell: Runs a command.\n"));
        assert!(!prompt.contains("More detail."));
    }

    #[test]
    fn agents_md_becomes_instructions_and_a_missing_or_blank_one_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(agents_instructions(dir.path()).unwrap(), None);
        std::fs::write(dir.path().join(AGENTS_FILE), "  \n").unwrap();
        assert_eq!(agents_instructions(dir.path()).unwrap(), None);
        std::fs::write(dir.path().join(AGENTS_FILE), "Use tabs.\n").unwrap();
        let text = agents_instructions(dir.path()).unwrap().unwrap();
        assert!(text.starts_with("Instructions from AGENTS.md"));
        assert!(text.ends_with("Use tabs."));
    }

    #[test]
    fn a_huge_agents_md_is_cut_on_a_char_boundary_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(AGENTS_FILE),
            "é".repeat(AGENTS_FILE_MAX_BYTES),
        )
        .unwrap();
        let text = agents_instructions(dir.path()).unwrap().unwrap();
        assert!(text.len() < AGENTS_FILE_MAX_BYTES + 200);
        assert!(text.ends_with(&format!(
            "[{AGENTS_FILE} continues: {} more bytes not included]",
            AGENTS_FILE_MAX_BYTES
        )));
    }

    #[test]
    fn an_unreadable_agents_md_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(AGENTS_FILE)).unwrap();
        assert!(agents_instructions(dir.path()).is_err());
    }
}
