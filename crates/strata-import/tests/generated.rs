//! The readers on small files of each format written by the test writers:
//! the cases the real fixtures do not hold (readable, local and missing
//! Codex summaries, a lone boundary, microcompactions, sidechains, the line
//! cap), and that reading never writes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod writers;

use serde_json::json;
use strata_import::{
    CompactionKind, ImportedSession, ImportedSummary, ItemKind, ReasoningText, Tool, read_from,
    read_from_capped, read_path,
};
use strata_protocol::CompactionTrigger;
use writers::{claude_session, codex_session, codex_user_message, copilot_session, jsonl};

fn read(tool: Tool, bytes: &[u8]) -> ImportedSession {
    read_from(tool, bytes)
}

fn encrypted_replacement() -> Vec<serde_json::Value> {
    vec![
        codex_user_message("fix the bug"),
        json!({"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAA"}),
    ]
}

#[test]
fn codex_mid_turn_compaction_has_its_before_and_after_sizes_and_kept_items() {
    let session = read(
        Tool::Codex,
        &jsonl(&codex_session("", encrypted_replacement())),
    );
    assert_eq!(session.warnings.unreadable_lines, 0);
    assert_eq!(session.id.as_deref(), Some("thread-1"));
    assert_eq!(session.workspace.as_deref(), Some("/work/demo"));
    assert_eq!(session.tool_version.as_deref(), Some("0.150.0"));
    assert_eq!(session.models, ["gpt-test"]);
    assert_eq!(session.title.as_deref(), Some("fix the bug"));
    let kinds: Vec<&str> = session.items.iter().map(|item| kind(&item.kind)).collect();
    // The developer and user response_items are context; the agent_message
    // copies the assistant message.
    assert_eq!(kinds, ["user", "reasoning", "call", "output", "assistant"]);
    assert_eq!(
        session.items[1].kind,
        ItemKind::Reasoning {
            reasoning: ReasoningText::Summary("Look first.".into())
        }
    );
    // Control characters stay in the data.
    let ItemKind::ToolOutput { output, .. } = &session.items[3].kind else {
        panic!()
    };
    assert_eq!(output.text, "src\n\u{1b}[31mred\u{1b}[0m");
    // Two real requests; the zero-usage estimate is not one.
    assert_eq!(session.rounds.len(), 2);
    let [compaction] = session.compactions.as_slice() else {
        panic!("{:?}", session.compactions)
    };
    assert_eq!(compaction.at_item, 4);
    assert_eq!(compaction.trigger, Some(CompactionTrigger::Auto));
    assert_eq!(compaction.summary, ImportedSummary::Encrypted);
    assert_eq!(
        (compaction.tokens_before, compaction.tokens_after),
        (Some(5100), Some(900))
    );
    // developer, user, reasoning, call, output before; the replacement after.
    assert_eq!(
        (compaction.items_before, compaction.items_after),
        (Some(5), Some(2))
    );
    assert_eq!(
        compaction.kept,
        Some(strata_import::KeptItems {
            user_messages: 1,
            context: 0,
            summary: 1,
            other: 0
        })
    );
}

#[test]
fn codex_summary_is_the_message_text_or_the_prefixed_user_message_or_absent() {
    let local = read(
        Tool::Codex,
        &jsonl(&codex_session("The bug is in src.", vec![])),
    );
    assert_eq!(
        local.compactions[0].summary,
        ImportedSummary::Text("The bug is in src.".into())
    );
    let prefixed =
        "Another language model started to solve this problem and produced a summary: src.";
    let other_provider = read(
        Tool::Codex,
        &jsonl(&codex_session(
            "",
            vec![codex_user_message("fix"), codex_user_message(prefixed)],
        )),
    );
    assert_eq!(
        other_provider.compactions[0].summary,
        ImportedSummary::Text(prefixed.into())
    );
    let nothing = read(
        Tool::Codex,
        &jsonl(&codex_session("", vec![codex_user_message("fix")])),
    );
    assert_eq!(nothing.compactions[0].summary, ImportedSummary::Absent);
    assert_eq!(nothing.compactions[0].items_after, Some(1));
}

#[test]
fn codex_compaction_in_a_turn_of_its_own_is_manual_and_a_lone_context_compacted_is_a_bare_boundary()
{
    let t = "2026-06-26T12:00:00.000Z";
    let line = |kind: &str, payload: serde_json::Value| json!({"timestamp": t, "type": kind, "payload": payload});
    let records = vec![
        line("event_msg", json!({"type": "task_started"})),
        line(
            "compacted",
            json!({"message": "", "replacement_history": encrypted_replacement()}),
        ),
        line("event_msg", json!({"type": "context_compacted"})),
        line("event_msg", json!({"type": "task_complete"})),
        line("response_item", codex_user_message("next")),
        line("event_msg", json!({"type": "context_compacted"})),
        line("event_msg", json!({"type": "brand_new_event"})),
        line("brand_new_record", json!({})),
    ];
    let session = read(Tool::Codex, &jsonl(&records));
    let [manual, bare] = session.compactions.as_slice() else {
        panic!("{:?}", session.compactions)
    };
    assert_eq!(manual.trigger, Some(CompactionTrigger::Manual));
    assert_eq!(
        (bare.line, bare.trigger, bare.summary.clone()),
        (6, None, ImportedSummary::Absent)
    );
    // Two kept items, then one more message before the lone boundary.
    assert_eq!(bare.items_before, Some(3));
    let unknown: Vec<(&str, u64)> = session
        .warnings
        .unknown_types
        .iter()
        .map(|(kind, count)| (kind.as_str(), *count))
        .collect();
    assert_eq!(
        unknown,
        [("brand_new_record", 1), ("event_msg/brand_new_event", 1)]
    );
}

#[test]
fn claude_message_split_over_lines_counts_its_usage_once_and_compactions_keep_their_kind() {
    let session = read(Tool::ClaudeCode, &jsonl(&claude_session()));
    assert_eq!(session.warnings.unreadable_lines, 0);
    assert!(session.warnings.unknown_types.is_empty());
    assert_eq!(session.id.as_deref(), Some("claude-1"));
    assert_eq!(session.tool_version.as_deref(), Some("2.1.30"));
    // The leading summary titles a leaf in this file.
    assert_eq!(session.title.as_deref(), Some("Fixing the bug"));
    let kinds: Vec<&str> = session.items.iter().map(|item| kind(&item.kind)).collect();
    assert_eq!(kinds, ["user", "reasoning", "call", "output", "assistant"]);
    assert_eq!(
        session.items[1].kind,
        ItemKind::Reasoning {
            reasoning: ReasoningText::Encrypted
        }
    );
    assert!(session.items[4].sidechain);
    assert_eq!(session.rounds.len(), 2);
    // The second line of msg_1 carries the final output count.
    assert_eq!(session.rounds[0].usage.output_tokens, Some(40));
    assert_eq!(session.rounds[0].usage.input_tokens, Some(113));
    assert_eq!(session.rounds[0].context_tokens, Some(153));
    let [micro, full] = session.compactions.as_slice() else {
        panic!("{:?}", session.compactions)
    };
    assert_eq!(
        micro.kind,
        CompactionKind::Micro {
            tokens_saved: Some(300),
            cleared_tool_ids: vec!["toolu_0".into()]
        }
    );
    assert_eq!(
        (micro.tokens_before, micro.tokens_after),
        (Some(1000), Some(700))
    );
    assert_eq!(full.kind, CompactionKind::Full);
    assert_eq!(full.trigger, Some(CompactionTrigger::Manual));
    assert_eq!(full.at_item, 4);
    assert_eq!(full.tokens_before, session.rounds[0].context_tokens);
    assert_eq!(full.tokens_after, Some(62));
    assert_eq!(
        full.summary,
        ImportedSummary::Text(
            "This session is being continued. Summary: the bug is in src.".into()
        )
    );
    assert_eq!((full.items_before, full.items_after), (Some(4), Some(1)));
}

#[test]
fn copilot_message_yields_reasoning_and_each_tool_request_and_results_carry_their_failure() {
    let session = read(Tool::CopilotCli, &jsonl(&copilot_session()));
    assert_eq!(session.warnings.unreadable_lines, 0);
    assert_eq!(session.id.as_deref(), Some("copilot-1"));
    assert_eq!(session.workspace.as_deref(), Some("/work/demo"));
    let kinds: Vec<&str> = session.items.iter().map(|item| kind(&item.kind)).collect();
    assert_eq!(
        kinds,
        [
            "user",
            "reasoning",
            "call",
            "call",
            "output",
            "output",
            "assistant"
        ]
    );
    let ItemKind::ToolCall { arguments, .. } = &session.items[2].kind else {
        panic!()
    };
    assert_eq!(arguments.text, r#"{"command":"ls"}"#);
    let ItemKind::ToolOutput {
        output, is_error, ..
    } = &session.items[5].kind
    else {
        panic!()
    };
    assert_eq!(
        (output.text.as_str(), *is_error),
        ("no such file", Some(true))
    );
    let output_tokens: Vec<Option<u64>> = session
        .rounds
        .iter()
        .map(|r| r.usage.output_tokens)
        .collect();
    assert_eq!(output_tokens, [Some(70), Some(9)]);
    assert_eq!(session.rounds[0].model.as_deref(), Some("claude-test"));
}

#[test]
fn a_line_over_the_cap_is_skipped_and_counted_and_the_rest_still_read() {
    let mut records = claude_session();
    records.insert(
        2,
        json!({"type": "user", "message": {"role": "user", "content": "x".repeat(5000)}}),
    );
    let session = read_from_capped(Tool::ClaudeCode, jsonl(&records).as_slice(), 4096);
    assert_eq!(session.warnings.too_long_lines, 1);
    assert_eq!(session.warnings.skipped_line_numbers, [3]);
    assert_eq!(
        session.items.len(),
        read(Tool::ClaudeCode, &jsonl(&claude_session()))
            .items
            .len()
    );
}

#[test]
fn a_long_tool_output_is_clipped_with_its_full_length_kept() {
    let big = "é".repeat(40_000);
    let records = vec![
        json!({"timestamp": "2026-06-26T12:00:00Z", "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "c", "output": big}}),
    ];
    let session = read(Tool::Codex, &jsonl(&records));
    let ItemKind::ToolOutput { output, .. } = &session.items[0].kind else {
        panic!()
    };
    assert!(output.is_clipped());
    assert_eq!(output.bytes, 80_000);
    assert!(output.text.len() <= strata_import::TEXT_CAP_BYTES);
}

#[test]
fn reading_a_read_only_file_leaves_its_bytes_and_modification_time_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let bytes = jsonl(&claude_session());
    std::fs::write(&path, &bytes).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&path, permissions).unwrap();
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    let session = read_path(Tool::ClaudeCode, &path).unwrap();
    assert_eq!(session.items.len(), 5);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn a_corrupt_zst_file_keeps_what_came_before_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-x.jsonl.zst");
    let whole = zstd::stream::encode_all(jsonl(&codex_session("", vec![])).as_slice(), 1).unwrap();
    std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
    let session = read_path(Tool::Codex, &path).unwrap();
    assert!(
        session.warnings.read_error.is_some(),
        "{:?}",
        session.warnings
    );
}

#[test]
fn codex_reasoning_content_from_other_providers_is_readable_text_and_the_2025_format_still_reads() {
    let records = vec![
        // The pre-envelope format: a bare first line, state markers, bare items.
        json!({"id": "old-1", "timestamp": "2025-07-01T10:00:00Z", "instructions": ""}),
        json!({"record_type": "state"}),
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello."}]}),
        json!({"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "Plain thoughts."}]}),
    ];
    let session = read(Tool::Codex, &jsonl(&records));
    assert_eq!(
        session.warnings.unreadable_lines, 0,
        "{:?}",
        session.warnings
    );
    assert_eq!(session.id.as_deref(), Some("old-1"));
    let kinds: Vec<&ItemKind> = session.items.iter().map(|item| &item.kind).collect();
    assert_eq!(
        kinds,
        [
            &ItemKind::Assistant {
                text: "Hello.".into()
            },
            &ItemKind::Reasoning {
                reasoning: ReasoningText::Text("Plain thoughts.".into())
            },
        ]
    );
}

fn kind(kind: &ItemKind) -> &'static str {
    match kind {
        ItemKind::User { .. } => "user",
        ItemKind::Assistant { .. } => "assistant",
        ItemKind::Reasoning { .. } => "reasoning",
        ItemKind::ToolCall { .. } => "call",
        ItemKind::ToolOutput { .. } => "output",
    }
}
