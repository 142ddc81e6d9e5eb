//! Strata's core: pure decisions (when to compact, what survives) and the
//! append-only session store they are replayed from. No Tauri, no HTTP.

pub mod agent;
pub mod changes;
pub mod compaction;
pub mod context_ops;
pub mod error;
pub mod export;
pub mod gateway;
pub mod history;
pub mod mcp;
pub mod mentions;
pub mod paths;
pub mod plan;
pub mod private;
pub mod prompt_commands;
pub mod recall;
pub mod session;
pub mod store;
pub mod tools;
pub mod undo_point;

pub use agent::{
    Agent, AgentConfig, AgentParts, ApprovalBroker, CompactOutcome, EventReceiver, EventSender,
    TurnReport, event_channel,
};
pub use error::{CoreError, Result};
pub use gateway::ModelGateway;
pub use history::{Applied, History};
pub use paths::{STRATA_HOME_ENV, StrataPaths};
pub use session::{ABORTED_TOOL_OUTPUT, LiveSession, Recovery};
pub use store::{
    ContinuedSession, ReadMode, ReadReport, Replay, SessionRead, SessionStore, SessionSummary,
};
pub use tools::{
    ApprovalCheck, CancellationToken, PreparedCall, SessionApprovals, ToolConfig, ToolError,
    ToolKind, ToolOutcome, ToolRegistry,
};
