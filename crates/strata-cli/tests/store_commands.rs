//! The store-only commands (`sessions list/show/export/delete`, `context`,
//! `compactions`) run as the built binary against a temporary STRATA_HOME
//! holding sessions written through the store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;

use strata_core::store::ReadMode;
use strata_protocol::{CompactionList, Record, ResponseItem, SessionContext};
use support::{Home, common_prefix};

#[test]
fn sessions_list_shows_every_session_newest_first_and_json_is_one_page() {
    let home = Home::new();
    let older = home.small_session("first question about parsers");
    let newer = home.compacted_session();

    let text = home.run(&["sessions", "list"]).ok();
    let first = text.find(&newer.to_string()).expect("newer listed");
    let second = text.find(&older.to_string()).expect("older listed");
    assert!(first < second, "newest first:\n{text}");
    assert!(text.contains("Count the widgets"), "{text}");
    assert!(text.contains("first question about parsers"), "{text}");
    assert!(text.contains("1 compaction"), "{text}");

    let run = home.run(&["sessions", "list", "--json"]);
    let lines = run.json_lines();
    assert_eq!(lines.len(), 1, "one page");
    assert_eq!(lines[0]["v"], 1);
    assert_eq!(lines[0]["total"], 2);
    let sessions = &lines[0]["sessions"];
    assert_eq!(sessions[0]["id"], newer.to_string());
    assert_eq!(sessions[0]["title"], "Count the widgets");
    assert_eq!(sessions[0]["compaction_count"], 1);
    assert_eq!(sessions[0]["item_count"], 7);
    assert_eq!(sessions[0]["model"], "gpt-test");
    assert_eq!(sessions[1]["id"], older.to_string());
    assert_eq!(sessions[1]["provider_kind"], "demo");
}

#[test]
fn an_empty_home_lists_nothing_and_succeeds() {
    let home = Home::new();
    let run = home.run(&["sessions", "list"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("no sessions"), "{run:?}");
    assert_eq!(
        home.run(&["sessions", "list", "--json"]).ok(),
        "{\"v\":1,\"sessions\":[],\"total\":0}\n"
    );
}

#[test]
fn strata_home_decides_which_sessions_are_seen() {
    let home = Home::new();
    let other = Home::new();
    let id = home.small_session("only in the first home");
    assert!(
        home.run(&["sessions", "list"])
            .ok()
            .contains(&id.to_string())
    );
    assert!(
        !other
            .run(&["sessions", "list"])
            .ok()
            .contains(&id.to_string())
    );
    other
        .run(&["sessions", "show", &id.to_string()])
        .fails_with(1, "no session matches");
}

#[test]
fn show_is_the_transcript_as_seen_including_items_compacted_away() {
    let home = Home::new();
    let id = home.compacted_session();
    let text = home.run(&["sessions", "show", &id.to_string()]).ok();
    let expected_in_order = [
        "Count the widgets",
        "You are Strata, in a test.",
        "turn 1",
        "How many widgets are in stock.csv?",
        "→ read_file {\"path\":\"stock.csv\"}",
        "widget,4",
        "full 29 characters are kept",
        "approval: run_shell denied",
        "assistant (gpt-test)",
        "There are 4 widgets (obsolete answer).",
        "turn completed · 2 rounds",
        "history compacted (auto): 3 items removed, 2 kept, 9120 tokens (threshold 8000)",
        "The user asked about widgets in stock.csv; there are 4.",
        "turn 2",
        "And gadgets?",
        "error: the round failed after 4 attempts (temporary provider failure: 503 Service Unavailable)",
        "turn failed · 1 round",
    ];
    let mut from = 0;
    for needle in expected_in_order {
        let at = text[from..]
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing after byte {from} in:\n{text}"));
        from += at + needle.len();
    }
    assert!(!text.contains('\u{1b}'), "piped output is plain:\n{text}");
}

#[test]
fn a_unique_prefix_names_a_session_case_insensitively() {
    let home = Home::new();
    let id = home.compacted_session();
    let prefix = id.to_string()[..18].to_uppercase();
    let text = home.run(&["sessions", "show", &prefix]).ok();
    assert!(text.contains(&id.to_string()));
}

#[test]
fn an_unknown_session_exits_1_with_one_line_for_every_command() {
    let home = Home::new();
    home.small_session("present");
    for args in [
        vec!["sessions", "show", "ffffffff"],
        vec!["sessions", "export", "ffffffff"],
        vec!["sessions", "export", "ffffffff", "--format", "json"],
        vec!["sessions", "delete", "ffffffff"],
        vec!["context", "ffffffff"],
        vec!["compactions", "ffffffff", "--json"],
    ] {
        let run = home.run(&args);
        run.fails_with(1, "no session matches \"ffffffff\"");
        assert_eq!(run.stdout, "", "{args:?}");
    }
}

#[test]
fn an_ambiguous_prefix_exits_1_and_says_how_many_match() {
    let home = Home::new();
    let a = home.small_session("one").to_string();
    let b = home.small_session("two").to_string();
    let prefix = common_prefix(&a, &b);
    assert!(!prefix.is_empty());
    for command in [
        vec!["sessions", "show"],
        vec!["context"],
        vec!["compactions"],
    ] {
        let mut args = command.clone();
        args.push(&prefix);
        home.run(&args).fails_with(1, "matches 2 sessions");
    }
}

#[test]
fn usage_errors_exit_2() {
    let home = Home::new();
    let id = home.small_session("x").to_string();
    for args in [
        vec!["sessions", "list", "--bogus"],
        vec!["sessions", "export", &id, "--format", "pdf"],
        vec!["sessions", "show"],
        vec!["context"],
        vec!["compactions", &id, "extra"],
        vec!["sessions", "frobnicate"],
        vec!["no-such-command"],
        vec!["--color", "sometimes", "sessions", "list"],
    ] {
        let run = home.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(
            run.stderr
                .lines()
                .next()
                .unwrap_or("")
                .starts_with("error:"),
            "{args:?}: {run:?}"
        );
        assert_eq!(run.stdout, "");
    }
}

#[test]
fn help_and_version_exit_0() {
    let home = Home::new();
    assert!(home.run(&["--help"]).ok().contains("sessions"));
    assert!(home.run(&["--version"]).ok().starts_with("strata "));
}

#[test]
fn export_md_is_a_readable_markdown_transcript() {
    let home = Home::new();
    let id = home.compacted_session();
    let md = home
        .run(&["sessions", "export", &id.to_string(), "--format", "md"])
        .ok();
    assert!(md.starts_with("# Count the widgets\n"), "{md}");
    for needle in [
        &format!("- Session: `{id}`") as &str,
        "## Turn 1",
        "**You:**\n\nHow many widgets are in stock.csv?",
        "**Tool call** `read_file`:\n\n```json\n{\n  \"path\": \"stock.csv\"\n}\n```",
        "**Tool output** `read_file`:",
        "sprocket,9",
        "*Approval: `run_shell` denied.*",
        "**Assistant** (gpt-test):\n\nThere are 4 widgets (obsolete answer).",
        "**History compacted (auto): 3 items removed, 2 kept, 9120 tokens (threshold 8000).**",
        "> The user asked about widgets in stock.csv; there are 4.",
        "## Turn 2",
        "> **Error:** the round failed after 4 attempts",
        "*Turn failed after 1 round(s).*",
    ] {
        assert!(md.contains(needle), "{needle:?} missing in:\n{md}");
    }
    // Every fence opened is closed.
    assert_eq!(md.matches("```").count() % 2, 0, "{md}");
}

#[test]
fn export_json_writes_the_records_one_per_line_and_to_a_file() {
    let home = Home::new();
    let id = home.compacted_session();
    let run = home.run(&["sessions", "export", &id.to_string(), "--format", "json"]);
    let lines = run.json_lines();
    let read = home.store().open_reader(id, ReadMode::Strict).unwrap();
    assert_eq!(lines.len(), read.records.len());
    for (line, record) in run.stdout.lines().zip(&read.records) {
        let parsed: Record = serde_json::from_str(line).unwrap();
        assert_eq!(&parsed, record);
    }
    assert_eq!(lines[0]["type"], "session_meta");

    let target = home.workspace.path().join("out.md");
    let printed = home
        .run(&[
            "sessions",
            "export",
            &id.to_string(),
            "-o",
            target.to_str().unwrap(),
        ])
        .ok();
    assert_eq!(printed, "");
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.starts_with("# Count the widgets"));

    let missing = home.workspace.path().join("no/such/dir/out.md");
    home.run(&[
        "sessions",
        "export",
        &id.to_string(),
        "-o",
        missing.to_str().unwrap(),
    ])
    .fails_with(1, "cannot write");
}

#[test]
fn context_is_the_model_visible_history_after_replay() {
    let home = Home::new();
    let id = home.compacted_session();
    let run = home.run(&["context", &id.to_string(), "--json"]);
    let context: SessionContext = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(context.session_id, id);
    assert_eq!(context.context_tokens, None);
    let items = context.items;
    let replayed = home
        .store()
        .open_reader(id, ReadMode::Strict)
        .unwrap()
        .replay();
    assert_eq!(items.as_slice(), replayed.history().items());
    // system, summary, both user messages: the tool traffic and the old
    // answer were compacted away.
    assert_eq!(items.len(), 4);
    assert!(matches!(items[1], ResponseItem::CompactionSummary(_)));

    let text = home.run(&["context", &id.to_string()]).ok();
    assert!(text.contains("4 items"), "{text}");
    assert!(text.contains("compaction summary (auto)"), "{text}");
    assert!(text.contains("And gadgets?"), "{text}");
    // No usage since the compaction: the figure is the labelled estimate of
    // what it left, never the pre-compaction report.
    assert!(
        text.contains("tokens (an estimate of the history the last compaction left"),
        "{text}"
    );
    assert!(!text.contains("9120"), "{text}");
    assert!(!text.contains("obsolete answer"), "{text}");
    assert!(!text.contains("stock.csv\"}"), "{text}");
}

#[test]
fn compactions_lists_when_why_and_how_much() {
    let home = Home::new();
    let id = home.compacted_session();
    let run = home.run(&["compactions", &id.to_string(), "--json"]);
    let lines = run.json_lines();
    assert_eq!(lines.len(), 1);
    let list = lines[0]["compactions"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    let line = &list[0];
    let meta = &line["summary"]["metadata"];
    assert_eq!(meta["trigger"], "auto");
    assert_eq!(meta["context_tokens"], 9120);
    assert_eq!(meta["threshold"], 8000);
    assert_eq!(meta["removed"], 3);
    assert_eq!(meta["kept"], 2);
    assert_eq!(meta["summarizer_model"], "gpt-test-mini");
    assert_eq!(meta["duration_ms"], 42);
    assert!(line["at"].as_str().unwrap().starts_with("20"));
    assert!(
        meta["reason"]
            .as_str()
            .unwrap()
            .contains("reached the compaction threshold")
    );
    assert_eq!(
        line["summary_excerpt"],
        "The user asked about widgets in stock.csv; there are 4."
    );

    let text = home.run(&["compactions", &id.to_string()]).ok();
    for needle in [
        "#1 ",
        "auto",
        "tokens:    9120 (threshold 8000)",
        "items:     3 removed, 2 kept",
        "summary:   The user asked about widgets",
    ] {
        assert!(text.contains(needle), "{needle:?} missing in:\n{text}");
    }
}

#[test]
fn a_session_without_compactions_lists_none_and_succeeds() {
    let home = Home::new();
    let id = home.small_session("nothing to compact").to_string();
    let none: CompactionList =
        serde_json::from_str(home.run(&["compactions", &id, "--json"]).ok().trim()).unwrap();
    assert!(none.compactions.is_empty());
    let run = home.run(&["compactions", &id]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("no compactions"), "{run:?}");
}

#[test]
fn delete_removes_the_session_and_is_refused_while_it_is_open() {
    let home = Home::new();
    let id = home.small_session("delete me");
    let keep = home.small_session("keep me");

    let writer = home.store().open_writer(id).unwrap();
    home.run(&["sessions", "delete", &id.to_string()])
        .fails_with(1, "open for writing elsewhere");
    assert!(home.session_file(id).exists());
    drop(writer);

    let run = home.run(&["sessions", "delete", &id.to_string(), "--json"]);
    assert_eq!(
        run.json_lines(),
        vec![serde_json::json!({"v": 1, "kind": "session_deleted", "session_id": id})]
    );
    assert!(!home.session_file(id).exists());
    let listed = home.run(&["sessions", "list"]).ok();
    assert!(!listed.contains(&id.to_string()));
    assert!(listed.contains(&keep.to_string()));
    home.run(&["sessions", "delete", &id.to_string()])
        .fails_with(1, "no session matches");
}

#[test]
fn a_corrupt_line_is_skipped_with_a_warning_when_viewing() {
    let home = Home::new();
    let id = home.small_session("before the damage");
    let path = home.session_file(id);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(b"{not json}\n").unwrap();
    let line = serde_json::to_string(&Record::now(strata_protocol::RecordBody::ResponseItem(
        ResponseItem::assistant("after the damage"),
    )))
    .unwrap();
    writeln!(file, "{line}").unwrap();
    file.write_all(b"{\"v\":1,\"torn").unwrap();
    drop(file);

    let run = home.run(&["sessions", "show", &id.to_string()]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("before the damage"));
    assert!(run.stdout.contains("after the damage"));
    assert!(
        run.stderr.contains(":4: skipped a corrupt record"),
        "{run:?}"
    );
    assert!(run.stderr.contains("unfinished last line"), "{run:?}");
}

#[test]
fn colour_only_on_request_or_a_terminal_and_never_with_no_color() {
    let home = Home::new();
    let id = home.compacted_session().to_string();
    let piped = home.run(&["sessions", "show", &id]).ok();
    assert!(!piped.contains('\u{1b}'));
    let forced = home
        .run(&["--color", "always", "sessions", "show", &id])
        .ok();
    assert!(forced.contains("\u{1b}["), "{forced}");
    let env_forced = home
        .run_with(&["sessions", "show", &id], &[("CLICOLOR_FORCE", "1")])
        .ok();
    assert!(env_forced.contains("\u{1b}["), "{env_forced}");
    let never = home
        .run_with(
            &["sessions", "show", &id],
            &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")],
        )
        .ok();
    assert!(!never.contains('\u{1b}'));
    // Colour changes nothing but the escapes.
    let stripped = strip_ansi(&forced);
    assert_eq!(stripped, piped);
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn json_output_stays_plain_even_when_colour_is_forced() {
    let home = Home::new();
    let id = home.compacted_session().to_string();
    for args in [
        vec!["--color", "always", "context", &id, "--json"],
        vec!["--color", "always", "compactions", &id, "--json"],
        vec!["--color", "always", "sessions", "list", "--json"],
    ] {
        let run = home.run(&args);
        assert!(!run.stdout.contains('\u{1b}'), "{args:?}");
        assert!(!run.json_lines().is_empty(), "{args:?}");
    }
}
