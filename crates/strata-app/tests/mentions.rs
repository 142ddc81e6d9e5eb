//! `@` mentions through the application layer: `find_workspace_files`
//! ranks the workspace's paths for the composer's finder, and
//! `send_message` sends the model a message with what the mentioned paths
//! hold appended (a secret file's refusal, never its contents), which the
//! session's record keeps.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_protocol::{CommandErrorKind, FindWorkspaceFiles, SendMessage, WorkspaceFile};
use support::{ChatServer, Collect, Fixture, create, runtime, turn_of};

#[test]
fn the_finder_ranks_the_workspaces_paths_and_skips_gitignored_ones() {
    let server = ChatServer::start();
    let fixture = Fixture::chat(&server);
    let root = fixture.workspace.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("src/parser.rs"), "fn parse() {}").unwrap();
    std::fs::write(root.join("build/parser.rs"), "generated").unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();

    runtime().block_on(async {
        let app = fixture.app();
        let found = app
            .find_workspace_files(FindWorkspaceFiles {
                workspace: root.display().to_string(),
                query: "parser".into(),
                limit: Some(5),
            })
            .await
            .unwrap();
        assert_eq!(
            found.files,
            [WorkspaceFile {
                path: "src/parser.rs".into(),
                is_dir: false
            }]
        );
        assert!(!found.walk_cut);

        let refused = app
            .find_workspace_files(FindWorkspaceFiles {
                workspace: root.join("missing").display().to_string(),
                query: String::new(),
                limit: None,
            })
            .await
            .unwrap_err();
        assert_eq!(refused.kind, CommandErrorKind::InvalidInput);
    });
}

#[test]
fn a_mentioned_file_reaches_the_model_in_the_user_message_and_the_record() {
    let server = ChatServer::start();
    let fixture = Fixture::chat(&server);
    let root = fixture.workspace.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn answer() -> u32 { 42 }\n").unwrap();
    std::fs::write(root.join(".env"), "API_TOKEN=hunter2\n").unwrap();

    runtime().block_on(async {
        let app = fixture.app();
        let id = create(&app, root).await;
        let sent = app
            .send_message(
                SendMessage {
                    session_id: id,
                    text: "explain @src/lib.rs and @.env, not @nowhere.rs".into(),
                },
                Collect::default(),
            )
            .await
            .unwrap();
        turn_of(sent);
        let messages = server.last_user_messages();
        let message = messages.last().unwrap();
        assert!(
            message.starts_with("explain @src/lib.rs and @.env, not @nowhere.rs\n\n"),
            "{message}"
        );
        assert!(
            message
                .contains("src/lib.rs (attached with @):\n```\npub fn answer() -> u32 { 42 }\n```"),
            "{message}"
        );
        assert!(message.contains(".env (attached with @)"), "{message}");
        assert!(message.contains("looks like a secret file"), "{message}");
        assert!(!message.contains("hunter2"), "{message}");
        assert!(!message.contains("nowhere.rs (attached"), "{message}");

        let record = std::fs::read_to_string(app.store().session_path(id)).unwrap();
        assert!(record.contains("pub fn answer() -> u32 { 42 }"));
        assert!(!record.contains("hunter2"));
    });
}
