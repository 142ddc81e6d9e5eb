//! The conversation's transcript: opened in pages (newest first, older ones
//! as the person scrolls up), tool outputs in full only when a card is
//! expanded, and a turn's live events turned into updates of the same
//! entries, sent in batches of about a frame ([`feed`]). Both come from
//! [`fold`]'s one conversion.

pub mod feed;
pub mod fold;
pub mod tail;
pub mod text;

use strata_protocol::{
    CONTRACT_FORMAT_VERSION, Plan, Record, RecordBody, ResponseItem, Role, SessionId,
    TranscriptEntry, TranscriptPage, TurnId,
};

pub use feed::{BATCH_MAX_EVENTS, BATCH_WINDOW, LiveBatcher, TranscriptFeed};
pub use fold::{
    TranscriptFold, compaction_id, from_read, from_records, preview, recovery_notices, tool_id,
};

use crate::error::{AppResult, invalid_input, not_found};

/// Entries per page when the caller does not say.
pub const DEFAULT_TRANSCRIPT_PAGE: u32 = 200;
/// The most entries one page holds.
pub const MAX_TRANSCRIPT_PAGE: u32 = 1_000;

/// Entries shown before the one a search hit opens at, so it is not the
/// first thing on the page.
const TARGET_CONTEXT: usize = 5;

/// Where a page is cut: just before an entry, or so that it reaches back to
/// an entry (and runs to the newest).
#[derive(Clone, Copy, Debug)]
pub enum PageAnchor<'a> {
    Newest,
    Before(&'a str),
    ReachBackTo(&'a str),
}

impl<'a> PageAnchor<'a> {
    /// A request's anchor: the entry it targets, else its cursor, else the
    /// newest entry.
    pub fn of(target: Option<&'a str>, before: Option<&'a str>) -> Self {
        match (target, before) {
            (Some(id), _) => Self::ReachBackTo(id),
            (None, Some(cursor)) => Self::Before(cursor),
            (None, None) => Self::Newest,
        }
    }
}

/// The page of `entries` that ends just before the entry `before` (the end
/// without one), at most `limit` long; or, for a target entry, the entries
/// from a few before it to the end, at least `limit` of them.
pub fn page(
    session_id: SessionId,
    mut entries: Vec<TranscriptEntry>,
    anchor: PageAnchor<'_>,
    limit: Option<u32>,
) -> AppResult<TranscriptPage> {
    let limit = page_limit(limit)?;
    let cut = cut(&entries, anchor, limit).ok_or_else(|| match anchor {
        PageAnchor::Before(_) => not_found("That part of the transcript is not in the session."),
        PageAnchor::Newest | PageAnchor::ReachBackTo(_) => {
            not_found("That item is not shown in the transcript.")
        }
    })?;
    let total = entries.len();
    let plan = latest_plan(&entries);
    entries.truncate(cut.end);
    let page = entries.split_off(cut.start);
    Ok(page_of(session_id, page, &cut, Some(total), plan))
}

/// The entry count a request asks for, checked.
fn page_limit(limit: Option<u32>) -> AppResult<usize> {
    let limit = limit.unwrap_or(DEFAULT_TRANSCRIPT_PAGE);
    if limit == 0 || limit > MAX_TRANSCRIPT_PAGE {
        return Err(invalid_input(format!(
            "A transcript page holds 1 to {MAX_TRANSCRIPT_PAGE} entries."
        )));
    }
    Ok(usize::try_from(limit).unwrap_or(usize::MAX))
}

/// Where a page is cut from a run of entries.
struct Cut {
    start: usize,
    end: usize,
    target: Option<String>,
}

/// Where `anchor` cuts a page of at most `limit` entries from `entries`;
/// `None` when its entry is not among them.
fn cut(entries: &[TranscriptEntry], anchor: PageAnchor<'_>, limit: usize) -> Option<Cut> {
    let position = |id: &str| entries.iter().position(|entry| entry.id() == id);
    let total = entries.len();
    Some(match anchor {
        PageAnchor::Newest => Cut {
            start: total.saturating_sub(limit),
            end: total,
            target: None,
        },
        PageAnchor::Before(cursor) => {
            let end = position(cursor)?;
            Cut {
                start: end.saturating_sub(limit),
                end,
                target: None,
            }
        }
        PageAnchor::ReachBackTo(id) => {
            let at = position(id)?;
            Cut {
                start: total
                    .saturating_sub(limit)
                    .min(at.saturating_sub(TARGET_CONTEXT)),
                end: total,
                target: Some(id.to_owned()),
            }
        }
    })
}

/// The page of `page` (the entries `cut` chose); `total` when the whole
/// transcript was folded.
fn page_of(
    session_id: SessionId,
    page: Vec<TranscriptEntry>,
    cut: &Cut,
    total: Option<usize>,
    plan: Option<Plan>,
) -> TranscriptPage {
    TranscriptPage {
        plan,
        v: CONTRACT_FORMAT_VERSION,
        session_id,
        older: (cut.start > 0)
            .then(|| page.first().map(|e| e.id().to_owned()))
            .flatten(),
        entries: page,
        total: total.map(to_u32),
        start: total.map(|_| to_u32(cut.start)),
        target: cut.target.clone(),
    }
}

/// The plan of the newest `update_plan` card that set one (the fold gives
/// a card that did not run none).
pub fn latest_plan(entries: &[TranscriptEntry]) -> Option<Plan> {
    entries.iter().rev().find_map(|entry| match entry {
        TranscriptEntry::Tool(tool) => tool.plan.clone(),
        _ => None,
    })
}

/// The id of the entry that shows the item `item_id`: a message's own
/// entry, the card of a tool call or of its output (also a capped output's
/// `full_tool_output`), a compaction's divider. `None` for an item the
/// transcript does not show (a system prompt, reasoning) or an unknown id.
pub fn entry_of_item(records: &[Record], item_id: &str) -> Option<String> {
    records.iter().find_map(|record| match &record.body {
        RecordBody::ResponseItem(item) if item.id().to_string() == item_id => match item {
            ResponseItem::Message(message) => Some(message.id.to_string()),
            ResponseItem::FunctionCall(call) => Some(tool_id(&call.call_id)),
            ResponseItem::FunctionCallOutput(output) => Some(tool_id(&output.call_id)),
            ResponseItem::CompactionSummary(summary) => Some(compaction_id(summary.id)),
            ResponseItem::Reasoning(_) => None,
        },
        RecordBody::FullToolOutput(full) if full.item_id.to_string() == item_id => {
            Some(tool_id(&full.call_id))
        }
        RecordBody::LayeredCompaction(layered) if layered.summary.id.to_string() == item_id => {
            Some(compaction_id(layered.summary.id))
        }
        _ => None,
    })
}

/// The instructions the session's model was given (its system and
/// developer messages, and the instructions a resume re-read, in write
/// order): what a printed transcript or an export shows under its header;
/// the conversation's entries leave them out.
pub fn instructions(records: &[Record]) -> Vec<(Role, &str)> {
    records
        .iter()
        .filter_map(|record| match &record.body {
            RecordBody::ResponseItem(ResponseItem::Message(message))
                if matches!(message.role, Role::System | Role::Developer) =>
            {
                Some((message.role, message.content.as_str()))
            }
            RecordBody::InstructionsSet(set) => match &set.item {
                Some(ResponseItem::Message(message)) => {
                    Some((message.role, message.content.as_str()))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Numbers the turns of a run of entries for a printed transcript: a turn
/// starts at the first entry of a new turn's user message.
#[derive(Default)]
pub struct TurnNumbers {
    last: Option<TurnId>,
    count: usize,
}

impl TurnNumbers {
    /// The number of the turn `entry` starts, if it starts one.
    pub fn starts(&mut self, entry: &TranscriptEntry) -> Option<usize> {
        let TranscriptEntry::User {
            turn_id: Some(turn),
            ..
        } = entry
        else {
            return None;
        };
        if self.last == Some(*turn) {
            return None;
        }
        self.last = Some(*turn);
        self.count += 1;
        Some(self.count)
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The whole output of `call_id`: its `full_tool_output` when the history
/// item was capped, else the item's.
pub fn tool_output(records: &[Record], call_id: &str) -> Option<String> {
    let mut found = None;
    for record in records {
        match &record.body {
            RecordBody::FullToolOutput(full) if full.call_id == call_id => {
                return Some(full.output.clone());
            }
            RecordBody::ResponseItem(ResponseItem::FunctionCallOutput(output))
                if output.call_id == call_id && found.is_none() =>
            {
                found = Some(output.output.clone());
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
#[path = "fold_tests.rs"]
mod fold_tests;

#[cfg(test)]
#[path = "fold_failure_tests.rs"]
mod fold_failure_tests;
#[cfg(test)]
#[path = "fold_plan_tests.rs"]
mod fold_plan_tests;

#[cfg(test)]
#[path = "fold_session_tests.rs"]
mod fold_session_tests;
