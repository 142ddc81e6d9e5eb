//! Prompt files through the application layer: `list_slash_commands`
//! offers `/compact` and the workspace's and the person's prompt files, and
//! `send_message` with `/name arguments` sends the file's expanded body to
//! the model; an unknown `/name` is refused before anything is sent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_protocol::{
    CommandErrorKind, ListSlashCommands, SendMessage, SlashCommandSource, TurnOutcome,
};
use support::{ChatServer, Collect, Fixture, create, runtime, turn_of};

#[test]
fn a_prompt_file_command_is_listed_and_sends_its_expanded_body_to_the_model() {
    let server = ChatServer::start();
    let fixture = Fixture::chat(&server);
    let commands = fixture.workspace.path().join(".strata/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("review.md"),
        "---\ndescription: Review a part of the code\nargument-hint: <part>\n---\nReview $ARGUMENTS for bugs.\n",
    )
    .unwrap();
    let own = fixture.paths.config.join("commands");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(
        own.join("standup.md"),
        "# Write my standup\nSummarise today's work.",
    )
    .unwrap();
    std::fs::write(own.join("compact.md"), "not the built-in").unwrap();

    runtime().block_on(async {
        let app = fixture.app();
        let listed = app
            .list_slash_commands(ListSlashCommands {
                workspace: fixture.workspace.path().display().to_string(),
            })
            .await
            .unwrap();
        let names: Vec<(&str, SlashCommandSource)> = listed
            .commands
            .iter()
            .map(|c| (c.name.as_str(), c.source))
            .collect();
        assert_eq!(
            names,
            [
                ("compact", SlashCommandSource::BuiltIn),
                ("review", SlashCommandSource::Workspace),
                ("standup", SlashCommandSource::User),
            ]
        );
        assert_eq!(listed.commands[1].description, "Review a part of the code");
        assert_eq!(listed.commands[1].argument_hint.as_deref(), Some("<part>"));
        assert_eq!(
            listed.commands[1].file.as_deref(),
            Some(".strata/commands/review.md")
        );
        assert_eq!(listed.problems.len(), 1);
        assert_eq!(listed.problems[0].reason, "/compact is a built-in command");

        let id = create(&app, fixture.workspace.path()).await;
        let send = |text: &str| {
            app.send_message(
                SendMessage {
                    session_id: id,
                    text: text.into(),
                },
                Collect::default(),
            )
        };
        let report = turn_of(send("/review  the parser ").await.unwrap());
        assert_eq!(report.outcome, TurnOutcome::Completed);
        turn_of(send("/standup").await.unwrap());
        assert_eq!(
            server.last_user_messages(),
            [
                "Review the parser for bugs.",
                "# Write my standup\nSummarise today's work."
            ]
        );

        // A name no prompt file has is refused, and nothing reaches the model.
        let error = send("/reveiw the parser").await.unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
        assert!(
            error.message.contains("There is no /reveiw command"),
            "{}",
            error.message
        );
        // A path is a message, sent as typed.
        turn_of(send("/src/main.rs fails to build").await.unwrap());
        assert_eq!(server.last_user_messages().len(), 3);
        assert_eq!(
            server.last_user_messages()[2],
            "/src/main.rs fails to build"
        );
    });
}

#[test]
fn a_refused_prompt_file_is_an_error_naming_it_and_sends_nothing() {
    let server = ChatServer::start();
    let fixture = Fixture::chat(&server);
    let commands = fixture.workspace.path().join(".strata/commands");
    std::fs::create_dir_all(&commands).unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.md"), "secret instructions").unwrap();
    std::os::unix::fs::symlink(outside.path().join("x.md"), commands.join("leak.md")).unwrap();
    runtime().block_on(async {
        let app = fixture.app();
        let id = create(&app, fixture.workspace.path()).await;
        let error = app
            .send_message(
                SendMessage {
                    session_id: id,
                    text: "/leak now".into(),
                },
                Collect::default(),
            )
            .await
            .unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
        assert!(
            error.message.contains(".strata/commands/leak.md")
                && error.message.contains("leads out of its folder"),
            "{}",
            error.message
        );
        assert!(server.last_user_messages().is_empty());
    });
}
