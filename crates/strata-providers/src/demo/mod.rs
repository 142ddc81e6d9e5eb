//! The offline demo model (provider kind `demo`), Strata's embedded default:
//! no network, no key. It acts like a small model would: it lists the
//! workspace with [`LIST_DIRECTORY_TOOL`], reads one or two files it found
//! with [`READ_FILE_TOOL`], then answers with what it read. It reports usage
//! as real tokenizer counts (see [`tokens`]) and answers summary requests
//! with a digest of the transcript, so compaction works without an account.
//! It is deterministic: the same request always gets the same response.

mod outputs;
mod summary;
pub mod tokens;
mod turn;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt};
use strata_core::ModelGateway;
use strata_protocol::{
    ModelError, ModelEvent, ModelRequest, ModelResponse, ResponseItem, Role, StopReason,
    TokenUsage, ToolChoice,
};

use self::tokens::{count_request_tokens, count_tokens};
use self::turn::{PlannedCall, Step};

/// The demo model's id.
pub const DEMO_MODEL: &str = "strata-demo";
/// What the UI shows where a model name goes.
pub const DEMO_MODEL_LABEL: &str = "demo";
/// Small on purpose: a newcomer sees a long session compact.
pub const DEMO_CONTEXT_WINDOW: u64 = 16_384;
pub const DEMO_MAX_OUTPUT_TOKENS: u64 = 1_024;

/// The tool that lists a directory; arguments `{"path": "..."}`. The agent
/// loop offers its built-in tools under these names.
pub const LIST_DIRECTORY_TOOL: &str = "list_directory";
/// The tool that reads a text file; arguments `{"path": "..."}`.
pub const READ_FILE_TOOL: &str = "read_file";

/// Words per streamed text delta.
const WORDS_PER_DELTA: usize = 6;

/// The offline demo model.
#[derive(Clone, Copy, Debug, Default)]
pub struct DemoModel;

impl DemoModel {
    pub fn new() -> Self {
        Self
    }
}

/// What the demo model produces for a request.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Reply {
    Text(String),
    Calls(Vec<PlannedCall>),
}

fn tools_offered(request: &ModelRequest) -> bool {
    !request.tools.is_empty() && request.tool_choice != Some(ToolChoice::None)
}

/// A request with no tools whose messages hold a transcript or ask for a
/// summary.
fn is_summary_request(request: &ModelRequest) -> bool {
    !tools_offered(request)
        && request.input.iter().any(|item| match item {
            ResponseItem::Message(m) => {
                m.role != Role::Assistant
                    && (m.content.to_lowercase().contains("summar")
                        || m.content
                            .lines()
                            .any(|l| l.trim_start().starts_with('[') && l.contains("] user")))
            }
            _ => false,
        })
}

fn reply_to(request: &ModelRequest, summarise: bool) -> Reply {
    if summarise {
        return Reply::Text(summary::digest(request));
    }
    match turn::plan(request) {
        Step::Call(calls) => Reply::Calls(calls),
        Step::Answer(text) => Reply::Text(text),
    }
}

/// The answer cut to `limit` tokens, and whether it was cut.
fn limit_text(text: String, limit: Option<u32>) -> (String, bool) {
    let Some(limit) = limit.map(|l| l as usize) else {
        return (text, false);
    };
    let bpe = tiktoken_rs::o200k_base_singleton();
    let tokens = bpe.encode_ordinary(&text);
    if tokens.len() <= limit {
        return (text, false);
    }
    // A cut inside a multi-byte character does not decode; back off until
    // it does.
    let cut = (0..=limit)
        .rev()
        .find_map(|n| bpe.decode(&tokens[..n]).ok())
        .unwrap_or_default();
    (cut, true)
}

fn call_ids(request: &ModelRequest, count: usize) -> Vec<String> {
    // Ids must stay unique across the whole session file, but compaction
    // removes earlier calls from the request: after a compaction, number
    // within a prefix taken from the latest summary's (random) id bits.
    let prefix = match request.input.iter().rev().find_map(|item| match item {
        ResponseItem::CompactionSummary(summary) => Some(summary.id),
        _ => None,
    }) {
        Some(id) => {
            let hex = id.as_uuid().simple().to_string();
            format!("demo_call_{}_", &hex[hex.len() - 8..])
        }
        None => "demo_call_".to_string(),
    };
    let earlier = request
        .input
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCall(c) => c.call_id.strip_prefix(prefix.as_str())?.parse().ok(),
            _ => None,
        })
        .max()
        .unwrap_or(0usize);
    (1..=count)
        .map(|i| format!("{prefix}{}", earlier + i))
        .collect()
}

fn usage(input: u64, output: u64) -> TokenUsage {
    TokenUsage {
        input_tokens: Some(input),
        output_tokens: Some(output),
        total_tokens: Some(input + output),
        ..TokenUsage::default()
    }
}

/// Splits `text` into deltas of a few words each; joined they are `text`.
fn deltas(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut words = 0;
    for piece in text.split_inclusive(char::is_whitespace) {
        current.push_str(piece);
        if piece.ends_with(char::is_whitespace) {
            words += 1;
        }
        if words == WORDS_PER_DELTA {
            out.push(std::mem::take(&mut current));
            words = 0;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn events_for(request: &ModelRequest, summarise: bool) -> Vec<ModelEvent> {
    let input_tokens = count_request_tokens(request);
    let mut events = Vec::new();
    let (output_tokens, stop_reason) = match reply_to(request, summarise) {
        Reply::Text(text) => {
            let (text, cut) = limit_text(text, request.max_output_tokens);
            events.extend(
                deltas(&text)
                    .into_iter()
                    .map(|delta| ModelEvent::TextDelta { delta }),
            );
            let stop = if cut {
                StopReason::MaxTokens
            } else {
                StopReason::EndTurn
            };
            (count_tokens(&text), stop)
        }
        Reply::Calls(calls) => {
            let mut output = 0;
            for (call, call_id) in calls.iter().zip(call_ids(request, calls.len())) {
                output += count_tokens(call.name) + count_tokens(&call.arguments);
                events.push(ModelEvent::ToolCallStarted {
                    call_id: call_id.clone(),
                    name: call.name.to_string(),
                });
                // Two fragments, as real providers stream arguments.
                let mid = call.arguments.len() / 2;
                let mid = (mid..call.arguments.len())
                    .find(|&i| call.arguments.is_char_boundary(i))
                    .unwrap_or(call.arguments.len());
                for part in [&call.arguments[..mid], &call.arguments[mid..]] {
                    if !part.is_empty() {
                        events.push(ModelEvent::ToolCallArgumentsDelta {
                            call_id: call_id.clone(),
                            delta: part.to_string(),
                        });
                    }
                }
                events.push(ModelEvent::ToolCallDone {
                    call_id,
                    name: call.name.to_string(),
                    arguments: call.arguments.clone(),
                });
            }
            (output, StopReason::ToolUse)
        }
    };
    events.push(ModelEvent::Usage {
        usage: usage(input_tokens, output_tokens),
    });
    events.push(ModelEvent::Finished { stop_reason });
    events
}

fn response_for(request: &ModelRequest) -> ModelResponse {
    // Without tools this is a summary request (the trait's contract); with
    // tools it is an ordinary turn answered in one piece.
    let summarise = !tools_offered(request);
    let input_tokens = count_request_tokens(request);
    let (items, output_tokens, stop_reason) = match reply_to(request, summarise) {
        Reply::Text(text) => {
            let (text, cut) = limit_text(text, request.max_output_tokens);
            let tokens = count_tokens(&text);
            let stop = if cut {
                StopReason::MaxTokens
            } else {
                StopReason::EndTurn
            };
            (vec![ResponseItem::assistant(text)], tokens, stop)
        }
        Reply::Calls(calls) => {
            let ids = call_ids(request, calls.len());
            let tokens = calls
                .iter()
                .map(|c| count_tokens(c.name) + count_tokens(&c.arguments))
                .sum();
            let items = calls
                .into_iter()
                .zip(ids)
                .map(|(c, id)| ResponseItem::function_call(id, c.name, c.arguments))
                .collect();
            (items, tokens, StopReason::ToolUse)
        }
    };
    ModelResponse {
        model: DEMO_MODEL.to_string(),
        items,
        usage: Some(usage(input_tokens, output_tokens)),
        stop_reason,
    }
}

impl ModelGateway for DemoModel {
    fn stream_response(
        &self,
        request: ModelRequest,
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
        // The work happens when the stream is first polled, not on the
        // caller's thread now.
        stream::once(async move {
            let summarise = is_summary_request(&request);
            stream::iter(events_for(&request, summarise).into_iter().map(Ok))
        })
        .flatten()
        .boxed()
    }

    fn create_response(
        &self,
        request: ModelRequest,
    ) -> BoxFuture<'static, Result<ModelResponse, ModelError>> {
        Box::pin(async move { Ok(response_for(&request)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_rejoin_to_the_text() {
        let text = "one two three four five six seven eight nine ten eleven twelve thirteen";
        let parts = deltas(text);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.concat(), text);
    }

    #[test]
    fn the_output_limit_cuts_the_answer() {
        let (cut, was_cut) = limit_text("alpha beta gamma delta".into(), Some(2));
        assert!(was_cut);
        assert_eq!(count_tokens(&cut), 2);
        let (same, was_cut) = limit_text("alpha".into(), Some(2));
        assert_eq!((same.as_str(), was_cut), ("alpha", false));
    }

    #[test]
    fn call_ids_continue_after_earlier_calls() {
        let request = ModelRequest {
            model: DEMO_MODEL.into(),
            input: vec![
                ResponseItem::function_call("demo_call_4", "read_file", "{}"),
                ResponseItem::function_call("other", "read_file", "{}"),
            ],
            tools: vec![],
            tool_choice: None,
            max_output_tokens: None,
            session_id: None,
            cache_anchors: Vec::new(),
        };
        assert_eq!(call_ids(&request, 2), ["demo_call_5", "demo_call_6"]);
    }

    #[test]
    fn call_ids_after_a_compaction_do_not_repeat_earlier_ones() {
        let summary = strata_protocol::CompactionSummary {
            id: strata_protocol::ItemId::new(),
            summary: "earlier work".into(),
            metadata: strata_protocol::CompactionMetadata {
                trigger: strata_protocol::CompactionTrigger::Auto,
                reason: "test".into(),
                context_tokens: None,
                threshold: None,
                removed: 0,
                kept: 0,
                summarizer_model: DEMO_MODEL.into(),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: 0,
            },
        };
        let mut request = ModelRequest {
            model: DEMO_MODEL.into(),
            input: vec![
                ResponseItem::CompactionSummary(summary),
                ResponseItem::user("again"),
            ],
            tools: vec![],
            tool_choice: None,
            max_output_tokens: None,
            session_id: None,
            cache_anchors: Vec::new(),
        };
        let first = call_ids(&request, 1);
        assert_ne!(first[0], "demo_call_1");
        assert!(first[0].starts_with("demo_call_") && first[0].ends_with("_1"));
        request.input.push(ResponseItem::function_call(
            first[0].clone(),
            "read_file",
            "{}",
        ));
        let next = call_ids(&request, 1);
        let stem = first[0].trim_end_matches('1');
        assert_eq!(next[0], format!("{stem}2"));
    }
}
