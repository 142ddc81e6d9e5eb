//! What each provider puts on the wire for one history holding a system
//! message, a compaction summary, user messages, assistant text, a tool call
//! and its output: captured by a local server and snapshotted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use strata_core::ModelGateway;
use strata_protocol::{
    COMPACTION_SUMMARY_PREFIX, CompactionMetadata, CompactionSummary, CompactionTrigger,
    FunctionCall, FunctionCallOutput, ItemId, Message, ModelRequest, ReasoningItem, ResponseItem,
    Role, ToolChoice,
};
use strata_providers::{
    AnthropicGateway, ChatCompletionsGateway, MaxTokensField, OpenAiResponsesGateway,
};
use support::*;

const KEY: &str = "sk-test-snapshot-key-000000";

fn id(n: u128) -> ItemId {
    ItemId::from_uuid(uuid::Uuid::from_u128(n))
}

fn message(n: u128, role: Role, content: &str) -> ResponseItem {
    ResponseItem::Message(Message {
        id: id(n),
        role,
        content: content.into(),
    })
}

fn history() -> Vec<ResponseItem> {
    vec![
        message(1, Role::System, "You are Strata, a careful coding agent."),
        ResponseItem::CompactionSummary(CompactionSummary {
            id: id(2),
            summary: "The user asked for a CSV parser; src/csv.rs was written and its tests pass."
                .into(),
            metadata: CompactionMetadata {
                trigger: CompactionTrigger::Auto,
                reason: "context reached the threshold".into(),
                context_tokens: Some(9000),
                threshold: Some(8000),
                removed: 12,
                kept: 1,
                summarizer_model: "test-model".into(),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: 900,
            },
        }),
        message(3, Role::User, "Now add quoted fields."),
        message(4, Role::Assistant, "Let me read the parser first."),
        ResponseItem::FunctionCall(FunctionCall {
            id: id(5),
            call_id: "call_read_1".into(),
            name: "read_file".into(),
            arguments: r#"{"path":"src/csv.rs"}"#.into(),
        }),
        ResponseItem::FunctionCallOutput(FunctionCallOutput {
            id: id(6),
            call_id: "call_read_1".into(),
            output: "pub fn parse(line: &str) -> Vec<&str> { line.split(',').collect() }".into(),
        }),
        message(7, Role::User, "Keep it small, please."),
    ]
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "test-model".into(),
        input: history(),
        tools: vec![support::histories::read_file_tool()],
        tool_choice: Some(ToolChoice::Auto),
        max_output_tokens: Some(4096),
        session_id: None,
        cache_anchors: Vec::new(),
    }
}

fn responses(server: &TestServer) -> Box<dyn ModelGateway> {
    Box::new(OpenAiResponsesGateway::new(
        client(fast_options(1)),
        server.endpoint(Some(KEY)),
    ))
}

fn chat(server: &TestServer) -> Box<dyn ModelGateway> {
    Box::new(
        ChatCompletionsGateway::new(client(fast_options(1)), server.endpoint(Some(KEY)))
            .with_max_tokens_field(MaxTokensField::MaxCompletionTokens),
    )
}

fn anthropic(server: &TestServer) -> Box<dyn ModelGateway> {
    Box::new(AnthropicGateway::new(
        client(fast_options(1)),
        server.endpoint(Some(KEY)),
    ))
}

#[tokio::test]
async fn openai_responses_request_shape() {
    let received = sent(responses, request()).await;
    assert_eq!(received.path, "/v1/responses");
    assert_eq!(
        received.header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
    assert_eq!(received.header("content-type"), Some("application/json"));
    insta::assert_json_snapshot!("openai_responses_request", received.json());
}

#[tokio::test]
async fn chat_completions_request_shape() {
    let received = sent(chat, request()).await;
    assert_eq!(received.path, "/v1/chat/completions");
    assert_eq!(
        received.header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
    insta::assert_json_snapshot!("chat_completions_request", received.json());
}

#[tokio::test]
async fn anthropic_messages_request_shape() {
    let received = sent(anthropic, request()).await;
    assert_eq!(received.path, "/v1/messages");
    assert_eq!(received.header("x-api-key"), Some(KEY));
    assert_eq!(received.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(received.header("authorization"), None);
    insta::assert_json_snapshot!("anthropic_messages_request", received.json());
}

fn texts(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    match value {
        Value::String(s) => found.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| found.extend(texts(v))),
        Value::Object(map) => map.values().for_each(|v| found.extend(texts(v))),
        _ => {}
    }
    found
}

#[tokio::test]
async fn every_provider_sends_the_summary_as_user_text_with_the_shared_prefix() {
    let expected = format!(
        "{COMPACTION_SUMMARY_PREFIX}The user asked for a CSV parser; src/csv.rs was written and its tests pass."
    );
    assert!(COMPACTION_SUMMARY_PREFIX.contains("Summary of earlier work"));
    let responses_body = sent(responses, request()).await.json();
    assert_eq!(responses_body["input"][0]["role"], "user");
    assert_eq!(responses_body["input"][0]["content"][0]["text"], expected);
    assert_eq!(
        responses_body["instructions"],
        "You are Strata, a careful coding agent."
    );

    let chat_body = sent(chat, request()).await.json();
    assert_eq!(chat_body["messages"][0]["role"], "system");
    assert_eq!(chat_body["messages"][1]["role"], "user");
    // The summary and the next user message are merged into one user turn.
    assert_eq!(
        chat_body["messages"][1]["content"],
        format!("{expected}\n\nNow add quoted fields.")
    );

    let anthropic_body = sent(anthropic, request()).await.json();
    assert_eq!(
        anthropic_body["system"],
        "You are Strata, a careful coding agent."
    );
    assert_eq!(anthropic_body["messages"][0]["role"], "user");
    assert_eq!(
        anthropic_body["messages"][0]["content"][0]["text"],
        expected
    );
    for body in [&responses_body, &chat_body, &anthropic_body] {
        assert!(!texts(body).iter().any(|t| t.contains(KEY)));
    }
}

#[tokio::test]
async fn tool_choice_is_omitted_when_there_are_no_tools() {
    let mut bare = request();
    bare.tools.clear();
    for make in [responses, chat, anthropic] {
        let body = sent(make, bare.clone()).await.json();
        assert!(body.get("tool_choice").is_none(), "{body}");
        assert!(body.get("tools").is_none(), "{body}");
    }
}

#[tokio::test]
async fn chat_sends_usage_options_only_when_streaming_and_picks_the_max_tokens_field() {
    let body = sent(chat, request()).await.json();
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_completion_tokens"], 4096);
    assert!(body.get("max_tokens").is_none());
    let local = sent(
        |server| {
            Box::new(ChatCompletionsGateway::new(
                client(fast_options(1)),
                server.endpoint(None),
            ))
        },
        request(),
    )
    .await;
    // A compatible server (not api.openai.com) gets `max_tokens`, and no
    // Authorization header without a key.
    assert_eq!(local.json()["max_tokens"], 4096);
    assert_eq!(local.header("authorization"), None);
}

#[tokio::test]
async fn developer_messages_become_system_messages_for_chat() {
    let mut req = request();
    req.input
        .push(message(8, Role::Developer, "Prefer small diffs."));
    let body = sent(chat, req).await.json();
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last,
        json!({"role": "system", "content": "Prefer small diffs."})
    );
}

fn reasoning(n: u128, provider: &str, payload: Value) -> ResponseItem {
    ResponseItem::Reasoning(ReasoningItem {
        id: id(n),
        provider: provider.into(),
        payload,
    })
}

#[tokio::test]
async fn reasoning_items_go_back_only_to_the_provider_that_made_them() {
    let openai_item =
        json!({"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAA", "summary": []});
    let thinking = json!({"type": "thinking", "thinking": "hmm", "signature": "sig"});
    let mut req = request();
    req.input
        .insert(3, reasoning(10, "openai-responses", openai_item.clone()));
    req.input
        .insert(4, reasoning(11, "anthropic", thinking.clone()));

    let body = sent(responses, req.clone()).await.json();
    let input = body["input"].as_array().unwrap();
    assert!(input.contains(&openai_item));
    assert!(!input.iter().any(|i| i["type"] == "thinking"));

    let body = sent(anthropic, req.clone()).await.json();
    // Thinking opens the assistant turn, followed by its text and tool_use.
    assert_eq!(body["messages"][1]["role"], "assistant");
    assert_eq!(body["messages"][1]["content"][0], thinking);
    assert_eq!(body["messages"][1]["content"][1]["type"], "text");
    assert_eq!(body["messages"][1]["content"][2]["type"], "tool_use");

    let body = sent(chat, req).await.json();
    assert!(!body.to_string().contains("rs_1"));
    assert!(!body.to_string().contains("\"thinking\""));
}

#[tokio::test]
async fn anthropic_puts_tool_results_before_text_in_a_merged_user_turn() {
    let body = sent(anthropic, request()).await.json();
    let messages = body["messages"].as_array().unwrap();
    let roles: Vec<_> = messages.iter().map(|m| m["role"].clone()).collect();
    assert_eq!(roles, vec!["user", "assistant", "user"]);
    let last = &messages[2]["content"];
    assert_eq!(last[0]["type"], "tool_result");
    assert_eq!(last[0]["tool_use_id"], "call_read_1");
    assert_eq!(
        last[1],
        json!({"type": "text", "text": "Keep it small, please."})
    );
}
