//! Slash commands: what the composer and `strata chat` offer after a `/`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where a slash command comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SlashCommandSource {
    /// Strata's own (`/compact`).
    BuiltIn,
    /// A prompt file in the workspace's `.strata/commands/`.
    Workspace,
    /// A prompt file in the person's own `commands/` folder, beside their
    /// `AGENTS.md` in Strata's config folder.
    User,
}

/// One command the composer's text may start with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SlashCommand {
    /// Without the `/`.
    pub name: String,
    /// One line of plain text (from the file for a prompt file: show it
    /// as text, never as markup).
    pub description: String,
    /// What to type after the name, if the command says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub argument_hint: Option<String>,
    pub source: SlashCommandSource,
    /// A prompt file's path as shown (`.strata/commands/NAME.md`, or the
    /// person's under `~`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub file: Option<String>,
}

/// A file in a prompt folder that gives no command, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SlashCommandProblem {
    pub file: String,
    pub reason: String,
}

/// `list_slash_commands`: the commands a session in `workspace` offers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListSlashCommands {
    pub workspace: String,
}

/// The built-ins `send_message` understands, then the prompt files by
/// name, and the files that give no command.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SlashCommands {
    pub commands: Vec<SlashCommand>,
    pub problems: Vec<SlashCommandProblem>,
}
