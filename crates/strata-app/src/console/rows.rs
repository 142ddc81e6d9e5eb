//! The rounds log's rows: one per record (and per live event the file does
//! not keep), in plain words, every estimate marked "≈".

use strata_protocol::{
    ApprovalDecision, ChangeKind, CompactionGuardRecord, ForkPoint, ItemId, LogFamily, LogKind,
    LogRow, LogTone, ProfileChange, Record, RecordBody, ResponseItem, Role, TurnOutcome,
};

use super::text::{duration, mcp_catalog_text, one_line, plural};
pub use super::text::{estimate, tokens, trigger_phrase, usage_text};

/// A row before its position in the log is known.
pub struct Row {
    pub family: LogFamily,
    pub kind: LogKind,
    pub tone: LogTone,
    pub title: String,
    pub detail: String,
    pub round_number: Option<u32>,
    pub summary_id: Option<ItemId>,
}

fn row(family: LogFamily, kind: LogKind, tone: LogTone, title: String, detail: String) -> Row {
    Row {
        family,
        kind,
        tone,
        title,
        detail,
        round_number: None,
        summary_id: None,
    }
}

impl Row {
    pub fn at(self, index: usize, record_index: Option<usize>, record: Option<&Record>) -> LogRow {
        LogRow {
            index: super::to_u32(index),
            record_index: record_index.map(super::to_u32),
            ts: record.map(|record| record.ts),
            family: self.family,
            kind: self.kind,
            tone: self.tone,
            title: self.title,
            detail: self.detail,
            round_number: self.round_number,
            summary_id: self.summary_id,
        }
    }

    fn summary(mut self, id: ItemId) -> Self {
        self.summary_id = Some(id);
        self
    }
}

use LogFamily::{Debug, Mainline};

/// The row of `body`; `round` is its 1-based number when it is a round.
pub fn record_row(body: &RecordBody, round: u32) -> Option<Row> {
    Some(match body {
        RecordBody::SessionMeta(meta) => row(
            Mainline,
            LogKind::Turn,
            LogTone::Neutral,
            "Session started".into(),
            format!(
                "{} ({}) in {}",
                meta.model, meta.provider_kind, meta.workspace
            ),
        ),
        RecordBody::TurnStarted(turn) => row(
            Mainline,
            LogKind::Turn,
            LogTone::Neutral,
            "Turn started".into(),
            turn.turn_id.to_string(),
        ),
        RecordBody::TurnFinished(finished) => {
            let (tone, word) = match finished.outcome {
                TurnOutcome::Completed => (LogTone::Ok, "completed"),
                TurnOutcome::Cancelled => (LogTone::Warn, "stopped"),
                TurnOutcome::Failed => (LogTone::Bad, "failed"),
                TurnOutcome::RoundLimit => (LogTone::Warn, "stopped at the round limit"),
            };
            let calls = plural(finished.rounds as usize, "model call", "model calls");
            row(Mainline, LogKind::Turn, tone, format!("Turn {word}"), calls)
        }
        RecordBody::Round(record) => {
            let mut sent = row(
                Debug,
                LogKind::Round,
                LogTone::Accent,
                format!("Round {round} sent"),
                format!(
                    "{} · {} in the request · {}",
                    record.model,
                    plural(record.input_items as usize, "history item", "history items"),
                    plural(record.tools.len(), "tool", "tools")
                ),
            );
            sent.round_number = Some(round);
            sent
        }
        RecordBody::TokenUsage(usage) => row(
            Debug,
            LogKind::Usage,
            LogTone::Neutral,
            match usage.usage.context_tokens() {
                Some(context) => format!("Usage: {} context tokens", tokens(context)),
                None => "Usage reported".into(),
            },
            usage_text(&usage.usage),
        ),
        RecordBody::Retry(retry) => row(
            Debug,
            LogKind::Retry,
            LogTone::Warn,
            format!(
                "Retry {} of {} after {}",
                retry.attempt,
                retry.of,
                duration(retry.delay_ms)
            ),
            retry.cause.clone(),
        ),
        RecordBody::Error(error) => row(
            Mainline,
            LogKind::Error,
            LogTone::Bad,
            match &error.model_error {
                Some(model) => {
                    let text = model.to_string();
                    let head = text.split(": ").next().unwrap_or("").to_owned();
                    format!("Error: {head}")
                }
                None => "Error".into(),
            },
            error.message.clone(),
        ),
        RecordBody::ApprovalDecision(decision) => {
            let (tone, word) = match decision.decision {
                ApprovalDecision::AllowOnce => (LogTone::Ok, "allowed once"),
                ApprovalDecision::AllowForSession => (LogTone::Ok, "allowed for the session"),
                ApprovalDecision::AlwaysAllow => (LogTone::Ok, "always allowed (rule saved)"),
                ApprovalDecision::Deny => (LogTone::Bad, "denied"),
            };
            row(
                Mainline,
                LogKind::Approval,
                tone,
                format!("{} {word}", decision.tool),
                decision.call_id.clone(),
            )
        }
        RecordBody::SessionRepaired(repaired) => {
            let mut what = Vec::new();
            if let Some(torn) = &repaired.torn_tail {
                what.push(format!(
                    "an unfinished last line ({} bytes) moved aside",
                    torn.bytes
                ));
            }
            if !repaired.aborted_calls.is_empty() {
                what.push(format!(
                    "{} recorded as aborted",
                    plural(
                        repaired.aborted_calls.len(),
                        "unfinished tool call",
                        "unfinished tool calls"
                    )
                ));
            }
            row(
                Mainline,
                LogKind::Turn,
                LogTone::Warn,
                "Session repaired on reopening".into(),
                what.join("; "),
            )
        }
        RecordBody::TitleSet(title) => row(
            Mainline,
            LogKind::Title,
            LogTone::Neutral,
            "Renamed".into(),
            if title.title.is_empty() {
                "(title cleared)".into()
            } else {
                title.title.clone()
            },
        ),
        RecordBody::ProfileSet(profile) => {
            let mut at = format!("{} · {}", profile.provider_kind, profile.model);
            if let Some(url) = &profile.base_url {
                at.push_str(&format!(
                    " at {}",
                    strata_protocol::endpoint_without_secrets(url)
                ));
            }
            if let Some(name) = &profile.profile {
                at.push_str(&format!(" (profile {name})"));
            }
            let title = match profile.change {
                ProfileChange::Created => "Profile recorded",
                ProfileChange::Switched => "Profile switched",
            };
            row(Mainline, LogKind::Turn, LogTone::Neutral, title.into(), at)
        }
        RecordBody::Checkpoint(checkpoint) => row(
            Debug,
            LogKind::Compaction,
            LogTone::Neutral,
            "Checkpoint".into(),
            format!(
                "{} the model sees, after {} (resuming starts here)",
                plural(checkpoint.history.len(), "message", "messages"),
                plural(checkpoint.state.records as usize, "record", "records")
            ),
        ),
        RecordBody::ItemPin(pin) => row(
            Mainline,
            LogKind::Compaction,
            LogTone::Neutral,
            if pin.pinned {
                "Message pinned"
            } else {
                "Message unpinned"
            }
            .into(),
            if pin.pinned {
                "kept word for word by every compaction".into()
            } else {
                "may be summarised again".into()
            },
        ),
        RecordBody::CompactionUndone(undone) => row(
            Mainline,
            LogKind::Compaction,
            LogTone::Warn,
            "Compaction undone".into(),
            format!(
                "{} restored; the history is now {} tokens (the compaction threshold is {})",
                plural(undone.restored.len(), "message", "messages"),
                estimate(undone.estimated_tokens),
                tokens(undone.threshold)
            ),
        )
        .summary(undone.summary_item_id),
        RecordBody::SessionForked(fork) => {
            let at = match &fork.point {
                ForkPoint::AtItem { .. } => "at a message".to_owned(),
                ForkPoint::BeforeCompaction { number } => format!("before compaction #{number}"),
            };
            row(
                Mainline,
                LogKind::Turn,
                LogTone::Neutral,
                "Forked".into(),
                format!(
                    "from session {} {at} ({} copied)",
                    fork.parent_session_id,
                    plural(fork.parent_records as usize, "record", "records")
                ),
            )
        }
        RecordBody::FileChange(change) => row(
            Debug,
            LogKind::Round,
            LogTone::Neutral,
            format!(
                "File {}: {}",
                ChangeKind::of(change.before.as_ref(), change.after.as_ref()).as_str(),
                change.path
            ),
            format!("by {} (call {})", change.cause.as_str(), change.call_id),
        ),
        RecordBody::ReasoningSet(set) => row(
            Debug,
            LogKind::Round,
            LogTone::Neutral,
            format!("Reasoning: {}", set.effort),
            "the next rounds ask the model for this reasoning".into(),
        ),
        RecordBody::SandboxSet(set) => row(
            Debug,
            LogKind::Round,
            LogTone::Neutral,
            format!("Sandbox: {}", set.mode),
            set.describe(),
        ),
        RecordBody::SessionImported(imported) => row(
            Mainline,
            LogKind::Turn,
            LogTone::Neutral,
            format!("Continued from {}", imported.source.label()),
            crate::transcript::text::imported_note(imported),
        ),
        RecordBody::InstructionsSet(set) => row(
            Debug,
            LogKind::Round,
            LogTone::Neutral,
            "Instructions re-read".into(),
            crate::transcript::text::instructions_note(set),
        ),
        RecordBody::McpCatalog(catalog) => row(
            Debug,
            LogKind::Tool,
            LogTone::Neutral,
            "MCP catalog".into(),
            mcp_catalog_text(catalog),
        ),
        RecordBody::CompactionPolicy(policy) => row(
            Debug,
            LogKind::Compaction,
            LogTone::Neutral,
            format!("Compaction policy: {}", policy.policy.as_str()),
            match &policy.threshold {
                Some(threshold) => format!("compacts at {threshold}"),
                None => "compacts at the model's default".into(),
            },
        ),
        RecordBody::ToolOutputsEvicted(eviction) => row(
            Debug,
            LogKind::Compaction,
            LogTone::Accent,
            format!(
                "{} replaced by placeholders",
                plural(
                    eviction.evicted.len(),
                    "old tool output",
                    "old tool outputs"
                )
            ),
            format!(
                "{} → {} tokens, {} freed, no model call",
                estimate(eviction.estimated_before),
                estimate(eviction.estimated_after),
                estimate(
                    eviction
                        .estimated_before
                        .saturating_sub(eviction.estimated_after)
                )
            ),
        ),
        RecordBody::LayeredCompaction(layered) => {
            let m = &layered.summary.metadata;
            row(
                Debug,
                LogKind::Compaction,
                LogTone::Accent,
                format!(
                    "History summarised with a state sheet ({})",
                    trigger_phrase(m.trigger)
                ),
                format!(
                    "{} summarised, {} kept · {} → {} tokens · sheet: {}, {} · lost: {}, {} · {}",
                    plural(m.removed as usize, "message", "messages"),
                    tokens(u64::from(m.kept)),
                    estimate(layered.estimated_before),
                    estimate(layered.estimated_after),
                    plural(layered.state_sheet.files.len(), "file", "files"),
                    plural(layered.state_sheet.commands.len(), "command", "commands"),
                    plural(layered.loss_audit.paths.len(), "path", "paths"),
                    plural(layered.loss_audit.commands.len(), "command", "commands"),
                    m.reason
                ),
            )
            .summary(layered.summary.id)
        }
        RecordBody::CompactionRefused(refused) => row(
            Debug,
            LogKind::Compaction,
            LogTone::Bad,
            format!(
                "Compaction refused by the rule check ({})",
                trigger_phrase(refused.trigger)
            ),
            format!(
                "nothing was committed: it would have dropped {}",
                refused.dropped.join("; ")
            ),
        ),
        RecordBody::CompactionGuard(guard) => guard_row(guard),
        RecordBody::FullToolOutput(full) => row(
            Mainline,
            LogKind::Tool,
            LogTone::Neutral,
            "Full tool output kept".into(),
            format!(
                "{} for {}",
                plural(full.output.chars().count(), "character", "characters"),
                full.call_id
            ),
        ),
        RecordBody::ResponseItem(item) => item_row(item),
        RecordBody::Unknown(_) => return None,
    })
}

fn item_row(item: &ResponseItem) -> Row {
    match item {
        ResponseItem::CompactionSummary(summary) => {
            let m = &summary.metadata;
            let at = m
                .context_tokens
                .map(|t| format!(" at {} tokens", tokens(t)))
                .unwrap_or_default();
            row(
                Debug,
                LogKind::Compaction,
                LogTone::Accent,
                format!("History summarised{at} ({})", trigger_phrase(m.trigger)),
                format!(
                    "{} summarised, {} kept · {}",
                    plural(m.removed as usize, "message", "messages"),
                    tokens(u64::from(m.kept)),
                    m.reason
                ),
            )
            .summary(summary.id)
        }
        ResponseItem::Message(message) => {
            let label = match message.role {
                Role::System => "System",
                Role::Developer => "Developer",
                Role::User => "User",
                Role::Assistant => "Assistant",
            };
            row(
                Mainline,
                LogKind::Message,
                LogTone::Neutral,
                label.into(),
                one_line(&message.content, 4000),
            )
        }
        ResponseItem::FunctionCall(call) => row(
            Mainline,
            LogKind::Tool,
            LogTone::Neutral,
            format!("Tool call · {}", call.name),
            one_line(&call.arguments, 4000),
        ),
        ResponseItem::FunctionCallOutput(output) => row(
            Mainline,
            LogKind::Tool,
            LogTone::Neutral,
            "Tool output".into(),
            one_line(&output.output, 4000),
        ),
        ResponseItem::Reasoning(reasoning) => row(
            Mainline,
            LogKind::Tool,
            LogTone::Neutral,
            format!("Reasoning · {}", reasoning.provider),
            "Opaque reasoning, sent back to the provider as it came.".into(),
        ),
    }
}

fn guard_row(guard: &CompactionGuardRecord) -> Row {
    match guard {
        CompactionGuardRecord::SummaryFailed {
            trigger,
            attempts,
            message,
            ..
        } => row(
            Debug,
            LogKind::Compaction,
            LogTone::Bad,
            format!("Summary failed ({})", trigger_phrase(*trigger)),
            format!(
                "{}: {message}",
                plural(*attempts as usize, "attempt", "attempts")
            ),
        ),
        CompactionGuardRecord::SummaryRefused { trigger, span, .. } => row(
            Debug,
            LogKind::Compaction,
            LogTone::Bad,
            format!(
                "Refused summary counted toward the pause ({})",
                trigger_phrase(*trigger)
            ),
            format!(
                "{} would have been summarised; the same compaction is not tried again until the history changes",
                plural(span.items as usize, "message", "messages")
            ),
        ),
        CompactionGuardRecord::CircuitReset => row(
            Mainline,
            LogKind::Compaction,
            LogTone::Neutral,
            "Automatic compaction resumed".into(),
            "the person turned it back on".into(),
        ),
    }
}

/// The row of a live debug event the file does not keep.
pub fn ineffective_row(summary_id: ItemId, estimated: u64, threshold: u64) -> Row {
    row(
        Debug,
        LogKind::Compaction,
        LogTone::Warn,
        "Compaction did not bring the history under the threshold".into(),
        format!(
            "{} tokens remain against a threshold of {}; the next model call may compact again or overflow.",
            estimate(estimated),
            tokens(threshold)
        ),
    )
    .summary(summary_id)
}

pub fn refused_row(dropped: &[String], message: &str) -> Row {
    row(
        Debug,
        LogKind::Compaction,
        LogTone::Bad,
        "Compaction refused by the rule check".into(),
        if dropped.is_empty() {
            message.to_owned()
        } else {
            format!("{message} · would have dropped: {}", dropped.join("; "))
        },
    )
}
