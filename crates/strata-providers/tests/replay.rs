//! Every recorded stream in `../shared/fixtures/wire`, replayed through the
//! parsers: split at every byte, in 7-byte chunks and whole (all must agree),
//! and once through a local HTTP server with chunked delivery. The expected
//! events, tool calls and usage of each are written out here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use strata_core::ModelGateway;
use strata_protocol::{ModelError, ModelEvent, ModelRequest, ResponseItem, StopReason};
use strata_providers::{
    AnthropicGateway, ChatCompletionsGateway, OpenAiResponsesGateway, RetryPolicy, WireFormat,
};
use support::*;

fn ok(events: Vec<ModelEvent>) -> Outcome {
    Outcome {
        events,
        error: None,
    }
}

fn format_of(path: &str) -> WireFormat {
    match path.split('/').next() {
        Some("openai-responses") => WireFormat::OpenAiResponses,
        Some("chat-completions") => WireFormat::ChatCompletions,
        Some("anthropic") => WireFormat::AnthropicMessages,
        other => panic!("unknown fixture folder {other:?}"),
    }
}

const XAI_REASONING: &str = "First, the user is asking about the weather in San Francisco. I have a available function called \"weather\" that retrieves the weather for a given location.\n\nThe function requires a parameter: \"location\", which is a string. The user has provided \"San Francisco\" as the location, so that's clear and inferable.\n\nI should call this function to get the weather information. The format for calling the function is specific: I need to use <function_call> tags with JSON inside, like <function_call>{\"action\": \"weather\", \"action_input\": {\"location\": \"San Francisco\"}}</function_call>.\n\nThis seems to be a direct match, so I don't need to ask for clarification. My response should only contain the function call if that's the next step, which it is.\n\nThe instructions say: \"Keep your response to user clear; please do not make your response verbose!\" So, I shouldn't add any extra text; just the function call.\n\nFinally, after calling the function, if this were a multi-turn conversation, I might need to respond based on the result, but for now, this is the logical next step.";

/// What each fixture must yield. A fixture without an entry fails the test.
fn expected(wire: &Wire, path: &str) -> Outcome {
    match path {
        "openai-responses/error-insufficient-quota.sse" => Outcome {
            events: vec![],
            error: Some(ModelError::QuotaExhausted {
                message: "insufficient_quota: You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.".into(),
            }),
        },
        "openai-responses/gpt-5.1-codex-max_agent-loop.step1.sse" => {
            let mut events = vec![codex_reasoning(wire)];
            events.extend(vec![
        started("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "calculator"),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "{\""),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "a"),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "\":"),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "12"),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", ",\""),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "b"),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "\":"),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "7"),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", ",\""),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "op"),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "\":\""),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "add"),
        args("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "\"}"),
        done("call_AB6AaRZ1FYZB2RwS6A5vbdqn", "calculator", "{\"a\":12,\"b\":7,\"op\":\"add\"}"),
        usage(Some(134), Some(0), Some(28), Some(0), Some(162)),
            ]);
            events.push(finished(StopReason::ToolUse));
            ok(events)
        }
        "openai-responses/gpt-5.1-codex-max_agent-loop.step2.sse" => ok(vec![
        started("call_Q6pW65MUgW9vF59BmItYGos3", "calculator"),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "{\""),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "a"),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "\":"),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "19"),
        args("call_Q6pW65MUgW9vF59BmItYGos3", ",\""),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "b"),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "\":"),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "3"),
        args("call_Q6pW65MUgW9vF59BmItYGos3", ",\""),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "op"),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "\":\""),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "multiply"),
        args("call_Q6pW65MUgW9vF59BmItYGos3", "\"}"),
        done("call_Q6pW65MUgW9vF59BmItYGos3", "calculator", "{\"a\":19,\"b\":3,\"op\":\"multiply\"}"),
        usage(Some(221), Some(0), Some(26), Some(0), Some(247)),
            finished(StopReason::ToolUse),
        ]),
        "openai-responses/gpt-5.1-codex-max_agent-loop.step3.sse" => ok(vec![
        started("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "calculator"),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "{\""),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "a"),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "\":"),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "57"),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", ",\""),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "b"),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "\":"),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "10"),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", ",\""),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "op"),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "\":\""),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "multiply"),
        args("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "\"}"),
        done("call_Zl5vIMnD7dVAjgU6FkhmiCZh", "calculator", "{\"a\":57,\"b\":10,\"op\":\"multiply\"}"),
        usage(Some(260), Some(0), Some(26), Some(0), Some(286)),
            finished(StopReason::ToolUse),
        ]),
        "openai-responses/gpt-5.1-codex-max_agent-loop.step4.sse" => ok(vec![
        text("The"),
        text(" final"),
        text(" result"),
        text(" is"),
        text(" **"),
        text("570"),
        text("**"),
        text("."),
        usage(Some(299), Some(0), Some(12), Some(0), Some(311)),
            finished(StopReason::EndTurn),
        ]),
        "openai-responses/gpt-5.4_function-call_usage.sse" => ok(vec![
        started("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "get_weather"),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "{\""),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "location"),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "\":\""),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "San"),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", " Francisco"),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", ","),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", " CA"),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "\",\""),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "unit"),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "\":\""),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "fahren"),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "heit"),
        args("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "\"}"),
        done("call_Q7pq6EfVGRnauPLWSSYBGJ1l", "get_weather", "{\"location\":\"San Francisco, CA\",\"unit\":\"fahrenheit\"}"),
        usage(Some(467), Some(0), Some(26), Some(0), Some(493)),
            finished(StopReason::ToolUse),
        ]),
        "openai-responses/response-failed_context-length-exceeded.sse" => Outcome {
            events: vec![],
            error: Some(ModelError::ContextOverflow {
                message: "context_length_exceeded: Your input exceeds the context window of this model. Please adjust your input and try again.".into(),
            }),
        },
        "openai-responses/response-failed_rate-limit-exceeded.sse" => Outcome {
            events: vec![],
            error: Some(ModelError::RateLimited {
                retry_after_ms: Some(11_054),
                message: "rate_limit_exceeded: Rate limit reached for gpt-5.1 in organization org-AAA on tokens per min (TPM): Limit 30000, Used 22999, Requested 12528. Please try again in 11.054s. Visit https://platform.openai.com/account/rate-limits to learn more.".into(),
            }),
        },
        "anthropic/claude-haiku-4-5_text-then-tool-use.sse" => ok(vec![
        text("I'll invoke"),
        text(" the JSON response tool."),
        started("toolu_01KFbKqPYSuAKujiL6mTfzYA", "json"),
        args("toolu_01KFbKqPYSuAKujiL6mTfzYA", "{\"elements\": [{\"location\": \"San Francisco\", \"temperature\": 58, \"condition\": \"sunny\"}]"),
        args("toolu_01KFbKqPYSuAKujiL6mTfzYA", "}"),
            done(
                "toolu_01KFbKqPYSuAKujiL6mTfzYA",
                "json",
                r#"{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}"#,
            ),
            // message_delta repeats input 849 and the cache fields; output 47.
            anthropic_usage(849, 0, 0, Some((0, 0)), 47),
            finished(StopReason::ToolUse),
        ]),
        "anthropic/claude-sonnet-4-5_tool-use-no-args.sse" => ok(vec![
        text("I'll update the issue list for"),
        text(" you."),
        started("toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList"),
            // A single empty input_json_delta: no delta event, arguments {}.
            done("toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList", "{}"),
            anthropic_usage(565, 0, 0, Some((0, 0)), 48),
            finished(StopReason::ToolUse),
        ]),
        "anthropic/sdk-python_max-tokens-truncated-tool-json.sse" => ok(vec![
        text("I"),
        text("'ll create a comprehensive tax guide for"),
        text(" someone with multiple W2s an"),
        text("d save it in a file called taxes.txt. Let"),
        text(" me do that for you now."),
        started("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file"),
        args("toolu_01EKqbqmZrGRXy18eN7m9kvY", "{\"filename\": \"taxes.txt"),
        args("toolu_01EKqbqmZrGRXy18eN7m9kvY", "\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\","),
        args("toolu_01EKqbqmZrGRXy18eN7m9kvY", "\n\"Filing taxes"),
            ModelEvent::ToolCallIncomplete {
                call_id: "toolu_01EKqbqmZrGRXy18eN7m9kvY".into(),
                name: "make_file".into(),
                partial_arguments: "{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes".into(),
            },
            anthropic_usage(450, 0, 0, None, 124),
            finished(StopReason::MaxTokens),
        ]),
        "anthropic/sdk-python_text-then-tool-use.sse" => ok(vec![
        text("I"),
        text("'ll check the current weather in Paris for you."),
        started("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather"),
        args("toolu_01NRLabsLyVHZPKxbKvkfSMn", "{\"locati"),
        args("toolu_01NRLabsLyVHZPKxbKvkfSMn", "on\": \"P"),
        args("toolu_01NRLabsLyVHZPKxbKvkfSMn", "ar"),
        args("toolu_01NRLabsLyVHZPKxbKvkfSMn", "is\"}"),
            done("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", r#"{"location": "Paris"}"#),
            // Older shape: message_delta carries output_tokens only.
            anthropic_usage(377, 0, 0, None, 65),
            finished(StopReason::ToolUse),
        ]),
        "chat-completions/anthropic-openai-compat_tool-call-index1_no-usage.sse" => ok(vec![
        text("Reading"),
        text(" it."),
        started("toolu_sanitized", "read_file"),
        args("toolu_sanitized", "{\"pa"),
        args("toolu_sanitized", "th\": \"a.txt\"}"),
            done("toolu_sanitized", "read_file", r#"{"path": "a.txt"}"#),
            // No usage was reported, so no Usage event.
            finished(StopReason::ToolUse),
        ]),
        "chat-completions/deepseek-reasoner_tool-call_usage-in-finish-chunk.sse" => ok(vec![
            reasoning(
                "openai-chat",
                json!({"type": "reasoning_content", "text": "The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to \"San Francisco\"."}),
            ),
        started("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "weather"),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "{"),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "\""),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "location"),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "\""),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", ": "),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "\""),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "San"),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", " Francisco"),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "\""),
        args("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "}"),
            done("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "weather", r#"{"location": "San Francisco"}"#),
            usage(Some(339), Some(320), Some(83), Some(39), Some(422)),
            finished(StopReason::ToolUse),
        ]),
        "chat-completions/groq-llama-3.3-70b_tool-call_usage.sse" => ok(vec![
        started("tk85n1k4m", "weather"),
        args("tk85n1k4m", "{}"),
            done("tk85n1k4m", "weather", "{}"),
            usage(Some(210), None, Some(15), None, Some(225)),
            finished(StopReason::ToolUse),
        ]),
        "chat-completions/openai-gpt-4o_parallel-tool-calls_usage.sse" => ok(vec![
        started("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs"),
        args("call_JMW1whyEaYG438VE1OIflxA2", "{\"ci"),
        args("call_JMW1whyEaYG438VE1OIflxA2", "ty\": "),
        args("call_JMW1whyEaYG438VE1OIflxA2", "\"Edinb"),
        args("call_JMW1whyEaYG438VE1OIflxA2", "urgh"),
        args("call_JMW1whyEaYG438VE1OIflxA2", "\", \"c"),
        args("call_JMW1whyEaYG438VE1OIflxA2", "ountry"),
        args("call_JMW1whyEaYG438VE1OIflxA2", "\": \""),
        args("call_JMW1whyEaYG438VE1OIflxA2", "GB\", "),
        args("call_JMW1whyEaYG438VE1OIflxA2", "\"units"),
        args("call_JMW1whyEaYG438VE1OIflxA2", "\": \""),
        args("call_JMW1whyEaYG438VE1OIflxA2", "c\"}"),
        started("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price"),
        args("call_DNYTawLBoN8fj3KN6qU9N1Ou", "{\"ti"),
        args("call_DNYTawLBoN8fj3KN6qU9N1Ou", "cker\""),
        args("call_DNYTawLBoN8fj3KN6qU9N1Ou", ": \"AAP"),
        args("call_DNYTawLBoN8fj3KN6qU9N1Ou", "L\", "),
        args("call_DNYTawLBoN8fj3KN6qU9N1Ou", "\"exch"),
        args("call_DNYTawLBoN8fj3KN6qU9N1Ou", "ange\":"),
        args("call_DNYTawLBoN8fj3KN6qU9N1Ou", " \"NA"),
        args("call_DNYTawLBoN8fj3KN6qU9N1Ou", "SDAQ\""),
        args("call_DNYTawLBoN8fj3KN6qU9N1Ou", "}"),
            done(
                "call_JMW1whyEaYG438VE1OIflxA2",
                "GetWeatherArgs",
                r#"{"city": "Edinburgh", "country": "GB", "units": "c"}"#,
            ),
            done(
                "call_DNYTawLBoN8fj3KN6qU9N1Ou",
                "get_stock_price",
                r#"{"ticker": "AAPL", "exchange": "NASDAQ"}"#,
            ),
            usage(Some(149), None, Some(60), Some(0), Some(209)),
            finished(StopReason::ToolUse),
        ]),
        "chat-completions/openai-gpt-4o_tool-call_usage.sse" => ok(vec![
        started("call_4XzlGBLtUe9dy3GVNV4jhq7h", "get_weather"),
        args("call_4XzlGBLtUe9dy3GVNV4jhq7h", "{\""),
        args("call_4XzlGBLtUe9dy3GVNV4jhq7h", "city"),
        args("call_4XzlGBLtUe9dy3GVNV4jhq7h", "\":\""),
        args("call_4XzlGBLtUe9dy3GVNV4jhq7h", "New"),
        args("call_4XzlGBLtUe9dy3GVNV4jhq7h", " York"),
        args("call_4XzlGBLtUe9dy3GVNV4jhq7h", " City"),
        args("call_4XzlGBLtUe9dy3GVNV4jhq7h", "\"}"),
            done("call_4XzlGBLtUe9dy3GVNV4jhq7h", "get_weather", r#"{"city":"New York City"}"#),
            usage(Some(44), None, Some(16), Some(0), Some(60)),
            finished(StopReason::ToolUse),
        ]),
        "chat-completions/xai-grok-3-mini_tool-call_usage.sse" => ok(vec![
            reasoning(
                "openai-chat",
                json!({"type": "reasoning_content", "text": XAI_REASONING}),
            ),
        started("call_79382389", "weather"),
        args("call_79382389", "{\"location\":\"San Francisco\"}"),
            done("call_79382389", "weather", r#"{"location":"San Francisco"}"#),
            // total 560 != 307 + 26: kept verbatim; xAI counts its 227
            // reasoning tokens only in the total, so output is 26 + 227.
            usage(Some(307), Some(306), Some(253), Some(227), Some(560)),
            finished(StopReason::ToolUse),
        ]),
        other => panic!("no expected events written for fixture {other}"),
    }
}

fn codex_reasoning(wire: &Wire) -> ModelEvent {
    reasoning("openai-responses", codex_reasoning_payload(wire))
}

/// The step-1 reasoning item, verbatim from its `response.output_item.done`.
fn codex_reasoning_payload(wire: &Wire) -> serde_json::Value {
    let raw =
        String::from_utf8(wire.read("openai-responses/gpt-5.1-codex-max_agent-loop.step1.sse"))
            .unwrap();
    let item = raw
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str::<serde_json::Value>(data).unwrap())
        .find(|event| {
            event["type"] == "response.output_item.done" && event["item"]["type"] == "reasoning"
        })
        .unwrap()["item"]
        .clone();
    assert_eq!(
        item["id"],
        "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9"
    );
    assert_eq!(item["encrypted_content"].as_str().unwrap().len(), 1060);
    assert_eq!(
        item["summary"][0]["text"],
        "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product."
    );
    item
}

#[tokio::test]
async fn every_recorded_stream_yields_its_expected_events_however_the_bytes_are_split() {
    let Some(wire) = wire() else { return };
    let fixtures = wire.all_sse();
    assert_eq!(fixtures.len(), 18, "fixtures: {fixtures:?}");
    for path in fixtures {
        let bytes = wire.read(&path);
        let outcome = streamed_thinking(replay_both_ways(format_of(&path), &bytes).await, &path);
        assert_eq!(outcome, expected(&wire, &path), "fixture {path}");
    }
}

/// `outcome` without its streamed thinking, once that is checked: the
/// deltas join to the readable text of the reasoning items that follow
/// (summaries apart by a blank line, as the items' text is).
fn streamed_thinking(outcome: Outcome, path: &str) -> Outcome {
    let mut streamed = String::new();
    let mut readable = Vec::new();
    let mut events = Vec::new();
    for event in outcome.events {
        match event {
            ModelEvent::ReasoningDelta { delta } => streamed.push_str(&delta),
            other => {
                if let ModelEvent::Reasoning {
                    item: ResponseItem::Reasoning(item),
                } = &other
                    && let Some(text) = item.readable_text()
                {
                    readable.push(text);
                }
                events.push(other);
            }
        }
    }
    assert_eq!(
        streamed,
        readable.join(""),
        "fixture {path}: streamed thinking"
    );
    Outcome {
        events,
        error: outcome.error,
    }
}

fn gateway(path: &str, server: &TestServer) -> Box<dyn ModelGateway> {
    let client = client(strata_providers::HttpOptions {
        retry: RetryPolicy::none(),
        ..fast_options(1)
    });
    let endpoint = server.endpoint(Some("sk-test-key-0123456789"));
    match format_of(path) {
        WireFormat::OpenAiResponses => Box::new(OpenAiResponsesGateway::new(client, endpoint)),
        WireFormat::ChatCompletions => Box::new(ChatCompletionsGateway::new(client, endpoint)),
        WireFormat::AnthropicMessages => Box::new(AnthropicGateway::new(client, endpoint)),
    }
}

fn hello_request() -> ModelRequest {
    ModelRequest {
        max_output_tokens: Some(256),
        ..simple_request("be brief", "hi")
    }
}

#[tokio::test]
async fn every_recorded_stream_yields_the_same_events_through_a_local_http_server() {
    let Some(wire) = wire() else { return };
    for path in wire.all_sse() {
        let bytes = wire.read(&path);
        let server = TestServer::start(vec![Reply::sse(&bytes, 61)]).await;
        let stream = gateway(&path, &server).stream_response(hello_request());
        let outcome = streamed_thinking(collect(stream).await, &path);
        assert_eq!(outcome, expected(&wire, &path), "fixture {path} over HTTP");
        let received = server.received();
        assert_eq!(received.len(), 1, "fixture {path}: one request, no retry");
        assert_eq!(received[0].method, "POST");
        assert_eq!(received[0].json()["stream"], true);
    }
}

#[tokio::test]
async fn a_stream_without_a_trailing_blank_line_keeps_its_last_event() {
    // Both anthropic-sdk-python fixtures end right after `message_stop`'s
    // data line; a spec-strict parser drops it and the stream looks cut.
    let Some(wire) = wire() else { return };
    for path in [
        "anthropic/sdk-python_text-then-tool-use.sse",
        "anthropic/sdk-python_max-tokens-truncated-tool-json.sse",
    ] {
        let bytes = wire.read(path);
        assert!(
            !bytes.ends_with(b"\n\n"),
            "{path} gained a trailing blank line"
        );
        let outcome = replay_chunked(WireFormat::AnthropicMessages, &bytes, 7).await;
        assert_eq!(outcome.error, None, "{path}");
        assert!(matches!(
            outcome.events.last(),
            Some(ModelEvent::Finished { .. })
        ));
    }
}

#[tokio::test]
async fn a_tool_call_cut_at_max_tokens_is_reported_incomplete_and_never_done() {
    let Some(wire) = wire() else { return };
    let bytes = wire.read("anthropic/sdk-python_max-tokens-truncated-tool-json.sse");
    let outcome = replay_chunked(WireFormat::AnthropicMessages, &bytes, 7).await;
    assert!(
        !outcome
            .events
            .iter()
            .any(|e| matches!(e, ModelEvent::ToolCallDone { .. }))
    );
    let incomplete: Vec<_> = outcome
        .events
        .iter()
        .filter(|e| matches!(e, ModelEvent::ToolCallIncomplete { .. }))
        .collect();
    assert_eq!(incomplete.len(), 1);
    assert_eq!(
        outcome.events.last(),
        Some(&finished(StopReason::MaxTokens))
    );
}

#[tokio::test]
async fn usage_always_comes_right_before_finished() {
    let Some(wire) = wire() else { return };
    for path in wire.all_sse() {
        let outcome = replay_chunked(format_of(&path), &wire.read(&path), 7).await;
        if let Some(at) = outcome
            .events
            .iter()
            .position(|e| matches!(e, ModelEvent::Usage { .. }))
        {
            assert!(
                matches!(
                    outcome.events.get(at + 1),
                    Some(ModelEvent::Finished { .. })
                ),
                "{path}: usage is not followed by finished"
            );
        }
    }
}

#[tokio::test]
async fn context_tokens_of_each_fixture_follow_input_plus_output() {
    let Some(wire) = wire() else { return };
    let cases = [
        ("openai-responses/gpt-5.4_function-call_usage.sse", 493),
        (
            "openai-responses/gpt-5.1-codex-max_agent-loop.step4.sse",
            311,
        ),
        ("anthropic/claude-haiku-4-5_text-then-tool-use.sse", 896),
        ("anthropic/sdk-python_text-then-tool-use.sse", 442),
        ("chat-completions/xai-grok-3-mini_tool-call_usage.sse", 560),
        (
            "chat-completions/deepseek-reasoner_tool-call_usage-in-finish-chunk.sse",
            422,
        ),
    ];
    for (path, context) in cases {
        let outcome = replay_chunked(format_of(path), &wire.read(path), 7).await;
        let usage = outcome
            .events
            .iter()
            .find_map(|e| match e {
                ModelEvent::Usage { usage } => Some(usage.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(usage.context_tokens(), Some(context), "{path}");
    }
}
