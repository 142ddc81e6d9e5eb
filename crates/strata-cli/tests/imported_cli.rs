//! `strata sessions list --all-tools` and `strata sessions show` of other
//! agents' sessions, run as the built binary with `HOME` a temporary folder
//! holding a Codex rollout and a Claude Code session.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

use support::Home;

const CODEX_ID: &str = "019f03e0-321f-7eb2-83cc-b54ecd71be23";

/// A Codex rollout with one mid-turn compaction whose summary is encrypted,
/// and a prompt carrying an escape sequence.
fn codex_rollout() -> String {
    let t = "2026-06-26T12:00:00.000Z";
    [
        format!(r#"{{"timestamp":"{t}","type":"session_meta","payload":{{"id":"{CODEX_ID}","timestamp":"{t}","cwd":"/work/demo","cli_version":"0.142.2"}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"event_msg","payload":{{"type":"task_started","model_context_window":121600}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"turn_context","payload":{{"model":"gpt-test","cwd":"/work/demo"}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"event_msg","payload":{{"type":"user_message","message":"fix \u001b[31mthe bug"}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"response_item","payload":{{"type":"function_call","name":"exec_command","arguments":"{{\"cmd\":\"ls\"}}","call_id":"c1"}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"response_item","payload":{{"type":"function_call_output","call_id":"c1","output":"src"}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"total_tokens":88246}},"last_token_usage":{{"input_tokens":87590,"output_tokens":656,"total_tokens":88246}}}}}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"compacted","payload":{{"message":"","replacement_history":[{{"type":"message","role":"user","content":[{{"type":"input_text","text":"fix the bug"}}]}},{{"type":"compaction","encrypted_content":"x"}}]}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"input_tokens":0,"output_tokens":0,"total_tokens":13290}}}}}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"event_msg","payload":{{"type":"context_compacted"}}}}"#),
        format!(r#"{{"timestamp":"{t}","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"Fixed it."}}]}}}}"#),
    ]
    .join("\n")
}

fn claude_session() -> &'static str {
    concat!(
        r#"{"type":"user","sessionId":"0cf3db51-1c73-43bb-8d05-dc02739514a5","cwd":"/work/other","version":"2.1.14","uuid":"u1","timestamp":"2026-01-22T01:40:57.814Z","message":{"role":"user","content":"commit this"}}"#,
        "\n",
        r#"{"type":"system","subtype":"compact_boundary","uuid":"u2","timestamp":"2026-01-22T02:05:06.827Z","compactMetadata":{"trigger":"manual","preTokens":153739}}"#,
        "\n",
        r#"{"type":"user","isCompactSummary":true,"uuid":"u3","timestamp":"2026-01-22T02:05:06.827Z","message":{"role":"user","content":"Summary: the commit is made."}}"#,
        "\n",
    )
}

fn write(home: &Path, relative: &str, text: &str) {
    let path = home.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn user_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        &format!(".codex/sessions/2026/06/26/rollout-2026-06-26T12-00-00-{CODEX_ID}.jsonl"),
        &codex_rollout(),
    );
    write(
        home.path(),
        ".claude/projects/-work-other/0cf3db51-1c73-43bb-8d05-dc02739514a5.jsonl",
        claude_session(),
    );
    home
}

#[test]
fn list_all_tools_adds_the_other_tools_sessions_newest_first_with_their_badges() {
    let strata = Home::new();
    let user = user_home();
    let user_home = user.path().to_str().unwrap();
    let text = strata
        .run_with(&["sessions", "list", "--all-tools"], &[("HOME", user_home)])
        .ok();
    let codex = text
        .find(&format!("[Codex]  {CODEX_ID}"))
        .expect("codex listed");
    let claude = text
        .find("[Claude Code]  0cf3db51-1c73-43bb-8d05-dc02739514a5")
        .expect("claude listed");
    assert!(codex < claude, "newest first:\n{text}");
    assert!(text.contains("1 compaction"), "{text}");
    // The escape in the Codex prompt (its title) is spelled out.
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("fix \\x1b[31mthe bug"), "{text}");

    // Without the flag Strata's own list is unchanged.
    let plain = strata
        .run_with(&["sessions", "list"], &[("HOME", user_home)])
        .ok();
    assert!(!plain.contains("[Codex]"), "{plain}");

    let run = strata.run_with(
        &["sessions", "list", "--all-tools", "--json"],
        &[("HOME", user_home)],
    );
    let lines = run.json_lines();
    assert_eq!(lines.len(), 2, "Strata's page, then the imported ones");
    let imported = lines[1]["imported"].as_array().unwrap();
    assert_eq!(imported.len(), 2);
    assert_eq!(imported[0]["source"], "codex");
    assert_eq!(imported[0]["id"], CODEX_ID);
    assert_eq!(imported[0]["compaction_count"], 1);
    assert_eq!(imported[1]["source"], "claude_code");
}

#[test]
fn search_all_tools_finds_other_tools_sessions_by_their_text_with_their_source() {
    let strata = Home::new();
    let user = user_home();
    let user_home = user.path().to_str().unwrap();
    let search = |query: &str, extra: &[&str]| {
        let mut args = vec!["sessions", "search", query, "--color", "never"];
        args.extend_from_slice(extra);
        strata.run_with(&args, &[("HOME", user_home)])
    };
    let text = search("the commit is made", &["--all-tools"]).ok();
    assert!(
        text.contains("[Claude Code]  0cf3db51-1c73-43bb-8d05-dc02739514a5"),
        "{text}"
    );
    assert!(
        text.contains("summary -  Summary: the commit is made."),
        "{text}"
    );
    let codex = search("Fixed it", &["--all-tools"]).ok();
    assert!(codex.contains(&format!("[Codex]  {CODEX_ID}")), "{codex}");
    assert!(codex.contains("assistant item 3"), "{codex}");
    // The escape in the Codex prompt is spelled out in the snippet too.
    let prompt = search("the bug", &["--all-tools"]).ok();
    assert!(!prompt.contains('\u{1b}'), "{prompt:?}");
    assert!(prompt.contains("fix \\x1b[31mthe bug"), "{prompt}");

    // Without the flag only Strata's sessions are searched.
    search("Fixed it", &[]).fails_with(0, "nothing matches");

    let json = search("the commit is made", &["--all-tools", "--json"]);
    let lines = json.json_lines();
    assert_eq!(lines.len(), 2, "Strata's results, then the imported hits");
    let hits = lines[1]["imported_hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["source"], "claude_code");
    assert_eq!(hits[0]["kind"], "summary");
}

#[test]
fn list_all_tools_follows_an_append_through_the_index() {
    let strata = Home::new();
    let user = user_home();
    let user_home = user.path().to_str().unwrap();
    let list = || {
        strata
            .run_with(
                &["sessions", "list", "--all-tools", "--json"],
                &[("HOME", user_home)],
            )
            .json_lines()[1]["imported"]
            .clone()
    };
    let claude_items = |listed: &serde_json::Value| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|item| item["source"] == "claude_code")
            .unwrap()["item_count"]
            .clone()
    };
    assert_eq!(claude_items(&list()), 1);
    let path = user
        .path()
        .join(".claude/projects/-work-other/0cf3db51-1c73-43bb-8d05-dc02739514a5.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(concat!(
        r#"{"type":"user","uuid":"u4","timestamp":"2026-01-22T02:06:00.000Z","#,
        r#""message":{"role":"user","content":"and tag it"}}"#,
        "\n"
    ));
    std::fs::write(&path, text).unwrap();
    assert_eq!(claude_items(&list()), 2);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(list().as_array().unwrap().len(), 1);
}

#[test]
fn show_of_an_id_prefix_no_strata_session_has_prints_the_imported_transcript_and_its_compaction() {
    let strata = Home::new();
    let user = user_home();
    let user_home = user.path().to_str().unwrap();
    let text = strata
        .run_with(&["sessions", "show", "019f03e0"], &[("HOME", user_home)])
        .ok();
    assert!(
        text.contains(&format!("Codex session {CODEX_ID}")),
        "{text}"
    );
    assert!(text.contains("Codex 0.142.2"), "{text}");
    assert!(
        text.contains("· 4 items · 1 round · 1 compaction ·"),
        "{text}"
    );
    assert!(text.contains("▸ exec_command {\"cmd\":\"ls\"}"), "{text}");
    assert!(
        text.contains("══ compaction (auto) · 88246 → 13290 tokens · 2 → 2 items ══"),
        "{text}"
    );
    assert!(
        text.contains("kept: 1 user message, 1 summary item"),
        "{text}"
    );
    assert!(text.contains("summary encrypted by the provider"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    // The card sits between the tool output and the answer after it.
    let card = text.find("══ compaction").unwrap();
    assert!(text.find("src").unwrap() < card && card < text.find("Fixed it.").unwrap());

    let claude = strata
        .run_with(&["sessions", "show", "0cf3"], &[("HOME", user_home)])
        .ok();
    assert!(
        claude.contains("══ compaction (manual) · 153739 tokens before · 1 → 1 items ══"),
        "{claude}"
    );
    assert!(claude.contains("Summary: the commit is made."), "{claude}");

    let json = strata.run_with(
        &["sessions", "show", "0cf3", "--json"],
        &[("HOME", user_home)],
    );
    let lines = json.json_lines();
    assert_eq!(lines[0]["source"], "claude_code");
    assert_eq!(lines[0]["compactions"][0]["tokens_before"], 153739);
    assert_eq!(lines[0]["compactions"][0]["trigger"], "manual");
}

#[test]
fn show_prints_each_compaction_s_loss_audit_and_its_json_carries_it() {
    let strata = Home::new();
    let user = user_home();
    let user_home = user.path().to_str().unwrap();
    let codex = strata
        .run_with(&["sessions", "show", "019f03e0"], &[("HOME", user_home)])
        .ok();
    assert!(
        codex.contains(
            "  lost at this compaction (summary unreadable: against the kept messages only): 1 command\n    command: ls\n"
        ),
        "{codex}"
    );
    let claude = strata
        .run_with(&["sessions", "show", "0cf3"], &[("HOME", user_home)])
        .ok();
    assert!(
        claude.contains("  nothing lost at this compaction\n"),
        "{claude}"
    );
    let json = strata.run_with(
        &["sessions", "show", "019f03e0", "--json"],
        &[("HOME", user_home)],
    );
    let lines = json.json_lines();
    let loss = &lines[0]["compaction_losses"][0];
    assert_eq!(loss["against_summary"], false);
    assert_eq!(loss["commands"][0], "ls");
}

#[test]
fn show_of_an_id_nothing_has_still_fails_with_strata_s_own_error() {
    let strata = Home::new();
    let user = user_home();
    let run = strata.run_with(
        &["sessions", "show", "zzzz"],
        &[("HOME", user.path().to_str().unwrap())],
    );
    run.fails_with(1, "zzzz");
}

#[test]
fn the_real_two_compaction_rollout_shows_both_cards_with_codex_s_own_figures() {
    let Some(sessions) = strata_testkit::needs_shared(strata_testkit::SESSIONS) else {
        return;
    };
    // Discovery reads only the standard folders, so the file is put there
    // in a temporary home (never into the repository).
    let user = tempfile::tempdir().unwrap();
    let rollout = user.path().join(format!(
        ".codex/sessions/2026/06/26/rollout-2026-06-26T12-20-52-{CODEX_ID}.jsonl"
    ));
    std::fs::create_dir_all(rollout.parent().unwrap()).unwrap();
    std::fs::copy(
        sessions.join("codex/agentv_0.142.2_two-compactions.jsonl"),
        &rollout,
    )
    .unwrap();
    let strata = Home::new();
    let text = strata
        .run_with(
            &["sessions", "show", "019f03e0-321f"],
            &[("HOME", user.path().to_str().unwrap())],
        )
        .ok();
    assert!(
        text.contains("══ compaction (auto) · 88246 → 13290 tokens · 174 → 10 items ══"),
        "{text}"
    );
    assert!(
        text.contains("══ compaction (auto) · 95808 → 13682 tokens · 213 → 13 items ══"),
        "{text}"
    );
    assert!(text.contains("kept: 7 user messages, 2 context items, 1 summary item"));
    assert!(text.contains("kept: 10 user messages, 2 context items, 1 summary item"));
    assert_eq!(text.matches("summary encrypted by the provider").count(), 2);
    assert!(
        text.contains("· 579 items · 180 rounds · 2 compactions ·"),
        "{text}"
    );
}

#[test]
fn import_adds_a_folder_outside_the_standard_ones_and_prints_what_it_found() {
    let strata = Home::new();
    let user = tempfile::tempdir().unwrap();
    let user_home = user.path().to_str().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    // A hostile title (an escape, as JSON writes it): it must not reach
    // the terminal.
    write(
        elsewhere.path(),
        "exported/run.jsonl",
        &claude_session().replace("commit this", "commit \\u001b[2Jthis"),
    );
    let folder = elsewhere.path().to_str().unwrap();
    let run = strata.run_with(
        &["sessions", "import", folder, "--json"],
        &[("HOME", user_home)],
    );
    let lines = run.json_lines();
    let [report] = lines.as_slice() else {
        panic!("one object: {lines:?}")
    };
    assert_eq!(report["kind"], "import_report");
    assert_eq!(report["added_paths"], serde_json::json!([folder]));
    assert_eq!(report["sessions"][0]["source"], "claude_code");
    assert_eq!(
        report["sessions"][0]["id"],
        "0cf3db51-1c73-43bb-8d05-dc02739514a5"
    );

    // Kept in the library: listed with the other tools' sessions from now on.
    let listed = strata
        .run_with(&["sessions", "list", "--all-tools"], &[("HOME", user_home)])
        .ok();
    assert!(listed.contains("[Claude Code]  0cf3db51"), "{listed}");
    assert!(!listed.contains('\u{1b}'), "{listed:?}");

    let text = strata
        .run_with(&["sessions", "import", folder], &[("HOME", user_home)])
        .ok();
    assert!(text.contains("[Claude Code]"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");

    strata
        .run_with(
            &["sessions", "import", "/nothing/here"],
            &[("HOME", user_home)],
        )
        .fails_with(1, "nothing is at /nothing/here");
}
