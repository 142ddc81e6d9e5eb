//! A session's transcript as the person saw it: every record in write order
//! turned into what a reader follows (messages, tool calls and outputs,
//! approvals, retries, errors, compaction dividers), including the items a
//! compaction later removed from the model's view. Rendered as terminal text
//! by `strata sessions show` and as Markdown by `strata sessions export`.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use strata_core::store::SessionRead;
use strata_protocol::{
    ApprovalDecision, CompactionSummary, ErrorRecord, RecordBody, ResponseItem, RetryRecord, Role,
    TurnOutcome,
};

/// One thing the transcript shows, in write order.
#[derive(Debug)]
pub enum Entry<'a> {
    Title(&'a str),
    TurnStarted {
        number: usize,
        at: DateTime<Utc>,
    },
    Message {
        role: Role,
        content: &'a str,
        /// The label of the model whose round produced an assistant message.
        model: Option<&'a str>,
    },
    ToolCall {
        name: &'a str,
        arguments: &'a str,
    },
    ToolOutput {
        name: Option<&'a str>,
        output: &'a str,
    },
    /// The full text of the tool output just before, which was capped.
    FullToolOutput(&'a str),
    Reasoning {
        provider: &'a str,
    },
    Compaction(&'a CompactionSummary),
    Approval {
        tool: &'a str,
        decision: ApprovalDecision,
    },
    Retry(&'a RetryRecord),
    Error(&'a ErrorRecord),
    TurnFinished {
        outcome: TurnOutcome,
        rounds: u32,
    },
    Unknown(&'a str),
}

/// The transcript of a session read.
pub fn entries(read: &SessionRead) -> Vec<Entry<'_>> {
    let mut entries = Vec::new();
    let mut tool_names: HashMap<&str, &str> = HashMap::new();
    // The model of the latest round; before any, the one the session started with.
    let mut model: Option<&str> = Some(model_label(&read.meta.model));
    let mut turns = 0;
    for record in &read.records {
        let entry = match &record.body {
            RecordBody::SessionMeta(_) | RecordBody::TokenUsage(_) => continue,
            RecordBody::Round(round) => {
                model = Some(model_label(&round.model));
                continue;
            }
            RecordBody::TitleSet(title) => Entry::Title(title.title.as_str()),
            RecordBody::TurnStarted(_) => {
                turns += 1;
                Entry::TurnStarted {
                    number: turns,
                    at: record.ts,
                }
            }
            RecordBody::ResponseItem(item) => match item {
                ResponseItem::Message(message) => Entry::Message {
                    role: message.role,
                    content: &message.content,
                    model: (message.role == Role::Assistant).then_some(model).flatten(),
                },
                ResponseItem::FunctionCall(call) => {
                    tool_names.insert(&call.call_id, &call.name);
                    Entry::ToolCall {
                        name: &call.name,
                        arguments: &call.arguments,
                    }
                }
                ResponseItem::FunctionCallOutput(output) => Entry::ToolOutput {
                    name: tool_names.get(output.call_id.as_str()).copied(),
                    output: &output.output,
                },
                ResponseItem::CompactionSummary(summary) => Entry::Compaction(summary),
                ResponseItem::Reasoning(reasoning) => Entry::Reasoning {
                    provider: &reasoning.provider,
                },
            },
            RecordBody::FullToolOutput(full) => Entry::FullToolOutput(&full.output),
            RecordBody::ApprovalDecision(decision) => Entry::Approval {
                tool: &decision.tool,
                decision: decision.decision,
            },
            RecordBody::Retry(retry) => Entry::Retry(retry),
            RecordBody::Error(error) => Entry::Error(error),
            RecordBody::TurnFinished(finished) => Entry::TurnFinished {
                outcome: finished.outcome,
                rounds: finished.rounds,
            },
            RecordBody::Unknown(unknown) => Entry::Unknown(&unknown.record_type),
        };
        entries.push(entry);
    }
    entries
}

/// What a person sees for a model id: its catalog label (`demo` for the
/// demo model), else the id itself.
pub fn model_label(model: &str) -> &str {
    strata_providers::config::lookup_model(model).map_or(model, |info| info.label)
}

/// How a person reads an approval answer.
pub fn decision_text(decision: ApprovalDecision) -> &'static str {
    match decision {
        ApprovalDecision::AllowOnce => "allowed once",
        ApprovalDecision::AllowForSession => "allowed for this session",
        ApprovalDecision::Deny => "denied",
    }
}

/// How a person reads a turn's end.
pub fn outcome_text(outcome: TurnOutcome) -> &'static str {
    match outcome {
        TurnOutcome::Completed => "completed",
        TurnOutcome::Cancelled => "cancelled",
        TurnOutcome::Failed => "failed",
        TurnOutcome::RoundLimit => "stopped at the round limit",
    }
}

/// One line about a compaction: trigger, removed/kept and the tokens that
/// triggered it.
pub fn compaction_line(summary: &CompactionSummary) -> String {
    let meta = &summary.metadata;
    let trigger = crate::context::trigger_name(meta.trigger);
    let tokens = match (meta.context_tokens, meta.threshold) {
        (Some(tokens), Some(threshold)) => format!(", {tokens} tokens (threshold {threshold})"),
        (Some(tokens), None) => format!(", {tokens} tokens"),
        (None, Some(threshold)) => format!(", threshold {threshold}"),
        (None, None) => String::new(),
    };
    format!(
        "history compacted ({trigger}): {} items removed, {} kept{tokens}",
        meta.removed, meta.kept
    )
}

/// A function call's arguments on one line: the JSON as written, compacted
/// when it parses.
pub fn compact_arguments(arguments: &str) -> String {
    serde_json::from_str::<serde_json::Value>(arguments)
        .map(|value| value.to_string())
        .unwrap_or_else(|_| arguments.to_owned())
}
