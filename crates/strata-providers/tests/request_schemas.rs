//! Every request body Strata renders, captured by a local server, validates
//! against the provider's own published description in
//! `../shared/fixtures/api` (read in place; see its README): OpenAI's
//! `CreateResponse` and `CreateChatCompletionRequest` (extracted from the
//! official OpenAPI document with their `$ref`s) and the Anthropic Messages
//! request schema. Unknown fields fail: the Anthropic schema is closed
//! throughout; OpenAI's objects are open, so the body, each input item or
//! message, each content part, tool and tool call is also checked against
//! its own definition with `unevaluatedProperties: false`. No extension
//! outside the descriptions is sent, so none is allowed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use futures::StreamExt;
use jsonschema::Validator;
use serde_json::{Value, json};
use strata_core::ModelGateway;
use strata_protocol::{ModelEvent, ModelRequest, ReasoningEffort, ResponseItem};
use strata_providers::{
    AnthropicGateway, CacheTtl, ChatCompletionsGateway, MaxTokensField, OpenAiResponsesGateway,
    PromptCacheRetention::{Extended, InMemory},
    WireFormat, replay,
};
use support::histories::*;
use support::*;

struct Schemas {
    openai: Value,
    anthropic: Validator,
    /// OpenAI validators by definition, compiled once.
    closed: Mutex<HashMap<String, Arc<Validator>>>,
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The schemas, or `None` (the test skipped by name) without `../shared`.
fn schemas() -> Option<&'static Schemas> {
    let dir = strata_testkit::needs_shared(strata_testkit::API)?;
    static SCHEMAS: OnceLock<Schemas> = OnceLock::new();
    Some(SCHEMAS.get_or_init(|| {
        Schemas {
            openai: read_json(&dir.join("openai-requests.schema.json")),
            anthropic: jsonschema::draft202012::new(&read_json(
                &dir.join("anthropic-messages.schema.json"),
            ))
            .unwrap(),
            closed: Mutex::default(),
        }
    }))
}

impl Schemas {
    /// A validator of OpenAI's `$defs/{name}` that also rejects properties
    /// the definition does not name.
    fn openai_closed(&self, name: &str) -> Arc<Validator> {
        let mut compiled = self.closed.lock().unwrap();
        if let Some(validator) = compiled.get(name) {
            return validator.clone();
        }
        let mut root = self.openai.clone();
        let map = root.as_object_mut().unwrap();
        assert!(map["$defs"].get(name).is_some(), "no $defs/{name}");
        map.insert("$ref".into(), json!(format!("#/$defs/{name}")));
        map.insert("unevaluatedProperties".into(), json!(false));
        let validator = Arc::new(jsonschema::draft202012::new(&root).unwrap());
        compiled.insert(name.to_owned(), validator.clone());
        validator
    }
}

/// Validation errors of `value` (at `at` in the body) against `validator`.
fn check(validator: &Validator, value: &Value, at: &str, errors: &mut Vec<String>) {
    errors.extend(
        validator
            .iter_errors(value)
            .map(|e| format!("{at}{}: {e}", e.instance_path())),
    );
}

fn assert_valid(errors: Vec<String>, body: &Value) {
    assert!(
        errors.is_empty(),
        "the body does not validate:\n{}\n\nbody: {body:#}",
        errors.join("\n")
    );
}

fn responses_errors(schemas: &Schemas, body: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(
        &schemas.openai_closed("CreateResponse"),
        body,
        "",
        &mut errors,
    );
    for (index, item) in body["input"].as_array().unwrap().iter().enumerate() {
        let at = format!("/input/{index}");
        let def = match item["type"].as_str() {
            Some("message") => "EasyInputMessage",
            Some("function_call") => "FunctionToolCall",
            Some("function_call_output") => "FunctionCallOutputItemParam",
            Some("reasoning") => "ReasoningItem",
            other => panic!("{at}: an input item of type {other:?}"),
        };
        check(&schemas.openai_closed(def), item, &at, &mut errors);
        if let Some(parts) = item["content"].as_array() {
            for (n, part) in parts.iter().enumerate() {
                assert_eq!(part["type"], "input_text", "{at}/content/{n}");
                let validator = schemas.openai_closed("InputTextContent");
                check(&validator, part, &format!("{at}/content/{n}"), &mut errors);
            }
        }
    }
    for (index, tool) in body["tools"].as_array().into_iter().flatten().enumerate() {
        let validator = schemas.openai_closed("FunctionTool");
        check(&validator, tool, &format!("/tools/{index}"), &mut errors);
    }
    errors
}

fn chat_errors(schemas: &Schemas, body: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(
        &schemas.openai_closed("CreateChatCompletionRequest"),
        body,
        "",
        &mut errors,
    );
    for (index, message) in body["messages"].as_array().unwrap().iter().enumerate() {
        let at = format!("/messages/{index}");
        let def = match message["role"].as_str() {
            Some("system") => "ChatCompletionRequestSystemMessage",
            Some("user") => "ChatCompletionRequestUserMessage",
            Some("assistant") => "ChatCompletionRequestAssistantMessage",
            Some("tool") => "ChatCompletionRequestToolMessage",
            other => panic!("{at}: a message of role {other:?}"),
        };
        // The one extension sent: `reasoning_content` on an assistant
        // message that called tools, which DeepSeek's thinking mode
        // requires back (its reasoning items come only from such servers).
        let mut message = message.clone();
        if let Some(fields) = message.as_object_mut()
            && fields.contains_key("tool_calls")
        {
            fields.remove("reasoning_content");
        }
        let message = &message;
        check(&schemas.openai_closed(def), message, &at, &mut errors);
        for (n, call) in message["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let validator = schemas.openai_closed("ChatCompletionMessageToolCall");
            check(
                &validator,
                call,
                &format!("{at}/tool_calls/{n}"),
                &mut errors,
            );
        }
    }
    for (index, tool) in body["tools"].as_array().into_iter().flatten().enumerate() {
        let at = format!("/tools/{index}");
        check(
            &schemas.openai_closed("ChatCompletionTool"),
            tool,
            &at,
            &mut errors,
        );
        let validator = schemas.openai_closed("FunctionObject");
        check(
            &validator,
            &tool["function"],
            &format!("{at}/function"),
            &mut errors,
        );
    }
    if let Some(options) = body.get("stream_options") {
        let validator = schemas.openai_closed("ChatCompletionStreamOptions");
        check(&validator, options, "/stream_options", &mut errors);
    }
    errors
}

fn anthropic_errors(schemas: &Schemas, body: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(&schemas.anthropic, body, "", &mut errors);
    errors
}

/// The reasoning item the recorded codex stream delivered, as Strata keeps it.
async fn recorded_reasoning(wire: &Wire) -> Value {
    let bytes = wire.read("openai-responses/gpt-5.1-codex-max_agent-loop.step1.sse");
    let chunks = futures::stream::iter(vec![Ok(Bytes::from(bytes))]);
    let events: Vec<_> = replay(WireFormat::OpenAiResponses, chunks).collect().await;
    events
        .into_iter()
        .find_map(|event| match event {
            Ok(ModelEvent::Reasoning {
                item: ResponseItem::Reasoning(item),
            }) => Some(item.payload),
            _ => None,
        })
        .expect("the recorded stream has a reasoning item")
}

/// Only the reasoning requests of [`requests`] for `model`.
fn requests_of(model: &str) -> Vec<ModelRequest> {
    requests(model)
        .into_iter()
        .filter(|request| request.reasoning.is_some())
        .collect()
}

/// Each history shape, with and without tools, with and without a session
/// (the cache key), short (no breakpoints) and long (breakpoints).
fn requests(model: &str) -> Vec<ModelRequest> {
    let mut requests = Vec::new();
    for tools in [false, true] {
        for round in [1, 3] {
            requests.push(round_request(model, round, tools));
        }
        let mut loose = round_request(model, 2, tools);
        loose.session_id = None;
        loose.max_output_tokens = None;
        requests.push(loose);
    }
    requests.push(short_request(model));
    // Every reasoning setting, on a long session with tools (models that
    // do not reason render it as nothing).
    for effort in ReasoningEffort::ALL {
        let mut reasoning = round_request(model, 3, true);
        reasoning.reasoning = Some(effort);
        requests.push(reasoning);
    }
    // A small output limit, raised to fit a thinking budget.
    let mut small = round_request(model, 2, true);
    small.reasoning = Some(ReasoningEffort::Max);
    small.max_output_tokens = Some(1024);
    requests.push(small);
    requests
}

async fn bodies(
    make: impl Fn(&TestServer) -> Box<dyn ModelGateway>,
    requests: Vec<ModelRequest>,
) -> Vec<Value> {
    let mut bodies = Vec::new();
    for request in requests {
        bodies.push(sent(&make, request.clone()).await.json());
        // The non-streaming form (used by summaries) too.
        let server = TestServer::start(vec![Reply::status(400, "{}")]).await;
        let _ = make(&server).create_response(request).await;
        bodies.push(server.received().remove(0).json());
    }
    bodies
}

#[tokio::test]
async fn every_responses_body_validates_against_openais_create_response() {
    let Some(schemas) = schemas() else { return };
    let Some(wire) = wire() else { return };
    let reasoning = recorded_reasoning(&wire).await;
    assert!(reasoning.get("encrypted_content").is_some());
    let mut all = requests("gpt-5.4");
    all.extend(requests_of("gpt-5"));
    all.extend(requests_of("gpt-5.1-codex-max"));
    all.push(with_reasoning(
        round_request("gpt-5.4", 2, true),
        "openai-responses",
        reasoning.clone(),
    ));
    let retentions = [None, Some(InMemory), Some(Extended)];
    for (store, retention) in [false, true]
        .into_iter()
        .zip(retentions.into_iter().cycle())
    {
        let make = |server: &TestServer| -> Box<dyn ModelGateway> {
            Box::new(
                OpenAiResponsesGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
                    .with_store(store)
                    .with_prompt_cache_retention(retention),
            )
        };
        for body in bodies(make, all.clone()).await {
            assert_valid(responses_errors(schemas, &body), &body);
        }
    }
    // Each retention the profile can set, on a model that takes both and on
    // one that takes only `24h`.
    for (model, retention) in [
        ("gpt-5.4", InMemory),
        ("gpt-5.4", Extended),
        ("gpt-5.5", Extended),
    ] {
        let make = |server: &TestServer| -> Box<dyn ModelGateway> {
            Box::new(
                OpenAiResponsesGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
                    .with_prompt_cache_retention(Some(retention)),
            )
        };
        for body in bodies(make, requests(model)).await {
            assert_valid(responses_errors(schemas, &body), &body);
            assert_eq!(body["prompt_cache_retention"], json!(retention), "{body}");
        }
    }
    // The recorded reasoning item goes back exactly as it came.
    let body = sent(
        |server| {
            Box::new(OpenAiResponsesGateway::new(
                client(fast_options(1)),
                server.endpoint(Some("k")),
            ))
        },
        with_reasoning(
            round_request("gpt-5.4", 2, true),
            "openai-responses",
            reasoning.clone(),
        ),
    )
    .await
    .json();
    assert!(body["input"].as_array().unwrap().contains(&reasoning));
}

#[tokio::test]
async fn every_chat_body_validates_against_openais_create_chat_completion_request() {
    let Some(schemas) = schemas() else { return };
    for field in [
        MaxTokensField::MaxCompletionTokens,
        MaxTokensField::MaxTokens,
    ] {
        let make = |server: &TestServer| -> Box<dyn ModelGateway> {
            Box::new(
                ChatCompletionsGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
                    .with_max_tokens_field(field)
                    .with_prompt_cache_key(true),
            )
        };
        // A model without reasoning, xAI's effort names and OpenAI's.
        for model in ["gpt-4.1", "grok-3-mini", "gpt-5"] {
            for body in bodies(make, requests(model)).await {
                assert_valid(chat_errors(schemas, &body), &body);
            }
        }
    }
    for retention in [InMemory, Extended] {
        let make = |server: &TestServer| -> Box<dyn ModelGateway> {
            Box::new(
                ChatCompletionsGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
                    .with_prompt_cache_key(true)
                    .with_prompt_cache_retention(Some(retention)),
            )
        };
        for body in bodies(make, requests("gpt-4.1")).await {
            assert_valid(chat_errors(schemas, &body), &body);
            assert_eq!(body["prompt_cache_retention"], json!(retention), "{body}");
        }
    }
}

#[tokio::test]
async fn every_anthropic_body_validates_against_the_messages_schema() {
    let Some(schemas) = schemas() else { return };
    let thinking =
        json!({"type": "thinking", "thinking": "Part 1 first.", "signature": "EqQBCkYIBxgCKkC"});
    for ttl in [CacheTtl::FiveMinutes, CacheTtl::OneHour] {
        let make = |server: &TestServer| -> Box<dyn ModelGateway> {
            Box::new(
                AnthropicGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
                    .with_cache_ttl(ttl),
            )
        };
        let mut requests = requests("claude-sonnet-4-5");
        requests.push(with_reasoning(
            round_request("claude-sonnet-4-5", 3, true),
            "anthropic",
            thinking.clone(),
        ));
        // Every setting with a thinking block sent back: to a budget, and
        // adaptively at an effort.
        for model in ["claude-sonnet-4-5", "claude-opus-4-6"] {
            for effort in ReasoningEffort::ALL {
                let mut thinking_on =
                    with_reasoning(round_request(model, 3, true), "anthropic", thinking.clone());
                thinking_on.reasoning = Some(effort);
                requests.push(thinking_on);
            }
        }
        requests.push(with_reasoning(
            round_request("claude-opus-4-1", 2, true),
            "anthropic",
            json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}),
        ));
        // A round after an eviction: four breakpoints, two of them anchors.
        let mut anchored = round_request("claude-sonnet-4-5", 6, true);
        anchored.cache_anchors = vec![3, 7];
        requests.push(anchored);
        for body in bodies(make, requests).await {
            assert_valid(anthropic_errors(schemas, &body), &body);
        }
    }
}

#[tokio::test]
async fn the_checks_reject_unknown_and_misshapen_fields() {
    let Some(schemas) = schemas() else { return };
    let make = |server: &TestServer| -> Box<dyn ModelGateway> {
        Box::new(OpenAiResponsesGateway::new(
            client(fast_options(1)),
            server.endpoint(Some("k")),
        ))
    };
    let body = sent(make, round_request("gpt-5.4", 2, true)).await.json();
    assert_valid(responses_errors(schemas, &body), &body);

    let mut unknown_top = body.clone();
    unknown_top["cache_ttl"] = json!("1h");
    assert!(!responses_errors(schemas, &unknown_top).is_empty());
    let mut unknown_nested = body.clone();
    unknown_nested["input"][0]["cache_control"] = json!({"type": "ephemeral"});
    assert!(!responses_errors(schemas, &unknown_nested).is_empty());
    // The shape an earlier attempt sent: an echoed assistant message with an
    // `output_text` part and no id or status matches neither
    // EasyInputMessage nor OutputMessage.
    let assistant = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .position(|item| item["role"] == "assistant")
        .unwrap();
    let mut echoed = body.clone();
    echoed["input"][assistant]["content"] =
        json!([{"type": "output_text", "text": "Reading part 1."}]);
    let item_errors = {
        let mut errors = Vec::new();
        let item = &echoed["input"][assistant];
        check(&schemas.openai_closed("InputItem"), item, "", &mut errors);
        errors
    };
    assert!(!item_errors.is_empty(), "{echoed:#}");

    let anthropic = sent(
        |server| {
            Box::new(AnthropicGateway::new(
                client(fast_options(1)),
                server.endpoint(Some("k")),
            ))
        },
        round_request("claude-sonnet-4-5", 2, true),
    )
    .await
    .json();
    assert_valid(anthropic_errors(schemas, &anthropic), &anthropic);
    let mut bad_ttl = anthropic.clone();
    bad_ttl["system"][0]["cache_control"]["ttl"] = json!("10m");
    assert!(!anthropic_errors(schemas, &bad_ttl).is_empty());
    let mut unknown = anthropic;
    unknown["prompt_cache_key"] = json!("strata-x");
    assert!(!anthropic_errors(schemas, &unknown).is_empty());
}
