//! The conversation's commands: send a message (or `/compact`, or a
//! prompt file's command), stop a turn, answer an approval, read a tool's
//! whole output, list the slash commands; and what the composer's text
//! asks for ([`ComposerInput`]), decided once for both front ends:
//! `send_message` and the CLI's REPL read `/compact [focus]` and
//! `/name [arguments]` the same way.

use std::sync::Arc;

use strata_core::agent::EventHandler;
use strata_protocol::{
    AnswerApproval, FindWorkspaceFiles, GetToolOutput, ListSlashCommands, ReasoningEffort,
    ReasoningSet, RecordBody, SendMessage, SendOutcome, SetReasoning, SlashCommands, StopTurn,
    ToolOutputText, TurnReport, WorkspaceFiles,
};

use crate::error::{CommandResult, not_found};
use crate::transcript::{tail, tool_output};
use crate::{App, mentions, slash, validate};

impl App {
    /// `send_message`: the composer's text. `/compact [focus]` compacts the
    /// history as `compact_now` does ([`ComposerInput`]); `/name
    /// [arguments]` sends the prompt file `name.md`'s body with the
    /// arguments in (the record holds the expanded text, what the model
    /// saw), and is refused when no prompt file has that name; anything
    /// else is one turn of `text`, resuming the session if this app does
    /// not hold it open yet, its `@path` mentions attached
    /// ([`App::run_turn_with_mentions`]). Every event goes to `sink`, in order, before
    /// this returns.
    pub async fn send_message<H>(
        self: &Arc<Self>,
        request: SendMessage,
        sink: H,
    ) -> CommandResult<SendOutcome>
    where
        H: EventHandler + Send + 'static,
    {
        match ComposerInput::parse(&request.text) {
            ComposerInput::Compact { focus } => {
                let focus = focus.map(str::to_owned);
                let outcome = self
                    .compact_with(request.session_id, focus, None, sink)
                    .await?;
                Ok(SendOutcome::Compaction(Box::new(outcome)))
            }
            ComposerInput::Command { name, arguments } => {
                let text = self
                    .expand_slash_command(request.session_id, name, arguments)
                    .await?;
                self.turn(request.session_id, text, sink).await
            }
            ComposerInput::Message(_) => {
                let report = self
                    .run_turn_with_mentions(request.session_id, request.text, sink)
                    .await?;
                Ok(SendOutcome::Turn(TurnReport {
                    turn_id: report.turn_id,
                    outcome: report.outcome,
                    rounds: report.rounds,
                }))
            }
        }
    }

    async fn turn<H>(
        self: &Arc<Self>,
        id: strata_protocol::SessionId,
        text: String,
        sink: H,
    ) -> CommandResult<SendOutcome>
    where
        H: EventHandler + Send + 'static,
    {
        let report = self.run_turn(id, text, sink).await?;
        Ok(SendOutcome::Turn(TurnReport {
            turn_id: report.turn_id,
            outcome: report.outcome,
            rounds: report.rounds,
        }))
    }

    /// `stop_turn`: cancels what runs in the session; `false` when nothing does.
    pub async fn stop_turn(self: &Arc<Self>, request: StopTurn) -> CommandResult<bool> {
        Ok(self.stop(request.session_id))
    }

    /// `answer_approval`: answers a waiting approval; `false` when none
    /// waits for `call_id`.
    pub async fn answer_approval(self: &Arc<Self>, request: AnswerApproval) -> CommandResult<bool> {
        self.blocking(move |app| app.answer(request.session_id, &request.call_id, request.decision))
            .await
    }

    /// `tool_output`: one tool call's whole output, read from the file's
    /// tail back to the call.
    pub async fn tool_output(
        self: &Arc<Self>,
        request: GetToolOutput,
    ) -> CommandResult<ToolOutputText> {
        self.blocking(move |app| {
            let path = app.store().session_path(request.session_id);
            let from_tail = tail::tool_output(
                &path,
                request.session_id,
                &request.call_id,
                tail::FIRST_WINDOW,
            );
            let output = match from_tail {
                Some(output) => output,
                None => tool_output(&app.browse(request.session_id)?.records, &request.call_id)
                    .ok_or_else(|| not_found("That tool call has no output in the session."))?,
            };
            Ok(ToolOutputText {
                chars: u64::try_from(output.chars().count()).unwrap_or(u64::MAX),
                call_id: request.call_id,
                output,
            })
        })
        .await
    }

    /// `set_reasoning`: a `reasoning_set` record when the setting changes,
    /// as `resume --reasoning` writes; a live session closes so its next
    /// turn resumes with it. Refused while something runs in the session.
    pub async fn set_reasoning(
        self: &Arc<Self>,
        request: SetReasoning,
    ) -> CommandResult<ReasoningEffort> {
        let id = request.session_id;
        let _opening = self.live.opening.lock().await;
        self.close_locked(id)?;
        self.blocking(move |app| {
            let mut session = app.store().open_writer(id)?;
            app.check_not_stale(id)?;
            if session.state().reasoning() != Some(request.effort) {
                session
                    .append(RecordBody::ReasoningSet(ReasoningSet {
                        effort: request.effort,
                    }))
                    .and_then(|_| session.sync())?;
                tracing::info!(session = %id, effort = %request.effort, "reasoning set");
            }
            drop(session);
            app.mark_own_write(id);
            Ok(request.effort)
        })
        .await
    }

    /// `list_slash_commands`: the built-in `/compact`, then the prompt
    /// files of `workspace` (`.strata/commands/`) and the person's
    /// (`commands/` in Strata's config folder), by name, and the files that
    /// give no command with why. Read afresh each time.
    pub async fn list_slash_commands(
        self: &Arc<Self>,
        request: ListSlashCommands,
    ) -> CommandResult<SlashCommands> {
        self.blocking(move |app| {
            let workspace = validate::workspace(&request.workspace)?;
            Ok(slash::listing(&workspace, &app.paths().config))
        })
        .await
    }

    /// `find_workspace_files`: the paths of `workspace` that best match
    /// `query`, for the composer's `@` finder ([`mentions::find`]). Walked
    /// afresh each call; read-only.
    pub async fn find_workspace_files(
        self: &Arc<Self>,
        request: FindWorkspaceFiles,
    ) -> CommandResult<WorkspaceFiles> {
        self.blocking(move |_| {
            let workspace = validate::workspace(&request.workspace)?;
            Ok(mentions::find(&workspace, &request.query, request.limit))
        })
        .await
    }
}

/// What a composer's text asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComposerInput<'a> {
    /// A message for a turn: the text as given.
    Message(&'a str),
    /// `/compact [focus]`: compact the history now, with an optional focus
    /// for the summary.
    Compact { focus: Option<&'a str> },
    /// `/name [arguments]`: another command's name (a prompt file's, if
    /// one has it), and the trimmed text after it.
    Command { name: &'a str, arguments: &'a str },
}

impl<'a> ComposerInput<'a> {
    /// `/compact`, alone or followed by whitespace and a focus, with any
    /// whitespace around it, is a compaction; another `/name` at the start
    /// (`/compaction`, `/Compact`, `/review the parser`) is a command
    /// (`strata_core::prompt_commands::invocation`); anything else
    /// (`please /compact`, `/src/main.rs fails`) is a message, returned
    /// untouched.
    pub fn parse(text: &'a str) -> Self {
        let Some(rest) = text.trim().strip_prefix("/compact") else {
            return Self::command_or_message(text);
        };
        if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
            return Self::command_or_message(text);
        }
        let focus = rest.trim();
        Self::Compact {
            focus: (!focus.is_empty()).then_some(focus),
        }
    }

    fn command_or_message(text: &'a str) -> Self {
        match strata_core::prompt_commands::invocation(text) {
            Some((name, arguments)) => Self::Command { name, arguments },
            None => Self::Message(text),
        }
    }
}

#[cfg(test)]
mod composer_tests {
    use super::ComposerInput::{self, Command, Compact, Message};

    #[test]
    fn compact_alone_has_no_focus_whatever_the_whitespace() {
        assert_eq!(ComposerInput::parse("/compact"), Compact { focus: None });
        assert_eq!(
            ComposerInput::parse("  /compact \n"),
            Compact { focus: None }
        );
        assert_eq!(
            ComposerInput::parse("/compact   \t"),
            Compact { focus: None }
        );
    }

    #[test]
    fn compact_takes_the_trimmed_rest_as_its_focus() {
        assert_eq!(
            ComposerInput::parse("  /compact   keep the parser notes "),
            Compact {
                focus: Some("keep the parser notes")
            }
        );
        assert_eq!(
            ComposerInput::parse("/compact\tthe parser work"),
            Compact {
                focus: Some("the parser work")
            }
        );
        assert_eq!(
            ComposerInput::parse("/compact keep\nboth lines"),
            Compact {
                focus: Some("keep\nboth lines")
            }
        );
    }

    #[test]
    fn a_longer_word_or_a_capital_is_another_command() {
        for (text, name, arguments) in [
            ("/compactfoo", "compactfoo", ""),
            ("/compaction is great", "compaction", "is great"),
            ("/Compact", "Compact", ""),
            (" /COMPACT  now ", "COMPACT", "now"),
            ("/review the\nparser", "review", "the\nparser"),
        ] {
            assert_eq!(
                ComposerInput::parse(text),
                Command { name, arguments },
                "{text:?}"
            );
        }
    }

    #[test]
    fn text_before_the_slash_or_a_path_is_a_message() {
        for text in [
            "please /compact",
            "compact",
            "/src/main.rs fails to build",
            "/",
            "/ spaced",
        ] {
            assert_eq!(ComposerInput::parse(text), Message(text), "{text:?}");
        }
    }

    #[test]
    fn a_message_is_returned_as_typed() {
        assert_eq!(
            ComposerInput::parse("  list the files \n"),
            Message("  list the files \n")
        );
        assert_eq!(ComposerInput::parse(""), Message(""));
    }
}
