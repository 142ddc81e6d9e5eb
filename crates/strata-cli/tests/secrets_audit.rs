//! The secrets audit: a known fake API key, used for real against a local
//! server, is made to show up everywhere a session can carry it (a file the
//! model reads, a shell command that prints it, an endpoint error quoting
//! it); then it must be in no file under `STRATA_HOME`, no export or view,
//! and no output of the binary. And a redirect to another origin never
//! carries it (it is not followed), whichever provider sends it. What is
//! stored is owner-only (0600 files in 0700 folders).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

use serde_json::json;
use support::server::{Reply, ResponsesServer, sse_call, sse_text};
use support::{Home, Run, announced_id, has_output, last_user, output_count, responses_run};

const KEY: &str = "sk-test-AUDIT-5f0c1e9a7b3d42c8a6e1f7d09b2c4e6a";

/// What the first turn's model does: read the file holding the key, print
/// it through the shell, then answer.
fn script(body: &serde_json::Value) -> Reply {
    match (last_user(body).as_str(), output_count(body)) {
        ("audit the notes", 0) => Reply::Sse(sse_call(
            "call_read",
            "read_file",
            &json!({"path": "notes.txt"}),
            300,
            10,
        )),
        ("audit the notes", 1) => Reply::Sse(sse_call(
            "call_shell",
            "run_shell",
            &json!({"command": "cat notes.txt; printf 'env: %s\\n' \"$OPENAI_API_KEY\""}),
            400,
            10,
        )),
        ("audit the notes", _) => Reply::Sse(sse_text("Audited.", 500, 3)),
        // An endpoint that quotes the key back in its error body.
        ("fail please", _) => Reply::Json(
            401,
            json!({"error": {
                "message": format!("Incorrect API key provided: {KEY}. You can find your API key at https://example.invalid."),
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }}),
        ),
        _ => Reply::Sse(sse_text("Noted.", 100, 2)),
    }
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push(path);
        }
    }
    found
}

fn assert_no_key(what: &str, text: &str) {
    assert!(!text.contains(KEY), "the key leaked into {what}: {text}");
    // Nor a recognisable piece of it (a cut that kept half).
    assert!(
        !text.contains(&KEY[..24]),
        "part of the key leaked into {what}: {text}"
    );
}

fn run_with_key(home: &Home, args: &[&str]) -> Run {
    home.run_with(args, &[("OPENAI_API_KEY", KEY)])
}

#[test]
fn a_known_key_leaks_into_no_file_export_view_or_output() {
    let home = Home::new();
    std::fs::write(
        home.workspace.path().join("notes.txt"),
        format!("deploy notes\nOPENAI_API_KEY={KEY}\n"),
    )
    .unwrap();
    let server = ResponsesServer::start(|_, body| script(body));

    let mut runs = Vec::new();
    let first = run_with_key(
        &home,
        &responses_run("audit the notes", &server.base_url, &["--approval", "auto"]),
    );
    assert_eq!(first.code, 0, "{first:#?}");
    let id = announced_id(&first.stderr).to_string();
    assert!(first.stderr.contains("✓ run_shell"), "{}", first.stderr);
    runs.push(first);

    let failed = run_with_key(
        &home,
        &[
            "resume",
            &id,
            "-p",
            "fail please",
            "--base-url",
            &server.base_url,
        ],
    );
    assert_eq!(failed.code, 1, "{failed:#?}");
    assert!(
        failed.stderr.contains("401") || failed.stderr.contains("API key"),
        "{failed:#?}"
    );
    runs.push(failed);

    // The key was really used: the configured origin received it...
    let sent = server.heads();
    assert!(
        sent.iter()
            .any(|head| head.contains(&format!("Bearer {KEY}"))),
        "{sent:#?}"
    );
    // ...and the tool outputs the model got were redacted.
    for body in server.requests() {
        assert_no_key("a request body to the endpoint", &body.to_string());
    }
    assert!(
        server
            .requests()
            .iter()
            .any(|body| has_output(body) && body.to_string().contains("[redacted]")),
        "the model saw no redacted output"
    );

    for args in [
        vec!["sessions", "export", &id, "--format", "md"],
        vec!["sessions", "export", &id, "--format", "json"],
        vec!["sessions", "show", &id],
        vec!["sessions", "list"],
        vec!["sessions", "list", "--json"],
        vec!["context", &id],
        vec!["context", &id, "--json"],
        vec!["compactions", &id],
    ] {
        let view = home.run(&args);
        assert_eq!(view.code, 0, "{args:?}: {view:#?}");
        runs.push(view);
    }
    for run in &runs {
        assert_no_key("standard output", &run.stdout);
        assert_no_key("standard error", &run.stderr);
    }

    let stored = files(home.path());
    assert!(
        stored
            .iter()
            .any(|path| path.extension().is_some_and(|e| e == "jsonl")),
        "{stored:?}"
    );
    for path in stored {
        // Owner-only, like the folders holding it.
        #[cfg(unix)]
        {
            let mode = strata_core::private::mode(&path).unwrap();
            assert_eq!(mode, 0o600, "{path:?}");
            let folder = strata_core::private::mode(path.parent().unwrap()).unwrap();
            assert_eq!(folder, 0o700, "{path:?}");
        }
        let bytes = std::fs::read(&path).unwrap();
        assert_no_key(
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        );
    }
}

#[test]
fn a_redirect_to_another_origin_carries_no_key_for_any_provider() {
    let home = Home::new();
    let other = ResponsesServer::start(|_, _| Reply::Json(400, json!({"error": "elsewhere"})));
    for (provider, env, path) in [
        ("openai-responses", "OPENAI_API_KEY", "responses"),
        ("openai-chat", "OPENAI_API_KEY", "chat/completions"),
        ("anthropic", "ANTHROPIC_API_KEY", "messages"),
    ] {
        let location = format!("{}/{path}", other.base_url);
        let redirecting = ResponsesServer::start(move |_, _| Reply::Redirect(location.clone()));
        let run = home.run_with(
            &[
                "run",
                "-p",
                "hello",
                "--provider",
                provider,
                "--base-url",
                &redirecting.base_url,
                "--model",
                "m-test",
            ],
            &[(env, KEY)],
        );
        assert_no_key("standard output", &run.stdout);
        assert_no_key("standard error", &run.stderr);
        assert_eq!(run.code, 1, "{provider}: {run:#?}");
        assert!(run.stderr.contains("HTTP 307"), "{provider}: {run:#?}");
        let first = redirecting.heads();
        assert!(
            first.iter().any(|head| head.contains(KEY)),
            "{provider}: the configured origin never got the key: {first:#?}"
        );
        for head in other.heads() {
            assert_no_key(&format!("{provider}'s request to another origin"), &head);
        }
    }
}
