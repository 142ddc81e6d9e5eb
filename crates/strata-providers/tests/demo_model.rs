//! The offline demo model driven like the agent loop drives it: real tools
//! over a temporary workspace, token counts checked against an independent
//! tiktoken count, and summaries of real transcripts.

// Helpers panic on setup failures; that is how a test reports them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use futures::StreamExt;
use futures::executor::block_on;
use serde_json::json;
use strata_core::ModelGateway;
use strata_protocol::{
    CompactionMetadata, CompactionSummary, CompactionTrigger, ItemId, ModelEvent, ModelRequest,
    ResponseItem, StopReason, TokenUsage, ToolChoice, ToolSpec,
};
use strata_providers::config::lookup_model;
use strata_providers::{
    DEMO_MODEL, DEMO_MODEL_LABEL, DemoModel, LIST_DIRECTORY_TOOL, ProviderKind, READ_FILE_TOOL,
};

fn tools() -> Vec<ToolSpec> {
    let path_schema = json!({
        "type": "object",
        "properties": { "path": { "type": "string" } },
        "required": ["path"]
    });
    vec![
        ToolSpec {
            name: LIST_DIRECTORY_TOOL.into(),
            description: "List the entries of a directory of the workspace.".into(),
            parameters: path_schema.clone(),
        },
        ToolSpec {
            name: READ_FILE_TOOL.into(),
            description: "Read a text file of the workspace.".into(),
            parameters: path_schema,
        },
    ]
}

fn request(input: Vec<ResponseItem>) -> ModelRequest {
    ModelRequest {
        model: DEMO_MODEL.into(),
        input,
        tools: tools(),
        tool_choice: Some(ToolChoice::Auto),
        max_output_tokens: None,
        session_id: None,
        reasoning: None,
        cache_anchors: Vec::new(),
    }
}

/// The built-in tools as a test double: one entry per line, folders with a
/// trailing slash, sorted; files read whole.
fn run_tool(root: &Path, name: &str, arguments: &str) -> String {
    let args: serde_json::Value = serde_json::from_str(arguments).unwrap();
    let path = root.join(args["path"].as_str().unwrap());
    match name {
        LIST_DIRECTORY_TOOL => {
            let mut names: Vec<String> = fs::read_dir(&path)
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    let name = e.file_name().to_string_lossy().into_owned();
                    if e.file_type().unwrap().is_dir() {
                        format!("{name}/")
                    } else {
                        name
                    }
                })
                .collect();
            names.sort();
            names.join("\n")
        }
        READ_FILE_TOOL => fs::read_to_string(&path).unwrap(),
        other => panic!("unexpected tool {other}"),
    }
}

struct Round {
    events: Vec<ModelEvent>,
}

impl Round {
    fn text(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                ModelEvent::TextDelta { delta } => Some(delta.as_str()),
                _ => None,
            })
            .collect()
    }

    fn calls(&self) -> Vec<(String, String, String)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                ModelEvent::ToolCallDone {
                    call_id,
                    name,
                    arguments,
                } => Some((call_id.clone(), name.clone(), arguments.clone())),
                _ => None,
            })
            .collect()
    }

    fn usage(&self) -> TokenUsage {
        self.events
            .iter()
            .find_map(|e| match e {
                ModelEvent::Usage { usage } => Some(usage.clone()),
                _ => None,
            })
            .unwrap()
    }

    fn stop_reason(&self) -> StopReason {
        match self.events.last() {
            Some(ModelEvent::Finished { stop_reason }) => stop_reason.clone(),
            other => panic!("the stream did not end with Finished: {other:?}"),
        }
    }
}

fn stream(model: &DemoModel, request: ModelRequest) -> Round {
    let events = block_on(model.stream_response(request).collect::<Vec<_>>())
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    Round { events }
}

/// Runs one user turn the way the agent loop does; returns every round.
fn run_turn(model: &DemoModel, root: &Path, history: &mut Vec<ResponseItem>) -> Vec<Round> {
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let round = stream(model, request(history.clone()));
        match round.stop_reason() {
            StopReason::ToolUse => {
                for (call_id, name, arguments) in round.calls() {
                    let output = run_tool(root, &name, &arguments);
                    history.push(ResponseItem::function_call(&call_id, &name, &arguments));
                    history.push(ResponseItem::function_call_output(&call_id, output));
                }
                rounds.push(round);
            }
            StopReason::EndTurn => {
                history.push(ResponseItem::assistant(round.text()));
                rounds.push(round);
                return rounds;
            }
            other => panic!("unexpected stop reason {other:?}"),
        }
    }
    panic!("the demo model did not finish its turn in 5 rounds");
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("README.md"),
        "# Lighthouse\n\nA tiny tool that blinks.\n",
    )
    .unwrap();
    fs::write(dir.path().join("notes.txt"), "first note\nsecond note\n").unwrap();
    fs::write(dir.path().join("logo.png"), [0x89, b'P', b'N', b'G']).unwrap();
    fs::write(dir.path().join("main.rs"), "fn main() {}\n").unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    dir
}

#[test]
fn demo_lists_the_workspace_then_reads_files_it_found_then_answers_about_them() {
    let dir = workspace();
    let model = DemoModel::new();
    let mut history = vec![
        ResponseItem::system("You are a coding agent."),
        ResponseItem::user("What is this project about?"),
    ];
    let rounds = run_turn(&model, dir.path(), &mut history);
    assert_eq!(rounds.len(), 3, "list, read, answer");

    assert_eq!(
        rounds[0].calls(),
        [(
            "demo_call_1".to_string(),
            LIST_DIRECTORY_TOOL.to_string(),
            r#"{"path":"."}"#.to_string()
        )]
    );
    let reads: Vec<String> = rounds[1].calls().into_iter().map(|c| c.2).collect();
    assert_eq!(
        reads,
        [r#"{"path":"README.md"}"#, r#"{"path":"main.rs"}"#],
        "the README first, then the first other text file; never the png or a folder"
    );

    let answer = rounds[2].text();
    assert!(answer.contains("What is this project about?"), "{answer}");
    assert!(
        answer.contains("I read README.md: 3 lines, starting with \"# Lighthouse\""),
        "{answer}"
    );
    assert!(
        answer.contains("I read main.rs: 1 line, starting with \"fn main() {}\""),
        "{answer}"
    );
    assert!(
        answer.contains("5 entries (4 files, 1 folders)"),
        "{answer}"
    );
    let deltas = rounds[2]
        .events
        .iter()
        .filter(|e| matches!(e, ModelEvent::TextDelta { .. }))
        .count();
    assert!(deltas >= 3, "the answer streams in several deltas");
    assert!(matches!(
        &rounds[2].events[rounds[2].events.len() - 2],
        ModelEvent::Usage { .. }
    ));

    // A second request lists again and reads what it has not read yet.
    history.push(ResponseItem::user("And the notes?"));
    let rounds = run_turn(&model, dir.path(), &mut history);
    let reads: Vec<String> = rounds[1].calls().into_iter().map(|c| c.2).collect();
    assert_eq!(reads, [r#"{"path":"notes.txt"}"#]);
    assert_eq!(
        rounds[1].calls()[0].0,
        "demo_call_5",
        "call ids stay unique"
    );
    let answer = rounds[2].text();
    assert!(answer.contains("And the notes?"), "{answer}");
    assert!(
        answer.contains("I read notes.txt: 2 lines, starting with \"first note\""),
        "{answer}"
    );

    // Nothing left to read: it says so instead of re-reading.
    history.push(ResponseItem::user("Anything else?"));
    let rounds = run_turn(&model, dir.path(), &mut history);
    assert_eq!(rounds.len(), 3, "list, look into the empty src/, answer");
    assert_eq!(rounds[1].calls()[0].2, r#"{"path":"src"}"#);
    assert!(
        rounds[2]
            .text()
            .contains("I had already read README.md, main.rs, notes.txt"),
        "{}",
        rounds[2].text()
    );
}

#[test]
fn tool_calls_stream_as_started_arguments_done_then_usage_and_tool_use() {
    let round = stream(
        &DemoModel::new(),
        request(vec![ResponseItem::user("look around")]),
    );
    let kinds: Vec<&str> = round
        .events
        .iter()
        .map(|e| match e {
            ModelEvent::ToolCallStarted { .. } => "started",
            ModelEvent::ToolCallArgumentsDelta { .. } => "delta",
            ModelEvent::ToolCallDone { .. } => "done",
            ModelEvent::Usage { .. } => "usage",
            ModelEvent::Finished { .. } => "finished",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["started", "delta", "delta", "done", "usage", "finished"]
    );
    let joined: String = round
        .events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ToolCallArgumentsDelta { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(joined, r#"{"path":"."}"#);
    assert_eq!(round.stop_reason(), StopReason::ToolUse);
}

/// Counts the documented way, with a tokenizer of our own.
fn independent_count(request: &ModelRequest) -> u64 {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let count = |text: &str| bpe.encode_ordinary(text).len() as u64;
    let items: u64 = request
        .input
        .iter()
        .map(|item| {
            count(&match item {
                ResponseItem::Message(m) => format!("{}: {}", m.role.as_str(), m.content),
                ResponseItem::FunctionCall(c) => {
                    format!("function_call {} {}", c.name, c.arguments)
                }
                ResponseItem::FunctionCallOutput(o) => format!("function_call_output {}", o.output),
                ResponseItem::CompactionSummary(s) => format!("summary: {}", s.summary),
                ResponseItem::Reasoning(r) => serde_json::to_string(&r.payload).unwrap(),
            })
        })
        .sum();
    let tools: u64 = request
        .tools
        .iter()
        .map(|t| count(&serde_json::to_string(t).unwrap()))
        .sum();
    items + tools
}

#[test]
fn demo_usage_equals_an_independent_tiktoken_count_of_the_request() {
    let model = DemoModel::new();
    let summary = ResponseItem::CompactionSummary(CompactionSummary {
        id: ItemId::new(),
        summary: "The user wanted a parser; README.md was read.".into(),
        metadata: CompactionMetadata {
            trigger: CompactionTrigger::Auto,
            reason: "threshold".into(),
            context_tokens: Some(10),
            threshold: Some(5),
            removed: 3,
            kept: 1,
            summarizer_model: DEMO_MODEL.into(),
            summarizer_usage: None,
            summarizer_cost: None,
            duration_ms: 1,
        },
    });
    let input = vec![
        ResponseItem::system("You are Strata, a careful coding agent. Ünïcödé too."),
        summary,
        ResponseItem::user("Explain the layout of this repository, please."),
        ResponseItem::function_call("demo_call_1", LIST_DIRECTORY_TOOL, r#"{"path":"."}"#),
        ResponseItem::function_call_output("demo_call_1", "Cargo.toml\nREADME.md\nsrc/\n"),
        ResponseItem::function_call("demo_call_2", READ_FILE_TOOL, r#"{"path":"README.md"}"#),
        ResponseItem::function_call_output("demo_call_2", "# Strata\n\nAn agent harness.\n"),
    ];
    let request = request(input);
    let expected_input = independent_count(&request);
    assert!(expected_input > 100, "tool specs and items are all counted");

    let round = stream(&model, request.clone());
    let usage = round.usage();
    assert_eq!(usage.input_tokens, Some(expected_input));
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let expected_output = bpe.encode_ordinary(&round.text()).len() as u64;
    assert_eq!(usage.output_tokens, Some(expected_output));
    assert_eq!(
        usage.context_tokens(),
        Some(expected_input + expected_output)
    );
    assert_eq!(usage.total_tokens, Some(expected_input + expected_output));

    // The same request gets the same response: the model is deterministic.
    assert_eq!(stream(&model, request).events, round.events);
}

#[test]
fn usage_of_a_tool_call_round_counts_the_call_it_made() {
    let request = request(vec![ResponseItem::user("hi")]);
    let round = stream(&DemoModel::new(), request.clone());
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let output = (bpe.encode_ordinary(LIST_DIRECTORY_TOOL).len()
        + bpe.encode_ordinary(r#"{"path":"."}"#).len()) as u64;
    assert_eq!(
        round.usage().input_tokens,
        Some(independent_count(&request))
    );
    assert_eq!(round.usage().output_tokens, Some(output));
}

#[test]
fn the_demo_model_is_labelled_demo_and_catalogued() {
    assert_eq!(DEMO_MODEL_LABEL, "demo");
    let info = lookup_model(DEMO_MODEL).unwrap();
    assert_eq!(info.kind, ProviderKind::Demo);
    assert_eq!(info.label, "demo");
    assert_eq!(lookup_model("demo").unwrap().id, DEMO_MODEL);
}

#[test]
fn without_tool_permission_the_demo_model_answers_in_text() {
    let mut request = request(vec![ResponseItem::user("What is here?")]);
    request.tool_choice = Some(ToolChoice::None);
    let round = stream(&DemoModel::new(), request);
    assert_eq!(round.stop_reason(), StopReason::EndTurn);
    assert!(round.calls().is_empty());
    assert!(round.text().contains("What is here?"));
}

#[test]
fn the_output_limit_cuts_the_answer_with_max_tokens() {
    let mut request = request(vec![ResponseItem::user("hello")]);
    request.tools.clear();
    request.max_output_tokens = Some(5);
    let round = stream(&DemoModel::new(), request);
    assert_eq!(round.stop_reason(), StopReason::MaxTokens);
    assert_eq!(round.usage().output_tokens, Some(5));
}

#[test]
fn with_only_folders_at_the_top_the_demo_looks_one_level_deeper() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("docs")).unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::create_dir_all(dir.path().join("target")).unwrap();
    fs::write(
        dir.path().join("src/lib.rs"),
        "//! The library.\npub fn f() {}\n",
    )
    .unwrap();
    let model = DemoModel::new();
    let mut history = vec![ResponseItem::user("Where is the code?")];
    let rounds = run_turn(&model, dir.path(), &mut history);
    let calls: Vec<(String, String)> = rounds
        .iter()
        .flat_map(|r| r.calls())
        .map(|(_, name, args)| (name, args))
        .collect();
    assert_eq!(
        calls,
        [
            (
                LIST_DIRECTORY_TOOL.to_string(),
                r#"{"path":"."}"#.to_string()
            ),
            (
                LIST_DIRECTORY_TOOL.to_string(),
                r#"{"path":"src"}"#.to_string()
            ),
            (
                READ_FILE_TOOL.to_string(),
                r#"{"path":"src/lib.rs"}"#.to_string()
            ),
        ]
    );
    let answer = rounds.last().unwrap().text();
    assert!(
        answer.contains("I read src/lib.rs: 2 lines, starting with \"//! The library.\""),
        "{answer}"
    );
}

#[path = "demo_model/summary.rs"]
mod summary;
