//! `strata chat`: an interactive session. Each line typed is a turn;
//! `/compact [focus]` compacts, `/quit` (or the end of input) leaves.

use std::io::{IsTerminal, Write};

use strata_app::ComposerInput;
use strata_core::agent::CompactOutcome;

use crate::cli::ChatArgs;
use crate::launch;
use crate::run::{Terminal, asks_on_terminal, compact_result, turn_result, with_sessions_closed};
use crate::store::Context;
use crate::style::{BOLD, DIM, USER, WARN, paint};
use crate::visible::visible_inline;

const HELP: &str = "type a prompt to run a turn · /compact [focus] compacts the history · /quit leaves · Ctrl+C cancels a turn, twice exits";

/// What a typed line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Input<'a> {
    Empty,
    Prompt(&'a str),
    Compact(Option<&'a str>),
    Help,
    Quit,
    Unknown(&'a str),
}

fn parse(line: &str) -> Input<'_> {
    let line = line.trim();
    if line.is_empty() {
        return Input::Empty;
    }
    // `/compact` reads as the desktop's composer reads it; the other slash
    // commands are the terminal's own.
    if let ComposerInput::Compact { focus } = ComposerInput::parse(line) {
        return Input::Compact(focus);
    }
    let Some(command) = line.strip_prefix('/') else {
        return Input::Prompt(line);
    };
    let name = command
        .split_once(char::is_whitespace)
        .map_or(command, |(name, _)| name);
    match name {
        "quit" | "exit" | "q" => Input::Quit,
        "help" | "?" => Input::Help,
        _ => Input::Unknown(name),
    }
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
                Input::Help => session.ui().await.note(paint(DIM, HELP))?,
                Input::Unknown(name) => session.ui().await.note(paint(
                    WARN,
                    format!("unknown command /{name}; /help lists them"),
                ))?,
                Input::Prompt(prompt) => {
                    let report = session.turn(prompt.to_owned()).await?;
                    // A failed or cancelled turn was shown; the session goes on.
                    if let Err(error) = turn_result(&report) {
                        session.ui().await.note(paint(
                            DIM,
                            format!("({})", visible_inline(&error.to_string())),
                        ))?;
                    }
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
        assert_eq!(parse("/frob x"), Input::Unknown("frob"));
        assert_eq!(parse("/compactfoo"), Input::Unknown("compactfoo"));
    }
}
