//! Failure handling against a local server: retries and their limits,
//! dropped connections, malformed events, context overflow in each
//! provider's shape, idle timeouts and cancellation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use futures::StreamExt;
use strata_core::ModelGateway;
use strata_protocol::{ModelError, ModelEvent, ModelRequest, StopReason};
use strata_providers::{
    AnthropicGateway, ChatCompletionsGateway, HttpOptions, OpenAiResponsesGateway, RetryPolicy,
};
use support::*;

const KEY: &str = "sk-test-secret-key-0123456789";

const RESPONSES_OK: &str = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"status\":\"in_progress\"}}\n\n\
event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"delta\":\"Hello\"}\n\n\
event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1,\"total_tokens\":6}}}\n\n";

fn responses_ok_events() -> Vec<ModelEvent> {
    vec![
        text("Hello"),
        usage(Some(5), None, Some(1), None, Some(6)),
        finished(StopReason::EndTurn),
    ]
}

fn request() -> ModelRequest {
    simple_request("be brief", "hi")
}

fn responses(server: &TestServer, options: HttpOptions) -> OpenAiResponsesGateway {
    OpenAiResponsesGateway::new(client(options), server.endpoint(Some(KEY)))
}

fn chat(server: &TestServer, options: HttpOptions) -> ChatCompletionsGateway {
    ChatCompletionsGateway::new(client(options), server.endpoint(Some(KEY)))
}

fn anthropic(server: &TestServer, options: HttpOptions) -> AnthropicGateway {
    AnthropicGateway::new(client(options), server.endpoint(Some(KEY)))
}

fn retrying(events: &[ModelEvent]) -> Vec<(u32, u32, u64, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::Retrying {
                attempt,
                of,
                delay_ms,
                cause,
            } => Some((*attempt, *of, *delay_ms, cause.clone())),
            _ => None,
        })
        .collect()
}

fn without_retrying(events: Vec<ModelEvent>) -> Vec<ModelEvent> {
    events
        .into_iter()
        .filter(|e| !matches!(e, ModelEvent::Retrying { .. }))
        .collect()
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_after_the_requested_wait_then_succeeds() {
    let server = TestServer::start(vec![
        Reply::status_with(
            429,
            &[("retry-after-ms", "40")],
            r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
        ),
        Reply::sse(RESPONSES_OK.as_bytes(), 9),
    ])
    .await;
    let started = std::time::Instant::now();
    let outcome = collect(responses(&server, fast_options(3)).stream_response(request())).await;
    assert!(started.elapsed() >= Duration::from_millis(40));
    assert_eq!(outcome.error, None);
    let retries = retrying(&outcome.events);
    assert_eq!(retries.len(), 1);
    let (attempt, of, delay_ms, cause) = &retries[0];
    assert_eq!((*attempt, *of, *delay_ms), (2, 3, 40));
    assert!(cause.contains("Rate limit reached"), "{cause}");
    assert_eq!(
        outcome.events[0],
        ModelEvent::Retrying {
            attempt: 2,
            of: 3,
            delay_ms: 40,
            cause: cause.clone(),
        }
    );
    assert_eq!(without_retrying(outcome.events), responses_ok_events());
    let received = server.received();
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[0].body, received[1].body,
        "the same request is re-sent"
    );
}

#[tokio::test]
async fn server_errors_twice_then_success_is_retried_with_capped_backoff() {
    let Some(wire) = wire() else { return };
    let body = wire.read("chat-completions/openai-gpt-4o_tool-call_usage.sse");
    let server = TestServer::start(vec![
        Reply::status(500, r#"{"error":{"message":"internal"}}"#),
        Reply::status(503, "upstream unavailable"),
        Reply::sse(&body, 64),
    ])
    .await;
    let outcome = collect(chat(&server, fast_options(4)).stream_response(request())).await;
    assert_eq!(outcome.error, None);
    let retries = retrying(&outcome.events);
    assert_eq!(
        retries.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(),
        vec![(2, 4), (3, 4)]
    );
    // Full jitter under the ceilings 5 ms and 10 ms.
    assert!(retries[0].2 <= 5 && retries[1].2 <= 10, "{retries:?}");
    assert!(retries[0].3.contains("HTTP 500"));
    assert!(retries[1].3.contains("HTTP 503"));
    assert_eq!(outcome.events.last(), Some(&finished(StopReason::ToolUse)));
    assert_eq!(server.received().len(), 3);
}

#[tokio::test]
async fn a_429_for_insufficient_quota_is_not_retried() {
    let server = TestServer::start(vec![
        Reply::status(
            429,
            r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
        ),
        Reply::sse(RESPONSES_OK.as_bytes(), 64),
    ])
    .await;
    let outcome = collect(responses(&server, fast_options(5)).stream_response(request())).await;
    assert!(outcome.events.is_empty(), "{:?}", outcome.events);
    assert!(matches!(
        outcome.error,
        Some(ModelError::QuotaExhausted { .. })
    ));
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_rate_limit_asking_for_longer_than_the_cap_is_reported_not_waited() {
    let server = TestServer::start(vec![Reply::status_with(
        429,
        &[("retry-after", "3600")],
        r#"{"error":{"message":"slow down"}}"#,
    )])
    .await;
    let outcome = collect(responses(&server, fast_options(5)).stream_response(request())).await;
    assert_eq!(
        outcome.error,
        Some(ModelError::RateLimited {
            retry_after_ms: Some(3_600_000),
            message: "HTTP 429: slow down".into(),
        })
    );
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn auth_and_invalid_requests_are_not_retried_and_never_show_the_key() {
    let echoed = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    let server = TestServer::start(vec![Reply::status(401, &echoed)]).await;
    let outcome = collect(responses(&server, fast_options(5)).stream_response(request())).await;
    let error = outcome.error.unwrap();
    assert!(matches!(error, ModelError::Auth { .. }));
    for shown in [
        error.to_string(),
        format!("{error:?}"),
        serde_json::to_string(&error).unwrap(),
    ] {
        assert!(!shown.contains("secret-key"), "{shown}");
    }
    assert_eq!(server.received().len(), 1);

    let server = TestServer::start(vec![Reply::status(
        422,
        r#"{"error":{"message":"unknown field"}}"#,
    )])
    .await;
    let outcome = collect(chat(&server, fast_options(5)).stream_response(request())).await;
    assert!(matches!(
        outcome.error,
        Some(ModelError::InvalidRequest { .. })
    ));
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_connection_dropped_after_output_ends_in_stream_interrupted_without_retry() {
    let keep = RESPONSES_OK.find("event: response.completed").unwrap();
    let server = TestServer::start(vec![
        Reply::cut_after(RESPONSES_OK.as_bytes(), keep),
        Reply::sse(RESPONSES_OK.as_bytes(), 64),
    ])
    .await;
    let outcome = collect(responses(&server, fast_options(3)).stream_response(request())).await;
    assert_eq!(outcome.events, vec![text("Hello")]);
    assert!(
        matches!(outcome.error, Some(ModelError::StreamInterrupted { .. })),
        "{:?}",
        outcome.error
    );
    // Output was handed on, so the request must not be sent again.
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_connection_dropped_before_any_output_is_retried() {
    let keep = RESPONSES_OK
        .find("event: response.output_text.delta")
        .unwrap();
    let server = TestServer::start(vec![
        Reply::cut_after(RESPONSES_OK.as_bytes(), keep),
        Reply::sse(RESPONSES_OK.as_bytes(), 64),
    ])
    .await;
    let outcome = collect(responses(&server, fast_options(3)).stream_response(request())).await;
    assert_eq!(outcome.error, None);
    assert_eq!(retrying(&outcome.events).len(), 1);
    assert_eq!(without_retrying(outcome.events), responses_ok_events());
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn a_stream_that_ends_cleanly_without_its_terminal_event_is_interrupted() {
    let keep = RESPONSES_OK.find("event: response.completed").unwrap();
    let server = TestServer::start(vec![Reply::sse(&RESPONSES_OK.as_bytes()[..keep], 64)]).await;
    let outcome = collect(responses(&server, fast_options(1)).stream_response(request())).await;
    assert_eq!(outcome.events, vec![text("Hello")]);
    assert_eq!(
        outcome.error,
        Some(ModelError::StreamInterrupted {
            message: "the stream ended before response.completed".into()
        })
    );
}

#[tokio::test]
async fn a_malformed_json_event_ends_the_stream_with_an_error() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
                data: [DONE]\n\n";
    let server = TestServer::start(vec![Reply::sse(body.as_bytes(), 16)]).await;
    let outcome = collect(chat(&server, fast_options(3)).stream_response(request())).await;
    assert_eq!(outcome.events, vec![text("Hi")]);
    match outcome.error {
        Some(ModelError::StreamInterrupted { message }) => {
            assert!(message.contains("malformed"), "{message}");
        }
        other => panic!("expected a malformed-event error, got {other:?}"),
    }
    assert_eq!(server.received().len(), 1);
}

async fn overflow_from(kind: &str, reply: Reply) -> (Option<ModelError>, usize) {
    let server = TestServer::start(vec![reply, Reply::sse(RESPONSES_OK.as_bytes(), 64)]).await;
    let gateway: Box<dyn ModelGateway> = match kind {
        "responses" => Box::new(responses(&server, fast_options(3))),
        "chat" => Box::new(chat(&server, fast_options(3))),
        _ => Box::new(anthropic(&server, fast_options(3))),
    };
    let outcome = collect(gateway.stream_response(request())).await;
    assert!(outcome.events.is_empty(), "{:?}", outcome.events);
    (outcome.error, server.received().len())
}

#[tokio::test]
async fn context_overflow_in_each_providers_shape_is_context_overflow_and_not_retried() {
    let Some(wire) = wire() else { return };
    let cases = [
        (
            "responses",
            Reply::status(
                400,
                r#"{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#,
            ),
        ),
        (
            "responses",
            Reply::sse(
                &wire.read("openai-responses/response-failed_context-length-exceeded.sse"),
                32,
            ),
        ),
        (
            "chat",
            Reply::status(
                400,
                r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 131234 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            ),
        ),
        (
            "chat",
            Reply::status(
                400,
                r#"{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#,
            ),
        ),
        (
            "chat",
            Reply::status(
                400,
                r#"{"error":{"message":"The decoder prompt (length 40000) is longer than the model's context length of 32768.","type":"BadRequestError","param":null,"code":400}}"#,
            ),
        ),
        (
            "chat",
            Reply::status(
                400,
                r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}"#,
            ),
        ),
        (
            "anthropic",
            Reply::status(
                400,
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}}"#,
            ),
        ),
    ];
    for (kind, reply) in cases {
        let (error, requests) = overflow_from(kind, reply.clone()).await;
        assert!(
            matches!(error, Some(ModelError::ContextOverflow { .. })),
            "{kind} {reply:?} -> {error:?}"
        );
        assert_eq!(requests, 1, "{kind}: overflow must not be retried");
    }
}

#[tokio::test]
async fn an_anthropic_overloaded_error_event_before_output_is_transient_and_retried() {
    let overloaded = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
                      event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let ok = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
              event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
              event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n\
              event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
              event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n\
              event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let server = TestServer::start(vec![
        Reply::sse(overloaded.as_bytes(), 20),
        Reply::status(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
        Reply::sse(ok.as_bytes(), 20),
    ])
    .await;
    let outcome = collect(anthropic(&server, fast_options(3)).stream_response(request())).await;
    assert_eq!(outcome.error, None);
    let retries = retrying(&outcome.events);
    assert_eq!(retries.len(), 2);
    assert!(retries[0].3.contains("overloaded_error"), "{retries:?}");
    assert!(retries[1].3.contains("HTTP 529"), "{retries:?}");
    assert_eq!(
        without_retrying(outcome.events),
        vec![
            text("Hi"),
            usage(Some(3), None, Some(2), None, None),
            finished(StopReason::EndTurn),
        ]
    );
}

#[tokio::test]
async fn a_stream_that_goes_quiet_times_out_and_the_connection_is_closed() {
    let mut server = TestServer::start(vec![Reply::Stall {
        first:
            b"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{}}\n\n"
                .to_vec(),
    }])
    .await;
    let options = HttpOptions {
        idle_timeout: Duration::from_millis(300),
        ..fast_options(1)
    };
    let started = std::time::Instant::now();
    let outcome = collect(responses(&server, options).stream_response(request())).await;
    assert!(started.elapsed() >= Duration::from_millis(300));
    match outcome.error {
        Some(ModelError::StreamInterrupted { message }) => {
            assert!(message.contains("no data"), "{message}");
        }
        other => panic!("expected an idle timeout, got {other:?}"),
    }
    server.client_disconnected().await;
}

#[tokio::test]
async fn dropping_the_stream_aborts_the_request() {
    let mut server = TestServer::start(vec![Reply::Stall {
        first: b"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"Hel\"}\n\n"
            .to_vec(),
    }])
    .await;
    let gateway = responses(&server, fast_options(1));
    let mut stream = gateway.stream_response(request());
    assert_eq!(stream.next().await, Some(Ok(text("Hel"))));
    drop(stream);
    // The server's read returns once the client has closed the connection.
    server.client_disconnected().await;
}

#[tokio::test]
async fn a_non_streaming_request_is_retried_after_a_server_error() {
    let Some(wire) = wire() else { return };
    let body = wire.read("anthropic/nonstream_claude-sonnet-4-5_text.json");
    let server = TestServer::start(vec![
        Reply::status(500, "oops"),
        Reply::Full {
            status: 200,
            headers: vec![],
            body,
        },
    ])
    .await;
    let response = anthropic(&server, fast_options(3))
        .create_response(request())
        .await
        .unwrap();
    assert_eq!(response.usage.unwrap().input_tokens, Some(12));
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn retries_stop_at_the_attempt_limit() {
    let server = TestServer::start(vec![
        Reply::status(500, "a"),
        Reply::status(500, "b"),
        Reply::status(500, "c"),
    ])
    .await;
    let outcome = collect(
        chat(
            &server,
            HttpOptions {
                retry: RetryPolicy {
                    max_attempts: 2,
                    ..fast_options(2).retry
                },
                ..fast_options(2)
            },
        )
        .stream_response(request()),
    )
    .await;
    assert_eq!(retrying(&outcome.events).len(), 1);
    assert_eq!(
        outcome.error,
        Some(ModelError::Transient {
            message: "HTTP 500: b".into()
        })
    );
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn gateways_never_show_the_key_in_debug_output() {
    let server = TestServer::start(vec![]).await;
    let shown = [
        format!("{:?}", responses(&server, fast_options(1))),
        format!("{:?}", chat(&server, fast_options(1))),
        format!("{:?}", anthropic(&server, fast_options(1))),
        format!("{:?}", server.endpoint(Some(KEY))),
    ];
    for text in shown {
        assert!(!text.contains("secret-key"), "{text}");
        assert!(text.contains("REDACTED"), "{text}");
    }
}

#[tokio::test]
async fn a_json_error_body_where_a_stream_was_expected_is_classified() {
    let server = TestServer::start(vec![Reply::Full {
        status: 200,
        headers: vec![],
        body: br#"{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"BadRequestError","code":400}}"#.to_vec(),
    }])
    .await;
    let outcome = collect(chat(&server, fast_options(3)).stream_response(request())).await;
    assert!(
        matches!(outcome.error, Some(ModelError::ContextOverflow { .. })),
        "{:?}",
        outcome.error
    );
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_in_both_modes() {
    let mut server = TestServer::start(vec![Reply::Silent, Reply::Silent]).await;
    let options = HttpOptions {
        idle_timeout: Duration::from_millis(200),
        response_timeout: Duration::from_millis(300),
        ..fast_options(1)
    };
    let outcome = collect(responses(&server, options.clone()).stream_response(request())).await;
    assert_eq!(
        outcome.error,
        Some(ModelError::Transient {
            message: "no response within 0.2s".into()
        })
    );
    server.client_disconnected().await;
    let error = responses(&server, options)
        .create_response(request())
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ModelError::Transient {
            message: "no response within 0.3s".into()
        }
    );
    server.client_disconnected().await;
}
