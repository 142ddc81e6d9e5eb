//! `strata chat`: an interactive session. Each line typed is a turn;
//! `/compact [focus]` compacts, `/undo`, `/pin`, `/fork`, `/model`,
//! `/reasoning` and `/clear` do what the desktop's do ([`chat_commands`]),
//! `/name [arguments]` sends the prompt file `name.md` (as the desktop's
//! composer does), `/help` lists the commands, `/quit` (or the end of
//! input) leaves. A prompt's `@path` mentions attach what the path holds,
//! as the desktop composer's do.

use std::io::{IsTerminal, Write};

use strata_app::ComposerInput;
use strata_core::agent::CompactOutcome;
use strata_protocol::{CommandError, SlashCommandSource, SlashCommands};

use crate::chat_commands::{self, Builtin, Done};
use crate::cli::ChatArgs;
use crate::launch;
use crate::run::{Terminal, asks_on_terminal, compact_result, turn_result, with_sessions_closed};
use crate::store::Context;
use crate::style::{BOLD, DIM, USER, WARN, paint};
use crate::visible::visible_inline;

const HELP: &str = "type a prompt to run a turn (@path attaches a file or folder) · /compact [focus] compacts the history · /help lists the commands · /quit leaves · Ctrl+C cancels a turn, twice exits";

/// `/help`'s lines for the built-ins besides `/compact`.
const BUILT_INS: &[&str] = &[
    "  /undo · undo the latest compaction",
    "  /pin [item] · pin an item (the latest message) so compaction keeps it",
    "  /fork · fork this session from its latest message",
    "  /model [profile] · list the profiles, or switch to one",
    "  /reasoning [level] · list the reasoning levels, or set one",
    "  /clear · start a new session in this folder",
];

/// What a typed line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Input<'a> {
    Empty,
    Prompt(&'a str),
    Compact(Option<&'a str>),
    /// One of the terminal's other built-ins.
    Builtin(Builtin<'a>),
    /// A prompt file's command (refused by the app if no file has it).
    Command {
        name: &'a str,
        arguments: &'a str,
    },
    Help,
    Quit,
}

fn parse(line: &str) -> Input<'_> {
    let line = line.trim();
    if line.is_empty() {
        return Input::Empty;
    }
    // Read as the desktop's composer reads it; `/help` and `/quit` are the
    // terminal's own.
    match ComposerInput::parse(line) {
        ComposerInput::Compact { focus } => Input::Compact(focus),
        ComposerInput::Command { name, arguments } => match name {
            "quit" | "exit" | "q" => Input::Quit,
            "help" => Input::Help,
            _ => match Builtin::parse(name, arguments) {
                Some(builtin) => Input::Builtin(builtin),
                None => Input::Command { name, arguments },
            },
        },
        ComposerInput::Message(_) if line == "/?" => Input::Help,
        ComposerInput::Message(_) => Input::Prompt(line),
    }
}

/// `/help`: the line of built-ins, then each prompt file's command and the
/// files that give none. Names, descriptions and reasons come from files:
/// escaped for the terminal.
fn help_lines(listing: &SlashCommands) -> Vec<String> {
    let mut lines = vec![HELP.to_owned()];
    lines.extend(BUILT_INS.iter().map(|line| (*line).to_owned()));
    for command in &listing.commands {
        let whose = match command.source {
            SlashCommandSource::BuiltIn => continue,
            SlashCommandSource::Workspace => "workspace",
            SlashCommandSource::User => "yours",
        };
        let hint = command
            .argument_hint
            .as_deref()
            .map(|hint| format!(" {}", visible_inline(hint)))
            .unwrap_or_default();
        lines.push(format!(
            "  /{}{hint} · {} ({whose})",
            visible_inline(&command.name),
            visible_inline(&command.description)
        ));
    }
    for problem in &listing.problems {
        lines.push(format!(
            "  ignored {}: {}",
            visible_inline(&problem.file),
            visible_inline(&problem.reason)
        ));
    }
    lines
}

pub fn chat(ctx: &Context, args: ChatArgs) -> crate::error::Result<()> {
    let interactive = asks_on_terminal(&args.agent);
    let json = args.agent.json;
    with_sessions_closed(ctx, async move {
        let opened = match &args.session {
            Some(query) => launch::resume(ctx, query, &args.agent, interactive).await?,
            None => launch::start(ctx, &args.agent, interactive).await?,
        };
        let mut session = Terminal::new(ctx, &opened, json, true, true)?;
        let prompt_shown = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        if prompt_shown {
            session.ui().await.note(paint(DIM, HELP))?;
        }
        loop {
            if prompt_shown {
                let mut err = ctx.out.stderr();
                write!(err, "{} ", paint(USER, "you›"))?;
                err.flush()?;
            }
            let line = {
                let mut ui = session.ui().await;
                let Some(lines) = ui.lines() else {
                    break;
                };
                let Some(line) = lines.next().await else {
                    break;
                };
                line
            };
            match parse(&line) {
                Input::Empty => {}
                Input::Quit => break,
                Input::Help => {
                    let listed = ctx.app.slash_commands_of(session.id).await;
                    let mut ui = session.ui().await;
                    match listed {
                        Ok(listing) => {
                            for line in help_lines(&listing) {
                                ui.note(paint(DIM, line))?;
                            }
                        }
                        Err(error) => ui.note(paint(
                            WARN,
                            visible_inline(&CommandError::from(error).message),
                        ))?,
                    }
                }
                Input::Command { name, arguments } => {
                    match ctx
                        .app
                        .expand_slash_command(session.id, name, arguments)
                        .await
                    {
                        Ok(text) => run_turn(&mut session, text).await?,
                        Err(error) => session.ui().await.note(paint(
                            WARN,
                            visible_inline(&CommandError::from(error).message),
                        ))?,
                    }
                }
                Input::Builtin(builtin) => {
                    match chat_commands::run(&ctx.app, session.id, builtin).await {
                        Ok(Done::Lines(lines)) => {
                            let mut ui = session.ui().await;
                            for line in lines {
                                ui.note(paint(DIM, line))?;
                            }
                        }
                        Ok(Done::NewSession) => {
                            let mut flags = args.agent.clone();
                            flags.workspace = Some(session.workspace.clone().into());
                            let opened = launch::start(ctx, &flags, interactive).await?;
                            session.switch_to(&opened, json).await?;
                        }
                        Err(error) => session
                            .ui()
                            .await
                            .note(paint(WARN, visible_inline(&error.message)))?,
                    }
                }
                Input::Prompt(prompt) => {
                    let mentioned = strata_core::mentions::mentioned_paths(prompt);
                    if !mentioned.is_empty() {
                        let shown: Vec<String> = mentioned
                            .iter()
                            .map(|path| format!("@{}", visible_inline(path)))
                            .collect();
                        session.ui().await.note(paint(
                            DIM,
                            format!(
                                "{}: each attaches what the session's read_file / list_directory read there (a path not in the workspace stays text)",
                                shown.join(", ")
                            ),
                        ))?;
                    }
                    let report = session.turn_with_mentions(prompt.to_owned()).await?;
                    show_turn_result(&mut session, &report).await?;
                }
                Input::Compact(focus) => {
                    let (outcome, items) = session.compact(focus.map(str::to_owned), None).await?;
                    let id = session.id;
                    let mut ui = session.ui().await;
                    if let Err(error) = compact_result(&mut ui, id, &outcome, json) {
                        ui.note(paint(
                            DIM,
                            format!("({})", visible_inline(&error.to_string())),
                        ))?;
                    } else if matches!(outcome, CompactOutcome::Compacted(_)) && !json {
                        ui.note(paint(BOLD, format!("history now {items} items")))?;
                    }
                }
            }
        }
        Ok(())
    })
}

/// One turn; a failed or cancelled turn was shown, and the session goes on.
async fn run_turn(session: &mut Terminal, prompt: String) -> crate::error::Result<()> {
    let report = session.turn(prompt).await?;
    show_turn_result(session, &report).await
}

async fn show_turn_result(
    session: &mut Terminal,
    report: &strata_core::agent::TurnReport,
) -> crate::error::Result<()> {
    if let Err(error) = turn_result(report) {
        session.ui().await.note(paint(
            DIM,
            format!("({})", visible_inline(&error.to_string())),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_into_prompts_and_commands() {
        assert_eq!(parse("  "), Input::Empty);
        assert_eq!(parse(" list the files "), Input::Prompt("list the files"));
        assert_eq!(parse("/quit"), Input::Quit);
        assert_eq!(parse("/compact"), Input::Compact(None));
        assert_eq!(
            parse("/compact  the parser work "),
            Input::Compact(Some("the parser work"))
        );
        assert_eq!(
            parse("/frob x"),
            Input::Command {
                name: "frob",
                arguments: "x"
            }
        );
        assert_eq!(
            parse("/compactfoo"),
            Input::Command {
                name: "compactfoo",
                arguments: ""
            }
        );
        assert_eq!(parse("/help"), Input::Help);
        assert_eq!(parse("/undo"), Input::Builtin(Builtin::Undo));
        assert_eq!(
            parse("/model  fast "),
            Input::Builtin(Builtin::Model(Some("fast")))
        );
        assert_eq!(parse("/?"), Input::Help);
        assert_eq!(parse("/exit"), Input::Quit);
        assert_eq!(
            parse("/src/main.rs fails"),
            Input::Prompt("/src/main.rs fails")
        );
    }

    #[test]
    fn help_lists_prompt_files_with_hostile_text_escaped() {
        let listing = SlashCommands {
            commands: vec![
                strata_protocol::SlashCommand {
                    name: "compact".into(),
                    description: "built-in".into(),
                    argument_hint: None,
                    source: SlashCommandSource::BuiltIn,
                    file: None,
                },
                strata_protocol::SlashCommand {
                    name: "review".into(),
                    description: "Review \u{1b}]0;pwned\u{7} it".into(),
                    argument_hint: Some("<part>".into()),
                    source: SlashCommandSource::Workspace,
                    file: Some(".strata/commands/review.md".into()),
                },
            ],
            problems: vec![strata_protocol::SlashCommandProblem {
                file: ".strata/commands/bad\u{1b}[2J.md".into(),
                reason: "the name is bad".into(),
            }],
        };
        let lines = help_lines(&listing);
        assert_eq!(lines.len(), 3 + BUILT_INS.len(), "{lines:?}");
        assert_eq!(lines[0], HELP);
        let lines = [&lines[..1], &lines[1 + BUILT_INS.len()..]].concat();
        assert!(
            lines[1].starts_with("  /review <part> · Review "),
            "{}",
            lines[1]
        );
        assert!(lines[1].ends_with(" it (workspace)"), "{}", lines[1]);
        assert!(
            lines
                .iter()
                .all(|line| !line.contains('\u{1b}') && !line.contains('\u{7}'))
        );
        assert!(
            lines[2].starts_with("  ignored .strata/commands/bad"),
            "{}",
            lines[2]
        );
    }
}
