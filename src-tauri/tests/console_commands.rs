//! The debug console's commands through Tauri's IPC on the mock runtime:
//! argument names, paging, the snake_case shapes the UI reads, and that the
//! session file is left exactly as it was.

// Helpers outside #[test] functions panic on purpose: a broken fixture is a
// failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use strata_protocol::{CommandError, CommandErrorKind, CompactionView, RoundPage};

mod support;

use support::MockApp;

const FORMAT_DOC: &str = include_str!("../../docs/session-format.md");

/// The annotated sample session of docs/session-format.md (its `jsonl` blocks).
fn sample_session() -> (String, String) {
    let mut text = String::new();
    let mut inside = false;
    for line in FORMAT_DOC.lines() {
        match (inside, line) {
            (false, "```jsonl") => inside = true,
            (true, "```") => inside = false,
            (true, line) => {
                text.push_str(line);
                text.push('\n');
            }
            _ => {}
        }
    }
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let id = first["payload"]["session_id"].as_str().unwrap().to_owned();
    (id, text)
}

impl MockApp {
    fn with_sample(&self) -> (String, std::path::PathBuf, String) {
        let (id, text) = sample_session();
        std::fs::create_dir_all(&self.paths.sessions).unwrap();
        let path = self.paths.sessions.join(format!("{id}.jsonl"));
        std::fs::write(&path, &text).unwrap();
        (id, path, text)
    }
}

#[test]
fn compaction_views_returns_each_compaction_with_its_before_and_after() {
    let h = MockApp::new();
    let (id, path, text) = h.with_sample();
    let raw = h
        .call("compaction_views", json!({ "session_id": id }))
        .unwrap();
    assert!(
        raw[0]["summary_model_text"].is_string(),
        "snake_case fields"
    );
    assert!(raw[0]["removed_indices"].is_array());
    let views: Vec<CompactionView> = serde_json::from_value(raw).unwrap();
    assert_eq!(views.len(), 1);
    let view = &views[0];
    assert_eq!(view.summary.metadata.context_tokens, Some(8412));
    assert_eq!((view.before.len(), view.after.len()), (11, 4));
    assert_eq!(view.removed_indices.len(), 8);
    assert_eq!(view.next_context_tokens, Some(2332));
    // Reading is all it does.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn round_requests_pages_through_the_rounds() {
    let h = MockApp::new();
    let (id, path, text) = h.with_sample();
    let all: RoundPage = h.invoke("round_requests", json!({ "session_id": id }));
    assert_eq!((all.total, all.offset, all.rounds.len()), (7, 0, 7));
    let page: RoundPage = h.invoke(
        "round_requests",
        json!({ "session_id": id, "offset": 4, "limit": 2 }),
    );
    assert_eq!((page.total, page.offset), (7, 4));
    assert_eq!(
        page.rounds.iter().map(|r| r.number).collect::<Vec<_>>(),
        vec![5, 6]
    );
    assert_eq!(page.rounds, all.rounds[4..6].to_vec());
    // Round 5 was sent with the compacted history: system, summary, two users.
    assert_eq!(page.rounds[0].request.input.len(), 4);
    let raw = h
        .call(
            "round_requests",
            json!({ "session_id": id, "offset": 0, "limit": 1 }),
        )
        .unwrap();
    assert!(raw["rounds"][0]["input_consistent"].as_bool().unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn console_commands_report_bad_and_missing_sessions() {
    let h = MockApp::new();
    for cmd in [
        "compaction_views",
        "round_requests",
        "compaction_status",
        "preview_compaction",
    ] {
        let error: CommandError =
            serde_json::from_value(h.call(cmd, json!({ "session_id": "nope" })).unwrap_err())
                .unwrap();
        assert_eq!(error.kind, CommandErrorKind::InvalidInput, "{cmd}");
        let missing = json!({ "session_id": "01a22695-3406-726b-b2a7-4de452e6b438" });
        let error: CommandError =
            serde_json::from_value(h.call(cmd, missing).unwrap_err()).unwrap();
        assert_eq!(error.kind, CommandErrorKind::NotFound, "{cmd}");
    }
}

#[test]
fn context_commands_show_status_and_preview_read_only_and_record_a_policy() {
    let h = MockApp::new();
    let (id, path, text) = h.with_sample();
    let status = h
        .call("compaction_status", json!({ "session_id": id }))
        .unwrap();
    assert!(status["threshold"].as_u64().unwrap() > 0, "{status}");
    assert_eq!(status["circuit_open"], false);
    let preview = h
        .call("preview_compaction", json!({ "session_id": id }))
        .unwrap();
    assert_eq!(preview["policy"], status["policy"]);
    assert!(preview["estimated_before"].as_u64().unwrap() > 0);
    assert!(preview["kept"].is_array() && preview["summarized"].is_array());
    // Status and preview only read.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);

    let check = h
        .call("check_threshold", json!({ "threshold": "left:1000" }))
        .unwrap();
    assert_eq!(check["setting"], "left:1000");
    assert!(check["tokens"].as_u64().unwrap() > 0);
    let error = h.fail("check_threshold", json!({ "threshold": "lots" }));
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);

    let off = h
        .call(
            "set_compaction_policy",
            json!({ "session_id": id, "policy": "off" }),
        )
        .unwrap();
    assert_eq!(off["policy"], "off");
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(&text), "appended, never rewritten");
    assert!(
        after[text.len()..].contains(r#""type":"compaction_policy""#),
        "{}",
        &after[text.len()..]
    );
    let again = h
        .call("compaction_status", json!({ "session_id": id }))
        .unwrap();
    assert_eq!(again["policy"], "off");
}
