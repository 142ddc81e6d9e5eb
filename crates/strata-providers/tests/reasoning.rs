//! Reasoning on the wire, over real HTTP to local servers: each provider's
//! form of the setting (snapshotted), Anthropic's thinking budget fitted
//! into `max_tokens`, and a multi-round tool turn with thinking on through
//! a server that enforces the thinking rules as the API does.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use strata_core::ModelGateway;
use strata_protocol::{
    FunctionCallOutput, ItemId, ModelError, ModelEvent, ModelRequest, ReasoningEffort,
    ResponseItem, ToolChoice,
};
use strata_providers::{AnthropicGateway, ChatCompletionsGateway, OpenAiResponsesGateway};
use support::histories::*;
use support::thinking_rule::thinking_rule;
use support::*;

const SONNET: &str = "claude-sonnet-4-5";
/// A model that thinks adaptively, at an effort, rather than to a budget.
const OPUS_46: &str = "claude-opus-4-6";

fn anthropic(server: &TestServer) -> Box<dyn ModelGateway> {
    Box::new(
        AnthropicGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
            .with_default_max_tokens(64_000),
    )
}

fn thinking_request(model: &str, effort: ReasoningEffort) -> ModelRequest {
    let mut request = round_request(model, 1, true);
    request.reasoning = Some(effort);
    request
}

/// A short session's request (as snapshotted) asking for `effort`.
fn short_thinking(model: &str, effort: ReasoningEffort) -> ModelRequest {
    let mut request = short_request(model);
    request.reasoning = Some(effort);
    request
}

#[tokio::test]
async fn responses_requests_carry_the_effort_with_a_summary() {
    let body = sent(
        |server| {
            Box::new(OpenAiResponsesGateway::new(
                client(fast_options(1)),
                server.endpoint(Some("k")),
            ))
        },
        thinking_request("gpt-5", ReasoningEffort::High),
    )
    .await
    .json();
    assert_eq!(
        body["reasoning"],
        json!({"effort": "high", "summary": "auto"})
    );
    insta::assert_json_snapshot!(
        "responses_reasoning_high",
        sent(
            |server| {
                Box::new(OpenAiResponsesGateway::new(
                    client(fast_options(1)),
                    server.endpoint(Some("k")),
                ))
            },
            short_thinking("gpt-5", ReasoningEffort::High),
        )
        .await
        .json()
    );
    // Off is the model's least effort; a model that does not reason gets
    // no field.
    for (model, effort, expected) in [
        (
            "gpt-5",
            ReasoningEffort::Off,
            json!({"effort": "minimal", "summary": "auto"}),
        ),
        (
            "gpt-5.4",
            ReasoningEffort::Max,
            json!({"effort": "xhigh", "summary": "auto"}),
        ),
        ("gpt-5.1-codex-max", ReasoningEffort::Off, Value::Null),
        ("gpt-4o", ReasoningEffort::High, Value::Null),
    ] {
        let body = sent(
            |server| {
                Box::new(OpenAiResponsesGateway::new(
                    client(fast_options(1)),
                    server.endpoint(Some("k")),
                ))
            },
            thinking_request(model, effort),
        )
        .await
        .json();
        assert_eq!(body["reasoning"], expected, "{model} {effort}");
    }
}

#[tokio::test]
async fn chat_requests_carry_reasoning_effort_only_where_the_model_takes_it() {
    let chat = |server: &TestServer| -> Box<dyn ModelGateway> {
        Box::new(ChatCompletionsGateway::new(
            client(fast_options(1)),
            server.endpoint(Some("k")),
        ))
    };
    let body = sent(chat, thinking_request("grok-3-mini", ReasoningEffort::High))
        .await
        .json();
    assert_eq!(body["reasoning_effort"], "high");
    insta::assert_json_snapshot!(
        "chat_reasoning_effort_high",
        sent(chat, short_thinking("grok-3-mini", ReasoningEffort::High))
            .await
            .json()
    );
    for (model, effort, expected) in [
        ("grok-3-mini", ReasoningEffort::Medium, json!("low")),
        ("gpt-5", ReasoningEffort::Low, json!("low")),
        ("gpt-4o", ReasoningEffort::High, Value::Null),
        ("deepseek-chat", ReasoningEffort::High, Value::Null),
    ] {
        let body = sent(chat, thinking_request(model, effort)).await.json();
        assert_eq!(body["reasoning_effort"], expected, "{model} {effort}");
    }
}

#[tokio::test]
async fn anthropic_requests_think_within_a_budget_that_fits_max_tokens() {
    let body = sent(anthropic, thinking_request(SONNET, ReasoningEffort::Medium))
        .await
        .json();
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 8192})
    );
    assert_eq!(thinking_rule(&body), None);
    insta::assert_json_snapshot!(
        "anthropic_thinking_medium",
        sent(anthropic, short_thinking(SONNET, ReasoningEffort::Medium))
            .await
            .json()
    );
    // The round's small limit (4096) is raised to leave room for an answer.
    let body = sent(anthropic, thinking_request(SONNET, ReasoningEffort::Max))
        .await
        .json();
    assert_eq!(body["thinking"]["budget_tokens"], 32_000);
    assert_eq!(body["max_tokens"], 36_096);
    // Off, a forced tool and a model without thinking send none, and keep
    // the round's limit.
    let mut forced = thinking_request(SONNET, ReasoningEffort::High);
    forced.tool_choice = Some(ToolChoice::Required);
    for request in [
        thinking_request(SONNET, ReasoningEffort::Off),
        forced,
        thinking_request("claude-3-haiku-20240307", ReasoningEffort::High),
    ] {
        let body = sent(anthropic, request).await.json();
        assert_eq!(body.get("thinking"), None, "{body:#}");
        assert_eq!(body["max_tokens"], 4096);
    }
}

#[tokio::test]
async fn adaptive_models_think_adaptively_at_the_settings_effort() {
    for (effort, expected) in [
        (ReasoningEffort::Low, "low"),
        (ReasoningEffort::Medium, "medium"),
        (ReasoningEffort::High, "high"),
        (ReasoningEffort::Max, "max"),
    ] {
        let body = sent(anthropic, thinking_request(OPUS_46, effort))
            .await
            .json();
        assert_eq!(body["thinking"], json!({"type": "adaptive"}), "{effort}");
        assert_eq!(body["output_config"], json!({"effort": expected}));
        assert_eq!(thinking_rule(&body), None);
    }
    // Adaptive thinking counts toward `max_tokens` too: the round's small
    // limit is raised as far as the setting's budget would have needed.
    let body = sent(anthropic, thinking_request(OPUS_46, ReasoningEffort::High))
        .await
        .json();
    assert_eq!(body["max_tokens"], 16_384 + 4096);
    insta::assert_json_snapshot!(
        "anthropic_adaptive_high",
        sent(anthropic, short_thinking(OPUS_46, ReasoningEffort::High))
            .await
            .json()
    );
    // Off and a forced tool send neither field.
    let mut forced = thinking_request(OPUS_46, ReasoningEffort::High);
    forced.tool_choice = Some(ToolChoice::Required);
    for request in [thinking_request(OPUS_46, ReasoningEffort::Off), forced] {
        let body = sent(anthropic, request).await.json();
        assert_eq!(body.get("thinking"), None, "{body:#}");
        assert_eq!(body.get("output_config"), None, "{body:#}");
        assert_eq!(body["max_tokens"], 4096);
    }
}

// A multi-round tool turn through the rule-enforcing server.

/// An Anthropic event stream of one thinking block, then `tail` blocks.
fn stream(round: u32, tail: &[Value], stop: &str) -> Vec<u8> {
    let mut events = vec![
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 900, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": format!("Round {round}: ")}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "read the next part."}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": format!("sig-{round}-EqQBCkYIBxgCKkC")}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    for (n, block) in tail.iter().enumerate() {
        let index = n + 1;
        events.push(json!({"type": "content_block_start", "index": index, "content_block": block}));
        if block["type"] == "tool_use" {
            events.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": "{\"path\":\"src/lib.rs\"}"}}));
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 40}}));
    events.push(json!({"type": "message_stop"}));
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect::<String>()
        .into_bytes()
}

fn tool_round(round: u32) -> Vec<u8> {
    stream(
        round,
        &[
            json!({"type": "tool_use", "id": format!("toolu_{round}"), "name": "read_file", "input": {}}),
        ],
        "tool_use",
    )
}

fn judged(bytes: Vec<u8>) -> Reply {
    Reply::Judged {
        rule: thinking_rule,
        reply: Box::new(Reply::sse(&bytes, 64)),
    }
}

/// What the agent commits from one round's events, in its order:
/// reasoning, the text, the calls; then each call's output.
fn committed(events: &[ModelEvent]) -> Vec<ResponseItem> {
    let mut items = Vec::new();
    let mut text = String::new();
    let mut calls = Vec::new();
    for event in events {
        match event {
            ModelEvent::Reasoning { item } => items.push(item.clone()),
            ModelEvent::TextDelta { delta } => text.push_str(delta),
            ModelEvent::ToolCallDone {
                call_id,
                name,
                arguments,
            } => calls.push(ResponseItem::function_call(call_id, name, arguments)),
            _ => {}
        }
    }
    if !text.is_empty() {
        items.push(ResponseItem::assistant(text));
    }
    let outputs: Vec<ResponseItem> = calls
        .iter()
        .filter_map(|call| call.call_id())
        .map(|call_id| {
            ResponseItem::FunctionCallOutput(FunctionCallOutput {
                id: ItemId::new(),
                call_id: call_id.to_owned(),
                output: "pub fn parse() {}".into(),
            })
        })
        .collect();
    items.extend(calls);
    items.extend(outputs);
    items
}

#[tokio::test]
async fn a_multi_round_tool_turn_with_thinking_passes_the_thinking_rules() {
    // With a budget, and adaptively: the same rules hold for both.
    for (model, thinking) in [
        (SONNET, json!({"type": "enabled", "budget_tokens": 16_384})),
        (OPUS_46, json!({"type": "adaptive"})),
    ] {
        multi_round_tool_turn_passes_the_thinking_rules(model, thinking).await;
    }
}

async fn multi_round_tool_turn_passes_the_thinking_rules(model: &str, thinking: Value) {
    let server = TestServer::start(vec![
        judged(tool_round(1)),
        judged(tool_round(2)),
        judged(stream(
            3,
            &[json!({"type": "text", "text": "Done."})],
            "end_turn",
        )),
    ])
    .await;
    let gateway = anthropic(&server);
    let mut request = thinking_request(model, ReasoningEffort::High);
    let mut live_thinking = String::new();
    for round in 1..=3 {
        let outcome = collect(gateway.stream_response(request.clone())).await;
        assert_eq!(outcome.error, None, "{model}: round {round} was refused");
        for event in &outcome.events {
            if let ModelEvent::ReasoningDelta { delta } = event {
                live_thinking.push_str(delta);
            }
        }
        request.input.extend(committed(&outcome.events));
    }
    let received = server.received();
    assert_eq!(received.len(), 3);
    for body in received.iter().map(Received::json) {
        assert_eq!(body["thinking"], thinking);
        assert_eq!(thinking_rule(&body), None);
    }
    // Round 3's request sent round 2's thinking back first in the turn
    // that made the call, exactly as it streamed, signature included.
    let third = received[2].json();
    let messages = third["messages"].as_array().unwrap();
    let last_assistant = &messages[messages.len() - 2];
    assert_eq!(
        last_assistant["content"][0],
        json!({"type": "thinking", "thinking": "Round 2: read the next part.", "signature": "sig-2-EqQBCkYIBxgCKkC"})
    );
    assert_eq!(last_assistant["content"][1]["type"], "tool_use");
    assert!(live_thinking.starts_with("Round 1: read the next part.Round 2: "));
}

#[tokio::test]
async fn a_history_that_lost_its_thinking_block_is_refused() {
    // Round 1 thinks and calls a tool.
    let server = TestServer::start(vec![judged(tool_round(1))]).await;
    let mut request = thinking_request(SONNET, ReasoningEffort::High);
    let outcome = collect(anthropic(&server).stream_response(request.clone())).await;
    request.input.extend(committed(&outcome.events));
    // Strata's body for round 2 passes; the same body with the thinking
    // block dropped is refused by the server like the API refuses it.
    let server = TestServer::start(vec![
        judged(stream(2, &[], "end_turn")),
        judged(stream(2, &[], "end_turn")),
    ])
    .await;
    let outcome = collect(anthropic(&server).stream_response(request.clone())).await;
    assert_eq!(outcome.error, None);
    let mut broken = server.received()[0].json();
    let turn = broken["messages"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .rev()
        .find(|message| message["role"] == "assistant")
        .unwrap();
    assert_eq!(turn["content"][0]["type"], "thinking");
    turn["content"].as_array_mut().unwrap().remove(0);
    let response = reqwest::Client::new()
        .post(format!("{}/messages", server.base_url))
        .json(&broken)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["type"], "invalid_request_error");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("must start with a thinking block")
    );
    // Given the broken history itself, Strata does not switch thinking on
    // in the middle of the turn, so the request is accepted.
    let server = TestServer::start(vec![judged(stream(2, &[], "end_turn"))]).await;
    request
        .input
        .retain(|item| !matches!(item, ResponseItem::Reasoning(_)));
    let outcome = collect(anthropic(&server).stream_response(request)).await;
    assert_eq!(outcome.error, None);
    assert_eq!(server.received()[0].json().get("thinking"), None);
}

#[tokio::test]
async fn the_rule_server_refuses_a_budget_that_does_not_fit() {
    let server = TestServer::start(vec![judged(stream(1, &[], "end_turn"))]).await;
    let mut body = sent(anthropic, thinking_request(SONNET, ReasoningEffort::High))
        .await
        .json();
    body["max_tokens"] = json!(16_384);
    let response = reqwest::Client::new()
        .post(format!("{}/messages", server.base_url))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let outcome: Result<(), ModelError> = Err(ModelError::InvalidRequest {
        message: response.text().await.unwrap(),
    });
    assert!(format!("{outcome:?}").contains("greater than `thinking.budget_tokens`"));
}

/// A Chat Completions server's reasoning item, as the decoder keeps it.
fn chat_reasoning(text: &str) -> ResponseItem {
    ResponseItem::Reasoning(strata_protocol::ReasoningItem {
        id: ItemId::new(),
        provider: "openai-chat".into(),
        payload: json!({"type": "reasoning_content", "text": text}),
    })
}

#[tokio::test]
async fn chat_sends_reasoning_content_back_only_on_the_turns_that_called_tools() {
    // DeepSeek's thinking-mode guide: between two user messages, the
    // reasoning of a reply that called tools must be passed back; that of a
    // reply without calls is not (older reasoners refused it).
    let mut request = short_request("deepseek-chat");
    request.input.extend([
        chat_reasoning("Plain answer thinking."),
        ResponseItem::assistant("Hello."),
        ResponseItem::user("Read the parser."),
        chat_reasoning("I should read src/parser.rs."),
        ResponseItem::assistant("Reading it."),
        ResponseItem::function_call("call_1", "read_file", r#"{"path":"src/parser.rs"}"#),
        ResponseItem::function_call_output("call_1", "fn parse() {}"),
    ]);
    let chat = |server: &TestServer| -> Box<dyn ModelGateway> {
        Box::new(ChatCompletionsGateway::new(
            client(fast_options(1)),
            server.endpoint(Some("k")),
        ))
    };
    let body = sent(chat, request).await.json();
    let assistants: Vec<&Value> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "assistant")
        .collect();
    assert_eq!(assistants.len(), 2);
    assert_eq!(assistants[0].get("reasoning_content"), None);
    assert_eq!(
        assistants[1]["reasoning_content"],
        "I should read src/parser.rs."
    );
    assert_eq!(assistants[1]["tool_calls"][0]["id"], "call_1");
    assert!(!body.to_string().contains("Plain answer thinking."));
}
