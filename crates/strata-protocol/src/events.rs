//! Events every front end consumes. The agent emits one ordered stream of
//! [`AgentEvent`]s; it projects into two families: **mainline** (what a person
//! follows in the conversation) and **debug** (what the debug console shows).
//! Each event carries a sequence number so a consumer can prove nothing was
//! lost or reordered.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::context::{LayeredCompaction, ToolOutputsEvicted};
use crate::ids::{ItemId, RoundId, SessionId, TurnId};
use crate::items::{CompactionSummary, ResponseItem};
use crate::model::{ModelError, ModelRequest};
use crate::records::{ApprovalDecision, TurnOutcome};
use crate::usage::TokenUsage;

/// The event format this version emits.
pub const EVENT_FORMAT_VERSION: u32 = 1;

/// One event of a session's stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct EventEnvelope {
    pub v: u32,
    /// Strictly increasing per session stream, from 0.
    pub seq: u64,
    pub session_id: SessionId,
    pub event: AgentEvent,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "family", content = "event", rename_all = "snake_case")]
pub enum AgentEvent {
    Mainline(MainlineEvent),
    Debug(DebugEvent),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    Success,
    Error,
    Denied,
    Cancelled,
    TimedOut,
}

/// What a person follows in the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MainlineEvent {
    TurnStarted {
        turn_id: TurnId,
        /// The user message that opened the turn.
        user_message: ResponseItem,
    },
    TextDelta {
        turn_id: TurnId,
        round_id: RoundId,
        delta: String,
    },
    /// Readable thinking of a round as it streams; the reasoning item
    /// follows in `message_committed`.
    ReasoningDelta {
        turn_id: TurnId,
        round_id: RoundId,
        delta: String,
    },
    /// An item joined the history (assistant message, function call or output).
    MessageCommitted { turn_id: TurnId, item: ResponseItem },
    ToolCallStarted {
        turn_id: TurnId,
        call_id: String,
        name: String,
        arguments: String,
    },
    ToolCallFinished {
        turn_id: TurnId,
        call_id: String,
        name: String,
        status: ToolCallStatus,
        /// The output as it entered history (capped).
        output: String,
        duration_ms: u64,
    },
    ApprovalRequested {
        turn_id: TurnId,
        call_id: String,
        tool: String,
        /// What will happen, for a person to judge: a diff for writes, the
        /// command and folder for shell.
        summary: String,
        detail: String,
        /// What "always allow" would save ([`crate::ApprovalRequest::proposed_rules`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[ts(as = "Option<Vec<String>>", optional)]
        proposed_rules: Vec<String>,
    },
    ApprovalResolved {
        turn_id: TurnId,
        call_id: String,
        decision: ApprovalDecision,
    },
    TurnFinished {
        turn_id: TurnId,
        outcome: TurnOutcome,
        rounds: u32,
    },
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<TurnId>,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model_error: Option<ModelError>,
    },
    /// Automatic compaction stopped after `failures` compactions in a row
    /// used up their summary attempts; it resumes when the person retries
    /// or a manual compaction succeeds.
    CompactionCircuitOpen { failures: u32, message: String },
}

/// What the debug console shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DebugEvent {
    /// A round began; `request` is exactly what was sent.
    RoundStarted {
        turn_id: TurnId,
        round_id: RoundId,
        request: ModelRequest,
    },
    UsageReported {
        turn_id: TurnId,
        round_id: RoundId,
        usage: TokenUsage,
        /// `usage.context_tokens()`, the figure the threshold is compared with.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_tokens: Option<u64>,
        threshold: u64,
    },
    Retrying {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<TurnId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round_id: Option<RoundId>,
        attempt: u32,
        of: u32,
        delay_ms: u64,
        cause: String,
    },
    HistoryCompacted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<TurnId>,
        /// The summary item, with trigger, reason, token count, threshold,
        /// removed/kept counts, summarizer usage and duration in its metadata.
        summary: CompactionSummary,
        /// Items in the history right after.
        history_items: u32,
    },
    /// The history right after a compaction is still estimated above the
    /// threshold: the next round may compact again or overflow.
    CompactionIneffective {
        summary_item_id: ItemId,
        estimated_tokens: u64,
        threshold: u64,
    },
    SummaryFailed {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<TurnId>,
        attempts: u32,
        message: String,
    },
    /// A compaction was not committed: its result would have dropped a
    /// rule (the system prompt, AGENTS.md, a pinned item, the latest request,
    /// or the approval policy or role in the state sheet).
    CompactionRefused {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<TurnId>,
        /// What it would have dropped, one entry each.
        dropped: Vec<String>,
        message: String,
    },
    /// Older tool outputs were replaced by placeholders (no model call).
    ToolOutputsEvicted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<TurnId>,
        eviction: ToolOutputsEvicted,
        /// Items in the history right after.
        history_items: u32,
    },
    /// A layered summary: its state sheet, loss audit and estimates (the
    /// `history_compacted` event for the same summary comes first).
    LayeredCompacted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<TurnId>,
        compaction: Box<LayeredCompaction>,
    },
}

impl AgentEvent {
    pub fn is_mainline(&self) -> bool {
        matches!(self, AgentEvent::Mainline(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_with_family_and_kind() {
        let event = AgentEvent::Mainline(MainlineEvent::TextDelta {
            turn_id: TurnId::new(),
            round_id: RoundId::new(),
            delta: "Hel".into(),
        });
        let envelope = EventEnvelope {
            v: EVENT_FORMAT_VERSION,
            seq: 3,
            session_id: SessionId::new(),
            event,
        };
        let value = serde_json::to_value(&envelope).unwrap();
        assert_eq!(value["event"]["family"], "mainline");
        assert_eq!(value["event"]["event"]["kind"], "text_delta");
        assert_eq!(value["seq"], 3);
        let back: EventEnvelope = serde_json::from_value(value).unwrap();
        assert_eq!(back, envelope);
    }

    #[test]
    fn debug_events_round_trip() {
        let event = AgentEvent::Debug(DebugEvent::CompactionIneffective {
            summary_item_id: ItemId::new(),
            estimated_tokens: 9000,
            threshold: 8000,
        });
        let json = serde_json::to_string(&event).unwrap();
        assert!(json.contains(r#""family":"debug""#));
        assert_eq!(serde_json::from_str::<AgentEvent>(&json).unwrap(), event);
        assert!(!event.is_mainline());
    }
}
