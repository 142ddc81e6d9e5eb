use strata_protocol::{ItemId, ReasoningItem, Role, TokenUsage};

use super::test_support::{summary, summary_item};
use super::*;

fn usage(context_tokens: u64) -> TokenUsage {
    TokenUsage {
        input_tokens: Some(context_tokens - 100),
        output_tokens: Some(100),
        ..TokenUsage::default()
    }
}

fn working_history() -> Vec<ResponseItem> {
    vec![
        ResponseItem::system("You are Strata."),
        ResponseItem::user("Fix the parser."),
        ResponseItem::function_call("c1", "read_file", r#"{"path":"src/parser.rs"}"#),
        ResponseItem::function_call_output("c1", "fn parse() {}"),
        ResponseItem::assistant("The parser is empty."),
    ]
}

#[test]
fn decide_compaction_skips_when_usage_is_absent() {
    let decision = decide_compaction(None, 8000, &working_history());
    assert_eq!(decision, CompactionDecision::Skip(SkipReason::NoUsage));
    let only_total = TokenUsage {
        total_tokens: Some(50_000),
        ..TokenUsage::default()
    };
    let decision = decide_compaction(Some(&only_total), 8000, &working_history());
    assert_eq!(decision, CompactionDecision::Skip(SkipReason::NoUsage));
}

#[test]
fn decide_compaction_skips_below_threshold() {
    let decision = decide_compaction(Some(&usage(7999)), 8000, &working_history());
    assert_eq!(
        decision,
        CompactionDecision::Skip(SkipReason::BelowThreshold {
            context_tokens: 7999,
            threshold: 8000
        })
    );
}

#[test]
fn decide_compaction_skips_when_history_is_too_short() {
    let history = &working_history()[..3];
    let decision = decide_compaction(Some(&usage(9000)), 8000, history);
    assert_eq!(
        decision,
        CompactionDecision::Skip(SkipReason::HistoryTooShort { items: 3 })
    );
}

#[test]
fn decide_compaction_skips_when_nothing_new_since_last_summary() {
    let history = vec![
        ResponseItem::system("You are Strata."),
        summary_item("Earlier: the user asked for a parser."),
        ResponseItem::user("Fix the parser."),
        ResponseItem::user("And add tests."),
    ];
    let decision = decide_compaction(Some(&usage(9000)), 8000, &history);
    assert_eq!(
        decision,
        CompactionDecision::Skip(SkipReason::NothingNewSinceLastSummary)
    );
}

#[test]
fn decide_compaction_triggers_with_the_exact_reason_text() {
    let decision = decide_compaction(Some(&usage(8000)), 8000, &working_history());
    assert_eq!(
        decision,
        CompactionDecision::Compact {
            context_tokens: 8000,
            threshold: 8000,
            reason: "Reported token usage 8000 reached the compaction threshold 8000".into(),
        }
    );
}

#[test]
fn the_summarizer_reads_each_providers_thinking_and_never_its_sealed_payloads() {
    let reasoning = |provider: &str, payload: serde_json::Value| {
        ResponseItem::Reasoning(ReasoningItem {
            id: ItemId::new(),
            provider: provider.into(),
            payload,
        })
    };
    let history = vec![
        ResponseItem::user("Fix the parser."),
        reasoning(
            "anthropic",
            serde_json::json!({"type": "thinking", "thinking": "The lexer drops tabs.", "signature": "SIG-SECRET"}),
        ),
        reasoning(
            "anthropic",
            serde_json::json!({"type": "redacted_thinking", "data": "REDACTED-BLOB"}),
        ),
        reasoning(
            "openai-responses",
            serde_json::json!({"type": "reasoning", "summary": [], "encrypted_content": "ENC-BLOB"}),
        ),
    ];
    let text = serialize_history_for_summary_prompt(&history);
    assert!(
        text.contains("[2] reasoning (anthropic):\nThe lexer drops tabs."),
        "{text}"
    );
    assert_eq!(
        text.matches("(opaque reasoning, not shown)").count(),
        2,
        "{text}"
    );
    for sealed in ["SIG-SECRET", "REDACTED-BLOB", "ENC-BLOB"] {
        assert!(!text.contains(sealed), "{sealed} leaked: {text}");
    }
}

#[test]
fn serialize_renders_every_item_kind() {
    let history = vec![
        ResponseItem::system("SYSTEM TEXT"),
        ResponseItem::message(Role::Developer, "DEVELOPER TEXT"),
        summary_item("EARLIER SUMMARY"),
        ResponseItem::user("USER TEXT"),
        ResponseItem::Reasoning(ReasoningItem {
            id: ItemId::new(),
            provider: "openai-responses".into(),
            payload: serde_json::json!({"type": "reasoning", "summary": [{"text": "THINKING"}]}),
        }),
        ResponseItem::function_call("call_7", "read_file", r#"{"path":"ARGS.rs"}"#),
        ResponseItem::function_call_output("call_7", "OUTPUT TEXT"),
        ResponseItem::assistant("ASSISTANT TEXT"),
    ];
    let text = serialize_history_for_summary_prompt(&history);
    let expected_in_order = [
        "[1] system:\nSYSTEM TEXT",
        "[2] developer:\nDEVELOPER TEXT",
        "[3] summary of earlier work:\nEARLIER SUMMARY",
        "[4] user:\nUSER TEXT",
        "[5] reasoning (openai-responses):\nTHINKING",
        "[6] function_call read_file (call_id call_7):\n{\"path\":\"ARGS.rs\"}",
        "[7] function_call_output (call_id call_7):\nOUTPUT TEXT",
        "[8] assistant:\nASSISTANT TEXT",
    ];
    let mut from = 0;
    for expected in expected_in_order {
        let at = text[from..]
            .find(expected)
            .unwrap_or_else(|| panic!("missing {expected:?}"));
        from += at + expected.len();
    }
}

#[test]
fn summary_request_carries_no_tools() {
    let request = build_compaction_summary_request(&working_history(), None, "gpt-5.4");
    assert!(request.tools.is_empty());
    assert_eq!(request.tool_choice, None);
    let wire = serde_json::to_value(&request).unwrap();
    assert!(wire.get("tool_choice").is_none());
    assert_eq!(request.model, "gpt-5.4");
    assert_eq!(request.input.len(), 2);
    assert!(request.input[0].is_message_with_role(Role::System));
    let ResponseItem::Message(prompt) = &request.input[1] else {
        panic!("expected a message")
    };
    assert!(
        prompt
            .content
            .contains("function_call read_file (call_id c1)")
    );
    assert!(!prompt.content.contains("Focus the summary on"));
}

#[test]
fn summary_request_carries_the_persons_focus() {
    let request =
        build_compaction_summary_request(&working_history(), Some(" the failing test "), "m");
    let ResponseItem::Message(prompt) = &request.input[1] else {
        panic!("expected a message")
    };
    assert!(
        prompt
            .content
            .ends_with("Focus the summary on: the failing test\n")
    );
}

#[test]
fn apply_keeps_the_leading_system_message_and_the_summary() {
    let history = working_history();
    let new_summary = summary("The parser was empty.");
    let compacted = apply_compaction(&history, new_summary.clone());
    assert_eq!(
        compacted,
        vec![
            history[0].clone(),
            ResponseItem::CompactionSummary(new_summary),
            history[1].clone()
        ]
    );
    let plan = CompactionPlan::for_history(&history);
    assert_eq!((plan.removed(), plan.kept()), (3, 2));
}

#[test]
fn apply_keeps_leading_developer_messages_and_drops_earlier_summaries() {
    let history = vec![
        ResponseItem::system("sys"),
        ResponseItem::message(Role::Developer, "AGENTS.md"),
        summary_item("old"),
        ResponseItem::user("u1"),
        ResponseItem::assistant("a1"),
        ResponseItem::message(Role::Developer, "late note"),
    ];
    let compacted = apply_compaction(&history, summary("new"));
    let summaries: Vec<&str> = compacted
        .iter()
        .filter_map(|item| match item {
            ResponseItem::CompactionSummary(s) => Some(s.summary.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(summaries, vec!["new"]);
    assert_eq!(compacted.len(), 4);
    assert_eq!(&compacted[..2], &history[..2]);
    assert_eq!(compacted[3], history[3]);
}

#[test]
fn apply_never_leaves_an_orphan_function_call() {
    let mut history = working_history();
    history.push(ResponseItem::function_call("c2", "list_directory", "{}"));
    history.push(ResponseItem::user("Stop."));
    let compacted = apply_compaction(&history, summary("s"));
    assert!(compacted.iter().all(|item| item.call_id().is_none()));
}

#[test]
fn apply_always_keeps_the_newest_user_message_even_if_it_alone_exceeds_the_budget() {
    let huge = "é".repeat(USER_MESSAGE_BUDGET_CHARS + 1);
    let history = vec![
        ResponseItem::system("sys"),
        ResponseItem::user("older"),
        ResponseItem::assistant("a"),
        ResponseItem::user(huge.clone()),
    ];
    let compacted = apply_compaction(&history, summary("s"));
    assert_eq!(compacted.len(), 3);
    assert_eq!(compacted[2], history[3]);
}

#[test]
fn apply_drops_older_user_messages_once_the_budget_is_exceeded() {
    // Budget counts Unicode scalar values, not bytes: 'ß' is two bytes.
    let third = USER_MESSAGE_BUDGET_CHARS / 3;
    let history = vec![
        ResponseItem::user("a".repeat(third)),
        ResponseItem::user("b".repeat(third)),
        ResponseItem::assistant("reply"),
        ResponseItem::user("ß".repeat(third)),
        ResponseItem::user("d".repeat(third)),
    ];
    let compacted = apply_compaction(&history, summary("s"));
    assert_eq!(compacted.len(), 4);
    assert!(matches!(compacted[0], ResponseItem::CompactionSummary(_)));
    assert_eq!(
        &compacted[1..],
        &[history[1].clone(), history[3].clone(), history[4].clone()]
    );
    let plan = CompactionPlan::for_history(&history);
    assert_eq!((plan.removed(), plan.kept()), (2, 3));
}

#[test]
fn apply_stops_at_the_first_user_message_that_does_not_fit() {
    let history = vec![
        ResponseItem::user("short"),
        ResponseItem::user("x".repeat(USER_MESSAGE_BUDGET_CHARS)),
        ResponseItem::user("newest"),
    ];
    let compacted = apply_compaction(&history, summary("s"));
    assert_eq!(compacted.len(), 2);
    assert_eq!(compacted[1], history[2]);
}

#[test]
fn apply_works_with_no_leading_system_message() {
    let history = working_history()[1..].to_vec();
    let new_summary = summary("s");
    let compacted = apply_compaction(&history, new_summary.clone());
    assert_eq!(
        compacted,
        vec![
            ResponseItem::CompactionSummary(new_summary),
            history[0].clone()
        ]
    );
}

#[test]
fn apply_of_an_empty_history_is_just_the_summary() {
    let new_summary = summary("s");
    assert_eq!(
        apply_compaction(&[], new_summary.clone()),
        vec![ResponseItem::CompactionSummary(new_summary)]
    );
}
