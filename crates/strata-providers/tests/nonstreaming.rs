//! `create_response` against the recorded non-streaming bodies, served by a
//! local server: items, stop reason and normalised usage.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::Value;
use strata_core::ModelGateway;
use strata_protocol::{ModelRequest, ModelResponse, StopReason, TokenUsage};
use strata_providers::{AnthropicGateway, ChatCompletionsGateway, OpenAiResponsesGateway};
use support::*;

fn request() -> ModelRequest {
    ModelRequest {
        model: "requested-model".into(),
        max_output_tokens: Some(1000),
        ..simple_request("sum up", "hello")
    }
}

/// Serves the recorded body at `path` to the gateway `make` builds and
/// returns the parsed response and the JSON body the gateway sent.
async fn create<G: ModelGateway>(
    wire: &Wire,
    path: &str,
    make: impl FnOnce(&TestServer) -> G,
) -> (ModelResponse, Value) {
    let server = TestServer::start(vec![Reply::Full {
        status: 200,
        headers: vec![],
        body: wire.read(path),
    }])
    .await;
    let response = make(&server).create_response(request()).await.unwrap();
    (response, server.received()[0].json())
}

#[tokio::test]
async fn responses_non_streaming_body_parses_with_cached_and_reasoning_tokens() {
    let Some(wire) = wire() else { return };
    let (response, sent) = create(
        &wire,
        "openai-responses/nonstream_gpt-5.3-codex_cached-tokens.json",
        |server| OpenAiResponsesGateway::new(client(fast_options(1)), server.endpoint(Some("k"))),
    )
    .await;
    assert_eq!(response.model, "gpt-5.3-codex");
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(
        response.usage,
        Some(TokenUsage {
            input_tokens: Some(7243),
            cached_input_tokens: Some(3072),
            cache_write_input_tokens: None,
            cache_write_5m_input_tokens: None,
            cache_write_1h_input_tokens: None,
            output_tokens: Some(423),
            reasoning_output_tokens: Some(58),
            total_tokens: Some(7666),
        })
    );
    assert_eq!(
        response.usage.as_ref().unwrap().context_tokens(),
        Some(7666)
    );
    // Two assistant messages (commentary, then the final answer).
    assert_eq!(response.items.len(), 2);
    let text = response.text();
    assert!(text.starts_with("I\u{2019}ll quickly check reliable, up-to-date sources"));
    assert!(text.ends_with("with only same-day / last-48-hours items."));
    assert_eq!(sent["stream"], false);
    assert_eq!(sent["instructions"], "sum up");
}

#[tokio::test]
async fn chat_non_streaming_body_parses_with_usage() {
    let Some(wire) = wire() else { return };
    let (response, sent) = create(
        &wire,
        "chat-completions/nonstream_openai-gpt-4.1-nano_text.json",
        |server| ChatCompletionsGateway::new(client(fast_options(1)), server.endpoint(None)),
    )
    .await;
    assert_eq!(response.model, "gpt-4.1-nano-2025-04-14");
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(
        response.usage,
        Some(TokenUsage {
            input_tokens: Some(16),
            cached_input_tokens: Some(0),
            cache_write_input_tokens: None,
            cache_write_5m_input_tokens: None,
            cache_write_1h_input_tokens: None,
            output_tokens: Some(363),
            reasoning_output_tokens: Some(0),
            total_tokens: Some(379),
        })
    );
    let text = response.text();
    assert_eq!(text.chars().count(), 1842);
    assert!(text.starts_with("**Holiday Name:** Galaxy Day"));
    assert!(text.ends_with("inspiring individuals to look up and dream beyond our world."));
    assert_eq!(sent["stream"], false);
    assert!(sent.get("stream_options").is_none());
}

#[tokio::test]
async fn anthropic_non_streaming_body_parses_with_normalised_usage() {
    let Some(wire) = wire() else { return };
    let (response, sent) = create(
        &wire,
        "anthropic/nonstream_claude-sonnet-4-5_text.json",
        |server| AnthropicGateway::new(client(fast_options(1)), server.endpoint(Some("k"))),
    )
    .await;
    assert_eq!(response.model, "claude-sonnet-4-5-20250929");
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(
        response.usage,
        Some(TokenUsage {
            input_tokens: Some(12),
            cached_input_tokens: Some(0),
            cache_write_input_tokens: Some(0),
            cache_write_5m_input_tokens: Some(0),
            cache_write_1h_input_tokens: Some(0),
            output_tokens: Some(29),
            reasoning_output_tokens: None,
            total_tokens: None,
        })
    );
    assert_eq!(
        response.text(),
        "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?"
    );
    assert_eq!(sent["stream"], false);
    assert_eq!(sent["max_tokens"], 1000);
    assert_eq!(sent["system"], "sum up");
}
