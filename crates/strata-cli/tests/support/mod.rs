//! Shared by the CLI tests: the built `strata` binary run with a temporary
//! `STRATA_HOME`, and sessions written through the store directly.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

#[cfg(unix)]
pub mod mcp;
#[cfg(unix)]
pub mod procs;
#[cfg(unix)]
pub mod pty;
pub mod server;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;
use strata_core::SessionStore;
use strata_core::store::ReadMode;
use strata_protocol::{
    ApprovalDecision, ApprovalDecisionRecord, CompactionMetadata, CompactionSummary,
    CompactionTrigger, ErrorRecord, ItemId, ModelError, RecordBody, ResponseItem, SessionId,
    TokenUsage, TurnFinished, TurnId, TurnOutcome, TurnStarted,
};

/// A temporary `STRATA_HOME` and a temporary workspace.
pub struct Home {
    pub home: tempfile::TempDir,
    pub workspace: tempfile::TempDir,
}

/// What one run of the binary produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(output: Output) -> Self {
        Self {
            code: output.status.code().expect("strata was killed by a signal"),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }

    /// Asserts success and returns stdout.
    pub fn ok(self) -> String {
        assert_eq!(self.code, 0, "strata failed: {self:#?}");
        self.stdout
    }

    /// Asserts the exit code, and that stderr's last line is one `strata:
    /// error:` line (for code 1) mentioning `needle`.
    pub fn fails_with(&self, code: i32, needle: &str) {
        assert_eq!(self.code, code, "unexpected exit code: {self:#?}");
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}: {self:#?}"
        );
        if code == 1 {
            let lines: Vec<&str> = self.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "not one line: {:?}", self.stderr);
            assert!(lines[0].starts_with("strata: error: "), "{:?}", lines[0]);
        }
    }

    /// stdout's lines parsed as JSON objects.
    pub fn json_lines(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|line| {
                let value: serde_json::Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"));
                assert!(value.is_object(), "not an object: {line}");
                value
            })
            .collect()
    }
}

impl Home {
    pub fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            workspace: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self) -> &Path {
        self.home.path()
    }

    pub fn store(&self) -> SessionStore {
        SessionStore::new(self.home.path().join("sessions"))
    }

    /// The binary with this home, the workspace as its working folder, no
    /// provider keys and no colour preferences from the caller's environment.
    pub fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_strata"));
        command
            .env("STRATA_HOME", self.home.path())
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CLICOLOR")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .current_dir(self.workspace.path())
            .stdin(Stdio::null());
        command
    }

    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command().args(args).output().unwrap())
    }

    pub fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = self.command();
        command.args(args);
        for (key, value) in env {
            command.env(key, value);
        }
        Run::from(command.output().unwrap())
    }

    /// The binary with this home, all three standard streams piped, started
    /// on `args`.
    pub fn spawn_piped(&self, args: &[&str]) -> Child {
        self.command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// `strata resume SESSION -p PROMPT` against the server at `base_url`.
    pub fn resume(&self, session: &str, prompt: &str, base_url: &str) -> Run {
        self.run(&["resume", session, "-p", prompt, "--base-url", base_url])
    }

    /// A session with two turns, a compaction between them, an approval,
    /// a capped tool output and a failed round; returns its id.
    pub fn compacted_session(&self) -> SessionId {
        let mut session = self
            .store()
            .create(self.workspace.path(), "openai-responses", "gpt-test")
            .unwrap();
        session
            .commit_item(ResponseItem::system("You are Strata, in a test."))
            .unwrap();
        session.set_title("Count the widgets").unwrap();
        let turn = TurnId::new();
        session
            .append(RecordBody::TurnStarted(TurnStarted { turn_id: turn }))
            .unwrap();
        session
            .commit_item(ResponseItem::user("How many widgets are in stock.csv?"))
            .unwrap();
        session
            .commit_item(ResponseItem::function_call(
                "call_1",
                "read_file",
                r#"{"path":"stock.csv"}"#,
            ))
            .unwrap();
        session
            .commit_item(ResponseItem::function_call_output(
                "call_1",
                "widget,4\ngadget,2\n[output capped]",
            ))
            .unwrap();
        session
            .append(RecordBody::FullToolOutput(
                strata_protocol::FullToolOutput {
                    call_id: "call_1".into(),
                    item_id: ItemId::new(),
                    output: "widget,4\ngadget,2\nsprocket,9\n".into(),
                },
            ))
            .unwrap();
        session
            .append(RecordBody::ApprovalDecision(ApprovalDecisionRecord {
                call_id: "call_2".into(),
                tool: "run_shell".into(),
                decision: ApprovalDecision::Deny,
                by: Default::default(),
                rules: Vec::new(),
            }))
            .unwrap();
        session
            .commit_item(ResponseItem::assistant(
                "There are 4 widgets (obsolete answer).",
            ))
            .unwrap();
        session
            .record_usage(
                TokenUsage {
                    input_tokens: Some(9_000),
                    output_tokens: Some(120),
                    ..TokenUsage::default()
                },
                None,
                None,
            )
            .unwrap();
        session
            .append(RecordBody::TurnFinished(TurnFinished {
                turn_id: turn,
                outcome: TurnOutcome::Completed,
                rounds: 2,
            }))
            .unwrap();
        session
            .commit_compaction(CompactionSummary {
                id: ItemId::new(),
                summary: "The user asked about widgets in stock.csv; there are 4.".into(),
                metadata: CompactionMetadata {
                    trigger: CompactionTrigger::Auto,
                    reason: "Reported token usage 9120 reached the compaction threshold 8000"
                        .into(),
                    context_tokens: Some(9_120),
                    threshold: Some(8_000),
                    removed: 3,
                    kept: 2,
                    summarizer_model: "gpt-test-mini".into(),
                    summarizer_usage: None,
                    summarizer_cost: None,
                    duration_ms: 42,
                },
            })
            .unwrap();
        let turn = TurnId::new();
        session
            .append(RecordBody::TurnStarted(TurnStarted { turn_id: turn }))
            .unwrap();
        session
            .commit_item(ResponseItem::user("And gadgets?"))
            .unwrap();
        session
            .append(RecordBody::Error(ErrorRecord {
                turn_id: Some(turn),
                message: "the round failed after 4 attempts".into(),
                model_error: Some(ModelError::Transient {
                    message: "503 Service Unavailable".into(),
                }),
            }))
            .unwrap();
        session
            .append(RecordBody::TurnFinished(TurnFinished {
                turn_id: turn,
                outcome: TurnOutcome::Failed,
                rounds: 1,
            }))
            .unwrap();
        session.id()
    }

    /// A session with a system prompt and one user message.
    pub fn small_session(&self, message: &str) -> SessionId {
        let mut session = self
            .store()
            .create(self.workspace.path(), "demo", "strata-demo")
            .unwrap();
        session.commit_item(ResponseItem::system("sys")).unwrap();
        session.commit_item(ResponseItem::user(message)).unwrap();
        session.id()
    }

    pub fn session_file(&self, id: SessionId) -> PathBuf {
        self.store().session_path(id)
    }
}

/// The arguments of `strata run -p PROMPT` against the Responses server at
/// `base_url` with the test model, followed by `extra`.
pub fn responses_run<'a>(prompt: &'a str, base_url: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "-p",
        prompt,
        "--provider",
        "openai-responses",
        "--base-url",
        base_url,
        "--model",
        "gpt-test",
    ];
    args.extend_from_slice(extra);
    args
}

/// Two ids' longest common prefix.
pub fn common_prefix(a: &str, b: &str) -> String {
    a.chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

/// The text of the last user message of a Responses request.
pub fn last_user(body: &Value) -> String {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|item| item["role"] == "user")
        .map(server::message_text)
        .unwrap_or_default()
}

/// How many function call outputs a Responses request carries.
pub fn output_count(body: &Value) -> usize {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "function_call_output")
        .count()
}

pub fn has_output(body: &Value) -> bool {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .any(|item| item["type"] == "function_call_output")
}

pub fn outcomes(home: &Home, id: SessionId) -> Vec<TurnOutcome> {
    let read = home.store().open_reader(id, ReadMode::Strict).unwrap();
    read.records
        .iter()
        .filter_map(|record| match &record.body {
            RecordBody::TurnFinished(finished) => Some(finished.outcome),
            _ => None,
        })
        .collect()
}

/// The session id from the first line of standard error.
pub fn announced_id(stderr: &str) -> SessionId {
    let first = stderr.lines().next().expect("stderr is empty");
    let id = first
        .split_whitespace()
        .find_map(|word| word.parse::<SessionId>().ok())
        .unwrap_or_else(|| panic!("no session id in {first:?}"));
    assert!(first.starts_with("session "), "{first:?}");
    id
}

/// A server whose model calls `name` with `arguments` once, then answers
/// `answer` once it has the call's output.
pub fn one_call_server(
    name: &'static str,
    arguments: Value,
    answer: &'static str,
) -> server::ResponsesServer {
    server::ResponsesServer::start(move |_, body| {
        if has_output(body) {
            return server::Reply::Sse(server::sse_text(answer, 300, 4));
        }
        server::Reply::Sse(server::sse_call("call_1", name, &arguments, 200, 10))
    })
}

/// The last tool output the model was sent in round `round`, as JSON text.
pub fn last_call_output(server: &server::ResponsesServer, round: usize) -> String {
    server.round_requests()[round]["input"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|item| item["type"] == "function_call_output")
        .unwrap()["output"]
        .to_string()
}
