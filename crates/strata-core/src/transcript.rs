//! A session's transcript as the person saw it: every record in write order
//! turned into what a reader follows (messages, tool calls and outputs,
//! approvals, retries, errors, compaction dividers), including the items a
//! compaction later removed from the model's view. Front ends render it:
//! the command line as terminal text, [`crate::export`] as Markdown.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use strata_protocol::{
    ApprovalDecision, CompactionSummary, CompactionTrigger, ErrorRecord, ProfileChange, ProfileSet,
    RecordBody, ResponseItem, RetryRecord, Role, TurnOutcome,
};

use crate::store::SessionRead;

/// One thing the transcript shows, in write order.
#[derive(Debug)]
pub enum Entry<'a> {
    Title(&'a str),
    /// The session's provider profile: where it was created, or a switch.
    Profile(&'a ProfileSet),
    TurnStarted {
        number: usize,
        at: DateTime<Utc>,
    },
    Message {
        role: Role,
        content: &'a str,
        /// The id of the model whose round produced an assistant message
        /// (before any round, the one the session started with).
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
    /// A layered summary's state sheet (right after its summary).
    StateSheet(&'a str),
    /// Older tool outputs replaced by placeholders.
    Eviction {
        outputs: usize,
        chars: u64,
    },
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
    /// A pin, an undo, a fork's lineage or a refused compaction, as one line.
    ContextNote(String),
    Unknown(&'a str),
}

/// The one line a pin, an undo, a fork's lineage or a refused compaction
/// shows as.
pub fn context_note(body: &RecordBody) -> Option<String> {
    let note = match body {
        RecordBody::ItemPin(pin) => format!(
            "{} item {}",
            if pin.pinned { "pinned" } else { "unpinned" },
            pin.item_id
        ),
        RecordBody::CompactionUndone(undone) => format!(
            "compaction undone: the history before summary {} restored ({} items, about {} \
             tokens, an estimate)",
            undone.summary_item_id,
            undone.restored.len(),
            undone.estimated_tokens
        ),
        RecordBody::CompactionRefused(refused) => format!(
            "compaction refused by the rule check ({}): it would have dropped {}",
            trigger_name(refused.trigger),
            refused.dropped.join("; ")
        ),
        RecordBody::SessionForked(forked) => format!(
            "forked from session {} ({}); the records above are copied from it",
            forked.parent_session_id,
            match &forked.point {
                strata_protocol::ForkPoint::AtItem { item_id } => format!("at item {item_id}"),
                strata_protocol::ForkPoint::BeforeCompaction { number } => {
                    format!("before compaction {number}")
                }
            }
        ),
        _ => return None,
    };
    Some(note)
}

/// The transcript of a session read.
pub fn entries(read: &SessionRead) -> Vec<Entry<'_>> {
    let mut entries = Vec::new();
    let mut tool_names: HashMap<&str, &str> = HashMap::new();
    let mut model: &str = &read.meta.model;
    let mut turns = 0;
    for record in &read.records {
        let entry = match &record.body {
            // Guards show live (the summary_failed and circuit events); a
            // checkpoint repeats the history the transcript already shows.
            RecordBody::SessionMeta(_)
            | RecordBody::TokenUsage(_)
            | RecordBody::CompactionPolicy(_)
            | RecordBody::CompactionGuard(_)
            | RecordBody::Checkpoint(_) => continue,
            RecordBody::ToolOutputsEvicted(eviction) => Entry::Eviction {
                outputs: eviction.evicted.len(),
                chars: eviction.evicted.iter().map(|e| e.chars).sum(),
            },
            RecordBody::LayeredCompaction(compaction) => {
                entries.push(Entry::Compaction(&compaction.summary));
                Entry::StateSheet(&compaction.state_sheet.text)
            }
            RecordBody::Round(round) => {
                model = &round.model;
                continue;
            }
            RecordBody::TitleSet(title) => Entry::Title(title.title.as_str()),
            RecordBody::ProfileSet(profile) => {
                model = &profile.model;
                Entry::Profile(profile)
            }
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
                    model: (message.role == Role::Assistant).then_some(model),
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
            RecordBody::ItemPin(_)
            | RecordBody::CompactionUndone(_)
            | RecordBody::SessionForked(_)
            | RecordBody::CompactionRefused(_) => match context_note(&record.body) {
                Some(note) => Entry::ContextNote(note),
                None => continue,
            },
            RecordBody::Unknown(unknown) => Entry::Unknown(&unknown.record_type),
        };
        entries.push(entry);
    }
    entries
}

/// How a person reads a `profile_set`: "created on openai-chat · qwen3 at
/// http://127.0.0.1:8080/v1 (profile local)", or "switched to …".
pub fn profile_line(profile: &ProfileSet) -> String {
    let verb = match profile.change {
        ProfileChange::Created => "created on",
        ProfileChange::Switched => "switched to",
    };
    let at = profile
        .base_url
        .as_deref()
        .map(|url| format!(" at {url}"))
        .unwrap_or_default();
    let name = profile
        .profile
        .as_deref()
        .map(|name| format!(" (profile {name})"))
        .unwrap_or_default();
    // The model and profile names come from a file: no control characters.
    format!(
        "{verb} {} · {}{at}{name}",
        profile.provider_kind, profile.model
    )
    .chars()
    .filter(|c| !c.is_control())
    .collect()
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

/// A compaction trigger as the file names it.
pub fn trigger_name(trigger: CompactionTrigger) -> &'static str {
    match trigger {
        CompactionTrigger::Auto => "auto",
        CompactionTrigger::Manual => "manual",
        CompactionTrigger::ContextOverflow => "context_overflow",
        CompactionTrigger::PreTurn => "pre_turn",
        CompactionTrigger::ModelSwitch => "model_switch",
    }
}

/// One line about a compaction: trigger, removed/kept and the tokens that
/// triggered it, as in "history compacted (auto): 3 items removed, 2 kept,
/// 9120 tokens (threshold 8000)".
pub fn compaction_line(summary: &CompactionSummary) -> String {
    format!("history compacted {}", compaction_details(summary))
}

/// [`compaction_line`] after "history compacted".
pub fn compaction_details(summary: &CompactionSummary) -> String {
    let meta = &summary.metadata;
    let trigger = trigger_name(meta.trigger);
    let tokens = match (meta.context_tokens, meta.threshold) {
        (Some(tokens), Some(threshold)) => format!(", {tokens} tokens (threshold {threshold})"),
        (Some(tokens), None) => format!(", {tokens} tokens"),
        (None, Some(threshold)) => format!(", threshold {threshold}"),
        (None, None) => String::new(),
    };
    format!(
        "({trigger}): {} items removed, {} kept{tokens}",
        meta.removed, meta.kept
    )
}

/// An error record's message, with the model error after it when there is one.
pub fn error_text(error: &ErrorRecord) -> String {
    match &error.model_error {
        Some(model_error) => format!("{} ({model_error})", error.message),
        None => error.message.clone(),
    }
}

/// A function call's arguments on one line: the JSON as written, compacted
/// when it parses.
pub fn compact_arguments(arguments: &str) -> String {
    serde_json::from_str::<serde_json::Value>(arguments)
        .map(|value| value.to_string())
        .unwrap_or_else(|_| arguments.to_owned())
}

/// A function call's arguments pretty-printed when they parse as JSON.
pub fn pretty_arguments(arguments: &str) -> String {
    serde_json::from_str::<serde_json::Value>(arguments)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| arguments.to_owned())
}
