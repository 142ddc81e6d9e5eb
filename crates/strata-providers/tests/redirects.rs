//! Credentials go only to the configured origin: a redirect to another
//! origin (another port is another origin) is not followed by any provider,
//! in either mode, so the other server never sees the key; a redirect within
//! the origin is followed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_core::ModelGateway;
use strata_protocol::{ModelError, StopReason};
use strata_providers::{AnthropicGateway, ChatCompletionsGateway, OpenAiResponsesGateway};
use support::*;

const KEY: &str = "sk-redirect-secret-0123456789";

const RESPONSES_OK: &str = "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"Hi\"}\n\n\
data: {\"type\":\"response.completed\",\"response\":{}}\n\n";

fn gateways(server: &TestServer) -> Vec<(&'static str, Box<dyn ModelGateway>)> {
    let endpoint = || server.endpoint(Some(KEY));
    vec![
        (
            "/responses",
            Box::new(OpenAiResponsesGateway::new(
                client(fast_options(3)),
                endpoint(),
            )),
        ),
        (
            "/chat/completions",
            Box::new(ChatCompletionsGateway::new(
                client(fast_options(3)),
                endpoint(),
            )),
        ),
        (
            "/messages",
            Box::new(AnthropicGateway::new(client(fast_options(3)), endpoint())),
        ),
    ]
}

/// A server that answers every request with a redirect to `target`.
async fn redirecting_to(target: &str, count: usize) -> TestServer {
    let reply = Reply::status_with(307, &[("location", target)], "");
    TestServer::start(vec![reply; count]).await
}

fn assert_refused(error: &ModelError, other: &TestServer) {
    match error {
        ModelError::InvalidRequest { message } => {
            let origin = other.base_url.trim_end_matches("/v1");
            assert!(
                message.starts_with(&format!("HTTP 307: redirect to {origin} not followed")),
                "{message}"
            );
            assert!(!message.contains(KEY), "{message}");
        }
        other => panic!("expected a refused redirect, got {other:?}"),
    }
}

#[tokio::test]
async fn no_provider_follows_a_redirect_to_another_origin_streaming_or_not() {
    // The other origin would answer; it must never be asked.
    let other = TestServer::start(vec![Reply::sse(RESPONSES_OK.as_bytes(), 64); 6]).await;
    let first = redirecting_to(&format!("{}/steal", other.base_url), 6).await;
    for (path, gateway) in gateways(&first) {
        let streamed = collect(gateway.stream_response(simple_request("s", "hi"))).await;
        assert_refused(streamed.error.as_ref().unwrap(), &other);
        assert!(streamed.events.is_empty(), "{path}: not retried");
        let whole = gateway
            .create_response(simple_request("s", "hi"))
            .await
            .unwrap_err();
        assert_refused(&whole, &other);
    }
    assert!(other.received().is_empty(), "{:?}", other.received());
    let asked = first.received();
    assert_eq!(asked.len(), 6);
    // The configured origin did get the credentials, each in its header.
    assert_eq!(
        asked[0].header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
    assert_eq!(asked[4].header("x-api-key"), Some(KEY));
}

#[tokio::test]
async fn a_redirect_within_the_configured_origin_is_followed_with_its_credentials() {
    let server = TestServer::start(vec![
        Reply::status_with(308, &[("location", "/v1/moved/responses")], ""),
        Reply::sse(RESPONSES_OK.as_bytes(), 16),
    ])
    .await;
    let gateway = OpenAiResponsesGateway::new(client(fast_options(1)), server.endpoint(Some(KEY)));
    let outcome = collect(gateway.stream_response(simple_request("s", "hi"))).await;
    assert_eq!(outcome.error, None);
    assert_eq!(
        outcome.events,
        vec![text("Hi"), finished(StopReason::EndTurn)]
    );
    let received = server.received();
    assert_eq!(received[1].path, "/v1/moved/responses");
    assert_eq!(
        received[1].header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
}
