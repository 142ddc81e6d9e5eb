//! `strata run`, `resume`, `compact` and `chat` on the offline demo model,
//! and their usage errors, through the built binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;

use serde_json::Value;
use strata_core::store::ReadMode;
use strata_protocol::{RecordBody, ResponseItem, SessionId};
use support::{Home, Run, announced_id};

fn demo(home: &Home, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    all.extend(["--provider", "demo"]);
    home.run(&all)
}

fn session_of(lines: &[Value]) -> SessionId {
    assert_eq!(lines[0]["kind"], "session_started", "{:#}", lines[0]);
    lines[0]["session_id"].as_str().unwrap().parse().unwrap()
}

fn user_messages(home: &Home, id: SessionId) -> Vec<String> {
    let read = home.store().open_reader(id, ReadMode::Strict).unwrap();
    read.records
        .iter()
        .filter_map(|record| match &record.body {
            RecordBody::ResponseItem(ResponseItem::Message(message))
                if message.role == strata_protocol::Role::User =>
            {
                Some(message.content.clone())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn run_prints_the_session_id_first_and_streams_the_answer() {
    let home = Home::new();
    std::fs::write(home.workspace.path().join("plan-q1.txt"), "ship it\n").unwrap();
    let run = demo(&home, &["run", "-p", "What is in here?"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let first = run.stderr.lines().next().unwrap();
    let id: SessionId = first
        .strip_prefix("session ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(first.contains("demo"), "{first}");
    assert!(home.session_file(id).exists());
    assert!(run.stdout.contains("plan-q1.txt"), "{}", run.stdout);
    assert!(run.stderr.contains("→ list_directory"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("→ read_file {\"path\":\"plan-q1.txt\"}")
    );
    assert!(!run.stdout.contains('\u{1b}') && !run.stderr.contains('\u{1b}'));
    // The session was made in the current folder.
    let meta = home.store().open_reader(id, ReadMode::Strict).unwrap().meta;
    assert_eq!(
        std::path::Path::new(&meta.workspace),
        home.workspace.path().canonicalize().unwrap()
    );
}

#[test]
fn run_json_is_a_session_line_then_every_event_in_order() {
    let home = Home::new();
    std::fs::write(home.workspace.path().join("a.txt"), "a\n").unwrap();
    let run = demo(&home, &["run", "-p", "look", "--json"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let lines = run.json_lines();
    let id = session_of(&lines);
    assert!(run.stderr.starts_with(&format!("session {id}")));
    assert_eq!(lines[0]["model_label"], "demo");
    assert_eq!(lines[0]["resumed"], false);
    for (seq, line) in lines[1..].iter().enumerate() {
        assert_eq!(line["seq"], seq as u64, "{line:#}");
        assert_eq!(line["session_id"], id.to_string());
    }
    let kinds: Vec<&str> = lines[1..]
        .iter()
        .map(|line| line["event"]["event"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"turn_started"));
    assert_eq!(kinds.last(), Some(&"turn_finished"));
    assert!(kinds.contains(&"text_delta") && kinds.contains(&"tool_call_finished"));
    assert_eq!(
        lines.last().unwrap()["event"]["event"]["outcome"],
        "completed"
    );
}

#[test]
fn resume_and_compact_continue_the_same_session() {
    let home = Home::new();
    std::fs::write(home.workspace.path().join("b.txt"), "b\n").unwrap();
    let first = demo(&home, &["run", "-p", "first", "--json"]);
    let id = session_of(&first.json_lines());

    let resumed = demo(
        &home,
        &["resume", &id.to_string()[..16], "-p", "second", "--json"],
    );
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    let lines = resumed.json_lines();
    assert_eq!(session_of(&lines), id);
    assert_eq!(lines[0]["resumed"], true);
    assert_eq!(user_messages(&home, id), ["first", "second"]);

    let compacted = demo(
        &home,
        &[
            "compact",
            &id.to_string(),
            "--focus",
            "the b file",
            "--json",
        ],
    );
    assert_eq!(compacted.code, 0, "{compacted:#?}");
    let lines = compacted.json_lines();
    assert_eq!(session_of(&lines), id);
    let last = lines.last().unwrap();
    assert_eq!(last["kind"], "compact_finished");
    assert_eq!(last["outcome"], "compacted");
    assert!(
        lines
            .iter()
            .any(|line| line["event"]["event"]["kind"] == "history_compacted")
    );

    let listed = home
        .run(&["compactions", &id.to_string(), "--json"])
        .json_lines();
    let listed = listed[0]["compactions"].as_array().unwrap();
    assert_eq!(listed.len(), 1);
    let meta = &listed[0]["summary"]["metadata"];
    assert_eq!(meta["trigger"], "manual");
    assert!(
        meta["reason"].as_str().unwrap().contains("the b file"),
        "{:#}",
        listed[0]
    );
}

#[test]
fn compacting_a_history_of_only_leading_and_user_messages_does_nothing() {
    let home = Home::new();
    let id = home.small_session("only a question");
    let run = demo(&home, &["compact", &id.to_string()]);
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(run.stderr.contains("nothing to compact"), "{}", run.stderr);
    let json = demo(&home, &["compact", &id.to_string(), "--json"]);
    let last = json.json_lines().pop().unwrap();
    assert_eq!(last["outcome"], "nothing_to_compact");
    let listed = home
        .run(&["compactions", &id.to_string(), "--json"])
        .json_lines();
    assert_eq!(listed[0]["compactions"], serde_json::json!([]));
}

#[test]
fn chat_reads_prompts_and_commands_from_standard_input() {
    let home = Home::new();
    std::fs::write(home.workspace.path().join("c.txt"), "c\n").unwrap();
    let mut child = home.spawn_piped(&["chat", "--provider", "demo"]);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"list the files\n/bogus\n/compact keep c.txt\nand again\n/quit\nnever sent\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("c.txt"), "{stdout}");
    assert!(stderr.contains("There is no /bogus command"), "{stderr}");
    assert!(stderr.contains("history compacted (manual)"), "{stderr}");
    let id = announced_id(&stderr);
    assert_eq!(user_messages(&home, id), ["list the files", "and again"]);
}

#[test]
fn chat_sends_a_prompt_files_expanded_body_and_help_lists_the_files() {
    let home = Home::new();
    let commands = home.workspace.path().join(".strata/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("review.md"),
        "---\ndescription: Review \u{1b}[31mred\u{1b}[0m code\nargument-hint: <part>\n---\nReview $ARGUMENTS carefully.\n",
    )
    .unwrap();
    let own = home.path().join("config/commands");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(own.join("standup.md"), "Write my standup.").unwrap();
    std::fs::write(own.join("bad name.md"), "x").unwrap();
    let mut child = home.spawn_piped(&["chat", "--provider", "demo"]);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"/help\n/review the parser\n/standup\n/nope\n/quit\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("/review <part> · Review "), "{stderr}");
    assert!(stderr.contains("code (workspace)"), "{stderr}");
    assert!(
        stderr.contains("/standup · Write my standup. (yours)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bad name.md: a command's name has only"),
        "{stderr}"
    );
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    assert!(stderr.contains("There is no /nope command"), "{stderr}");
    let id = announced_id(&stderr);
    assert_eq!(
        user_messages(&home, id),
        ["Review the parser carefully.", "Write my standup."]
    );
}

#[test]
fn agent_command_errors_exit_2_for_usage_and_1_otherwise() {
    let home = Home::new();
    for args in [
        vec!["run"],
        vec!["run", "-p", "x", "--provider", "gemini"],
        vec!["run", "-p", "x", "--approval", "sometimes"],
        vec!["run", "-p", "x", "--compact-threshold", "0"],
        vec!["run", "-p", "x", "--compact-threshold", "lots"],
        vec!["resume", "-p", "x"],
        vec!["compact"],
        vec!["run", "-p", "   "],
    ] {
        let run = home.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {run:#?}");
        assert!(run.stderr.starts_with("error:"), "{args:?}: {run:#?}");
    }

    let missing = home.workspace.path().join("missing");
    demo(
        &home,
        &["run", "-p", "x", "--workspace", missing.to_str().unwrap()],
    )
    .fails_with(1, "cannot use");
    demo(&home, &["resume", "abcdef", "-p", "x"]).fails_with(1, "no session matches");
    demo(&home, &["compact", "abcdef"]).fails_with(1, "no session matches");
    home.run(&["run", "-p", "x", "--base-url", "not a url"])
        .fails_with(1, "base URL");
    assert!(
        home.store().list().unwrap().is_empty(),
        "no session was left behind"
    );

    let id = home.small_session("locked");
    let writer = home.store().open_writer(id).unwrap();
    demo(&home, &["resume", &id.to_string(), "-p", "x"])
        .fails_with(1, "open for writing elsewhere");
    drop(writer);
}
