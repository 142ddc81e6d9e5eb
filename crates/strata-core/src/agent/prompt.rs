//! The system prompt a new session starts with (its instructions files
//! follow it: `instructions.rs`).

use std::fmt::Write as _;
use std::path::Path;

use strata_protocol::ToolSpec;

/// The leading system message of a new session: what Strata is, the
/// workspace, and the tools (first line of each description).
pub fn default_system_prompt(workspace: &Path, tools: &[ToolSpec]) -> String {
    system_prompt(workspace, tools, SHELL_UNCONFINED_REACH)
}

/// What the system prompt says of shell commands without a sandbox.
pub(crate) const SHELL_UNCONFINED_REACH: &str =
    "but run_shell has no sandbox: commands run with the user's rights.";

/// [`default_system_prompt`] with `shell_reach` ("but run_shell has no
/// sandbox: ...") saying what shell commands can reach (the registry's
/// sandbox).
pub fn system_prompt(workspace: &Path, tools: &[ToolSpec], shell_reach: &str) -> String {
    let mut prompt = format!(
        "You are Strata, a coding agent working on the user's computer in the workspace \
         folder {}. Paths you give tools are relative to it; file tools cannot reach \
         outside it, {shell_reach}\n",
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
}
