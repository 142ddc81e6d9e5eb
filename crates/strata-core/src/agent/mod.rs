//! The agent: the sampling loop that runs a person's turn round by round
//! over a [`LiveSession`], the tools with their approvals, compaction at the
//! round boundary, and the events every front end consumes.
//!
//! # A turn
//!
//! `turn_started`, the user message, then rounds. Each round appends its
//! `round` record, streams a response, and only once the stream finished
//! commits the model's items (reasoning, the assistant message, the function
//! calls) and the usage; then it runs the calls in order, committing each
//! output; then the compaction check, on the usage that round reported. A
//! round without calls ends the turn (`completed`), as does the round limit
//! (`round_limit`). `turn_finished` is written (and synced) last.
//!
//! # Cancellation and failures
//!
//! - Cancelled while streaming: the half-streamed response is **not
//!   committed at all** (its text deltas were shown, but the model will not
//!   see them). Committing a partial message would put words in the model's
//!   mouth it never finished saying, and a partial function call can never
//!   be run; dropping the round keeps history exactly as it was before it.
//! - Cancelled during a tool or an approval wait: that call's output says the
//!   user cancelled it, and every later call of the round gets a cancelled
//!   output too, so no call is left without an output.
//! - A model error that survived the provider's retries ends the turn with an
//!   `error` record and a mainline error event. Nothing of the failed round
//!   was committed, since items are committed only after a finished stream.
//! - A round rejected with [`ModelError::ContextOverflow`] shrinks the
//!   history under the session's policy (`layered` evicts, then summarises
//!   with its state sheet if that is not enough) and is sent again once; a
//!   second overflow fails the turn with an error naming what was tried.
//! - A turn still running at [`AgentConfig::turn_deadline`] is stopped as
//!   if cancelled (the same cancelled outputs, nothing half-streamed
//!   committed) and fails with an `error` record naming the deadline.
//! - A store failure ends [`Agent::run_turn`] with `Err`: the file can no
//!   longer be trusted to match the history, so nothing more is attempted.
//!
//! # Wiring a front end
//!
//! ```
//! use std::sync::Arc;
//!
//! use futures::future::BoxFuture;
//! use futures::stream::{self, BoxStream, StreamExt};
//! use strata_core::agent::{Agent, AgentConfig, AgentParts, ApprovalBroker, event_channel};
//! use strata_core::tools::{CancellationToken, SessionApprovals, ToolConfig, ToolRegistry};
//! use strata_core::{ModelGateway, SessionStore};
//! use strata_protocol::*;
//!
//! /// A model that always says hello.
//! struct Hello;
//!
//! impl ModelGateway for Hello {
//!     fn stream_response(&self, _: ModelRequest) -> BoxStream<'static, Result<ModelEvent, ModelError>> {
//!         let events = [
//!             ModelEvent::TextDelta { delta: "Hello!".into() },
//!             ModelEvent::Finished { stop_reason: StopReason::EndTurn },
//!         ];
//!         stream::iter(events.map(Ok)).boxed()
//!     }
//!
//!     fn create_response(&self, _: ModelRequest) -> BoxFuture<'static, Result<ModelResponse, ModelError>> {
//!         Box::pin(async { Err(ModelError::InvalidRequest { message: "no summaries".into() }) })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let home = tempfile::tempdir()?;
//! # let workspace = tempfile::tempdir()?;
//! let store = SessionStore::new(home.path().join("sessions"));
//! let (events, mut received) = event_channel();
//! let broker = ApprovalBroker::interactive(); // or non_interactive() without a terminal
//! let parts = AgentParts {
//!     gateway: Arc::new(Hello),
//!     tools: ToolRegistry::new(workspace.path(), ToolConfig::default())?,
//!     approvals: SessionApprovals::new(ApprovalPolicy::Ask),
//!     config: AgentConfig::new("demo", "strata-demo"),
//!     events,
//!     broker: broker.clone(), // answer with broker.answer(call_id, decision)
//! };
//! let mut agent = Agent::start(&store, parts)?; // or Agent::resume(store.open_writer(id)?, parts)
//! let cancel = CancellationToken::new(); // cancel.cancel() stops the turn cleanly
//! let report = agent.run_turn("Hi", cancel).await?;
//! assert_eq!(report.outcome, TurnOutcome::Completed);
//! while let Ok(envelope) = received.try_recv() {
//!     if let AgentEvent::Mainline(MainlineEvent::TextDelta { delta, .. }) = envelope.event {
//!         assert_eq!(delta, "Hello!");
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod approvals;
mod calls;
mod compact;
mod events;
mod evict;
mod guards;
mod in_context;
pub(crate) mod instructions;
mod layered;
mod overflow;
mod pins;
mod probe;
pub(crate) mod prompt;
mod reread;
mod round_tools;
mod tracking;
mod turn;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use strata_protocol::{
    ApprovalPolicy, CompactionPolicy, CompactionPolicyRecord, CompactionSummary, Cost, ModelError,
    PriceQuote, ProfileSet, ReasoningEffort, ReasoningSet, RecordBody, ResponseItem, Role,
    SessionId, ThresholdSetting, TokenUsage, TurnId, TurnOutcome,
};

pub use approvals::{ApprovalBroker, ProposedRules};
pub use compact::MAX_SUMMARY_ATTEMPTS;
pub use events::{EventHandler, EventReceiver, EventSender, event_channel, forward_events};
pub use instructions::{
    AGENTS_FILE, AGENTS_FILE_MAX_BYTES, CLAUDE_FILE, Instructions, agents_instructions,
    read_instructions,
};
pub use layered::CIRCUIT_BREAKER_FAILURES;
pub use overflow::MAX_OVERFLOW_RECOVERIES;
pub use prompt::default_system_prompt;

use crate::compaction::{
    Calibration, CharEstimator, DEFAULT_COMPACTION_THRESHOLD, TokenEstimator, resolve_threshold,
};
use crate::error::Result;
use crate::gateway::ModelGateway;
use crate::history::History;
use crate::session::LiveSession;
use crate::store::SessionStore;
use crate::tools::{SessionApprovals, ToolRegistry};
use events::EventEmitter;

/// Rounds a turn may run before it stops with `round_limit`.
pub const DEFAULT_MAX_ROUNDS: u32 = 32;

/// How long a whole turn (model rounds and tool runs together) may take
/// before it is stopped like a cancellation: two hours.
pub const DEFAULT_TURN_DEADLINE: Duration = Duration::from_secs(2 * 60 * 60);

/// How an agent talks to its model and when it compacts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentConfig {
    /// Recorded in every `round` record (`openai-responses`, `demo`, ...).
    pub provider_kind: String,
    pub model: String,
    /// The profile's threshold (from the model's window): `base`'s, and
    /// the ceiling of `layered`'s lower default (see
    /// [`Self::effective_threshold`]).
    pub compact_threshold: u64,
    pub max_rounds: u32,
    pub max_output_tokens: Option<u32>,
    /// The model's context window, when known; it caps the threshold (see
    /// [`Self::effective_threshold`]).
    pub context_window: Option<u64>,
    /// The person's threshold override (`80%`, `12000`, `left:20000`); it
    /// replaces every policy's default.
    pub threshold_setting: Option<ThresholdSetting>,
    /// The compaction policy: for a new session, `None` means `layered`; for a
    /// resumed one, `None` keeps the policy it recorded.
    pub compaction: Option<CompactionPolicy>,
    /// The longest a whole turn may run, rounds and tools together; past it
    /// the turn stops as if cancelled and fails with an error naming it.
    pub turn_deadline: Duration,
    /// The profile's reasoning setting: what rounds send while the session
    /// has recorded none of its own ([`Agent::set_reasoning`]).
    pub reasoning: Option<ReasoningEffort>,
    /// The price the session's rounds are billed at (the profile's, else
    /// the built-in table's); each usage record carries its cost at it.
    /// `None`: no price known, so rounds record tokens only.
    pub price: Option<PriceQuote>,
    /// The folder of the person's own `AGENTS.md` (Strata's config folder),
    /// read before the repository's; `None` reads the repository's alone.
    pub own_instructions: Option<PathBuf>,
}

impl AgentConfig {
    pub fn new(provider_kind: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            provider_kind: provider_kind.into(),
            model: model.into(),
            compact_threshold: DEFAULT_COMPACTION_THRESHOLD,
            max_rounds: DEFAULT_MAX_ROUNDS,
            max_output_tokens: None,
            context_window: None,
            threshold_setting: None,
            compaction: None,
            turn_deadline: DEFAULT_TURN_DEADLINE,
            reasoning: None,
            price: None,
            own_instructions: None,
        }
    }

    /// The cost of a round of this session's model.
    pub fn round_cost(&self, usage: &TokenUsage) -> Option<Cost> {
        self.price.as_ref().map(|quote| quote.cost(usage))
    }

    /// The cost of a summary call made with `model`: the session's price
    /// when it is the session's model, else the built-in table's.
    pub fn summary_cost(&self, model: &str, usage: Option<&TokenUsage>) -> Option<Cost> {
        let usage = usage?;
        if model == self.model {
            self.round_cost(usage)
        } else {
            PriceQuote::builtin(model).map(|quote| quote.cost(usage))
        }
    }

    /// The threshold a session under `policy` compacts at
    /// ([`resolve_threshold`]): the override, else the policy's default,
    /// never above the context window less the output budget, where it
    /// could only ever be reached by overflowing.
    pub fn effective_threshold(&self, policy: CompactionPolicy) -> u64 {
        resolve_threshold(
            policy,
            self.threshold_setting,
            self.compact_threshold,
            self.context_window,
            self.max_output_tokens,
        )
    }
}

/// Everything an agent needs besides its session.
pub struct AgentParts {
    pub gateway: Arc<dyn ModelGateway>,
    /// Tools of the session's workspace.
    pub tools: ToolRegistry,
    pub approvals: SessionApprovals,
    pub config: AgentConfig,
    pub events: EventSender,
    pub broker: ApprovalBroker,
}

/// How a turn ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnReport {
    pub turn_id: TurnId,
    pub outcome: TurnOutcome,
    /// `round` records the turn wrote (an overflow retry counts).
    pub rounds: u32,
    /// Compactions during the turn.
    pub compactions: u32,
    /// The model error that failed the turn (outcome `failed`).
    pub error: Option<ModelError>,
    /// The error line naming the turn deadline, when the deadline stopped
    /// the turn (outcome `failed`).
    pub deadline: Option<String>,
}

/// What a compaction attempt did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompactOutcome {
    /// The summary replaced the history (and was written and synced).
    Compacted(CompactionSummary),
    /// Compacting would remove nothing (an empty history, or only the
    /// leading messages and user messages).
    NothingToCompact { items: usize },
    /// No summary could be made; nothing was persisted.
    SummaryFailed { attempts: u32, message: String },
    /// The rule check refused the result: it would have dropped what
    /// `dropped` names; nothing was persisted.
    Refused {
        dropped: Vec<String>,
        message: String,
    },
    /// Cancelled before a summary arrived; nothing was persisted.
    Cancelled,
}

/// One session's agent. Not shared: run one turn or compaction at a time
/// (`&mut self`); cancel with the token given to it, answer approvals through
/// [`Self::broker`].
pub struct Agent {
    session: LiveSession,
    gateway: Arc<dyn ModelGateway>,
    tools: ToolRegistry,
    approvals: SessionApprovals,
    config: AgentConfig,
    events: EventEmitter,
    broker: ApprovalBroker,
    /// Counts tokens for estimates (never for automatic triggers).
    estimator: Arc<dyn TokenEstimator>,
    /// How far the estimator missed the last reported usage.
    calibration: Calibration,
    /// When the running turn's deadline passes, so a stop after it is told
    /// to the model as the deadline's, not the person's.
    turn_deadline_at: Option<tokio::time::Instant>,
    /// The stable prefix the last round's request announced
    /// ([`crate::compaction::cache_anchors`]), so the next one marks it
    /// again; a resumed session starts from the one its last round record
    /// kept.
    cache_anchor: Option<u32>,
    /// The workspace as the last shell command left it, so the next walk
    /// hashes only what changed since.
    shell_snapshot: Option<crate::changes::snapshot::Snapshot>,
    /// What re-reading the instruction files at the resume (or an undo)
    /// found changed.
    instructions_reread: Option<strata_protocol::InstructionsSet>,
}

impl Agent {
    /// Creates a session in `store` for the tools' workspace and commits its
    /// leading messages: the default system prompt, then `AGENTS.md` (if the
    /// workspace has one) as a developer message. `AGENTS.md` is read before
    /// the session file is created, so a failure leaves no file behind.
    pub fn start(store: &SessionStore, parts: AgentParts) -> Result<Self> {
        let workspace = parts.tools.workspace().to_owned();
        let agents = read_instructions(&workspace, parts.config.own_instructions.as_deref())?
            .map(|instructions| instructions.text);
        let session = store.create(&workspace, &parts.config.provider_kind, &parts.config.model)?;
        let mut agent = Self::assemble(session, parts);
        // `base` sessions carry no policy record: they are exactly what
        // Strata wrote before policies existed, and replay as `base`.
        let policy = agent.config.compaction.unwrap_or_default();
        if policy != CompactionPolicy::Base {
            agent.record_policy(policy)?;
        }
        agent.commit_preamble(agents)?;
        Ok(agent)
    }

    /// Continues a session opened with [`SessionStore::open_writer`]; its
    /// history is already there. Build the tools over the session's own
    /// workspace (`session.meta().workspace`). A session whose history is
    /// empty (created but never started) gets the preamble first.
    pub fn resume(session: LiveSession, parts: AgentParts) -> Result<Self> {
        let mut agent = Self::assemble(session, parts);
        // What the person allowed for the session still holds.
        let records = agent.session.read_records()?;
        agent
            .approvals
            .restore(&crate::tools::session_allowances(&records));
        let recorded = agent.session.state().policy_record().cloned();
        if agent.config.threshold_setting.is_none() {
            agent.config.threshold_setting = recorded.as_ref().and_then(|r| r.threshold);
        }
        // A file with no policy record and no history was never started (a
        // kill right after its header line): it takes the policy a new
        // session gets, not the `base` of sessions older than policies.
        let never_started = recorded.is_none() && agent.session.history().is_empty();
        let policy = agent
            .config
            .compaction
            .or_else(|| never_started.then(CompactionPolicy::default));
        if let Some(policy) = policy {
            let recorded_threshold = recorded.as_ref().and_then(|r| r.threshold);
            if policy != agent.session.state().policy()
                || agent.config.threshold_setting != recorded_threshold && recorded.is_some()
            {
                agent.record_policy(policy)?;
            }
        }
        if agent.session.history().is_empty() {
            let agents = read_instructions(
                agent.tools.workspace(),
                agent.config.own_instructions.as_deref(),
            )?
            .map(|instructions| instructions.text);
            agent.commit_preamble(agents)?;
        } else {
            agent.reread_instructions()?;
        }
        Ok(agent)
    }

    fn assemble(session: LiveSession, parts: AgentParts) -> Self {
        let events = EventEmitter::new(parts.events, session.id());
        let cache_anchor = session.state().last_cache_anchor();
        Self {
            session,
            gateway: parts.gateway,
            tools: parts.tools,
            approvals: parts.approvals,
            config: parts.config,
            events,
            broker: parts.broker,
            estimator: Arc::new(CharEstimator),
            calibration: Calibration::default(),
            turn_deadline_at: None,
            cache_anchor,
            shell_snapshot: None,
            instructions_reread: None,
        }
    }

    /// Records the session's policy (with the threshold override in force).
    fn record_policy(&mut self, policy: CompactionPolicy) -> Result<()> {
        self.session
            .append(RecordBody::CompactionPolicy(CompactionPolicyRecord {
                policy,
                threshold: self.config.threshold_setting,
            }))?;
        self.session.sync()
    }

    /// Counts estimates with `estimator` (the model's tokenizer, from
    /// `strata-providers`) instead of characters ÷ 4.
    pub fn with_estimator(mut self, estimator: Arc<dyn TokenEstimator>) -> Self {
        self.estimator = estimator;
        self
    }

    /// The session's compaction policy (as recorded; `base` without a record).
    pub fn policy(&self) -> CompactionPolicy {
        self.session.state().policy()
    }

    /// Whether rounds offer the `recall` tool: under every policy but
    /// `base`, whose requests stay exactly as they were before recall.
    pub fn offers_recall(&self) -> bool {
        self.policy() != CompactionPolicy::Base
    }

    fn commit_preamble(&mut self, agents: Option<String>) -> Result<()> {
        let system = prompt::system_prompt(
            self.tools.workspace(),
            &self.tools.specs(),
            self.tools.shell_reach(),
        );
        self.session.commit_item(ResponseItem::system(system))?;
        if let Some(text) = agents {
            self.session
                .commit_item(ResponseItem::message(Role::Developer, text))?;
        }
        self.session.sync()
    }

    pub fn id(&self) -> SessionId {
        self.session.id()
    }

    pub fn session(&self) -> &LiveSession {
        &self.session
    }

    /// Gives the session back, still locked; dropping it releases the lock.
    pub fn into_session(self) -> LiveSession {
        self.session
    }

    /// The model-visible history and the last reported usage.
    pub fn history(&self) -> &History {
        self.session.history()
    }

    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The threshold compaction uses under the session's policy
    /// ([`AgentConfig::effective_threshold`]): the trigger between rounds,
    /// the pre-turn check and the `model_switch` trigger all read it.
    pub fn threshold(&self) -> u64 {
        self.config.effective_threshold(self.policy())
    }

    pub fn workspace(&self) -> &Path {
        self.tools.workspace()
    }

    /// The session's tools (for what an `@` mention attaches, read as
    /// `read_file` reads).
    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    /// The shell sandbox's mode, and why it cannot be had if it cannot.
    pub fn sandbox(&self) -> (crate::tools::SandboxMode, Option<String>) {
        (
            self.tools.config().sandbox.mode,
            self.tools.sandbox_unavailable(),
        )
    }

    /// Where approval requests wait; clone it to answer from elsewhere.
    pub fn broker(&self) -> &ApprovalBroker {
        &self.broker
    }

    pub fn approvals(&self) -> &SessionApprovals {
        &self.approvals
    }

    /// Renames the session between turns (a `title_set` record, made
    /// durable at once). The agent goes on as it was: the tools allowed for
    /// the session, its broker and its event numbering are kept.
    pub fn set_title(&mut self, title: impl Into<String>) -> Result<()> {
        self.session.set_title(title)?;
        self.session.sync()
    }

    /// Records the provider profile the session talks to from now on (a
    /// `profile_set` record, made durable at once). The caller builds the
    /// agent's gateway for it; the agent itself does not change.
    pub fn record_profile(&mut self, profile: ProfileSet) -> Result<()> {
        self.session.append(RecordBody::ProfileSet(profile))?;
        self.session.sync()
    }

    /// The reasoning setting rounds send: the session's recorded one, else
    /// the configured one (a profile's, for a session that never set one).
    pub fn reasoning(&self) -> Option<ReasoningEffort> {
        self.session.state().reasoning().or(self.config.reasoning)
    }

    /// Sets the session's reasoning between turns: a `reasoning_set` record
    /// (made durable at once) when it differs from the setting in force, so
    /// replay, the next round and a resume all read it back.
    pub fn set_reasoning(&mut self, effort: ReasoningEffort) -> Result<()> {
        if self.session.state().reasoning() == Some(effort) {
            return Ok(());
        }
        self.session
            .append(RecordBody::ReasoningSet(ReasoningSet { effort }))?;
        self.session.sync()
    }

    /// The session's last recorded sandbox mode, if it recorded one.
    pub fn recorded_sandbox(&self) -> Option<crate::tools::SandboxMode> {
        self.session.state().sandbox()
    }

    /// The sandbox the tools run commands in: mode, network and domains.
    pub fn sandbox_settings(&self) -> strata_protocol::SandboxSet {
        let sandbox = &self.tools.config().sandbox;
        strata_protocol::SandboxSet {
            mode: sandbox.mode,
            network: sandbox.network,
            allow_domains: sandbox.allow_domains.clone(),
        }
    }

    /// Confines the session's commands by `set` from the next call on: a
    /// `sandbox_set` record (made durable at once) when it differs from the
    /// recorded one, so replay and a resume read it back. A session that
    /// recorded none gets its first record here.
    pub fn set_sandbox(&mut self, set: strata_protocol::SandboxSet) -> Result<()> {
        if self.sandbox_settings() != set {
            self.tools = self.tools.with_sandbox(&set);
        }
        if self.session.state().sandbox_set() == Some(&set) {
            return Ok(());
        }
        self.session.append(RecordBody::SandboxSet(set))?;
        self.session.sync()
    }

    /// Changes the approval policy between turns; tools allowed for the
    /// session stay allowed.
    pub fn set_approval_policy(&mut self, policy: ApprovalPolicy) {
        self.approvals.set_policy(policy);
    }
}
