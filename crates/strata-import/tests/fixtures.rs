//! Each reader against the real files other tools wrote, read in place from
//! `../shared/fixtures/sessions`. The figures asserted here were counted by
//! hand with jq on the same files (what was counted is beside each assert).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use strata_import::{
    CompactionKind, ImportedSession, ImportedSummary, ItemKind, KeptItems, ReasoningText, Tool,
    read_path,
};
use strata_protocol::CompactionTrigger;

fn fixture(tool_dir: &str, name: &str) -> Option<PathBuf> {
    let sessions = strata_testkit::needs_shared(strata_testkit::SESSIONS)?;
    Some(sessions.join(tool_dir).join(name))
}

fn read(tool: Tool, tool_dir: &str, name: &str) -> Option<ImportedSession> {
    let path = fixture(tool_dir, name)?;
    Some(read_path(tool, &path).unwrap())
}

/// Items by kind: user, assistant, reasoning, tool call, tool output.
fn counts(session: &ImportedSession) -> [usize; 5] {
    let mut counts = [0; 5];
    for item in &session.items {
        let slot = match item.kind {
            ItemKind::User { .. } => 0,
            ItemKind::Assistant { .. } => 1,
            ItemKind::Reasoning { .. } => 2,
            ItemKind::ToolCall { .. } => 3,
            ItemKind::ToolOutput { .. } => 4,
        };
        counts[slot] += 1;
    }
    counts
}

fn assert_clean(session: &ImportedSession, lines: u64) {
    let warnings = &session.warnings;
    assert_eq!(warnings.lines, lines);
    assert_eq!(warnings.unreadable_lines, 0, "{warnings:?}");
    assert_eq!(warnings.too_long_lines, 0);
    assert!(warnings.unknown_types.is_empty(), "{warnings:?}");
    assert_eq!(warnings.read_error, None);
}

#[test]
fn codex_two_compactions_are_encrypted_mid_turn_auto_boundaries_with_their_token_counts() {
    let Some(session) = read(Tool::Codex, "codex", "agentv_0.142.2_two-compactions.jsonl") else {
        return;
    };
    assert_clean(&session, 861);
    assert_eq!(session.source, Tool::Codex);
    assert_eq!(session.tool_version.as_deref(), Some("0.142.2"));
    assert_eq!(
        session.id.as_deref(),
        Some("019f03e0-321f-7eb2-83cc-b54ecd71be23")
    );
    assert_eq!(
        session.workspace.as_deref(),
        Some("/home/entity/projects/EntityProcess/agentv")
    );
    assert_eq!(session.models, ["gpt-5.3-codex-spark"]);
    assert!(
        session
            .title
            .as_deref()
            .is_some_and(|t| t.starts_with("investigate whether this issue is stale"))
    );
    assert_eq!(
        session.started_at.map(|at| at.to_rfc3339()).as_deref(),
        Some("2026-06-26T12:20:52.590+00:00")
    );
    assert_eq!(
        session.updated_at.map(|at| at.to_rfc3339()).as_deref(),
        Some("2026-06-26T13:37:19.929+00:00")
    );
    // user = event_msg user_message (10); assistant = response_item message
    // role assistant (39); reasoning 176; calls = function_call 161 +
    // custom_tool_call 16; outputs likewise.
    assert_eq!(counts(&session), [10, 39, 176, 177, 177]);
    assert!(session.items.iter().all(|item| matches!(
        &item.kind,
        ItemKind::Reasoning { reasoning } if *reasoning == ReasoningText::Encrypted
    ) || !matches!(item.kind, ItemKind::Reasoning { .. })));
    // 183 token_count events: 2 post-compaction estimates (input and output
    // zero) and 1 repeat of the same running total are not model calls.
    assert_eq!(session.rounds.len(), 180);
    assert!(
        session
            .rounds
            .iter()
            .all(|round| round.context_window == Some(121_600))
    );

    let [first, second] = session.compactions.as_slice() else {
        panic!("two compactions: {:?}", session.compactions);
    };
    // `compacted` at lines 272 and 573; 172 and 375 shown items before them.
    assert_eq!((first.line, first.at_item), (272, 172));
    assert_eq!((second.line, second.at_item), (573, 375));
    for compaction in [first, second] {
        assert_eq!(compaction.kind, CompactionKind::Full);
        assert_eq!(compaction.summary, ImportedSummary::Encrypted);
        assert_eq!(compaction.trigger, Some(CompactionTrigger::Auto));
    }
    // The neighbouring token_counts' last_token_usage.total_tokens.
    assert_eq!(
        (first.tokens_before, first.tokens_after),
        (Some(88_246), Some(13_290))
    );
    assert_eq!(
        (second.tokens_before, second.tokens_after),
        (Some(95_808), Some(13_682))
    );
    // 174 response_items before line 272, replacement_history of 10; then
    // 10 + 203 response_items before line 573, replacement_history of 13.
    assert_eq!(
        (first.items_before, first.items_after),
        (Some(174), Some(10))
    );
    assert_eq!(
        (second.items_before, second.items_after),
        (Some(213), Some(13))
    );
    // Kept: the person's messages, the developer message and the AGENTS.md +
    // environment message re-injected, and the encrypted compaction item.
    let kept = |user_messages| KeptItems {
        user_messages,
        context: 2,
        summary: 1,
        other: 0,
    };
    assert_eq!((first.kept, second.kept), (Some(kept(7)), Some(kept(10))));
    // Context before equals the last round before the boundary.
    let last_before = session
        .rounds
        .iter()
        .rfind(|round| round.line < first.line)
        .unwrap();
    assert_eq!(last_before.context_tokens, first.tokens_before);
}

#[test]
fn codex_tool_session_without_compaction_pairs_every_call_with_its_output() {
    let Some(session) = read(
        Tool::Codex,
        "codex",
        "agentv_0.140.0_tools-no-compaction.jsonl",
    ) else {
        return;
    };
    assert_clean(&session, 230);
    assert_eq!(session.tool_version.as_deref(), Some("0.140.0"));
    assert_eq!(session.models, ["gpt-5.5"]);
    assert_eq!(counts(&session), [3, 24, 24, 59, 59]);
    assert!(session.compactions.is_empty());
    assert_eq!(session.rounds.len(), 25);
    let last = session.rounds.last().unwrap();
    assert_eq!(last.context_tokens, Some(39_397));
    assert_eq!(last.context_window, Some(258_400));
    let calls: Vec<&str> = call_ids(&session, true);
    let outputs: Vec<&str> = call_ids(&session, false);
    assert_eq!(calls, outputs);
}

fn call_ids(session: &ImportedSession, calls: bool) -> Vec<&str> {
    session
        .items
        .iter()
        .filter_map(|item| match &item.kind {
            ItemKind::ToolCall { call_id, .. } if calls => Some(call_id.as_str()),
            ItemKind::ToolOutput { call_id, .. } if !calls => Some(call_id.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_zstd_compressed_rollout_reads_the_same_as_the_plain_file() {
    let Some(path) = fixture("codex", "agentv_0.142.2_two-compactions.jsonl") else {
        return;
    };
    let plain = read_path(Tool::Codex, &path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let compressed = dir.path().join("rollout-2026-06-26T12-20-52-x.jsonl.zst");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(
        &compressed,
        zstd::stream::encode_all(bytes.as_slice(), 3).unwrap(),
    )
    .unwrap();
    let read = read_path(Tool::Codex, &compressed).unwrap();
    assert_eq!(read, plain);
}

#[test]
fn claude_manual_compaction_has_its_plain_summary_and_pre_tokens_equal_to_the_last_request() {
    let Some(session) = read(
        Tool::ClaudeCode,
        "claude",
        "entire-cli_2.1.14_manual-compact.jsonl",
    ) else {
        return;
    };
    assert_clean(&session, 219);
    assert_eq!(session.tool_version.as_deref(), Some("2.1.14"));
    assert_eq!(session.models, ["claude-opus-4-5-20251101"]);
    assert_eq!(session.title.as_deref(), Some("commit this"));
    // text 12, thinking 40, tool_use 39, tool_result 39 blocks; 5 typed
    // string prompts (lines 4, 28, 74, 75, 79: not isMeta, not the summary).
    assert_eq!(counts(&session), [5, 12, 40, 39, 39]);
    // 91 assistant lines, 40 distinct message ids: usage counted once each.
    assert_eq!(session.rounds.len(), 40);
    let [compaction] = session.compactions.as_slice() else {
        panic!("{:?}", session.compactions);
    };
    assert_eq!((compaction.line, compaction.at_item), (71, 31));
    assert_eq!(compaction.trigger, Some(CompactionTrigger::Manual));
    assert_eq!(compaction.tokens_before, Some(153_739));
    let ImportedSummary::Text(summary) = &compaction.summary else {
        panic!("{:?}", compaction.summary);
    };
    assert!(summary.starts_with("This session is being continued from a previous conversation"));
    assert_eq!(
        (compaction.items_before, compaction.items_after),
        (Some(31), Some(1))
    );
    // preTokens = input + cache_creation + cache_read + output of the last
    // request before the boundary (8 + 153730 + 0 + 1).
    let before = session
        .rounds
        .iter()
        .rfind(|r| r.line < compaction.line)
        .unwrap();
    assert_eq!(before.context_tokens, compaction.tokens_before);
    assert_eq!(before.usage.cache_write_input_tokens, Some(153_730));
    // The first request after it: 10 fresh + 49376 cache-written input.
    let after = session
        .rounds
        .iter()
        .find(|r| r.line > compaction.line)
        .unwrap();
    assert_eq!(after.usage.cache_write_input_tokens, Some(49_376));
    assert_eq!(compaction.tokens_after, after.usage.input_tokens);
    assert_eq!(compaction.tokens_after, Some(49_386));
}

#[test]
fn claude_auto_compaction_in_a_file_that_starts_mid_chain() {
    let Some(session) = read(
        Tool::ClaudeCode,
        "claude",
        "entire-cli_2.0.76_auto-compact.jsonl",
    ) else {
        return;
    };
    assert_clean(&session, 54);
    assert_eq!(session.tool_version.as_deref(), Some("2.0.76"));
    // The `<synthetic>` message is no model and no round.
    assert_eq!(session.models, ["claude-opus-4-5-20251101"]);
    assert_eq!(session.rounds.len(), 12);
    assert_eq!(counts(&session), [4, 10, 12, 10, 10]);
    // The first prompt is a `/exit` echo: not a title.
    assert_ne!(
        session.title.as_deref(),
        Some("<command-name>/exit</command-name>")
    );
    let [compaction] = session.compactions.as_slice() else {
        panic!("{:?}", session.compactions);
    };
    assert_eq!((compaction.line, compaction.at_item), (31, 24));
    assert_eq!(compaction.trigger, Some(CompactionTrigger::Auto));
    assert_eq!(compaction.tokens_before, Some(155_250));
    assert!(matches!(compaction.summary, ImportedSummary::Text(_)));
    let after = session
        .rounds
        .iter()
        .find(|r| r.line > compaction.line)
        .unwrap();
    assert_eq!(compaction.tokens_after, after.usage.input_tokens);
}

#[test]
fn claude_old_summary_records_title_other_files_so_the_first_prompt_names_the_session() {
    let Some(session) = read(
        Tool::ClaudeCode,
        "claude",
        "claude-code-log_1.0.29_summary-records.jsonl",
    ) else {
        return;
    };
    assert_clean(&session, 57);
    assert_eq!(session.tool_version.as_deref(), Some("1.0.29"));
    // None of the 4 leading summaries' leafUuid is a uuid in this file.
    assert!(
        session
            .title
            .as_deref()
            .is_some_and(|t| t.starts_with("Can you please update the top level index.html"))
    );
    assert_eq!(counts(&session), [1, 12, 0, 20, 20]);
    assert_eq!(session.rounds.len(), 20);
    assert!(session.compactions.is_empty());
}

#[test]
fn copilot_session_has_its_tool_calls_reasoning_and_output_tokens_but_no_compaction() {
    let Some(session) = read(
        Tool::CopilotCli,
        "copilot",
        "agentv_copilot-1.0.64_tools.jsonl",
    ) else {
        return;
    };
    assert_clean(&session, 551);
    assert_eq!(session.tool_version.as_deref(), Some("1.0.64"));
    assert_eq!(
        session.id.as_deref(),
        Some("10fb4666-56f0-4352-90fc-715caf95b418")
    );
    assert_eq!(session.models, ["claude-sonnet-4.6"]);
    // 1 user.message; 22 reasoningText; 9 non-empty contents; 68 tool
    // requests and 68 tool.execution_complete (one failed).
    assert_eq!(counts(&session), [1, 9, 22, 68, 68]);
    let failed = session
        .items
        .iter()
        .filter(|item| {
            matches!(
                item.kind,
                ItemKind::ToolOutput {
                    is_error: Some(true),
                    ..
                }
            )
        })
        .count();
    assert_eq!(failed, 1);
    // 54 assistant.message, each with outputTokens only.
    assert_eq!(session.rounds.len(), 54);
    assert!(
        session
            .rounds
            .iter()
            .all(|r| r.usage.input_tokens.is_none() && r.usage.output_tokens.is_some())
    );
    assert!(session.compactions.is_empty());
    assert_eq!(
        call_ids(&session, true).len(),
        call_ids(&session, false).len()
    );
}

#[test]
fn a_real_rollout_with_a_bom_crlf_line_ends_and_a_torn_last_line_keeps_every_whole_record() {
    let Some(path) = fixture("codex", "agentv_0.142.2_two-compactions.jsonl") else {
        return;
    };
    let clean = read_path(Tool::Codex, &path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut hostile = String::from("\u{feff}");
    hostile.push_str(&text.replace('\n', "\r\n"));
    // Tear the last record in half, as a crash mid-write leaves it.
    let last_start = hostile.trim_end().rfind("\r\n").unwrap() + 2;
    let torn_at = last_start + (hostile.len() - last_start) / 2;
    let torn = strata_import::read_from(Tool::Codex, &hostile.as_bytes()[..torn_at]);
    assert_eq!(torn.warnings.unreadable_lines, 1);
    assert_eq!(torn.warnings.skipped_line_numbers, [861]);
    // Line 861 is the last token_count: one round fewer, every item kept.
    assert_eq!(torn.items, clean.items);
    assert_eq!(torn.compactions, clean.compactions);
    assert_eq!(torn.rounds.len(), clean.rounds.len() - 1);
    assert_eq!(torn.id, clean.id);
}
