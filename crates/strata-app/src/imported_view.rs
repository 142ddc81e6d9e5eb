//! Another tool's session as the desktop shows it: strata-import's view
//! model turned into the protocol's rows, transcript entries (the same
//! entries Strata's own sessions show), compaction cards and chart points.
//! Pure: nothing here reads a file.

use std::collections::HashMap;

use crate::imported_loss::session_audits;
use strata_import::{
    CompactionKind, ImportedCompaction, ImportedListItem, ImportedSession, ImportedSummary,
    ItemKind, ReasoningText, Tool,
};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, ChartPoint, ImportSource, ImportedCompactionCard,
    ImportedCompactionKind, ImportedSessionItem, ImportedSessionView, ImportedSummaryView,
    ImportedWarnings, OUTPUT_PREVIEW_CHARS, OutputPreview, ToolEntry, ToolState, TranscriptEntry,
};

/// What a reasoning item that is only an encrypted blob shows.
pub const ENCRYPTED_REASONING: &str = "Encrypted by the provider: nothing readable.";

pub fn source_of(tool: Tool) -> ImportSource {
    match tool {
        Tool::Codex => ImportSource::Codex,
        Tool::ClaudeCode => ImportSource::ClaudeCode,
        Tool::CopilotCli => ImportSource::CopilotCli,
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The sidebar's row for a listing line.
pub fn session_item(item: &ImportedListItem) -> ImportedSessionItem {
    ImportedSessionItem {
        id: item.id.clone(),
        source: source_of(item.source),
        path: item.path.to_string_lossy().into_owned(),
        title: item.title.clone(),
        workspace: item.workspace.clone(),
        models: item.models.clone(),
        updated_at: item.updated_at,
        item_count: count(item.item_count),
        compaction_count: count(item.compaction_count),
        tool_version: item.tool_version.clone(),
        context_tokens: item.context_tokens,
    }
}

/// The id of the transcript entry that shows the session's `index`-th item.
pub fn item_entry_id(index: usize) -> String {
    format!("item:{index}")
}

fn tool_entry_id(call_id: &str) -> String {
    format!("call:{call_id}")
}

/// The whole read-only view of one imported session.
pub fn session_view(item: &ImportedListItem, session: &ImportedSession) -> ImportedSessionView {
    let (entries, entry_of_item) = transcript(session);
    let audits = session_audits(session);
    let compactions = session
        .compactions
        .iter()
        .enumerate()
        .map(|(index, compaction)| {
            let after_round = session
                .rounds
                .iter()
                .filter(|round| round.line < compaction.line)
                .count();
            let mut card = card(index, compaction, after_round, &entry_of_item);
            card.loss = audits.get(index).cloned().flatten();
            card
        })
        .collect();
    ImportedSessionView {
        v: CONTRACT_FORMAT_VERSION,
        summary: session_item(item),
        entries,
        compactions,
        chart: chart(session),
        warnings: ImportedWarnings {
            skipped_lines: session.warnings.unreadable_lines + session.warnings.too_long_lines,
            unknown_types: count(session.warnings.unknown_types.len()),
            read_error: session.warnings.read_error.clone(),
        },
    }
}

/// The transcript entries, and for each item the id of the entry showing
/// it (a call and its output share their tool card).
fn transcript(session: &ImportedSession) -> (Vec<TranscriptEntry>, Vec<String>) {
    let mut entries = Vec::new();
    let mut entry_of_item = Vec::with_capacity(session.items.len());
    let mut cards: HashMap<&str, usize> = HashMap::new();
    let model = session.models.last().cloned();
    for (index, item) in session.items.iter().enumerate() {
        let id = item_entry_id(index);
        match &item.kind {
            ItemKind::User { text } => entries.push(TranscriptEntry::User {
                id: id.clone(),
                text: text.clone(),
                turn_id: None,
                pinned: false,
            }),
            ItemKind::Assistant { text } => entries.push(TranscriptEntry::Assistant {
                id: id.clone(),
                text: text.clone(),
                streaming: false,
                unsaved: None,
                model: model.clone(),
                turn_id: None,
                pinned: false,
            }),
            ItemKind::Reasoning { reasoning } => {
                let text = match reasoning {
                    ReasoningText::Summary(text) | ReasoningText::Text(text) => text.clone(),
                    ReasoningText::Encrypted => ENCRYPTED_REASONING.to_owned(),
                };
                entries.push(TranscriptEntry::Thinking {
                    id: id.clone(),
                    text,
                    streaming: false,
                    turn_id: None,
                });
            }
            ItemKind::ToolCall {
                call_id,
                name,
                arguments,
            } => {
                let card_id = tool_entry_id(call_id);
                cards.insert(call_id.as_str(), entries.len());
                entries.push(TranscriptEntry::Tool(tool_card(
                    &card_id,
                    call_id,
                    name,
                    &arguments.text,
                )));
                entry_of_item.push(card_id);
                continue;
            }
            ItemKind::ToolOutput {
                call_id,
                output,
                is_error,
            } => {
                let position = match cards.get(call_id.as_str()) {
                    Some(&position) => position,
                    None => {
                        // An output whose call the file does not hold.
                        cards.insert(call_id.as_str(), entries.len());
                        entries.push(TranscriptEntry::Tool(tool_card(
                            &tool_entry_id(call_id),
                            call_id,
                            "tool",
                            "",
                        )));
                        entries.len() - 1
                    }
                };
                if let Some(TranscriptEntry::Tool(tool)) = entries.get_mut(position) {
                    let preview: String = output.text.chars().take(OUTPUT_PREVIEW_CHARS).collect();
                    let chars = if output.is_clipped() {
                        output.bytes
                    } else {
                        output.text.chars().count() as u64
                    };
                    tool.output = Some(OutputPreview { preview, chars });
                    tool.status = match is_error {
                        Some(true) => ToolState::Error,
                        Some(false) => ToolState::Success,
                        None => ToolState::Finished,
                    };
                }
                entry_of_item.push(tool_entry_id(call_id));
                continue;
            }
        }
        entry_of_item.push(id);
    }
    (entries, entry_of_item)
}

fn tool_card(id: &str, call_id: &str, name: &str, arguments: &str) -> ToolEntry {
    ToolEntry {
        id: id.to_owned(),
        call_id: call_id.to_owned(),
        name: name.to_owned(),
        arguments: arguments.to_owned(),
        output: None,
        status: ToolState::Finished,
        duration_ms: None,
        approval: None,
        turn_id: None,
        item_id: None,
        pinned: false,
        capped: false,
        plan: None,
    }
}

fn card(
    index: usize,
    compaction: &ImportedCompaction,
    after_round: usize,
    entry_of_item: &[String],
) -> ImportedCompactionCard {
    let kind = match &compaction.kind {
        CompactionKind::Full => ImportedCompactionKind::Summary,
        CompactionKind::Micro {
            tokens_saved,
            cleared_tool_ids,
        } => ImportedCompactionKind::Eviction {
            tokens_saved: *tokens_saved,
            cleared_tools: count(cleared_tool_ids.len()),
        },
    };
    let summary = match &compaction.summary {
        ImportedSummary::Text(text) => ImportedSummaryView::Text { text: text.clone() },
        ImportedSummary::Encrypted => ImportedSummaryView::Encrypted,
        ImportedSummary::Absent => ImportedSummaryView::NotRecorded,
    };
    let number = count(index + 1);
    ImportedCompactionCard {
        id: format!("imported-compaction:{number}"),
        number,
        line: compaction.line,
        at: compaction.at,
        after_round: count(after_round),
        before_entry: entry_of_item.get(compaction.at_item).cloned(),
        kind,
        trigger: compaction.trigger,
        summary,
        tokens_before: compaction.tokens_before,
        tokens_after: compaction.tokens_after,
        items_before: compaction.items_before,
        items_after: compaction.items_after,
        loss: None,
    }
}

/// The rounds with a time, numbered from 1 in file order.
fn chart(session: &ImportedSession) -> Vec<ChartPoint> {
    session
        .rounds
        .iter()
        .enumerate()
        .filter_map(|(index, round)| {
            Some(ChartPoint {
                round: count(index + 1),
                ts: round.at?,
                context_tokens: round.context_tokens,
                input_tokens: round.usage.input_tokens,
                output_tokens: round.usage.output_tokens,
                cached_tokens: round.usage.cached_input_tokens,
                estimated_input_tokens: None,
                cache_write_tokens: round.usage.cache_write_input_tokens,
                cost: None,
                turn: 0,
                cache_break: None,
            })
        })
        .collect()
}
