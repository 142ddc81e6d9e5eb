//! "Continue in Strata": an imported session's history, up to a chosen
//! point, as Strata items. Pure: no I/O, the other tool's file is never
//! touched here (nor anywhere else).
//!
//! What is kept: the person's and the assistant's text, and tool calls with
//! their outputs, paired. A call whose output comes after the cut (or never)
//! is dropped, and so is an output whose call is not kept, so a replay never
//! sees half a pair. Reasoning (encrypted or provider-specific), subagent
//! items and the other tool's compaction summaries are dropped and counted
//! for the note the front ends show. A cut before a compaction takes the
//! original items, never that tool's summary.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use strata_protocol::{FunctionCall, FunctionCallOutput, ItemId, Message, ResponseItem, Role};

use crate::error::ImportError;
use crate::model::{ImportedSession, ItemKind};

/// Where the new Strata session's history ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "index", rename_all = "snake_case")]
pub enum ContinuePoint {
    /// The whole session.
    End,
    /// Up to and including `items[index]` (0-based).
    ThroughItem(usize),
    /// Everything before `compactions[index]` (0-based): the originals.
    BeforeCompaction(usize),
}

/// What the conversion left out, for the visible note.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DroppedItems {
    /// Reasoning items: encrypted or in one provider's own format.
    pub reasoning: u64,
    /// Items a subagent wrote (not the main conversation).
    pub sidechain: u64,
    /// Tool calls whose output is not within the cut.
    pub unanswered_calls: u64,
    /// Tool outputs whose call is not kept.
    pub orphan_outputs: u64,
    /// Kept tool arguments or outputs the file held longer than the view's
    /// cap: only their start is carried over.
    pub clipped: u64,
}

impl DroppedItems {
    /// Whether anything was left out or cut short.
    pub fn is_empty(&self) -> bool {
        *self == DroppedItems::default()
    }
}

/// An imported session's history as Strata items.
#[derive(Clone, Debug, PartialEq)]
pub struct ContinuedHistory {
    pub items: Vec<ResponseItem>,
    /// How many of the imported session's items the cut covers.
    pub source_items: usize,
    pub dropped: DroppedItems,
}

/// How many of `session.items` precede the cut, or an error naming the
/// point that does not exist.
pub fn cut_len(session: &ImportedSession, point: ContinuePoint) -> Result<usize, ImportError> {
    match point {
        ContinuePoint::End => Ok(session.items.len()),
        ContinuePoint::ThroughItem(index) if index < session.items.len() => Ok(index + 1),
        ContinuePoint::ThroughItem(index) => Err(ImportError::NoSuchItem {
            index,
            items: session.items.len(),
        }),
        ContinuePoint::BeforeCompaction(index) => session
            .compactions
            .get(index)
            .map(|compaction| compaction.at_item.min(session.items.len()))
            .ok_or(ImportError::NoSuchCompaction {
                index,
                compactions: session.compactions.len(),
            }),
    }
}

/// Converts `session`'s items before the cut at `point`.
pub fn continue_history(
    session: &ImportedSession,
    point: ContinuePoint,
) -> Result<ContinuedHistory, ImportError> {
    let len = cut_len(session, point)?;
    let source = &session.items[..len];
    let mut dropped = DroppedItems::default();

    // Which calls are answered within the cut: the first call of an id and
    // the first output after it pair; anything else of that id is dropped.
    let mut open: HashSet<&str> = HashSet::new();
    let mut answered: HashSet<&str> = HashSet::new();
    let mut seen_call: HashSet<&str> = HashSet::new();
    for item in source.iter().filter(|item| !item.sidechain) {
        match &item.kind {
            ItemKind::ToolCall { call_id, .. } if seen_call.insert(call_id) => {
                open.insert(call_id);
            }
            ItemKind::ToolOutput { call_id, .. } if open.remove(call_id.as_str()) => {
                answered.insert(call_id);
            }
            _ => {}
        }
    }

    let mut items = Vec::with_capacity(len);
    // Per answered call id: 0 = call not yet emitted, 1 = call emitted,
    // 2 = output emitted.
    let mut emitted: HashMap<&str, u8> = HashMap::new();
    for item in source {
        if item.sidechain {
            dropped.sidechain += 1;
            continue;
        }
        match &item.kind {
            ItemKind::User { text } => items.push(message(Role::User, text)),
            ItemKind::Assistant { text } => items.push(message(Role::Assistant, text)),
            ItemKind::Reasoning { .. } => dropped.reasoning += 1,
            ItemKind::ToolCall {
                call_id,
                name,
                arguments,
            } => {
                let state = emitted.entry(call_id).or_insert(0);
                if answered.contains(call_id.as_str()) && *state == 0 {
                    *state = 1;
                    dropped.clipped += u64::from(arguments.is_clipped());
                    items.push(ResponseItem::FunctionCall(FunctionCall {
                        id: ItemId::new(),
                        call_id: call_id.clone(),
                        name: name.clone(),
                        arguments: arguments.text.clone(),
                    }));
                } else {
                    dropped.unanswered_calls += 1;
                }
            }
            ItemKind::ToolOutput {
                call_id, output, ..
            } => match emitted.get_mut(call_id.as_str()) {
                Some(state) if *state == 1 => {
                    *state = 2;
                    dropped.clipped += u64::from(output.is_clipped());
                    items.push(ResponseItem::FunctionCallOutput(FunctionCallOutput {
                        id: ItemId::new(),
                        call_id: call_id.clone(),
                        output: output.text.clone(),
                    }));
                }
                _ => dropped.orphan_outputs += 1,
            },
        }
    }
    Ok(ContinuedHistory {
        items,
        source_items: len,
        dropped,
    })
}

fn message(role: Role, text: &str) -> ResponseItem {
    ResponseItem::Message(Message {
        id: ItemId::new(),
        role,
        content: text.to_owned(),
    })
}

#[cfg(test)]
#[path = "continue_at_tests.rs"]
mod tests;
