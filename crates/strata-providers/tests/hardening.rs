//! What a hostile or broken endpoint cannot do: hold a stream open with
//! keep-alive comments, make Strata buffer an endless line or an endless
//! answer, outlast the response deadline, or dump an HTML page into an
//! error.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::{Duration, Instant};

use strata_core::ModelGateway;
use strata_protocol::ModelError;
use strata_providers::{AnthropicGateway, ByteLimits, HttpOptions, OpenAiResponsesGateway};
use support::*;

const DELTA: &str = "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"more text \"}\n\n";

fn gateway(server: &TestServer, options: HttpOptions) -> OpenAiResponsesGateway {
    OpenAiResponsesGateway::new(
        client(options),
        server.endpoint(Some("sk-hardening-0123456789")),
    )
}

fn stream_of(chunk: &[u8], count: usize, delay: Duration) -> Reply {
    Reply::Stream {
        chunks: vec![chunk.to_vec(); count],
        delay,
        cut: false,
    }
}

async fn error_of(server: &TestServer, options: HttpOptions) -> (ModelError, Duration) {
    let started = Instant::now();
    let outcome =
        collect(gateway(server, options).stream_response(simple_request("s", "hi"))).await;
    (
        outcome.error.expect("the stream should fail"),
        started.elapsed(),
    )
}

fn message(error: &ModelError) -> String {
    let text = error.to_string();
    assert_eq!(text.lines().count(), 1, "not one line: {text:?}");
    text
}

#[tokio::test]
async fn keep_alive_comments_do_not_hold_a_silent_stream_open() {
    // Four seconds of comments, one every 50 ms; the idle timeout is 300 ms.
    let server = TestServer::start(vec![stream_of(
        b": keep-alive\n\n",
        80,
        Duration::from_millis(50),
    )])
    .await;
    let options = HttpOptions {
        idle_timeout: Duration::from_millis(300),
        ..fast_options(1)
    };
    let (error, took) = error_of(&server, options).await;
    assert!(
        message(&error).contains("no data from the provider for 0.3s"),
        "{error}"
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn anthropic_ping_events_do_not_hold_a_silent_stream_open() {
    let ping = b"event: ping\ndata: {\"type\": \"ping\"}\n\n";
    let server = TestServer::start(vec![stream_of(ping, 80, Duration::from_millis(50))]).await;
    let options = HttpOptions {
        idle_timeout: Duration::from_millis(300),
        ..fast_options(1)
    };
    let gateway = AnthropicGateway::new(client(options), server.endpoint(None));
    let started = Instant::now();
    let outcome = collect(gateway.stream_response(simple_request("s", "hi"))).await;
    let error = outcome.error.expect("the stream should fail");
    assert!(
        message(&error).contains("no data from the provider for 0.3s"),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn an_endless_line_stops_at_the_line_cap() {
    let mut line = b"data: ".to_vec();
    line.extend(std::iter::repeat_n(b'x', 64 * 1024));
    let server = TestServer::start(vec![Reply::Stream {
        chunks: std::iter::once(line)
            .chain(std::iter::repeat_n(vec![b'x'; 64 * 1024], 200))
            .collect(),
        delay: Duration::ZERO,
        cut: false,
    }])
    .await;
    let options = HttpOptions {
        limits: ByteLimits {
            sse_line: 256 * 1024,
            ..ByteLimits::default()
        },
        ..fast_options(1)
    };
    let (error, _) = error_of(&server, options).await;
    assert_eq!(
        message(&error),
        "the response stream ended early: the provider sent an event-stream line larger \
         than 256 KiB; the response was abandoned"
    );
}

#[tokio::test]
async fn an_endless_answer_stops_at_the_response_content_cap() {
    let server = TestServer::start(vec![stream_of(DELTA.as_bytes(), 2000, Duration::ZERO)]).await;
    let options = HttpOptions {
        limits: ByteLimits {
            response_content: 1024,
            ..ByteLimits::default()
        },
        ..fast_options(1)
    };
    let (error, _) = error_of(&server, options).await;
    assert!(
        message(&error).contains("a response larger than 1 KiB"),
        "{error}"
    );
}

#[tokio::test]
async fn a_stream_that_keeps_sending_ends_at_the_response_deadline() {
    // Text every 20 ms for 40 s: never idle, never finished.
    let server = TestServer::start(vec![stream_of(
        DELTA.as_bytes(),
        2000,
        Duration::from_millis(20),
    )])
    .await;
    let options = HttpOptions {
        response_deadline: Duration::from_millis(400),
        ..fast_options(1)
    };
    let (error, took) = error_of(&server, options).await;
    assert!(
        message(&error).contains("0.4s response deadline"),
        "{error}"
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
}

const PAGE: &str = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body>\n<h1>Bad Gateway</h1>\n<p>nginx</p>\n</body></html>\n";

#[tokio::test]
async fn an_html_error_page_becomes_one_line_naming_the_status() {
    let page = |status| Reply::status_with(status, &[("content-type", "text/html")], PAGE);
    let server = TestServer::start(vec![page(502), page(502)]).await;
    let (error, _) = error_of(&server, fast_options(2)).await;
    assert_eq!(
        error,
        ModelError::Transient {
            message: "HTTP 502: Bad Gateway; the server answered with an HTML page, not the API"
                .into()
        }
    );
    assert_eq!(server.received().len(), 2, "a 502 is retried");

    let server = TestServer::start(vec![page(200)]).await;
    let (error, _) = error_of(&server, fast_options(3)).await;
    assert_eq!(
        error,
        ModelError::InvalidRequest {
            message:
                "HTTP 200: the server answered with an HTML page, not the API (check the base URL)"
                    .into()
        }
    );
    assert_eq!(server.received().len(), 1, "an HTML 200 is not retried");
}

#[tokio::test]
async fn a_huge_error_body_is_read_only_up_to_its_cap_and_shown_shortened() {
    let body = format!("{{\"error\":{{\"message\":\"{}\"}}}}", "y".repeat(4 << 20));
    let server = TestServer::start(vec![Reply::status(400, &body)]).await;
    let (error, _) = error_of(&server, fast_options(1)).await;
    let text = message(&error);
    // The capped body is no longer JSON, so its start is shown, shortened.
    assert!(text.len() < 1200, "{}", text.len());
    assert!(text.contains("HTTP 400: {\"error\""), "{text}");
}

#[tokio::test]
async fn a_non_streaming_body_over_its_cap_is_refused_not_parsed() {
    let body = format!(
        "{{\"output\":[{{\"type\":\"message\",\"content\":[{{\"type\":\"output_text\",\"text\":\"{}\"}}]}}]}}",
        "z".repeat(8 * 1024)
    );
    let server = TestServer::start(vec![Reply::status(200, &body)]).await;
    let options = HttpOptions {
        limits: ByteLimits {
            json_body: 4 * 1024,
            ..ByteLimits::default()
        },
        ..fast_options(1)
    };
    let error = gateway(&server, options)
        .create_response(simple_request("s", "hi"))
        .await
        .unwrap_err();
    assert_eq!(
        message(&error),
        "the response stream ended early: the provider sent a response body larger than 4 KiB; \
         the response was abandoned"
    );
}
