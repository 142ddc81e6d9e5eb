//! The demo model's summaries: of a transcript, of structured items, and of
//! the compaction request strata-core builds from a real session.

use super::*;

const TRANSCRIPT: &str = "\
Transcript of the conversation so far:

[1] system:
You are a coding agent.
[2] user:
Find the parser bug in src/parse.rs
[3] function_call list_directory (call_id demo_call_1):
{\"path\":\".\"}
[4] function_call_output (call_id demo_call_1):
src/
README.md
[5] function_call read_file (call_id demo_call_2):
{\"path\":\"src/parse.rs\"}
[6] function_call_output (call_id demo_call_2):
fn parse() {}
[7] function_call read_file (call_id demo_call_3):
{\"path\":\"README.md\"}
[8] function_call_output (call_id demo_call_3):
# Project
[9] assistant:
The parser skips the last token.
[10] user:
Now add a test for it
[11] function_call write_file (call_id c4): {\"path\": \"tests/parse.rs\", \"content\": \"#[test] fn t() {}\"}
[12] function_call_output (call_id c4):
ok
";

fn summary_request(input: Vec<ResponseItem>) -> ModelRequest {
    ModelRequest {
        model: DEMO_MODEL.into(),
        input,
        tools: Vec::new(),
        tool_choice: None,
        max_output_tokens: None,
        session_id: None,
        reasoning: None,
        cache_anchors: Vec::new(),
    }
}

#[test]
fn demo_summary_names_the_users_requests_tools_and_files_of_a_transcript() {
    let request = summary_request(vec![
        ResponseItem::system("Summarize the conversation below for a continuation."),
        ResponseItem::user(TRANSCRIPT),
    ]);
    let response = block_on(DemoModel::new().create_response(request.clone())).unwrap();
    let text = response.text();
    assert!(
        text.contains("1. \"Find the parser bug in src/parse.rs\""),
        "{text}"
    );
    assert!(text.contains("2. \"Now add a test for it\""), "{text}");
    assert!(
        text.contains(
            "Tools used: list_directory (1 call), read_file (2 calls), write_file (1 call)."
        ),
        "{text}"
    );
    assert!(
        text.contains("Files touched: src/parse.rs, README.md, tests/parse.rs."),
        "{text}"
    );
    assert!(
        text.contains("Last assistant reply: \"The parser skips the last token.\""),
        "{text}"
    );
    assert!(
        !text.contains("You are a coding agent"),
        "system text is not a request"
    );
    assert_eq!(response.model, DEMO_MODEL);
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let usage = response.usage.unwrap();
    assert_eq!(usage.input_tokens, Some(independent_count(&request)));
    let bpe = tiktoken_rs::o200k_base().unwrap();
    assert_eq!(
        usage.output_tokens,
        Some(bpe.encode_ordinary(&text).len() as u64)
    );

    // Streaming the same request without tools streams the same digest.
    let round = stream(&DemoModel::new(), request);
    assert_eq!(round.text(), text);
}

#[test]
fn demo_summary_digests_structured_items_too() {
    let request = summary_request(vec![
        ResponseItem::system("You are a coding agent."),
        ResponseItem::user("Rename the config module"),
        ResponseItem::function_call("a", READ_FILE_TOOL, r#"{"path":"./src/config.rs"}"#),
        ResponseItem::function_call_output("a", "mod config;"),
        ResponseItem::assistant("Renamed it to settings."),
        ResponseItem::user("Summarize the conversation so far."),
    ]);
    let text = block_on(DemoModel::new().create_response(request))
        .unwrap()
        .text();
    assert!(text.contains("1. \"Rename the config module\""), "{text}");
    assert!(
        !text.contains("Summarize the conversation"),
        "the instruction is not a request: {text}"
    );
    assert!(text.contains("Tools used: read_file (1 call)."), "{text}");
    assert!(text.contains("Files touched: src/config.rs."), "{text}");
}

#[test]
fn demo_digests_the_compaction_request_core_builds_from_a_real_session() {
    let dir = workspace();
    let model = DemoModel::new();
    let mut history = vec![
        ResponseItem::system("You are a coding agent."),
        ResponseItem::user("What is this project about?"),
    ];
    run_turn(&model, dir.path(), &mut history);
    history.push(ResponseItem::user("And the notes?"));
    run_turn(&model, dir.path(), &mut history);

    let request = strata_core::compaction::build_compaction_summary_request(
        &history,
        Some("the notes"),
        DEMO_MODEL,
    );
    let response = block_on(model.create_response(request)).unwrap();
    let text = response.text();
    assert!(
        text.contains("1. \"What is this project about?\"\n2. \"And the notes?\""),
        "{text}"
    );
    assert!(
        text.contains("Tools used: list_directory (2 calls), read_file (3 calls)."),
        "{text}"
    );
    assert!(
        text.contains("Files touched: README.md, main.rs, notes.txt."),
        "{text}"
    );
    assert!(text.contains("Focus requested: \"the notes\""), "{text}");
    assert!(
        text.contains("Last assistant reply: \"You asked: \"And the notes?\"\""),
        "{text}"
    );
}
