//! `strata chat`'s built-ins besides `/compact` (`/pin`, `/reasoning`,
//! `/model`, `/undo`, `/fork`, `/clear`), through the built binary on the
//! offline demo model: each writes what the desktop's control of that name
//! writes, lists its choices without an argument, and refuses an unknown
//! value with words.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;

use strata_core::store::ReadMode;
use strata_protocol::{ReasoningEffort, RecordBody, ResponseItem, Role, SessionId};
use support::{Home, announced_id};

fn records(home: &Home, id: SessionId) -> Vec<RecordBody> {
    let read = home.store().open_reader(id, ReadMode::Strict).unwrap();
    read.records.into_iter().map(|record| record.body).collect()
}

/// Every session id the terminal announced, in order.
fn announced_ids(stderr: &str) -> Vec<SessionId> {
    stderr
        .lines()
        .filter_map(|line| line.strip_prefix("session "))
        .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
        .collect()
}

fn chat(home: &Home, input: &str) -> (i32, String) {
    let mut child = home.spawn_piped(&["chat", "--provider", "demo"]);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    (output.status.code().unwrap_or(-1), stderr)
}

#[test]
fn chat_pins_sets_reasoning_and_switches_profile_refusing_unknown_values() {
    let home = Home::new();
    let config = home.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[profiles.local]\nkind = \"openai-chat\"\nmodel = \"qwen3-coder\"\nbase_url = \"http://127.0.0.1:9/v1\"\n",
    )
    .unwrap();
    let (code, stderr) = chat(
        &home,
        "list the files\n/pin\n/reasoning\n/reasoning extreme\n/reasoning high\n/model\n/model nowhere\n/model local\n/undo\n/help\n/quit\n",
    );
    assert_eq!(code, 0, "{stderr}");
    let id = announced_id(&stderr);
    assert!(stderr.contains("pinned item "), "{stderr}");
    assert!(
        stderr
            .contains("reasoning levels (/reasoning LEVEL sets one): off, low, medium, high, max"),
        "{stderr}"
    );
    assert!(stderr.contains("\"extreme\""), "{stderr}");
    assert!(
        stderr.contains("Type /reasoning to list the levels."),
        "{stderr}"
    );
    assert!(
        stderr.contains("reasoning high from the next turn on"),
        "{stderr}"
    );
    assert!(stderr.contains("  local · "), "{stderr}");
    assert!(
        stderr.contains("There is no profile nowhere. Type /model to list them."),
        "{stderr}"
    );
    assert!(stderr.contains("switched to "), "{stderr}");
    assert!(stderr.contains("/reasoning [level] · "), "{stderr}");
    // Nothing was compacted: the undo is refused with the app's words, the session goes on.
    assert!(stderr.contains("compaction"), "{stderr}");

    let bodies = records(&home, id);
    let pins: Vec<_> = bodies
        .iter()
        .filter_map(|body| match body {
            RecordBody::ItemPin(pin) => Some(pin.pinned),
            _ => None,
        })
        .collect();
    assert_eq!(pins, [true]);
    let efforts: Vec<_> = bodies
        .iter()
        .filter_map(|body| match body {
            RecordBody::ReasoningSet(set) => Some(set.effort),
            _ => None,
        })
        .collect();
    assert_eq!(efforts, [ReasoningEffort::High]);
    let switched: Vec<_> = bodies
        .iter()
        .filter_map(|body| match body {
            RecordBody::ProfileSet(set) => set.profile.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(switched.last().map(String::as_str), Some("local"));
}

#[test]
fn chat_forks_from_the_latest_message_and_clear_goes_on_in_a_new_session_in_the_same_folder() {
    let home = Home::new();
    let (code, stderr) = chat(&home, "list the files\n/fork\n/clear\nhello again\n/quit\n");
    assert_eq!(code, 0, "{stderr}");
    let ids = announced_ids(&stderr);
    assert_eq!(ids.len(), 2, "{stderr}");
    let (first, second) = (ids[0], ids[1]);
    assert_ne!(first, second);
    assert!(stderr.contains("forked into session "), "{stderr}");
    assert!(
        stderr.contains("continue it with: strata chat --session "),
        "{stderr}"
    );

    let user_texts = |id| {
        records(&home, id)
            .into_iter()
            .filter_map(|body| match body {
                RecordBody::ResponseItem(ResponseItem::Message(message))
                    if message.role == Role::User =>
                {
                    Some(message.content)
                }
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(user_texts(first), ["list the files"]);
    assert_eq!(user_texts(second), ["hello again"]);
    let workspace = |id| {
        records(&home, id)
            .into_iter()
            .find_map(|body| match body {
                RecordBody::SessionMeta(meta) => Some(meta.workspace),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(workspace(first), workspace(second));
    // The fork is its own session, holding the first one's turn.
    let forks: Vec<_> = home
        .store()
        .list()
        .unwrap()
        .into_iter()
        .filter(|meta| meta.id != first && meta.id != second)
        .collect();
    assert_eq!(forks.len(), 1);
}
