//! Prompt files: the person's own slash commands. Each `NAME.md` in the
//! workspace's `.strata/commands/` or in `commands/` of Strata's config
//! folder (beside the person's own `AGENTS.md`) is the command `/NAME`;
//! typing `/NAME some text` sends the file's body with `$ARGUMENTS`
//! replaced by `some text` ([`parse`] has the format). A workspace file
//! wins over the person's file of the same name; a built-in's name is
//! never a prompt file's. Files are read confined like `AGENTS.md`
//! ([`crate::tools::own_folder`]): nothing outside its folder, no FIFOs
//! or devices, at most [`PROMPT_FILE_MAX_BYTES`] each.

pub mod parse;

use std::collections::BTreeMap;
use std::path::Path;

use strata_protocol::SlashCommandSource;

use crate::agent::instructions::shown_own_path;
use crate::error::{CoreError, Result};
use crate::tools::own_folder::OwnFolder;
pub use parse::{expand, invocation, name_problem, parse_prompt};

/// The workspace's folder of prompt files, from the workspace.
pub const WORKSPACE_COMMANDS_FOLDER: &str = ".strata/commands";
/// The person's folder of prompt files, in Strata's config folder.
pub const OWN_COMMANDS_FOLDER: &str = "commands";
/// A prompt file's name ends so.
pub const PROMPT_FILE_SUFFIX: &str = ".md";
/// Larger prompt files are refused unread.
pub const PROMPT_FILE_MAX_BYTES: u64 = 32 * 1024;
/// Files of one folder past this many (by name) are not read.
pub const MAX_PROMPT_FILES: usize = 200;

/// A prompt file's command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptCommand {
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
    pub source: SlashCommandSource,
    /// The file as shown: `.strata/commands/NAME.md`, or the person's by
    /// its path (`~` for the home folder).
    pub file: String,
    pub body: String,
}

impl PromptCommand {
    /// The message `/NAME arguments` sends.
    pub fn expand(&self, arguments: &str) -> String {
        expand(&self.body, arguments)
    }
}

/// A file in a prompt folder that gives no command, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptProblem {
    pub file: String,
    pub reason: String,
}

/// The prompt files that apply to a workspace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptCommands {
    /// By name.
    pub commands: Vec<PromptCommand>,
    pub problems: Vec<PromptProblem>,
}

/// Where prompt files are looked for: the workspace's folder, then the
/// person's (whose files a workspace file of the same name hides).
struct Folder<'a> {
    root: &'a Path,
    sub: &'static str,
    source: SlashCommandSource,
}

impl Folder<'_> {
    fn label(&self, name: &str) -> String {
        match self.source {
            SlashCommandSource::Workspace => format!("{}/{name}", self.sub),
            _ => shown_own_path(&self.root.join(self.sub).join(name)),
        }
    }

    fn open(&self) -> std::result::Result<Option<OwnFolder>, String> {
        let own = self.source != SlashCommandSource::Workspace;
        OwnFolder::open(self.root, self.sub, own).map_err(|error| error.to_string())
    }
}

fn folders<'a>(workspace: &'a Path, own_config: Option<&'a Path>) -> Vec<Folder<'a>> {
    let mut folders = vec![Folder {
        root: workspace,
        sub: WORKSPACE_COMMANDS_FOLDER,
        source: SlashCommandSource::Workspace,
    }];
    if let Some(root) = own_config {
        folders.push(Folder {
            root,
            sub: OWN_COMMANDS_FOLDER,
            source: SlashCommandSource::User,
        });
    }
    folders
}

/// Every prompt file command for `workspace` and the person's config
/// folder `own_config`, and every file that gives none with why: a name
/// outside the rules, one of `reserved` (the built-ins), a workspace file
/// hiding the person's, a file refused or blank. Never fails as a whole.
pub fn discover(workspace: &Path, own_config: Option<&Path>, reserved: &[&str]) -> PromptCommands {
    let mut found: BTreeMap<String, PromptCommand> = BTreeMap::new();
    let mut problems = Vec::new();
    for folder in folders(workspace, own_config) {
        let opened = match folder.open() {
            Ok(Some(opened)) => opened,
            Ok(None) => continue,
            Err(reason) => {
                problems.push(PromptProblem {
                    file: folder.label(""),
                    reason,
                });
                continue;
            }
        };
        let names = match opened.names(PROMPT_FILE_SUFFIX) {
            Ok(names) => names,
            Err(error) => {
                problems.push(PromptProblem {
                    file: folder.label(""),
                    reason: error.to_string(),
                });
                continue;
            }
        };
        for (index, file_name) in names.iter().enumerate() {
            let file = folder.label(file_name);
            let name = file_name.trim_end_matches(PROMPT_FILE_SUFFIX);
            let refused = |reason: String| PromptProblem {
                file: file.clone(),
                reason,
            };
            if index >= MAX_PROMPT_FILES {
                problems.push(refused(format!(
                    "not read: the folder has more than {MAX_PROMPT_FILES} prompt files"
                )));
                continue;
            }
            if let Some(reason) = name_problem(name) {
                problems.push(refused(reason));
                continue;
            }
            if reserved.contains(&name) {
                problems.push(refused(format!("/{name} is a built-in command")));
                continue;
            }
            if let Some(winner) = found.get(name) {
                problems.push(refused(format!("hidden by {}", winner.file)));
                continue;
            }
            match read_command(&opened, &folder, file_name, name) {
                Ok(Some(command)) => {
                    found.insert(name.to_owned(), command);
                }
                Ok(None) => {}
                Err(reason) => problems.push(refused(reason)),
            }
        }
    }
    PromptCommands {
        commands: found.into_values().collect(),
        problems,
    }
}

/// The prompt file command `name` (the workspace's, else the person's),
/// reading only its files; `None` when there is none or `name` is
/// `reserved`. A file that exists but cannot be used is an error naming
/// it, never skipped for the person's file.
pub fn find(
    workspace: &Path,
    own_config: Option<&Path>,
    reserved: &[&str],
    name: &str,
) -> Result<Option<PromptCommand>> {
    if name_problem(name).is_some() || reserved.contains(&name) {
        return Ok(None);
    }
    let file_name = format!("{name}{PROMPT_FILE_SUFFIX}");
    for folder in folders(workspace, own_config) {
        let refused = |reason: String| CoreError::PromptCommand {
            message: format!(
                "/{name} cannot be used: {}: {reason}",
                folder.label(&file_name)
            ),
        };
        let Some(opened) = folder.open().map_err(refused)? else {
            continue;
        };
        if let Some(command) = read_command(&opened, &folder, &file_name, name).map_err(refused)? {
            return Ok(Some(command));
        }
    }
    Ok(None)
}

/// The command in `file_name`; `None` when the file does not exist, an
/// error (the reason) when it cannot be used.
fn read_command(
    opened: &OwnFolder,
    folder: &Folder<'_>,
    file_name: &str,
    name: &str,
) -> std::result::Result<Option<PromptCommand>, String> {
    let Some(bytes) = opened.read(file_name, PROMPT_FILE_MAX_BYTES)? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())?;
    let Some(parsed) = parse_prompt(&text) else {
        return Err("it is blank".to_owned());
    };
    Ok(Some(PromptCommand {
        name: name.to_owned(),
        description: parsed.description,
        argument_hint: parsed.argument_hint,
        source: folder.source,
        file: folder.label(file_name),
        body: parsed.body,
    }))
}

#[cfg(test)]
mod tests;
