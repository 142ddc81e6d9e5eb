//! What a new session starts with: the default system prompt and the
//! workspace's `AGENTS.md` as a developer message.

use std::fmt::Write as _;
use std::path::Path;

use strata_protocol::ToolSpec;

use crate::error::{CoreError, Result};
use crate::tools::read_agents_head;

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
         folder {}. Paths you give tools are relative to it; file tools cannot reach \
         outside it, but run_shell has no sandbox: commands run with the user's rights.\n",
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
/// A file that exists but cannot be used is an error, so instructions the
/// person wrote are never silently ignored. It is found by the tools'
/// resolver and read like `read_file` reads: a link that leads outside the
/// workspace or to a secret file, a FIFO, a socket or a device is refused
/// before any read, and only the first [`AGENTS_FILE_MAX_BYTES`] are read.
pub fn agents_instructions(workspace: &Path) -> Result<Option<String>> {
    let refused = |reason: String| CoreError::AgentsFileRefused { reason };
    let Some((head, size)) = read_agents_head(workspace, AGENTS_FILE_MAX_BYTES as u64)
        .map_err(|error| refused(error.to_string()))?
    else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&head);
    // Cut on a char boundary within the bytes read, not mid-character.
    let cut = if size > head.len() as u64 {
        floor_char_boundary(&text, AGENTS_FILE_MAX_BYTES.min(text.len()))
    } else {
        text.len()
    };
    let kept = text[..cut].trim();
    if kept.is_empty() && size <= head.len() as u64 {
        return Ok(None);
    }
    let mut message = format!("Instructions from {AGENTS_FILE} in the workspace:\n\n");
    message.push_str(kept);
    let rest = size.saturating_sub(text[..cut].len() as u64);
    if size > head.len() as u64 {
        let _ = write!(
            message,
            "\n\n[{AGENTS_FILE} continues: {rest} more bytes not included]"
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
        assert!(
            prompt.contains("run_shell has no sandbox: commands run with the user's rights"),
            "{prompt}"
        );
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

    fn refusal(dir: &Path) -> String {
        match agents_instructions(dir) {
            Err(CoreError::AgentsFileRefused { reason }) => reason,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn an_agents_md_linked_outside_or_to_a_secret_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("id_rsa"), "PRIVATE KEY").unwrap();
        std::os::unix::fs::symlink(outside.path().join("id_rsa"), dir.path().join(AGENTS_FILE))
            .unwrap();
        assert!(refusal(dir.path()).contains("escapes the workspace"));

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "TOKEN=1").unwrap();
        std::os::unix::fs::symlink(".env", dir.path().join(AGENTS_FILE)).unwrap();
        assert!(refusal(dir.path()).contains("secret file"));
    }

    #[test]
    fn a_fifo_or_a_device_named_agents_md_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.path().join(AGENTS_FILE))
            .status()
            .unwrap();
        assert!(status.success());
        assert!(refusal(dir.path()).contains("not a regular file"));

        // A character device (as root, the real /dev/zero's numbers).
        let dir = tempfile::tempdir().unwrap();
        let made = std::process::Command::new("mknod")
            .arg(dir.path().join(AGENTS_FILE))
            .args(["c", "1", "5"])
            .status()
            .is_ok_and(|status| status.success());
        if made {
            assert!(refusal(dir.path()).contains("not a regular file"));
        }
    }

    #[test]
    fn a_huge_agents_md_is_read_only_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join(AGENTS_FILE)).unwrap();
        // Sparse: 4 GiB of zero bytes that must never be read whole.
        file.set_len(4 << 30).unwrap();
        let text = agents_instructions(dir.path()).unwrap().unwrap();
        assert!(text.len() < AGENTS_FILE_MAX_BYTES + 200);
        assert!(text.ends_with(&format!(
            "[{AGENTS_FILE} continues: {} more bytes not included]",
            (4u64 << 30) - AGENTS_FILE_MAX_BYTES as u64
        )));
    }
}
