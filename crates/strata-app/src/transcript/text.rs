//! The words both front ends use for what the transcript shows: a profile
//! line, an approval answer, a turn's end, a compaction, a recovery notice.
//! One wording, so the command line, the Markdown export and the desktop
//! say the same thing.

use strata_protocol::{
    ApprovalDecision, CompactionSummary, CompactionTrigger, CompactionUndone, ForkPoint,
    InstructionsSet, ModelError, ProfileChange, ProfileSet, Record, RecordBody, RecoveryNotice,
    SessionImported, ToolOutputsEvicted, TurnOutcome,
};

/// The line a re-read of changed instruction files adds, naming the files
/// the model follows from here on.
/// What a session continued from another tool's says of where it came
/// from and what it left out. The path is that tool's text: shown as text.
pub fn imported_note(imported: &SessionImported) -> String {
    let from = format!(
        "Continued from a {} session ({}), {} of its items.",
        imported.source.label(),
        imported.source_path,
        imported.source_items
    );
    match imported.dropped_items {
        0 => from,
        1 => format!(
            "{from} 1 item was left out (reasoning, a subagent's item, or a tool call without \
             its output)."
        ),
        dropped => format!(
            "{from} {dropped} items were left out (reasoning, subagents' items, or tool calls \
             without their outputs)."
        ),
    }
}

pub fn instructions_note(set: &InstructionsSet) -> String {
    if set.item.is_none() || set.sources.is_empty() {
        return "The instruction files this session followed are gone: from here on it follows \
                none."
            .to_owned();
    }
    let files: Vec<String> = set
        .sources
        .iter()
        .map(|source| match source.omitted {
            0 => source.label.clone(),
            omitted => format!("{} ({omitted} bytes over the limit left out)", source.label),
        })
        .collect();
    format!(
        "The instruction files changed since this session last read them: from here on it \
         follows {}.",
        files.join(", ")
    )
}

/// The line an undo adds to the transcript. Only the latest compaction can
/// be undone, so it names no id: its divider above says "undone" too.
pub fn undone_note(undone: &CompactionUndone) -> String {
    let items = match undone.restored.len() {
        1 => "1 item".to_owned(),
        n => format!("{n} items"),
    };
    format!(
        "compaction undone: the model sees the history from before the latest compaction again \
         ({items}, about {} tokens, an estimate)",
        undone.estimated_tokens
    )
}

/// The line a fork's copied records end with: where it was cut, in words
/// (the parent's id and title are the front end's to show, as a link).
pub fn fork_note(point: &ForkPoint) -> String {
    let when = match point {
        ForkPoint::AtItem { .. } => String::new(),
        ForkPoint::BeforeCompaction { number } => format!(" just before its compaction #{number}"),
    };
    format!("forked from another session{when}: everything above is copied from it")
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

/// The profile a session was created on, from its first `profile_set`
/// ("created on demo · strata-demo (profile Demo)"): a fact of the session
/// its header shows, not a line of its transcript. `None` for sessions
/// written before that record.
pub fn created_line(records: &[Record]) -> Option<String> {
    records.iter().find_map(|record| match &record.body {
        RecordBody::ProfileSet(profile) if profile.change == ProfileChange::Created => {
            Some(profile_line(profile))
        }
        _ => None,
    })
}

/// How a person reads an approval answer.
pub fn decision_text(decision: ApprovalDecision) -> &'static str {
    match decision {
        ApprovalDecision::AllowOnce => "allowed once",
        ApprovalDecision::AllowForSession => "allowed for this session",
        ApprovalDecision::AlwaysAllow => "always allowed (rule saved)",
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

/// What a compaction's divider adds when an eviction at the same boundary
/// came first: "first 2 older tool outputs (1840 characters) were replaced
/// by placeholders; that was not enough, so the history was summarised".
pub fn evicted_first(eviction: &ToolOutputsEvicted) -> String {
    let outputs = match eviction.evicted.len() {
        1 => "1 older tool output".to_owned(),
        n => format!("{n} older tool outputs"),
    };
    let chars: u64 = eviction.evicted.iter().map(|e| e.chars).sum();
    let were = if eviction.evicted.len() == 1 {
        "was"
    } else {
        "were"
    };
    format!(
        "first {outputs} ({chars} characters) {were} replaced by placeholders; that was not \
         enough, so the history was summarised"
    )
}

/// An error's message, with the model error after it when there is one.
pub fn error_text(message: &str, model_error: Option<&ModelError>) -> String {
    match model_error {
        Some(model_error) => format!("{message} ({model_error})"),
        None => message.to_owned(),
    }
}

/// What a recovery notice says, as one sentence.
pub fn recovery_text(notice: &RecoveryNotice) -> String {
    match notice {
        RecoveryNotice::TornTailMovedAside { bytes } => format!(
            "The session file ended in an unfinished line ({bytes} bytes, a write that was \
             interrupted); it was moved aside into a file beside the session's."
        ),
        RecoveryNotice::TornTailIgnored { bytes } => format!(
            "The session file ends in an unfinished line ({bytes} bytes, a write that was \
             interrupted); it is left out."
        ),
        RecoveryNotice::AbortedCalls { calls: 1 } => "1 tool call of an earlier run never \
             finished; it was recorded as aborted."
            .to_owned(),
        RecoveryNotice::AbortedCalls { calls } => format!(
            "{calls} tool calls of an earlier run never finished; they were recorded as aborted."
        ),
        RecoveryNotice::SkippedRecord { line, message } => {
            format!("Line {line} of the session file is not a record and was skipped: {message}")
        }
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

/// A notice as a line of printed text, which starts in lower case
/// ("created on …"; the desktop shows the sentence).
pub fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A line as a sentence: "created on …" becomes "Created on …".
pub fn upper_first(line: &str) -> String {
    let mut chars = line.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
