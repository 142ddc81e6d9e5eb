//! `strata changes` and `strata restore` against the built binary: a local
//! Responses server plays a model that writes, edits and runs shell
//! commands in a real workspace; restores put the files back, refuse over a
//! person's own edit, and are themselves undone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::fs;

use serde_json::{Value, json};
use strata_protocol::{FileChanges, RestoreReport};
use support::server::model_calling;
use support::{Home, Run, announced_id, responses_run};

const AUTO: &[&str] = &["--approval", "auto", "--sandbox", "off"];

/// One turn of `calls` in a new session; its id.
fn first_turn(home: &Home, calls: Vec<(&'static str, Value)>) -> String {
    let server = model_calling(calls);
    let run = home.run(&responses_run("go", &server.base_url, AUTO));
    assert_eq!(run.code, 0, "{run:#?}");
    announced_id(&run.stderr).to_string()
}

/// One more turn of `calls` in `session`.
fn next_turn(home: &Home, session: &str, calls: Vec<(&'static str, Value)>) {
    let server = model_calling(calls);
    let mut args = vec![
        "resume",
        session,
        "-p",
        "more",
        "--base-url",
        &server.base_url,
    ];
    args.extend_from_slice(AUTO);
    let run = home.run(&args);
    assert_eq!(run.code, 0, "{run:#?}");
}

/// The output as JSON, checked against its type (unknown fields refused).
fn json_of(run: Run) -> Value {
    let value: Value = serde_json::from_str(&run.ok()).unwrap();
    match value["kind"].as_str() {
        Some("file_changes") => drop(serde_json::from_value::<FileChanges>(value.clone()).unwrap()),
        Some("restore") => drop(serde_json::from_value::<RestoreReport>(value.clone()).unwrap()),
        other => panic!("unexpected kind {other:?}: {value}"),
    }
    value
}

fn read(home: &Home, name: &str) -> Option<String> {
    fs::read_to_string(home.workspace.path().join(name)).ok()
}

fn put(home: &Home, name: &str, text: &str) {
    fs::write(home.workspace.path().join(name), text).unwrap();
}

/// The workspace's files and their text, `.git` left out.
fn tree(home: &Home) -> Vec<(String, String)> {
    let mut files: Vec<_> = fs::read_dir(home.workspace.path())
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().unwrap().is_file())
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, fs::read_to_string(entry.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn restore(home: &Home, session: &str, point: &[&str]) -> Run {
    let mut args = vec!["restore", session];
    args.extend_from_slice(point);
    args.push("--json");
    home.run(&args)
}

#[test]
fn restore_after_write_edit_and_shell_create_modify_delete_and_rename_returns_every_file() {
    let home = Home::new();
    put(&home, "edit.txt", "a\nb\n");
    put(&home, "keep.txt", "orig\n");
    put(&home, "doomed.txt", "bye\n");
    put(&home, "old.txt", "rename me\n");
    let before = tree(&home);
    let session = first_turn(
        &home,
        vec![
            (
                "write_file",
                json!({"path": "new.txt", "content": "one\ntwo\n"}),
            ),
            (
                "apply_edit",
                json!({"path": "edit.txt", "old_text": "b\n", "new_text": "B\nC\n"}),
            ),
            (
                "run_shell",
                json!({"command": "echo made > made.txt; echo more >> keep.txt; rm doomed.txt; mv old.txt renamed.txt"}),
            ),
        ],
    );
    let after = tree(&home);
    assert_ne!(before, after);

    let listed = json_of(home.run(&["changes", &session, "--json"]));
    let mut rows: Vec<(String, String, String, Value, Value)> = listed["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            assert_eq!(row["turn"], 1, "{row}");
            (
                row["path"].as_str().unwrap().to_owned(),
                row["kind"].as_str().unwrap().to_owned(),
                row["cause"].as_str().unwrap().to_owned(),
                row["added"].clone(),
                row["removed"].clone(),
            )
        })
        .collect();
    rows.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let row = |path: &str, kind: &str, cause: &str, added: u64, removed: u64| {
        (
            path.to_owned(),
            kind.to_owned(),
            cause.to_owned(),
            json!(added),
            json!(removed),
        )
    };
    assert_eq!(
        rows,
        vec![
            row("doomed.txt", "deleted", "run_shell", 0, 1),
            row("edit.txt", "modified", "apply_edit", 2, 1),
            row("keep.txt", "modified", "run_shell", 1, 0),
            row("made.txt", "created", "run_shell", 1, 0),
            row("new.txt", "created", "write_file", 2, 0),
            row("old.txt", "deleted", "run_shell", 0, 1),
            row("renamed.txt", "created", "run_shell", 1, 0),
        ]
    );
    let text = home.run(&["changes", &session]).ok();
    assert!(
        text.contains("── turn 1 ──") && text.contains("+2 -1"),
        "{text}"
    );

    let preview = json_of(restore(
        &home,
        &session,
        &["--before-turn", "1", "--dry-run"],
    ));
    assert_eq!(preview["restored"], true);
    assert_eq!(preview["files"].as_array().unwrap().len(), 7);
    assert_eq!(tree(&home), after, "a dry run changes nothing");

    let done = json_of(restore(&home, &session, &["--before-turn", "1"]));
    assert_eq!(done["restored"], true, "{done}");
    assert_eq!(tree(&home), before);

    // The restore is recorded, so restoring to before it undoes it.
    let restore_id = done["restore_id"].as_str().unwrap();
    assert!(restore_id.starts_with("restore-"), "{restore_id}");
    let undone = json_of(restore(&home, &session, &["--before-item", restore_id]));
    assert_eq!(undone["restored"], true, "{undone}");
    assert_eq!(tree(&home), after);
    let verified = home.run(&["sessions", "verify", &session]);
    assert_eq!(verified.code, 0, "{verified:#?}");
}

#[test]
fn a_file_the_person_edited_since_makes_the_restore_refuse_and_list_it_and_change_nothing() {
    let home = Home::new();
    let session = first_turn(
        &home,
        vec![
            ("write_file", json!({"path": "a.txt", "content": "agent\n"})),
            (
                "write_file",
                json!({"path": "b.txt", "content": "agent too\n"}),
            ),
        ],
    );
    put(&home, "a.txt", "agent\nand the person's own line\n");
    let run = restore(&home, &session, &["--before-turn", "1"]);
    assert_eq!(run.code, 5, "{run:#?}");
    let output: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(output["restored"], false);
    let refused = output["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{output}");
    assert_eq!(refused[0]["path"], "a.txt");
    assert!(
        refused[0]["reason"]
            .as_str()
            .unwrap()
            .contains("changed outside Strata")
    );
    assert_eq!(
        read(&home, "a.txt").unwrap(),
        "agent\nand the person's own line\n"
    );
    assert_eq!(read(&home, "b.txt").unwrap(), "agent too\n");
    // The text form names the file too.
    let text = home.run(&["restore", &session, "--before-turn", "1"]);
    assert_eq!(text.code, 5);
    assert!(
        text.stdout.contains("a.txt: changed outside Strata"),
        "{text:#?}"
    );
}

#[test]
fn restoring_before_the_second_turn_keeps_the_first_turns_changes() {
    let home = Home::new();
    let session = first_turn(
        &home,
        vec![("write_file", json!({"path": "a.txt", "content": "first\n"}))],
    );
    next_turn(
        &home,
        &session,
        vec![
            (
                "write_file",
                json!({"path": "a.txt", "content": "second\n"}),
            ),
            ("run_shell", json!({"command": "echo x > b.txt"})),
        ],
    );
    let listed = json_of(home.run(&["changes", &session, "--json"]));
    let turns: Vec<_> = listed["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["turn"].as_u64().unwrap())
        .collect();
    assert_eq!(turns, [1, 2, 2]);
    let done = json_of(restore(&home, &session, &["--before-turn", "2"]));
    assert_eq!(done["restored"], true, "{done}");
    assert_eq!(read(&home, "a.txt").unwrap(), "first\n");
    assert_eq!(read(&home, "b.txt"), None);
    let missing = restore(&home, &session, &["--before-turn", "3"]);
    missing.fails_with(1, "no turn 3");
}
