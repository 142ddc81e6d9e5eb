//! Redirects over real TLS: an `https://` endpoint on loopback, with a
//! certificate the test made and the client trusts (verification on). A
//! 307 to `http://` is never followed, whether it points at another server
//! or at the same host and port with only the scheme changed, so no key
//! crosses in clear text; the person gets one line naming both origins. A
//! redirect within the https origin is still followed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_core::ModelGateway;
use strata_protocol::{ModelError, StopReason};
use strata_providers::{
    AnthropicGateway, ChatCompletionsGateway, HttpClient, OpenAiResponsesGateway,
};
use support::tls::{LoopbackTls, SharedPort};
use support::*;

const KEY: &str = "sk-tls-redirect-secret-5e1f0a9c7b3d";

const RESPONSES_OK: &str = "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"Hi\"}\n\n\
data: {\"type\":\"response.completed\",\"response\":{}}\n\n";

fn trusting(tls: &LoopbackTls) -> HttpClient {
    HttpClient::trusting(fast_options(3), std::slice::from_ref(&tls.root)).unwrap()
}

/// The three providers against `server`, with the path each posts to.
fn gateways(tls: &LoopbackTls, server: &TestServer) -> Vec<(&'static str, Box<dyn ModelGateway>)> {
    let endpoint = || server.endpoint(Some(KEY));
    vec![
        (
            "responses",
            Box::new(OpenAiResponsesGateway::new(trusting(tls), endpoint())),
        ),
        (
            "chat/completions",
            Box::new(ChatCompletionsGateway::new(trusting(tls), endpoint())),
        ),
        (
            "messages",
            Box::new(AnthropicGateway::new(trusting(tls), endpoint())),
        ),
    ]
}

fn origin(server: &TestServer) -> &str {
    server.base_url.trim_end_matches("/v1")
}

/// The error a person sees: one line naming where the redirect pointed and
/// where credentials go, without the key.
fn assert_refused(error: &ModelError, from: &TestServer, to: &str) {
    let ModelError::InvalidRequest { message } = error else {
        panic!("expected a refused redirect, got {error:?}");
    };
    assert_eq!(
        message,
        &format!(
            "HTTP 307: redirect to {to} not followed; credentials go only to {}",
            origin(from)
        )
    );
    assert!(
        !message.contains('\n') && !message.contains(KEY),
        "{message}"
    );
    assert!(!error.is_retryable(), "{error:?}");
}

/// Every request `server` got carried the key in its provider's header, over TLS.
fn assert_key_sent(server: &TestServer) {
    let received = server.received();
    assert_eq!(received.len(), 6, "{received:?}");
    for request in &received {
        let sent = request
            .header("authorization")
            .map(|bearer| bearer.trim_start_matches("Bearer "))
            .or_else(|| request.header("x-api-key"));
        assert_eq!(sent, Some(KEY), "{request:?}");
    }
}

#[tokio::test]
async fn https_redirected_to_http_on_another_server_sends_it_nothing() {
    let tls = LoopbackTls::new();
    // The plain server would answer; it must never be asked.
    let plain = TestServer::start(vec![Reply::sse(RESPONSES_OK.as_bytes(), 64); 6]).await;
    let steal = format!("{}/steal", plain.base_url);
    let redirect = Reply::status_with(307, &[("location", &steal)], "");
    let secure = SharedPort::start(&tls, vec![redirect; 6], vec![]).await;
    assert!(secure.https.base_url.starts_with("https://127.0.0.1:"));

    for (path, gateway) in gateways(&tls, &secure.https) {
        let streamed = collect(gateway.stream_response(simple_request("s", "hi"))).await;
        assert_refused(
            streamed.error.as_ref().unwrap(),
            &secure.https,
            origin(&plain),
        );
        assert!(streamed.events.is_empty(), "{path}: not retried");
        let whole = gateway
            .create_response(simple_request("s", "hi"))
            .await
            .unwrap_err();
        assert_refused(&whole, &secure.https, origin(&plain));
    }
    assert!(plain.received().is_empty(), "{:?}", plain.received());
    assert!(secure.http.received().is_empty());
    // The key did travel, encrypted, to the configured origin alone.
    assert_key_sent(&secure.https);
}

#[tokio::test]
async fn a_same_origin_downgrade_from_https_to_http_is_refused() {
    let tls = LoopbackTls::new();
    // The TLS side sends each request to the same host and port over
    // plain HTTP, which would answer there in clear text.
    let port = SharedPort::start_with(&tls, |http_base| {
        let downgrade = format!("{http_base}/responses");
        let redirect = Reply::status_with(307, &[("location", &downgrade)], "");
        (
            vec![redirect; 6],
            vec![Reply::sse(RESPONSES_OK.as_bytes(), 64); 6],
        )
    })
    .await;
    let downgrade_origin = origin(&port.http).to_string();

    for (path, gateway) in gateways(&tls, &port.https) {
        let streamed = collect(gateway.stream_response(simple_request("s", "hi"))).await;
        assert_refused(
            streamed.error.as_ref().unwrap(),
            &port.https,
            &downgrade_origin,
        );
        assert!(streamed.events.is_empty(), "{path}: not retried");
        let whole = gateway
            .create_response(simple_request("s", "hi"))
            .await
            .unwrap_err();
        assert_refused(&whole, &port.https, &downgrade_origin);
    }
    assert!(
        port.http.received().is_empty(),
        "{:?}",
        port.http.received()
    );
    assert_key_sent(&port.https);
}

#[tokio::test]
async fn a_redirect_within_the_https_origin_is_followed_over_tls() {
    let tls = LoopbackTls::new();
    let port = SharedPort::start(
        &tls,
        vec![
            Reply::status_with(308, &[("location", "/v1/moved/responses")], ""),
            Reply::sse(RESPONSES_OK.as_bytes(), 16),
        ],
        vec![],
    )
    .await;
    let gateway = OpenAiResponsesGateway::new(trusting(&tls), port.https.endpoint(Some(KEY)));
    let outcome = collect(gateway.stream_response(simple_request("s", "hi"))).await;
    assert_eq!(outcome.error, None);
    assert_eq!(
        outcome.events,
        vec![text("Hi"), finished(StopReason::EndTurn)]
    );
    let received = port.https.received();
    assert_eq!(received[1].path, "/v1/moved/responses");
    assert_eq!(
        received[1].header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
}

#[tokio::test]
async fn a_certificate_the_client_does_not_trust_is_refused() {
    // Verification is on: the same server, without its CA among the roots.
    let tls = LoopbackTls::new();
    let port = SharedPort::start(&tls, vec![Reply::sse(RESPONSES_OK.as_bytes(), 16)], vec![]).await;
    let gateway =
        OpenAiResponsesGateway::new(client(fast_options(1)), port.https.endpoint(Some(KEY)));
    let outcome = collect(gateway.stream_response(simple_request("s", "hi"))).await;
    assert!(outcome.events.is_empty(), "{outcome:?}");
    assert!(outcome.error.is_some(), "{outcome:?}");
    assert!(
        port.https.received().is_empty(),
        "{:?}",
        port.https.received()
    );
}
