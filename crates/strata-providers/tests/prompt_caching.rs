//! Prompt caching on the wire, captured by a local server: Anthropic's
//! `cache_control` breakpoints (where, how many, which TTL, and none below a
//! model's minimum cacheable size) over two consecutive rounds, and OpenAI's
//! per-session `prompt_cache_key`, `store` and `include`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use strata_core::ModelGateway;
use strata_protocol::{ModelRequest, SessionId};
use strata_providers::PromptCacheRetention::{Extended, InMemory};
use strata_providers::anthropic::MAX_BREAKPOINTS;
use strata_providers::{
    AnthropicGateway, CacheTtl, ChatCompletionsGateway, OpenAiResponsesGateway, prompt_cache_key,
};
use support::histories::*;
use support::*;

const SONNET: &str = "claude-sonnet-4-5";

fn anthropic_with(ttl: CacheTtl) -> impl FnOnce(&TestServer) -> Box<dyn ModelGateway> {
    move |server| {
        Box::new(
            AnthropicGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
                .with_cache_ttl(ttl),
        )
    }
}

async fn anthropic_body(request: ModelRequest, ttl: CacheTtl) -> Value {
    sent(anthropic_with(ttl), request).await.json()
}

/// Where each breakpoint is, as a JSON pointer, in body order.
fn breakpoints(body: &Value) -> Vec<(String, Value)> {
    fn walk(value: &Value, at: String, found: &mut Vec<(String, Value)>) {
        match value {
            Value::Object(map) => {
                for key in ["tools", "system", "messages", "content"] {
                    if let Some(child) = map.get(key) {
                        walk(child, format!("{at}/{key}"), found);
                    }
                }
                if let Some(control) = map.get("cache_control") {
                    found.push((at, control.clone()));
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    walk(item, format!("{at}/{index}"), found);
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(body, String::new(), &mut found);
    found
}

/// The characters of tools, system and messages up to and including the
/// block at `at` (a `/system/0`, `/tools/N` or `/messages/N/content/M`
/// pointer), as the renderer estimates them.
fn prefix_chars(body: &Value, at: &str) -> usize {
    let len = |value: &Value| serde_json::to_string(value).unwrap().len();
    let tools: usize = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(len)
        .sum();
    if at.starts_with("/tools/") {
        return tools;
    }
    let head = tools + len(&without_breakpoints(body)["system"]);
    let Some(rest) = at.strip_prefix("/messages/") else {
        return head;
    };
    let index: usize = rest.split('/').next().unwrap().parse().unwrap();
    head + body["messages"].as_array().unwrap()[..index]
        .iter()
        .map(len)
        .sum::<usize>()
}

fn pointers(body: &Value) -> Vec<String> {
    breakpoints(body).into_iter().map(|(at, _)| at).collect()
}

/// The body's bytes as sent, up to the first breakpoint's `cache_control`.
fn up_to_first_breakpoint(received: &Received) -> String {
    let text = String::from_utf8(received.body.clone()).unwrap();
    let end = text
        .find("\"cache_control\"")
        .expect("the body has a breakpoint");
    text[..end].to_owned()
}

#[tokio::test]
async fn anthropic_two_consecutive_rounds_share_the_prefix_up_to_each_breakpoint() {
    let first_sent = sent(
        anthropic_with(CacheTtl::FiveMinutes),
        round_request(SONNET, 2, true),
    )
    .await;
    let second_sent = sent(
        anthropic_with(CacheTtl::FiveMinutes),
        round_request(SONNET, 3, true),
    )
    .await;
    let (first, second) = (first_sent.json(), second_sent.json());
    insta::assert_json_snapshot!("anthropic_round_2", first);
    insta::assert_json_snapshot!("anthropic_round_3", second);

    // Tools and system prompt first, then the previous round's end, then the
    // newest message.
    assert_eq!(
        pointers(&first),
        [
            "/system/0",
            "/messages/0/content/0",
            "/messages/2/content/0"
        ]
    );
    assert_eq!(
        pointers(&second),
        [
            "/system/0",
            "/messages/2/content/0",
            "/messages/4/content/0"
        ]
    );
    // Byte for byte, the same up to the first breakpoint.
    let prefix = up_to_first_breakpoint(&first_sent);
    assert!(prefix.contains(&long_system()[..200]), "{prefix}");
    assert_eq!(prefix, up_to_first_breakpoint(&second_sent));
    // What the model reads of the first round is the start of the second,
    // and the second marks the first round's newest breakpoint again, so it
    // reads the entry the first one wrote.
    let (first_text, second_text) = (without_breakpoints(&first), without_breakpoints(&second));
    let first_messages = first_text["messages"].as_array().unwrap();
    assert_eq!(
        &second_text["messages"].as_array().unwrap()[..first_messages.len()],
        first_messages.as_slice()
    );
    assert_eq!(first_text["system"], second_text["system"]);
    assert_eq!(first_text["tools"], second_text["tools"]);
    assert_eq!(
        first["messages"][2]["content"][0], second["messages"][2]["content"][0],
        "the block the first round cached is sent identically, breakpoint included"
    );
}

#[tokio::test]
async fn anthropic_breakpoints_are_never_more_than_four() {
    for round in 1..=6 {
        for tools in [false, true] {
            let body = anthropic_body(round_request(SONNET, round, tools), CacheTtl::OneHour).await;
            let count = breakpoints(&body).len();
            assert!(count <= MAX_BREAKPOINTS, "round {round}: {count}");
            assert!(count >= 1, "round {round} caches nothing");
            // Each marks a prefix past Sonnet's 1,024-token minimum.
            for at in pointers(&body) {
                let chars = prefix_chars(&body, &at);
                assert!(
                    chars / 4 >= 1024,
                    "round {round}: {at} closes {chars} chars"
                );
            }
        }
    }
}

#[tokio::test]
async fn anthropic_caches_large_tools_on_their_own_ahead_of_the_system_prompt() {
    let mut request = round_request(SONNET, 2, true);
    request.tools[1].description = "Run one command; quote paths. ".repeat(160);
    let body = anthropic_body(request.clone(), CacheTtl::FiveMinutes).await;
    assert_eq!(
        pointers(&body),
        [
            "/tools/1",
            "/system/0",
            "/messages/0/content/0",
            "/messages/2/content/0"
        ]
    );
    // Without a system prompt the tools' breakpoint is the first one.
    request.input.remove(0);
    let body = anthropic_body(request, CacheTtl::FiveMinutes).await;
    assert_eq!(pointers(&body)[0], "/tools/1");
    assert!(body.get("system").is_none());
}

#[tokio::test]
async fn anthropic_marks_only_a_sessions_rounds() {
    let mut summary = round_request(SONNET, 3, true);
    summary.session_id = None;
    let body = anthropic_body(summary, CacheTtl::FiveMinutes).await;
    assert!(breakpoints(&body).is_empty(), "{body}");
}

#[tokio::test]
async fn anthropic_sends_the_profiles_ttl_on_every_breakpoint() {
    let five = anthropic_body(round_request(SONNET, 2, true), CacheTtl::FiveMinutes).await;
    let hour = anthropic_body(round_request(SONNET, 2, true), CacheTtl::OneHour).await;
    assert!(!breakpoints(&five).is_empty());
    for (_, control) in breakpoints(&five) {
        assert_eq!(control, json!({"type": "ephemeral"}));
    }
    assert_eq!(breakpoints(&hour).len(), breakpoints(&five).len());
    for (_, control) in breakpoints(&hour) {
        assert_eq!(control, json!({"type": "ephemeral", "ttl": "1h"}));
    }
}

#[tokio::test]
async fn anthropic_sends_no_breakpoint_below_the_models_minimum() {
    let short = anthropic_body(short_request(SONNET), CacheTtl::FiveMinutes).await;
    assert!(breakpoints(&short).is_empty(), "{short}");
    // The system prompt is one text block in every round of a session,
    // marked or not, so its bytes never change with the breakpoints.
    assert_eq!(
        short["system"],
        json!([{"type": "text", "text": "Be brief."}])
    );

    // About 1,500 tokens of system prompt caches on Sonnet (1,024) but not
    // on Haiku 4.5 (4,096), nor do the first messages after it.
    let sonnet = anthropic_body(round_request(SONNET, 1, true), CacheTtl::FiveMinutes).await;
    assert_eq!(pointers(&sonnet), ["/system/0", "/messages/0/content/0"]);
    let haiku = anthropic_body(
        round_request("claude-haiku-4-5", 2, true),
        CacheTtl::FiveMinutes,
    )
    .await;
    assert!(breakpoints(&haiku).is_empty(), "{haiku}");
    // A longer Haiku session caches its newest messages once they are past
    // the minimum, still not the system prompt alone.
    let later = anthropic_body(
        round_request("claude-haiku-4-5", 8, true),
        CacheTtl::FiveMinutes,
    )
    .await;
    let at = pointers(&later);
    assert!(
        !at.is_empty() && !at.contains(&"/system/0".to_owned()),
        "{at:?}"
    );
}

fn responses_with(store: bool) -> impl FnOnce(&TestServer) -> Box<dyn ModelGateway> {
    move |server| {
        Box::new(
            OpenAiResponsesGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
                .with_store(store),
        )
    }
}

fn openai_chat(server: &TestServer) -> Box<dyn ModelGateway> {
    Box::new(
        ChatCompletionsGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
            .with_prompt_cache_key(true),
    )
}

#[tokio::test]
async fn openai_requests_carry_one_hashed_cache_key_per_session() {
    let key = prompt_cache_key(session());
    assert!(key.starts_with("strata-") && !key.contains(&session().to_string()));
    for round in [1, 2, 3] {
        let responses = sent(responses_with(false), round_request("gpt-5.4", round, true))
            .await
            .json();
        assert_eq!(responses["prompt_cache_key"], key.as_str());
        let chat = sent(openai_chat, round_request("gpt-4.1", round, true))
            .await
            .json();
        assert_eq!(chat["prompt_cache_key"], key.as_str());
    }
    let mut other = round_request("gpt-5.4", 1, true);
    other.session_id = Some(SessionId::new());
    let body = sent(responses_with(false), other).await.json();
    assert_ne!(body["prompt_cache_key"], key.as_str());
    // A request outside a session (a summary, a connection test) has none.
    let mut loose = round_request("gpt-5.4", 1, true);
    loose.session_id = None;
    let body = sent(responses_with(false), loose).await.json();
    assert!(body.get("prompt_cache_key").is_none(), "{body}");
}

#[tokio::test]
async fn chat_sends_no_cache_key_to_compatible_servers_by_default() {
    let body = sent(
        |server| {
            Box::new(ChatCompletionsGateway::new(
                client(fast_options(1)),
                server.endpoint(None),
            ))
        },
        round_request("llama3", 2, true),
    )
    .await
    .json();
    assert!(body.get("prompt_cache_key").is_none(), "{body}");
}

#[tokio::test]
async fn responses_are_stateless_by_default_and_store_only_when_the_profile_opts_in() {
    let stateless = sent(responses_with(false), round_request("gpt-5.4", 2, true))
        .await
        .json();
    assert_eq!(stateless["store"], false);
    assert_eq!(stateless["include"], json!(["reasoning.encrypted_content"]));
    let stored = sent(responses_with(true), round_request("gpt-5.4", 2, true))
        .await
        .json();
    assert_eq!(stored["store"], true);
    assert!(stored.get("include").is_none(), "{stored}");
}

#[tokio::test]
async fn stateless_requests_send_encrypted_reasoning_back_as_received_and_drop_the_rest() {
    let encrypted = json!({
        "id": "rs_1", "type": "reasoning", "encrypted_content": "gAAAAB-opaque", "summary": [],
    });
    let request = with_reasoning(
        round_request("gpt-5.4", 2, true),
        "openai-responses",
        encrypted.clone(),
    );
    let body = sent(responses_with(false), request).await.json();
    assert!(body["input"].as_array().unwrap().contains(&encrypted));

    let bare = json!({"id": "rs_2", "type": "reasoning", "summary": []});
    let request = with_reasoning(
        round_request("gpt-5.4", 2, true),
        "openai-responses",
        bare.clone(),
    );
    let stateless = sent(responses_with(false), request.clone()).await.json();
    assert!(
        !stateless["input"].as_array().unwrap().contains(&bare),
        "a stateless server cannot resolve a reasoning item by id"
    );
    let stored = sent(responses_with(true), request).await.json();
    assert!(stored["input"].as_array().unwrap().contains(&bare));
}

#[tokio::test]
async fn the_profiles_prompt_cache_retention_is_sent_where_the_model_accepts_it() {
    let responses = |retention| {
        move |server: &TestServer| -> Box<dyn ModelGateway> {
            Box::new(
                OpenAiResponsesGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
                    .with_prompt_cache_retention(Some(retention)),
            )
        }
    };
    let body = sent(responses(Extended), round_request("gpt-5.4", 2, true))
        .await
        .json();
    insta::assert_json_snapshot!("responses_prompt_cache_retention_24h", body);
    // gpt-5.5 takes only `24h`; gpt-4o takes neither: nothing is sent.
    for (model, retention) in [("gpt-5.5", InMemory), ("gpt-4o", Extended)] {
        let body = sent(responses(retention), round_request(model, 2, true))
            .await
            .json();
        assert!(
            body.get("prompt_cache_retention").is_none(),
            "{model}: {body}"
        );
    }
    let chat = |server: &TestServer| -> Box<dyn ModelGateway> {
        Box::new(
            ChatCompletionsGateway::new(client(fast_options(1)), server.endpoint(Some("k")))
                .with_prompt_cache_key(true)
                .with_prompt_cache_retention(Some(InMemory)),
        )
    };
    let body = sent(chat, round_request("gpt-4.1", 2, true)).await.json();
    insta::assert_json_snapshot!("chat_prompt_cache_retention_in_memory", body);
    // A compatible server (no cache key) gets neither field.
    let compatible = |server: &TestServer| -> Box<dyn ModelGateway> {
        Box::new(
            ChatCompletionsGateway::new(client(fast_options(1)), server.endpoint(None))
                .with_prompt_cache_key(false)
                .with_prompt_cache_retention(Some(InMemory)),
        )
    };
    let body = sent(compatible, round_request("gpt-4.1", 2, true))
        .await
        .json();
    assert!(body.get("prompt_cache_retention").is_none(), "{body}");
}

#[tokio::test]
async fn anthropic_marks_the_announced_cache_anchors_within_four_breakpoints() {
    let mut request = round_request(SONNET, 6, true);
    request.cache_anchors = vec![3, 7];
    let body = anthropic_body(request, CacheTtl::FiveMinutes).await;
    insta::assert_json_snapshot!("anthropic_round_6_with_anchors", pointers(&body));
    let at = pointers(&body);
    assert_eq!(at.len(), MAX_BREAKPOINTS, "{at:?}");
    // The newest message, the previous round's end and both anchors; the
    // system prompt (held by every anchor's prefix) gives way.
    assert!(!at.contains(&"/system/0".to_owned()), "{at:?}");
    // Without anchors the system prompt is marked as before.
    let plain = anthropic_body(round_request(SONNET, 6, true), CacheTtl::FiveMinutes).await;
    assert!(pointers(&plain).contains(&"/system/0".to_owned()));
}
