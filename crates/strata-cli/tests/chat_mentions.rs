//! `@` mentions in `strata chat`, through the built binary on the offline
//! demo model: the user message the session records (what the model saw)
//! carries what a mentioned file holds, as the desktop composer's does; a
//! mention of nothing stays as typed, and the terminal says what it
//! attaches, escaped.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;

use strata_core::store::ReadMode;
use strata_protocol::{RecordBody, ResponseItem, Role};
use support::{Home, announced_id};

#[test]
fn a_mentioned_file_reaches_the_model_in_the_user_message_and_a_missing_one_stays_text() {
    let home = Home::new();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("notes.txt"), "the planted note\n").unwrap();
    let workspace_arg = workspace.path().display().to_string();
    let mut child =
        home.spawn_piped(&["chat", "--provider", "demo", "--workspace", &workspace_arg]);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"summarise @notes.txt and @missing.txt\n/quit\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("@notes.txt, @missing.txt: each attaches"),
        "{stderr}"
    );

    let id = announced_id(&stderr);
    let read = home.store().open_reader(id, ReadMode::Strict).unwrap();
    let user: Vec<String> = read
        .records
        .iter()
        .filter_map(|record| match &record.body {
            RecordBody::ResponseItem(ResponseItem::Message(message))
                if message.role == Role::User =>
            {
                Some(message.content.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(user.len(), 1, "{user:?}");
    assert!(
        user[0].starts_with("summarise @notes.txt and @missing.txt"),
        "{}",
        user[0]
    );
    assert!(
        user[0].contains("notes.txt (attached with @):"),
        "{}",
        user[0]
    );
    assert!(user[0].contains("the planted note"), "{}", user[0]);
    assert!(!user[0].contains("missing.txt (attached"), "{}", user[0]);
}
