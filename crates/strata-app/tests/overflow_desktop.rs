//! The desktop's path through an overflow: a turn sent through `App` (as
//! the desktop's `send_message` is) whose round a local Chat Completions
//! server rejects with 400 `context_length_exceeded` recovers under the
//! default policy, and the console gets the compaction (trigger
//! `context_overflow`) from the live events and from the session's views.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use strata_app::App;
use strata_core::StrataPaths;
use strata_protocol::{AgentEvent, CompactionTrigger, DebugEvent, GetCompactionViews, TurnOutcome};

mod support;
use support::{Collect, create, read_json_body, runtime, send};

const SUMMARY: &str = "SUMMARY: the user counted the widgets; there are seven.";

/// A Chat Completions server: the `overflow_at`th streamed request (from 0)
/// is refused as too long, every other one answers "Noted."; a request
/// that is not streamed (the summary) gets [`SUMMARY`].
fn chat_server(overflow_at: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let streamed = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            let request = read_json_body(&mut socket);
            let (status, kind, body) = if request["stream"] == true {
                if streamed.fetch_add(1, Ordering::SeqCst) == overflow_at {
                    let error = json!({"error": {
                        "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
                        "type": "invalid_request_error",
                        "param": "messages",
                        "code": "context_length_exceeded"
                    }});
                    (400, "application/json", error.to_string())
                } else {
                    (200, "text/event-stream", noted_stream())
                }
            } else {
                let completion = json!({
                    "id": "chatcmpl-1", "object": "chat.completion", "model": "qwen3-coder",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": SUMMARY}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320}
                });
                (200, "application/json", completion.to_string())
            };
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = socket.write_all(head.as_bytes());
            let _ = socket.write_all(body.as_bytes());
        }
    });
    base_url
}

fn noted_stream() -> String {
    let chunk = |v: Value| format!("data: {v}\n\n");
    [
        chunk(json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Noted."}, "finish_reason": null}]})),
        chunk(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
        chunk(json!({"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 2, "total_tokens": 42}})),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat()
}

#[test]
fn a_desktop_turn_whose_round_overflows_compacts_and_completes_under_the_default_policy() {
    let base_url = chat_server(1);
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    std::fs::create_dir_all(&paths.config).unwrap();
    std::fs::write(
        paths.config_file(),
        format!(
            "default_profile = \"local\"\n[profiles.local]\nkind = \"openai-chat\"\n\
             model = \"qwen3-coder\"\nbase_url = \"{base_url}\"\n"
        ),
    )
    .unwrap();
    let rt = runtime();
    rt.block_on(async {
        let app = Arc::new(App::new(paths, |_| None));
        let id = create(&app, workspace.path()).await;
        let first = send(&app, id, "Count the widgets", Collect::default()).await;
        assert_eq!(first.outcome, TurnOutcome::Completed);

        let events = Collect::default();
        let report = send(&app, id, "go on", events.clone()).await;

        assert_eq!(report.outcome, TurnOutcome::Completed, "{report:?}");
        let live: Vec<CompactionTrigger> = events
            .0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|envelope| match &envelope.event {
                AgentEvent::Debug(DebugEvent::HistoryCompacted { summary, .. }) => {
                    Some(summary.metadata.trigger)
                }
                _ => None,
            })
            .collect();
        assert_eq!(live, [CompactionTrigger::ContextOverflow]);
        let views = app
            .compaction_views(GetCompactionViews { session_id: id })
            .await
            .unwrap();
        let triggers: Vec<CompactionTrigger> = views
            .iter()
            .map(|view| view.summary.metadata.trigger)
            .collect();
        assert_eq!(triggers, [CompactionTrigger::ContextOverflow]);
    });
}
