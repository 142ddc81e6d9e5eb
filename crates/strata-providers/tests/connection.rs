//! Checking a provider over real local HTTP: a closed port is "unreachable"
//! with its host, "Test connection" sends one small request, and the model
//! list is read from each provider's endpoint with its own headers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_protocol::{FailureKind, ModelError, ProviderFailure, ProviderKind};
use strata_providers::Endpoint;
use strata_providers::probe::{list_models, probe_client, test_connection};
use support::*;

const KEY: &str = "sk-test-probe-key-0123456789";

const CHAT_OK: &str = r#"{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"p"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#;

/// A port nothing listens on: bound once, then let go.
fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

fn probe() -> strata_providers::HttpClient {
    probe_client(&fast_options(3)).unwrap()
}

#[tokio::test]
async fn a_closed_port_is_unreachable_with_its_host_and_is_tried_once() {
    let base = closed_port_url();
    let host = base
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_owned();
    let error = test_connection(
        ProviderKind::OpenaiChat,
        probe(),
        Endpoint::new(base, None),
        "m",
    )
    .await
    .unwrap_err();
    let ModelError::Unreachable { host: named, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(named, &host);
    let failure = ProviderFailure::of(&error);
    assert_eq!(failure.kind, FailureKind::Unreachable);
    assert_eq!(
        failure.sentence,
        format!("Can't reach {host} — is the server running?")
    );
    assert!(error.is_retryable());
}

#[tokio::test]
async fn the_connection_test_sends_one_chat_request_of_one_token_with_the_key() {
    let server = TestServer::start(vec![Reply::status_with(
        200,
        &[("content-type", "application/json")],
        CHAT_OK,
    )])
    .await;
    test_connection(
        ProviderKind::OpenaiChat,
        probe(),
        server.endpoint(Some(KEY)),
        "qwen3",
    )
    .await
    .unwrap();
    let [request] = &server.received()[..] else {
        panic!("{:?}", server.received());
    };
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = request.json();
    assert_eq!(body["model"], "qwen3");
    assert_eq!(body["max_tokens"], 1, "{body}");
}

#[tokio::test]
async fn a_rejected_key_fails_the_test_once_as_key_rejected_without_the_key() {
    let server = TestServer::start(vec![
        Reply::status_with(
            401,
            &[("content-type", "application/json")],
            r#"{"error":{"message":"Incorrect API key provided: sk-test-probe-key-0123456789","code":"invalid_api_key"}}"#,
        ),
        Reply::status(401, "{}"),
    ])
    .await;
    let error = test_connection(
        ProviderKind::OpenaiResponses,
        probe(),
        server.endpoint(Some(KEY)),
        "gpt-5",
    )
    .await
    .unwrap_err();
    let failure = ProviderFailure::of(&error);
    assert_eq!(failure.kind, FailureKind::KeyRejected);
    assert!(
        !failure.details.contains("probe-key"),
        "{}",
        failure.details
    );
    assert_eq!(server.received().len(), 1, "no retry of a check");
    assert_eq!(server.received()[0].json()["max_output_tokens"], 16);
}

#[tokio::test]
async fn openai_compatible_servers_list_their_models_from_get_models() {
    let server = TestServer::start(vec![Reply::status_with(
        200,
        &[("content-type", "application/json")],
        r#"{"object":"list","data":[{"id":"qwen3:8b","object":"model"},{"id":"llama3.2","object":"model"}]}"#,
    )])
    .await;
    let models = list_models(
        ProviderKind::OpenaiChat,
        &probe(),
        &server.endpoint(Some(KEY)),
    )
    .await
    .unwrap();
    assert_eq!(models.unwrap(), ["llama3.2", "qwen3:8b"]);
    let request = &server.received()[0];
    assert_eq!(request.method, "GET");
    assert_eq!(request.path, "/v1/models");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

#[tokio::test]
async fn anthropic_lists_models_with_its_key_header_and_version() {
    let server = TestServer::start(vec![Reply::status_with(
        200,
        &[("content-type", "application/json")],
        r#"{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5"}],"has_more":false}"#,
    )])
    .await;
    let models = list_models(
        ProviderKind::Anthropic,
        &probe(),
        &server.endpoint(Some(KEY)),
    )
    .await
    .unwrap();
    assert_eq!(models.unwrap(), ["claude-sonnet-4-5"]);
    let request = &server.received()[0];
    assert_eq!(request.path, "/v1/models?limit=1000");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
}

#[tokio::test]
async fn a_server_without_a_model_list_says_none_and_a_bad_key_is_an_error() {
    let server = TestServer::start(vec![
        Reply::status(404, "not found"),
        Reply::status_with(
            401,
            &[("content-type", "application/json")],
            r#"{"error":{"message":"bad key"}}"#,
        ),
    ])
    .await;
    let endpoint = server.endpoint(None);
    let none = list_models(ProviderKind::OpenaiChat, &probe(), &endpoint).await;
    assert_eq!(none.unwrap(), None);
    let error = list_models(ProviderKind::OpenaiChat, &probe(), &endpoint)
        .await
        .unwrap_err();
    assert!(matches!(error, ModelError::Auth { .. }), "{error:?}");
}
