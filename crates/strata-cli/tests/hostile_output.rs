//! Hostile text never reaches a terminal raw: escape sequences, carriage
//! returns, C1 controls and bidi or invisible characters put in a session
//! (its title, workspace, messages, tool names, arguments and outputs,
//! summaries, errors) or streamed by an endpoint come out of every view
//! spelled out, in colour or not; `--json` output stays JSON, with the same
//! values, and carries none of them raw either.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use strata_protocol::{
    CompactionMetadata, CompactionSummary, CompactionTrigger, ErrorRecord, ItemId, RecordBody,
    ResponseItem, SessionId, TurnId, TurnStarted,
};
use support::server::{Reply, ResponsesServer, sse_call, sse_text};
use support::{Home, Run, has_output, responses_run};

/// An OSC 52 clipboard write, an erase-line and carriage return, a C1 CSI,
/// a right-to-left override and a zero-width space.
const HOSTILE: &str = "\x1b]52;c;cGF5bG9hZA==\x07\x1b[2K\rFAKE\u{9b}8m\u{202e}txt.exe\u{200b}\x08";

/// Why `output` could not go to a terminal as is, if it could not. Styles
/// the CLI adds itself (SGR sequences) are allowed; nothing else is.
fn unsafe_part(output: &str) -> Option<String> {
    let chars: Vec<char> = output.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\x1b' {
            // `ESC [ digits/semicolons m` and nothing else.
            let mut j = i + 1;
            if chars.get(j) != Some(&'[') {
                return Some(format!("a non-CSI escape at {i}"));
            }
            j += 1;
            while chars
                .get(j)
                .is_some_and(|c| c.is_ascii_digit() || *c == ';')
            {
                j += 1;
            }
            if chars.get(j) != Some(&'m') {
                return Some(format!("a non-SGR sequence at {i}"));
            }
            let params: String = chars[i + 2..j].iter().collect();
            if params.split(';').any(|p| p == "8") {
                return Some(format!("concealed text at {i}"));
            }
            i = j + 1;
            continue;
        }
        let bad = match c {
            '\n' | '\t' => false,
            '\r' => chars.get(i + 1) != Some(&'\n'),
            c if c.is_control() => true,
            '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
            _ => false,
        };
        if bad {
            return Some(format!("{c:?} at {i}"));
        }
        i += 1;
    }
    None
}

/// Whether a string value of the JSON lines holds [`HOSTILE`] exactly.
fn carries_hostile(run: &Run) -> bool {
    fn holds(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::String(text) => text.contains(HOSTILE),
            serde_json::Value::Array(items) => items.iter().any(holds),
            serde_json::Value::Object(fields) => fields.values().any(holds),
            _ => false,
        }
    }
    run.json_lines().iter().any(holds)
}

fn assert_safe(what: &str, run: &Run) {
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        if let Some(problem) = unsafe_part(text) {
            panic!("{what} {stream}: {problem} in {text:?}");
        }
    }
}

/// A session with the hostile text in every field a view prints.
fn hostile_session(home: &Home) -> SessionId {
    let workspace = home.workspace.path().join(format!("repo{HOSTILE}"));
    std::fs::create_dir(&workspace).unwrap();
    let mut session = home
        .store()
        .create(
            &workspace,
            &format!("kind{HOSTILE}"),
            &format!("model{HOSTILE}"),
        )
        .unwrap();
    session
        .commit_item(ResponseItem::system(format!("system {HOSTILE}")))
        .unwrap();
    session.set_title(format!("title {HOSTILE}")).unwrap();
    let turn = TurnId::new();
    session
        .append(RecordBody::TurnStarted(TurnStarted { turn_id: turn }))
        .unwrap();
    session
        .commit_item(ResponseItem::user(format!("user {HOSTILE}")))
        .unwrap();
    session
        .commit_item(ResponseItem::function_call(
            format!("call{HOSTILE}"),
            format!("tool{HOSTILE}"),
            json!({"command": HOSTILE}).to_string(),
        ))
        .unwrap();
    session
        .commit_item(ResponseItem::function_call_output(
            format!("call{HOSTILE}"),
            format!("output {HOSTILE}\nsecond line {HOSTILE}"),
        ))
        .unwrap();
    session
        .commit_item(ResponseItem::assistant(format!("assistant {HOSTILE}")))
        .unwrap();
    session
        .commit_compaction(CompactionSummary {
            id: ItemId::new(),
            summary: format!("summary {HOSTILE}"),
            metadata: CompactionMetadata {
                trigger: CompactionTrigger::Manual,
                reason: format!("reason {HOSTILE}"),
                context_tokens: Some(10),
                threshold: Some(5),
                removed: 2,
                kept: 1,
                summarizer_model: format!("summarizer {HOSTILE}"),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: 1,
            },
        })
        .unwrap();
    session
        .append(RecordBody::Error(ErrorRecord {
            turn_id: Some(turn),
            message: format!("error {HOSTILE}"),
            model_error: None,
        }))
        .unwrap();
    session.id()
}

#[test]
fn every_view_of_a_hostile_session_spells_controls_out() {
    let home = Home::new();
    let id = hostile_session(&home).to_string();
    for color in ["always", "never"] {
        for args in [
            vec!["sessions", "show", &id],
            vec!["sessions", "list"],
            vec!["sessions", "search", "txt.exe"],
            vec!["context", &id],
            vec!["compactions", &id],
            vec!["sessions", "export", &id, "--format", "md"],
        ] {
            let mut args = args.clone();
            args.extend(["--color", color]);
            let run = home.run(&args);
            assert_eq!(run.code, 0, "{args:?}: {run:#?}");
            assert_safe(&format!("{args:?}"), &run);
            assert!(
                run.stdout
                    .contains(r"\x1b]52;c;cGF5bG9hZA==\x07\x1b[2K\rFAKE<U+009B>8m<U+202E>"),
                "{args:?} does not show the text spelled out: {}",
                run.stdout
            );
        }
    }
}

#[test]
fn json_views_keep_the_values_and_carry_no_raw_control() {
    let home = Home::new();
    let id = hostile_session(&home).to_string();
    for args in [
        vec!["sessions", "list", "--json"],
        vec!["sessions", "search", "txt.exe", "--json"],
        vec!["context", &id, "--json"],
        vec!["compactions", &id, "--json"],
        vec!["sessions", "export", &id, "--format", "json"],
    ] {
        let run = home.run(&args);
        assert_eq!(run.code, 0, "{args:?}: {run:#?}");
        assert_safe(&format!("{args:?}"), &run);
        assert!(
            carries_hostile(&run),
            "{args:?} lost the text: {}",
            run.stdout
        );
    }
}

#[test]
fn streamed_text_tool_calls_outputs_and_errors_are_spelled_out() {
    let home = Home::new();
    std::fs::write(
        home.workspace.path().join("readme.txt"),
        format!("read me {HOSTILE}\n"),
    )
    .unwrap();
    let server = ResponsesServer::start(|_, body| {
        if has_output(body) {
            return Reply::Sse(sse_text(&format!("streamed {HOSTILE} done"), 300, 4));
        }
        Reply::Sse(sse_call(
            "call_1",
            "read_file",
            &json!({"path": "readme.txt"}),
            200,
            10,
        ))
    });
    for color in ["always", "never"] {
        let run = home.run(&responses_run(
            "read it",
            &server.base_url,
            &["--color", color],
        ));
        assert_eq!(run.code, 0, "{run:#?}");
        assert_safe("strata run", &run);
        assert!(
            run.stdout
                .contains(r"streamed \x1b]52;c;cGF5bG9hZA==\x07\x1b[2K\rFAKE"),
            "{}",
            run.stdout
        );
        assert!(run.stderr.contains(r"read me \x1b]52"), "{}", run.stderr);
    }

    let failing = ResponsesServer::start(|_, _| {
        Reply::Json(
            400,
            json!({"error": {"message": format!("bad request {HOSTILE}"), "type": "invalid_request_error"}}),
        )
    });
    let run = home.run(&responses_run(
        "fail",
        &failing.base_url,
        &["--color", "always"],
    ));
    assert_eq!(run.code, 1, "{run:#?}");
    assert_safe("a failed run", &run);
    assert!(run.stderr.contains("bad request"), "{}", run.stderr);
}

#[test]
fn json_events_of_a_hostile_stream_carry_no_raw_control() {
    let home = Home::new();
    let server =
        ResponsesServer::start(|_, _| Reply::Sse(sse_text(&format!("streamed {HOSTILE}"), 300, 4)));
    let run = home.run(&responses_run("hi", &server.base_url, &["--json"]));
    assert_eq!(run.code, 0, "{run:#?}");
    assert_safe("strata run --json", &run);
    assert!(carries_hostile(&run), "{}", run.stdout);
}

#[test]
fn a_chat_turn_failing_with_a_hostile_error_goes_on_with_it_spelled_out() {
    use std::io::Write;

    let home = Home::new();
    let failing = ResponsesServer::start(|_, _| {
        Reply::Json(
            400,
            json!({"error": {"message": format!("bad request {HOSTILE}"), "type": "invalid_request_error"}}),
        )
    });
    let mut child = home.spawn_piped(&[
        "chat",
        "--provider",
        "openai-responses",
        "--base-url",
        &failing.base_url,
        "--model",
        "gpt-test",
        "--color",
        "always",
    ]);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"hello\n/quit\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let run = Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    };
    assert_eq!(run.code, 0, "{run:#?}");
    assert_safe("strata chat", &run);
    assert!(
        run.stderr.contains(r"bad request \x1b]52"),
        "{}",
        run.stderr
    );
}
