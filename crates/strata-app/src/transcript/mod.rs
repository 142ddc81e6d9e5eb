//! The conversation's transcript: opened in pages (newest first, older ones
//! as the person scrolls up), tool outputs in full only when a card is
//! expanded, and a turn's live events turned into updates of the same
//! entries ([`TranscriptFeed`]). Both come from [`fold`]'s one conversion.

pub mod fold;

use std::sync::Arc;

use strata_core::agent::EventHandler;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, EventEnvelope, GetToolOutput, LiveEvent, OpenTranscript, Record,
    RecordBody, ResponseItem, SessionId, ToolOutputText, TranscriptEntry, TranscriptPage,
};

pub use fold::{TranscriptFold, from_records, preview, tool_id};

use crate::App;
use crate::error::{CommandResult, invalid_input, not_found};

/// Entries per page when the caller does not say.
pub const DEFAULT_TRANSCRIPT_PAGE: u32 = 200;
/// The most entries one page holds.
pub const MAX_TRANSCRIPT_PAGE: u32 = 1_000;

/// The page of `entries` that ends just before the entry `before` (the end
/// without one), at most `limit` long.
pub fn page(
    session_id: SessionId,
    mut entries: Vec<TranscriptEntry>,
    before: Option<&str>,
    limit: Option<u32>,
) -> CommandResult<TranscriptPage> {
    let limit = limit.unwrap_or(DEFAULT_TRANSCRIPT_PAGE);
    if limit == 0 || limit > MAX_TRANSCRIPT_PAGE {
        return Err(invalid_input(format!(
            "A transcript page holds 1 to {MAX_TRANSCRIPT_PAGE} entries."
        )));
    }
    let end = match before {
        None => entries.len(),
        Some(cursor) => entries
            .iter()
            .position(|entry| entry.id() == cursor)
            .ok_or_else(|| not_found("That part of the transcript is not in the session."))?,
    };
    let start = end.saturating_sub(usize::try_from(limit).unwrap_or(usize::MAX));
    let total = entries.len();
    entries.truncate(end);
    let page: Vec<TranscriptEntry> = entries.drain(start..).collect();
    Ok(TranscriptPage {
        v: CONTRACT_FORMAT_VERSION,
        session_id,
        older: (start > 0)
            .then(|| page.first().map(|e| e.id().to_owned()))
            .flatten(),
        entries: page,
        total: to_u32(total),
        start: to_u32(start),
    })
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

impl App {
    /// `open_transcript`: a page of what the conversation shows, newest first.
    pub async fn open_transcript(
        self: &Arc<Self>,
        request: OpenTranscript,
    ) -> CommandResult<TranscriptPage> {
        self.blocking(move |app| {
            let read = app.browse(request.session_id)?;
            page(
                request.session_id,
                from_records(&read.records),
                request.before.as_deref(),
                request.limit,
            )
        })
        .await
    }

    /// `tool_output`: one tool call's whole output.
    pub async fn tool_output(
        self: &Arc<Self>,
        request: GetToolOutput,
    ) -> CommandResult<ToolOutputText> {
        self.blocking(move |app| {
            let read = app.browse(request.session_id)?;
            let output = tool_output(&read.records, &request.call_id)
                .ok_or_else(|| not_found("That tool call has no output in the session."))?;
            Ok(ToolOutputText {
                chars: u64::try_from(output.chars().count()).unwrap_or(u64::MAX),
                call_id: request.call_id,
                output,
            })
        })
        .await
    }
}

/// An event sink that sends each event with the transcript updates it makes.
pub struct TranscriptFeed<F> {
    fold: TranscriptFold,
    send: F,
}

impl<F: FnMut(LiveEvent) + Send> TranscriptFeed<F> {
    pub fn new(send: F) -> Self {
        Self {
            fold: TranscriptFold::live(),
            send,
        }
    }
}

impl<F: FnMut(LiveEvent) + Send> EventHandler for TranscriptFeed<F> {
    async fn handle(&mut self, envelope: EventEnvelope) {
        self.fold.apply_event(&envelope);
        let updates = self.fold.take_updates();
        (self.send)(LiveEvent { envelope, updates });
    }
}

#[cfg(test)]
#[path = "fold_tests.rs"]
mod fold_tests;
