//! Prompt caching end to end: Strata's real agent loop (real tools over a
//! real workspace, a real session file) talks over HTTP to a local server
//! that bills every request by the provider's caching rules
//! (`support::caching`), for Anthropic Messages, OpenAI Responses and Chat
//! Completions. Over several turns, with a layered eviction, a pause past the
//! TTL and a compaction, the usage recorded in the session is exactly what
//! the server computed, and consecutive rounds without a context change read
//! everything the previous round sent from the cache.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use strata_core::ModelGateway;
use strata_core::agent::{Agent, AgentConfig, AgentParts, ApprovalBroker, event_channel};
use strata_core::store::{ReadMode, SessionStore};
use strata_core::tools::{CancellationToken, SessionApprovals, ToolConfig, ToolRegistry};
use strata_protocol::{ApprovalPolicy, CompactionPolicy, RecordBody, ThresholdSetting, TokenUsage};
use strata_providers::{AnthropicGateway, ChatCompletionsGateway, OpenAiResponsesGateway};
use strata_testkit::prompt_cache::{OPENAI_INCREMENT, OPENAI_MIN_TOKENS};
use support::caching::{Answer, Api, Billed, CachingServer};
use support::{client, fast_options};

/// Past Anthropic's 5-minute TTL and OpenAI's in-memory retention here.
const COFFEE_BREAK: u64 = 6 * 60;
/// OpenAI's in-memory retention the server applies.
const RETENTION: u64 = 5 * 60;

/// Files of about 2,000 tokens each (8 KB, under the tools' 16 KB cap).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..12 {
        let line = format!("fn item_{n}() -> u32 {{ {n} }} // keep the totals in integer cents\n");
        let text = line.repeat(8_000 / line.len());
        std::fs::write(dir.path().join(format!("f{n}.rs")), text).unwrap();
    }
    dir
}

fn reads(files: std::ops::Range<usize>) -> Vec<Answer> {
    files.map(|n| Answer::read(&format!("f{n}.rs"))).collect()
}

/// What the session recorded for each round, and for each summary.
struct Recorded {
    rounds: Vec<TokenUsage>,
    summaries: Vec<TokenUsage>,
    /// For each round after the first: whether the history was rewritten
    /// (an eviction or a compaction) since the round before.
    rewritten: Vec<bool>,
    evictions: usize,
}

fn recorded(store: &SessionStore, agent: &Agent) -> Recorded {
    let records = store
        .open_reader(agent.id(), ReadMode::Strict)
        .unwrap()
        .records;
    let mut out = Recorded {
        rounds: Vec::new(),
        summaries: Vec::new(),
        rewritten: Vec::new(),
        evictions: 0,
    };
    let mut changed = false;
    for record in records {
        match record.body {
            RecordBody::TokenUsage(usage) => {
                if !out.rounds.is_empty() {
                    out.rewritten.push(changed);
                }
                changed = false;
                out.rounds.push(usage.usage);
            }
            RecordBody::ToolOutputsEvicted(_) => {
                out.evictions += 1;
                changed = true;
            }
            RecordBody::LayeredCompaction(compaction) => {
                changed = true;
                out.summaries
                    .extend(compaction.summary.metadata.summarizer_usage.map(|u| *u));
            }
            _ => {}
        }
    }
    out
}

/// What Strata should have recorded for a request the server billed.
fn as_recorded(api: Api, billed: &Billed) -> TokenUsage {
    let usage = billed.usage;
    match api {
        Api::Anthropic => TokenUsage {
            input_tokens: Some(usage.input()),
            cached_input_tokens: Some(usage.read),
            cache_write_input_tokens: Some(usage.written()),
            cache_write_5m_input_tokens: Some(usage.written_5m),
            cache_write_1h_input_tokens: Some(usage.written_1h),
            output_tokens: Some(billed.output),
            ..TokenUsage::default()
        },
        Api::Responses | Api::Chat => TokenUsage {
            input_tokens: Some(usage.input()),
            cached_input_tokens: Some(usage.read),
            output_tokens: Some(billed.output),
            reasoning_output_tokens: (api == Api::Responses).then_some(0),
            total_tokens: Some(usage.input() + billed.output),
            ..TokenUsage::default()
        },
    }
}

/// What a round reads when everything the previous round sent is an
/// unchanged prefix of it.
fn full_read(api: Api, previous_input: u64) -> u64 {
    match api {
        Api::Anthropic => previous_input,
        Api::Responses | Api::Chat if previous_input < OPENAI_MIN_TOKENS => 0,
        Api::Responses | Api::Chat => {
            OPENAI_MIN_TOKENS
                + (previous_input - OPENAI_MIN_TOKENS) / OPENAI_INCREMENT * OPENAI_INCREMENT
        }
    }
}

fn gateway(api: Api, server: &CachingServer) -> Arc<dyn ModelGateway> {
    let client = client(fast_options(1));
    match api {
        Api::Anthropic => Arc::new(AnthropicGateway::new(client, server.endpoint())),
        Api::Responses => Arc::new(OpenAiResponsesGateway::new(client, server.endpoint())),
        Api::Chat => Arc::new(
            ChatCompletionsGateway::new(client, server.endpoint()).with_prompt_cache_key(true),
        ),
    }
}

/// A layered session of the real agent loop over a real workspace and
/// session file, talking to `server`, compacting at 16,000 tokens.
struct Run {
    agent: Agent,
    store: SessionStore,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

impl Run {
    fn start(api: Api, server: &CachingServer, model: &str) -> Self {
        let dir = workspace();
        let home = tempfile::tempdir().unwrap();
        let (events, _received) = event_channel();
        let parts = AgentParts {
            gateway: gateway(api, server),
            tools: ToolRegistry::new(dir.path(), ToolConfig::default()).unwrap(),
            approvals: SessionApprovals::new(ApprovalPolicy::Auto),
            config: AgentConfig {
                context_window: Some(128_000),
                threshold_setting: Some(ThresholdSetting::Tokens(16_000)),
                compaction: Some(CompactionPolicy::Layered),
                ..AgentConfig::new("caching-server", model)
            },
            events,
            broker: ApprovalBroker::non_interactive(),
        };
        let store = SessionStore::new(home.path().join("sessions"));
        let agent = Agent::start(&store, parts).unwrap();
        Run {
            agent,
            store,
            _dirs: (dir, home),
        }
    }
}

/// Three turns through the real agent loop: seven reads (the threshold is
/// reached and older outputs are evicted), a minute's pause, three more
/// reads, a compaction by hand, a coffee break past the TTL, two more reads.
async fn session(api: Api, model: &str) -> (Vec<Billed>, Recorded) {
    let mut script = reads(0..7);
    script.push(Answer::Text("Read the first seven.".into()));
    script.extend(reads(7..10));
    script.push(Answer::Text("Read three more.".into()));
    script.extend(reads(10..12));
    script.push(Answer::Text("Done.".into()));
    let server = CachingServer::start(api, 1024, RETENTION, script).await;
    let mut run = Run::start(api, &server, model);
    let (store, agent) = (&run.store, &mut run.agent);
    let report = agent
        .run_turn("Read the files.", CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(report.error, None);
    server.advance(60);
    agent
        .run_turn("Read three more.", CancellationToken::new())
        .await
        .unwrap();
    agent
        .compact_now(None, CancellationToken::new())
        .await
        .unwrap();
    server.advance(COFFEE_BREAK);
    agent
        .run_turn("And the last two.", CancellationToken::new())
        .await
        .unwrap();
    (server.billed(), recorded(store, agent))
}

async fn recorded_usage_is_what_the_server_billed(api: Api, model: &str) {
    let (billed, recorded) = session(api, model).await;
    let rounds: Vec<&Billed> = billed.iter().filter(|b| b.streamed).collect();
    let summaries: Vec<&Billed> = billed.iter().filter(|b| !b.streamed).collect();
    assert_eq!(rounds.len(), 15, "{billed:#?}");
    assert!(recorded.evictions >= 1, "the threshold was never reached");
    assert_eq!(summaries.len(), 1, "{billed:#?}");
    // Exactly what the server computed, round by round.
    let expected: Vec<TokenUsage> = rounds.iter().map(|b| as_recorded(api, b)).collect();
    assert_eq!(recorded.rounds, expected);
    let expected: Vec<TokenUsage> = summaries.iter().map(|b| as_recorded(api, b)).collect();
    assert_eq!(recorded.summaries, expected);
    // The summary is asked in the session's own context, so it reads back
    // everything the round before it sent rather than paying for it again.
    let summary = summaries[0];
    let before = billed
        .iter()
        .take_while(|request| request.streamed)
        .last()
        .expect("no round before the summary");
    assert_eq!(
        summary.usage.read,
        full_read(api, before.usage.input()),
        "the summary request did not read the session's cached prefix"
    );

    // Consecutive rounds without a context change (and within the TTL)
    // read everything the previous round sent.
    let mut warm = 0;
    for (i, pair) in rounds.windows(2).enumerate() {
        let (previous, this) = (pair[0], pair[1]);
        let expired = this.at - previous.at >= COFFEE_BREAK;
        if expired {
            assert_eq!(this.usage.read, 0, "round {}: read after the TTL", i + 2);
        } else if recorded.rewritten[i] {
            // One deliberate break: what comes before the first evicted
            // output is still read.
            assert!(
                this.usage.read > 0 && this.usage.read < previous.usage.input(),
                "round {}: read {} of {} after an eviction",
                i + 2,
                this.usage.read,
                previous.usage.input()
            );
        } else {
            assert_eq!(
                this.usage.read,
                full_read(api, previous.usage.input()),
                "round {}",
                i + 2
            );
            warm += 1;
        }
    }
    assert!(warm >= 10, "{warm} warm rounds");
}

#[tokio::test]
async fn anthropic_sessions_record_what_the_caching_server_billed() {
    recorded_usage_is_what_the_server_billed(Api::Anthropic, "claude-sonnet-4-5").await;
}

#[tokio::test]
async fn responses_sessions_record_what_the_caching_server_billed() {
    recorded_usage_is_what_the_server_billed(Api::Responses, "gpt-5.4").await;
}

#[tokio::test]
async fn chat_sessions_record_what_the_caching_server_billed() {
    recorded_usage_is_what_the_server_billed(Api::Chat, "gpt-4.1").await;
}

/// One long turn through the agent loop on Anthropic, reading `count`
/// files (cycling through the workspace's twelve) at a 16,000-token
/// threshold; returns the rounds billed and what the session recorded.
async fn anthropic_long_turn(count: usize) -> (Vec<Billed>, Recorded) {
    let mut script: Vec<Answer> = (0..count)
        .map(|n| Answer::read(&format!("f{}.rs", n % 12)))
        .collect();
    script.push(Answer::Text("Read them all.".into()));
    let server = CachingServer::start(Api::Anthropic, 1024, RETENTION, script).await;
    let mut run = Run::start(Api::Anthropic, &server, "claude-sonnet-4-5");
    let (store, agent) = (&run.store, &mut run.agent);
    agent
        .run_turn("Read the files.", CancellationToken::new())
        .await
        .unwrap();
    (server.billed(), recorded(store, agent))
}

#[tokio::test]
async fn after_a_second_eviction_anthropic_reads_up_to_where_the_first_one_stopped() {
    let (billed, recorded) = anthropic_long_turn(16).await;
    assert_eq!(recorded.rounds.len(), billed.len());
    assert!(recorded.evictions >= 2, "{} evictions", recorded.evictions);
    // The round after each eviction: what it read of the cache.
    let after: Vec<u64> = recorded
        .rewritten
        .iter()
        .enumerate()
        .filter(|(_, rewritten)| **rewritten)
        .map(|(i, _)| billed[i + 1].usage.read)
        .collect();
    // The first reads the system prompt, the tools and the ask (all before
    // the first output); the second also every placeholder the first wrote,
    // because the previous round announced that prefix and it was cached.
    assert!(after[0] > 0, "{after:?}");
    assert!(after[1] > after[0], "{after:?}");
    // And the bill matches the session exactly.
    let expected: Vec<TokenUsage> = billed
        .iter()
        .map(|b| as_recorded(Api::Anthropic, b))
        .collect();
    assert_eq!(recorded.rounds, expected);
}

#[tokio::test]
async fn a_request_with_a_fifth_breakpoint_is_refused_like_the_api_refuses_it() {
    let server = CachingServer::start(Api::Anthropic, 1024, RETENTION, vec![]).await;
    let marked =
        serde_json::json!({"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}});
    let body = serde_json::json!({
        "model": "claude-sonnet-4-5", "max_tokens": 10, "stream": true,
        "messages": [{"role": "user", "content": vec![marked; 5]}],
    });
    let response = raw_post(&server.base_url, "/messages", &body.to_string()).await;
    assert!(response.starts_with("HTTP/1.1 400"), "{response}");
    assert!(
        response.contains("A maximum of 4 blocks with cache_control"),
        "{response}"
    );
    assert!(server.billed().is_empty());
}

/// POSTs `body` to `base_url` + `path` over a plain socket; returns the
/// whole response as text.
async fn raw_post(base_url: &str, path: &str, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authority = base_url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let mut socket = tokio::net::TcpStream::connect(&authority).await.unwrap();
    let request = format!(
        "POST /v1{path} HTTP/1.1\r\nhost: {authority}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    socket.read_to_end(&mut response).await.unwrap();
    String::from_utf8(response).unwrap()
}
