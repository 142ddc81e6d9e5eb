//! Shared by the agent tests: a scripted model gateway that records every
//! request, and a harness with a real temp session store and workspace.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt};
use strata_core::agent::{
    Agent, AgentConfig, AgentParts, ApprovalBroker, CompactOutcome, EventReceiver, TurnReport,
    event_channel,
};
use strata_core::store::{ReadMode, SessionStore};
use strata_core::tools::{CancellationToken, SessionApprovals, ToolConfig, ToolRegistry};
use strata_core::{History, LiveSession, ModelGateway};
use strata_protocol::{
    AgentEvent, DebugEvent, EventEnvelope, MainlineEvent, ModelError, ModelEvent, ModelRequest,
    ModelResponse, Record, RecordBody, ResponseItem, SessionId, StopReason, TokenUsage,
};

/// One step of a scripted stream.
#[derive(Clone, Debug)]
pub enum Step {
    Event(ModelEvent),
    /// The stream fails with this error and ends.
    Fail(ModelError),
    /// The stream never yields again (until dropped).
    Hang,
}

/// Replays per-round scripts and summary responses, recording every request.
#[derive(Default)]
pub struct ScriptedGateway {
    rounds: Mutex<VecDeque<Vec<Step>>>,
    summaries: Mutex<VecDeque<Result<ModelResponse, ModelError>>>,
    requests: Mutex<Vec<ModelRequest>>,
    summary_requests: Mutex<Vec<ModelRequest>>,
}

impl ScriptedGateway {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn push_round(&self, steps: Vec<Step>) {
        self.rounds.lock().unwrap().push_back(steps);
    }

    pub fn push_summary(&self, response: Result<ModelResponse, ModelError>) {
        self.summaries.lock().unwrap().push_back(response);
    }

    /// Every streamed request, in order.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests.lock().unwrap().clone()
    }

    /// The last streamed request.
    pub fn last_request(&self) -> ModelRequest {
        self.requests().pop().expect("no streamed request")
    }

    pub fn summary_requests(&self) -> Vec<ModelRequest> {
        self.summary_requests.lock().unwrap().clone()
    }

    /// Scripts not yet consumed (a test that scripted too much is wrong).
    pub fn unused(&self) -> (usize, usize) {
        (
            self.rounds.lock().unwrap().len(),
            self.summaries.lock().unwrap().len(),
        )
    }
}

impl ModelGateway for ScriptedGateway {
    fn stream_response(
        &self,
        request: ModelRequest,
    ) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
        self.requests.lock().unwrap().push(request);
        let steps = self.rounds.lock().unwrap().pop_front().unwrap_or_else(|| {
            vec![Step::Fail(ModelError::InvalidRequest {
                message: "the test scripted no more rounds".into(),
            })]
        });
        stream::unfold(steps.into_iter(), |mut steps| async move {
            match steps.next()? {
                Step::Event(event) => Some((Ok(event), steps)),
                Step::Fail(error) => Some((Err(error), Vec::new().into_iter())),
                Step::Hang => {
                    futures::future::pending::<()>().await;
                    None
                }
            }
        })
        .boxed()
    }

    fn create_response(
        &self,
        request: ModelRequest,
    ) -> BoxFuture<'static, Result<ModelResponse, ModelError>> {
        self.summary_requests.lock().unwrap().push(request);
        let response = self
            .summaries
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| {
                Err(ModelError::InvalidRequest {
                    message: "the test scripted no more summaries".into(),
                })
            });
        Box::pin(async move { response })
    }
}

pub fn usage(input: u64, output: u64) -> TokenUsage {
    TokenUsage {
        input_tokens: Some(input),
        output_tokens: Some(output),
        total_tokens: Some(input + output),
        ..TokenUsage::default()
    }
}

pub fn ev(event: ModelEvent) -> Step {
    Step::Event(event)
}

pub fn delta(text: &str) -> Step {
    ev(ModelEvent::TextDelta { delta: text.into() })
}

pub fn call(call_id: &str, name: &str, arguments: serde_json::Value) -> Step {
    ev(ModelEvent::ToolCallDone {
        call_id: call_id.into(),
        name: name.into(),
        arguments: arguments.to_string(),
    })
}

pub fn reported(usage: TokenUsage) -> Step {
    ev(ModelEvent::Usage { usage })
}

pub fn finished(stop_reason: StopReason) -> Step {
    ev(ModelEvent::Finished { stop_reason })
}

/// A round answering `text`, reporting `usage`.
pub fn text_round(text: &str, usage: Option<TokenUsage>) -> Vec<Step> {
    let mut steps = vec![delta(text)];
    steps.extend(usage.map(reported));
    steps.push(finished(StopReason::EndTurn));
    steps
}

/// A round making these calls, reporting `usage`.
pub fn calls_round(calls: Vec<Step>, usage: Option<TokenUsage>) -> Vec<Step> {
    let mut steps = calls;
    steps.extend(usage.map(reported));
    steps.push(finished(StopReason::ToolUse));
    steps
}

/// A round calling `run_shell` with `sleep 30` (`c1`), then
/// `list_directory` (`c2`): something to stop mid-tool.
pub fn slow_shell_then_list_round() -> Vec<Step> {
    calls_round(
        vec![
            call(
                "c1",
                "run_shell",
                serde_json::json!({"command": "sleep 30"}),
            ),
            call("c2", "list_directory", serde_json::json!({})),
        ],
        None,
    )
}

pub fn summary_response(text: &str) -> Result<ModelResponse, ModelError> {
    Ok(ModelResponse {
        model: "summarizer-1".into(),
        items: vec![ResponseItem::assistant(text)],
        usage: Some(usage(900, 60)),
        stop_reason: StopReason::EndTurn,
    })
}

/// A reply to a summary request that calls a tool instead of summarizing
/// (what an in-context summary request may get back).
pub fn tool_call_instead_of_summary() -> Result<ModelResponse, ModelError> {
    Ok(ModelResponse {
        model: "summarizer-1".into(),
        items: vec![
            ResponseItem::assistant("Let me check one more file first."),
            ResponseItem::FunctionCall(strata_protocol::FunctionCall {
                id: strata_protocol::ItemId::new(),
                call_id: "c9".into(),
                name: "list_directory".into(),
                arguments: "{}".into(),
            }),
        ],
        usage: Some(usage(900, 20)),
        stop_reason: StopReason::ToolUse,
    })
}

pub fn overflow(message: &str) -> ModelError {
    ModelError::ContextOverflow {
        message: message.into(),
    }
}

/// A real session store and workspace in temp folders, and a scripted model.
/// Approvals that run every tool without asking.
pub fn auto() -> SessionApprovals {
    SessionApprovals::new(strata_protocol::ApprovalPolicy::Auto)
}

/// Runs one turn that nothing cancels; it must not fail to run.
pub async fn run_turn(agent: &mut Agent, user_text: impl Into<String>) -> TurnReport {
    agent
        .run_turn(user_text, CancellationToken::new())
        .await
        .unwrap()
}

pub struct Harness {
    pub home: tempfile::TempDir,
    pub workspace: tempfile::TempDir,
    pub store: SessionStore,
    pub gateway: Arc<ScriptedGateway>,
    pub tool_config: ToolConfig,
    pub config: AgentConfig,
}

impl Harness {
    pub fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let store = SessionStore::new(home.path().join("sessions"));
        Self {
            home,
            workspace,
            store,
            gateway: ScriptedGateway::new(),
            tool_config: ToolConfig::default(),
            config: AgentConfig {
                // The existing scenario tests describe the base design; layered
                // scenarios set their policy themselves.
                compaction: Some(strata_protocol::CompactionPolicy::Base),
                ..AgentConfig::new("scripted", "model-1")
            },
        }
    }

    pub fn write(&self, path: &str, text: &str) {
        let path = self.workspace.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn parts(&self, approvals: SessionApprovals, broker: ApprovalBroker) -> (AgentParts, Events) {
        let (tx, rx) = event_channel();
        let parts = AgentParts {
            gateway: self.gateway.clone(),
            tools: ToolRegistry::new(self.workspace.path(), self.tool_config.clone()).unwrap(),
            approvals,
            config: self.config.clone(),
            events: tx,
            broker,
        };
        (parts, Events::new(rx))
    }

    /// A new session's agent.
    pub fn start(&self, approvals: SessionApprovals, broker: ApprovalBroker) -> (Agent, Events) {
        let (parts, events) = self.parts(approvals, broker);
        (Agent::start(&self.store, parts).unwrap(), events)
    }

    /// The session reopened for writing, as a crash-free resume would.
    pub fn reopen(&self, id: SessionId) -> LiveSession {
        self.store.open_writer(id).unwrap()
    }

    pub fn resume(
        &self,
        id: SessionId,
        approvals: SessionApprovals,
        broker: ApprovalBroker,
    ) -> (Agent, Events) {
        let (parts, events) = self.parts(approvals, broker);
        (Agent::resume(self.reopen(id), parts).unwrap(), events)
    }

    /// Every record of the session file, strictly read.
    pub fn records(&self, id: SessionId) -> Vec<Record> {
        self.store
            .open_reader(id, ReadMode::Strict)
            .unwrap()
            .records
    }

    /// Drops the agent (releasing the lock), reopens the file, and checks it
    /// holds exactly the agent's history with nothing repaired or aborted,
    /// and that every round record matches the history it was sent with.
    pub fn assert_reopens_to(&self, agent: Agent) -> LiveSession {
        let held: History = agent.history().clone();
        let id = agent.id();
        drop(agent);
        let reopened = self.reopen(id);
        assert!(
            reopened.recovery().is_empty(),
            "reopening repaired something: {:?}",
            reopened.recovery()
        );
        assert_eq!(reopened.history(), &held);
        assert_eq!(reopened.state().inconsistent_rounds(), 0);
        reopened
    }
}

/// The events an agent emitted, checked to be gap-free in seq order.
pub struct Events {
    rx: EventReceiver,
    pub all: Vec<EventEnvelope>,
}

impl Events {
    fn new(rx: EventReceiver) -> Self {
        Self {
            rx,
            all: Vec::new(),
        }
    }

    fn push(&mut self, envelope: EventEnvelope) {
        assert_eq!(
            envelope.seq,
            self.all.len() as u64,
            "events out of order or missing"
        );
        self.all.push(envelope);
    }

    /// Takes every event emitted so far.
    pub fn drain(&mut self) -> &[EventEnvelope] {
        while let Ok(envelope) = self.rx.try_recv() {
            self.push(envelope);
        }
        &self.all
    }

    /// Waits for the next event (while the agent runs in the same task).
    pub async fn next(&mut self) -> &EventEnvelope {
        let envelope = self.rx.recv().await.expect("the agent dropped its sender");
        self.push(envelope);
        self.all.last().unwrap()
    }

    pub fn mainline(&mut self) -> Vec<MainlineEvent> {
        self.drain()
            .iter()
            .filter_map(|envelope| match &envelope.event {
                AgentEvent::Mainline(event) => Some(event.clone()),
                AgentEvent::Debug(_) => None,
            })
            .collect()
    }

    pub fn debug(&mut self) -> Vec<DebugEvent> {
        self.drain()
            .iter()
            .filter_map(|envelope| match &envelope.event {
                AgentEvent::Debug(event) => Some(event.clone()),
                AgentEvent::Mainline(_) => None,
            })
            .collect()
    }
}

/// The bodies of `records` of one type, e.g. `of_type(&records, "retry")`.
pub fn of_type<'a>(records: &'a [Record], type_name: &str) -> Vec<&'a RecordBody> {
    records
        .iter()
        .map(|record| &record.body)
        .filter(|body| body.type_name() == type_name)
        .collect()
}

/// The output the history holds for `call_id`.
pub fn output_of<'a>(items: &'a [ResponseItem], call_id: &str) -> &'a str {
    items
        .iter()
        .find_map(|item| match item {
            ResponseItem::FunctionCallOutput(output) if output.call_id == call_id => {
                Some(output.output.as_str())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no output for {call_id}"))
}

/// Fails the test instead of hanging when an expected event never comes.
pub async fn within<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(std::time::Duration::from_secs(60), future)
        .await
        .expect("the test did not finish within 60 s")
}

/// Items of the requests' inputs, as (role or type) labels, for readable
/// assertions.
pub fn labels(items: &[ResponseItem]) -> Vec<String> {
    items
        .iter()
        .map(|item| match item {
            ResponseItem::Message(message) => message.role.as_str().to_owned(),
            ResponseItem::FunctionCall(_) => "call".to_owned(),
            ResponseItem::FunctionCallOutput(_) => "output".to_owned(),
            ResponseItem::CompactionSummary(_) => "summary".to_owned(),
            ResponseItem::Reasoning(_) => "reasoning".to_owned(),
        })
        .collect()
}

/// A manual compaction that succeeds.
pub async fn compact_by_hand(agent: &mut Agent) {
    let outcome = agent
        .compact_now(None, CancellationToken::new())
        .await
        .unwrap();
    assert!(
        matches!(outcome, CompactOutcome::Compacted(_)),
        "{outcome:?}"
    );
}
