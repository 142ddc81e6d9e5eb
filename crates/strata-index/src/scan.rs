//! Reading a session file (or the part appended since the last look) into
//! the facts the index keeps: counts, title, and the searchable pieces of
//! text with the item each came from.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use strata_protocol::{Record, RecordBody, ResponseItem, Role, SessionMeta};

use crate::error::{IndexError, Result};

/// Marks where a search match starts in a snippet. A private-use character:
/// it is removed from every indexed text, so session content cannot forge it.
pub const MATCH_START: char = '\u{E000}';
/// Marks where a search match ends in a snippet.
pub const MATCH_END: char = '\u{E001}';

/// The longest piece of text indexed from one item (a longer one is cut at
/// a character boundary): keeps one pasted log from bloating the index.
pub const MAX_PIECE_BYTES: usize = 64 * 1024;

/// One searchable piece of text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub item_id: Option<String>,
    pub kind: &'static str,
    pub body: String,
}

/// What the index knows of a session beyond its text. Fields from the
/// session_meta record are set by the first scan; the rest accumulate.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Facts {
    pub meta: Option<SessionMeta>,
    pub explicit_title: Option<String>,
    pub first_user_message: Option<String>,
    pub updated_ms: i64,
    pub records: i64,
    pub items: i64,
    pub turns: i64,
    pub rounds: i64,
    pub compactions: i64,
    pub skipped_lines: i64,
    /// The last `session_forked` record's parent and point (as JSON).
    pub parent_session: Option<String>,
    pub fork_point: Option<String>,
    /// Where the complete lines read so far end.
    pub indexed_offset: u64,
    /// Where the last complete line starts, and its hash.
    pub last_record_offset: u64,
    pub last_record_hash: String,
    /// What the session cost so far, in pico-dollars, and the newest price
    /// date among its parts (`None`: nothing had a price).
    pub cost_pico: i64,
    pub cost_as_of: Option<String>,
    pub unpriced_rounds: i64,
    /// The last round's model: what an unrecorded usage is priced by.
    pub cost_model: Option<String>,
}

impl Facts {
    fn add_cost(&mut self, cost: Option<&strata_protocol::Cost>) {
        let Some(cost) = cost else { return };
        let pico = i64::try_from(cost.usd.pico()).unwrap_or(i64::MAX);
        self.cost_pico = self.cost_pico.saturating_add(pico);
        if self
            .cost_as_of
            .as_deref()
            .is_none_or(|date| cost.price_as_of.as_str() > date)
        {
            self.cost_as_of = Some(cost.price_as_of.clone());
        }
    }
}

/// Reads the complete lines from `facts.indexed_offset` on, folding them
/// into `facts` and returning their pieces. A torn trailing line is left
/// for the next look.
pub(crate) fn scan_from(path: &Path, facts: &mut Facts) -> Result<Vec<Piece>> {
    let mut file = File::open(path).map_err(IndexError::io("open session", path))?;
    file.seek(SeekFrom::Start(facts.indexed_offset))
        .map_err(IndexError::io("seek session", path))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(IndexError::io("read session", path))?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut pieces = Vec::new();
    let mut offset = facts.indexed_offset;
    for terminated in bytes[..complete].split_inclusive(|&b| b == b'\n') {
        let line = &terminated[..terminated.len() - 1];
        facts.last_record_offset = offset;
        facts.last_record_hash = line_hash(line);
        offset += terminated.len() as u64;
        match serde_json::from_slice::<Record>(line) {
            Ok(record) => fold(facts, &record, &mut pieces),
            Err(_) => facts.skipped_lines += 1,
        }
    }
    facts.indexed_offset = offset;
    Ok(pieces)
}

/// The hash of a record's line as the index keeps it (64-bit FNV-1a, hex):
/// enough to notice that a file was rewritten, not a security check.
pub fn line_hash(line: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in line {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

fn fold(facts: &mut Facts, record: &Record, pieces: &mut Vec<Piece>) {
    facts.records += 1;
    facts.updated_ms = record.ts.timestamp_millis();
    match &record.body {
        RecordBody::SessionMeta(meta) => {
            if facts.meta.is_none() {
                facts.meta = Some(meta.clone());
            }
        }
        RecordBody::ResponseItem(item) => {
            facts.items += 1;
            fold_item(facts, item, pieces);
        }
        // The session now talks to another model: listing and the model
        // filter follow the latest profile, as replay does.
        RecordBody::ProfileSet(profile) => {
            if let Some(meta) = facts.meta.as_mut() {
                meta.provider_kind = profile.provider_kind.as_str().to_owned();
                meta.model = profile.model.clone();
            }
        }
        // A fork's file begins with its parent's records, which may hold the
        // grandparent's: the last one names this session's parent.
        RecordBody::SessionForked(forked) => {
            facts.parent_session = Some(forked.parent_session_id.to_string());
            facts.fork_point = serde_json::to_string(&forked.point).ok();
        }
        RecordBody::TurnStarted(_) => facts.turns += 1,
        RecordBody::Round(round) => {
            facts.rounds += 1;
            facts.cost_model = Some(round.model.clone());
        }
        RecordBody::TokenUsage(usage) => {
            let model = facts
                .cost_model
                .clone()
                .or_else(|| facts.meta.as_ref().map(|meta| meta.model.clone()))
                .unwrap_or_default();
            let cost = strata_core::store::usage_cost(usage, &model);
            if cost.is_none() {
                facts.unpriced_rounds += 1;
            }
            facts.add_cost(cost.as_ref());
        }
        RecordBody::TitleSet(title) => {
            // A blank title clears a rename back to the derived title.
            let title = title.title.trim();
            facts.explicit_title = (!title.is_empty()).then(|| title.to_owned());
        }
        RecordBody::FullToolOutput(full) => pieces.push(piece(
            Some(full.item_id.to_string()),
            "tool_output",
            &full.output,
        )),
        // A layered summary counts and is searched like a base one; its
        // state sheet is derived from items already indexed.
        RecordBody::LayeredCompaction(layered) => {
            fold_item(
                facts,
                &ResponseItem::CompactionSummary(layered.summary.clone()),
                pieces,
            );
        }
        // Evicted outputs stay whole in their own records, indexed there;
        // a checkpoint repeats items indexed where they were written.
        RecordBody::ToolOutputsEvicted(_)
        | RecordBody::Checkpoint(_)
        | RecordBody::CompactionPolicy(_)
        | RecordBody::ReasoningSet(_)
        | RecordBody::SandboxSet(_)
        | RecordBody::FileChange(_)
        | RecordBody::McpCatalog(_)
        | RecordBody::InstructionsSet(_)
        | RecordBody::SessionImported(_)
        | RecordBody::CompactionGuard(_)
        | RecordBody::TurnFinished(_)
        | RecordBody::Retry(_)
        | RecordBody::Error(_)
        | RecordBody::ApprovalDecision(_)
        | RecordBody::ItemPin(_)
        | RecordBody::CompactionUndone(_)
        | RecordBody::CompactionRefused(_)
        | RecordBody::SessionRepaired(_)
        | RecordBody::Unknown(_) => {}
    }
}

fn fold_item(facts: &mut Facts, item: &ResponseItem, pieces: &mut Vec<Piece>) {
    match item {
        ResponseItem::Message(message) => {
            let kind = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
                // The system and developer prompts repeat in every session
                // and are Strata's, not the person's: not worth searching.
                Role::System | Role::Developer => return,
            };
            if message.role == Role::User && facts.first_user_message.is_none() {
                facts.first_user_message = Some(cut(&message.content).to_owned());
            }
            pieces.push(piece(Some(message.id.to_string()), kind, &message.content));
        }
        ResponseItem::FunctionCall(call) => pieces.push(piece(
            Some(call.id.to_string()),
            "tool_call",
            &format!("{} {}", call.name, call.arguments),
        )),
        ResponseItem::FunctionCallOutput(output) => pieces.push(piece(
            Some(output.id.to_string()),
            "tool_output",
            &output.output,
        )),
        ResponseItem::CompactionSummary(summary) => {
            facts.compactions += 1;
            facts.add_cost(summary.metadata.summarizer_cost.as_ref());
            pieces.push(piece(
                Some(summary.id.to_string()),
                "summary",
                &summary.summary,
            ));
        }
        ResponseItem::Reasoning(_) => {}
    }
}

/// The text cut to [`MAX_PIECE_BYTES`] at a character boundary.
pub(crate) fn cut(text: &str) -> &str {
    let mut end = text.len().min(MAX_PIECE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A piece of text as indexed: the snippet markers removed (so the text
/// cannot forge a match) and cut to [`MAX_PIECE_BYTES`].
fn piece(item_id: Option<String>, kind: &'static str, text: &str) -> Piece {
    let body = cut(text).replace([MATCH_START, MATCH_END], "");
    Piece {
        item_id,
        kind,
        body,
    }
}
