//! Slash commands as both front ends offer them: the built-ins the
//! application runs (`/compact`) and the person's prompt files
//! (`strata_core::prompt_commands`), listed for the composer's palette and
//! `strata chat`'s `/help`, and expanded into the message a turn sends.

use std::path::Path;
use std::sync::Arc;

use strata_core::prompt_commands::{self, PromptCommand, PromptCommands};
use strata_protocol::{
    SessionId, SlashCommand, SlashCommandProblem, SlashCommandSource, SlashCommands,
};

use crate::App;
use crate::error::{AppResult, invalid_input};

impl App {
    /// The message `/name arguments` sends in session `id` ([`expand`] in
    /// its workspace), resuming the session if this app does not hold it.
    pub async fn expand_slash_command(
        self: &Arc<Self>,
        id: SessionId,
        name: &str,
        arguments: &str,
    ) -> AppResult<String> {
        let slot = self.ensure_live(id).await?;
        let workspace = slot.workspace().to_owned();
        let (name, arguments) = (name.to_owned(), arguments.to_owned());
        Ok(self
            .blocking(move |app| expand(&workspace, &app.paths().config, &name, &arguments))
            .await?)
    }

    /// The slash commands of session `id`'s workspace ([`listing`]).
    pub async fn slash_commands_of(self: &Arc<Self>, id: SessionId) -> AppResult<SlashCommands> {
        let slot = self.ensure_live(id).await?;
        let workspace = slot.workspace().to_owned();
        Ok(self
            .blocking(move |app| Ok(listing(&workspace, &app.paths().config)))
            .await?)
    }
}

/// The names the front ends' own commands take (both's `/compact`,
/// `/undo`, `/pin`, `/fork`, `/model`, `/reasoning`, `/clear`; the
/// terminal's `/help`, `/quit`, `/exit`, `/q`): a prompt file never has one
/// of them.
pub const BUILT_IN_NAMES: &[&str] = &[
    "compact",
    "undo",
    "pin",
    "fork",
    "model",
    "reasoning",
    "clear",
    "help",
    "quit",
    "exit",
    "q",
];

/// The built-in every front end runs through `send_message` or the REPL.
fn compact() -> SlashCommand {
    SlashCommand {
        name: "compact".to_owned(),
        description: "Compact the history now; the text after it guides the summary".to_owned(),
        argument_hint: Some("[focus]".to_owned()),
        source: SlashCommandSource::BuiltIn,
        file: None,
    }
}

fn shown(command: PromptCommand) -> SlashCommand {
    SlashCommand {
        name: command.name,
        description: command.description,
        argument_hint: command.argument_hint,
        source: command.source,
        file: Some(command.file),
    }
}

/// `/compact`, then the prompt files of `workspace` and of the person's
/// config folder `config` by name, and the files that give no command.
pub fn listing(workspace: &Path, config: &Path) -> SlashCommands {
    let PromptCommands { commands, problems } =
        prompt_commands::discover(workspace, Some(config), BUILT_IN_NAMES);
    SlashCommands {
        commands: std::iter::once(compact())
            .chain(commands.into_iter().map(shown))
            .collect(),
        problems: problems
            .into_iter()
            .map(|problem| SlashCommandProblem {
                file: problem.file,
                reason: problem.reason,
            })
            .collect(),
    }
}

/// The message `/name arguments` sends: the prompt file's body with the
/// arguments in. A name no prompt file has is refused, so a mistyped
/// command is never sent to the model as text.
pub fn expand(workspace: &Path, config: &Path, name: &str, arguments: &str) -> AppResult<String> {
    match prompt_commands::find(workspace, Some(config), BUILT_IN_NAMES, name)? {
        Some(command) => {
            tracing::info!(command = %command.name, file = %command.file, "prompt file expanded");
            Ok(command.expand(arguments))
        }
        None => Err(invalid_input(format!(
            "There is no /{name} command. Type / to see the commands, or put a prompt file \
             {name}.md in the workspace's {} folder.",
            prompt_commands::WORKSPACE_COMMANDS_FOLDER
        ))),
    }
}
