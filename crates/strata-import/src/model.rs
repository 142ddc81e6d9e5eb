//! The view model every reader produces: what Strata shows of another
//! tool's session. Texts are kept as the file had them, control characters
//! included; escaping them is the front ends' job.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use strata_protocol::{CompactionTrigger, TokenUsage};

/// The tool that wrote a session file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    Codex,
    ClaudeCode,
    CopilotCli,
}

impl Tool {
    /// The name a person knows the tool by.
    pub fn label(self) -> &'static str {
        match self {
            Tool::Codex => "Codex",
            Tool::ClaudeCode => "Claude Code",
            Tool::CopilotCli => "Copilot CLI",
        }
    }
}

/// One session of another tool, folded from its file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportedSession {
    pub source: Tool,
    /// The version of the tool that wrote the file, as the file names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The folder the tool worked in (its `cwd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Every model the session used, in the order first seen.
    pub models: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
    pub items: Vec<ImportedItem>,
    /// Model requests with the usage the file reports, in file order.
    pub rounds: Vec<ImportedRound>,
    pub compactions: Vec<ImportedCompaction>,
    pub warnings: ImportWarnings,
}

/// One transcript entry, with the 1-based line of the file it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedItem {
    pub line: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<DateTime<Utc>>,
    /// Written by a subagent (Claude Code's `isSidechain`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sidechain: bool,
    pub kind: ItemKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ItemKind {
    /// What the person typed (injected context is not shown as theirs).
    User {
        text: String,
    },
    Assistant {
        text: String,
    },
    Reasoning {
        reasoning: ReasoningText,
    },
    ToolCall {
        call_id: String,
        name: String,
        /// The arguments as JSON text, at most [`TEXT_CAP_BYTES`].
        arguments: ClippedText,
    },
    ToolOutput {
        call_id: String,
        output: ClippedText,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        is_error: Option<bool>,
    },
}

/// What can be read of a reasoning item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "text", rename_all = "snake_case")]
pub enum ReasoningText {
    /// The provider's readable summary of its reasoning.
    Summary(String),
    /// The reasoning itself, in plain text.
    Text(String),
    /// Only an encrypted (or redacted) blob: nothing readable.
    Encrypted,
}

/// Tool arguments and outputs can be megabytes; the view keeps their start.
pub const TEXT_CAP_BYTES: usize = 64 * 1024;

/// The start of a long text and the length of the whole.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClippedText {
    /// At most [`TEXT_CAP_BYTES`], cut on a character boundary.
    pub text: String,
    /// Bytes of the whole text in the file.
    pub bytes: u64,
}

impl ClippedText {
    pub fn new(full: &str) -> Self {
        let mut end = full.len().min(TEXT_CAP_BYTES);
        while !full.is_char_boundary(end) {
            end -= 1;
        }
        ClippedText {
            text: full[..end].to_owned(),
            bytes: full.len() as u64,
        }
    }

    pub fn is_clipped(&self) -> bool {
        (self.text.len() as u64) < self.bytes
    }
}

/// One model request and what it cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedRound {
    pub line: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub usage: TokenUsage,
    /// The context the request filled (its input plus output), where the
    /// file has the figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// The model's window, where the file names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

/// A compaction as the other tool recorded it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedCompaction {
    /// The boundary's 1-based line in the file.
    pub line: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<DateTime<Utc>>,
    /// How many of the session's items precede it: it sits between
    /// `items[at_item - 1]` and `items[at_item]`.
    pub at_item: usize,
    pub kind: CompactionKind,
    /// Recorded by Claude Code; inferred from the position by Codex's
    /// readers; `None` when neither tells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<CompactionTrigger>,
    pub summary: ImportedSummary,
    /// The context just before, as the tool counted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_before: Option<u64>,
    /// The context just after: the tool's own estimate, else the input of
    /// the first request after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_after: Option<u64>,
    /// Items the model saw just before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items_before: Option<u64>,
    /// Items the model saw just after it (the summary counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items_after: Option<u64>,
    /// What `items_after` is made of, where the file lists it (Codex's
    /// replacement history).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<KeptItems>,
}

/// The items a compaction kept, by what they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptItems {
    /// The person's own messages, kept verbatim.
    pub user_messages: u64,
    /// Instructions and environment the tool injects again.
    pub context: u64,
    /// The summary (readable or encrypted).
    pub summary: u64,
    /// Anything else (tool calls, reasoning).
    pub other: u64,
}

impl ImportedCompaction {
    /// A full compaction at `line` of which nothing else is known yet.
    pub(crate) fn boundary(line: u64, at: Option<DateTime<Utc>>, at_item: usize) -> Self {
        ImportedCompaction {
            line,
            at,
            at_item,
            kind: CompactionKind::Full,
            trigger: None,
            summary: ImportedSummary::Absent,
            tokens_before: None,
            tokens_after: None,
            items_before: None,
            items_after: None,
            kept: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CompactionKind {
    /// The history was replaced by a summary (and what was kept).
    Full,
    /// Old tool results were cleared without a summary (Claude Code's
    /// microcompaction).
    Micro {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens_saved: Option<u64>,
        cleared_tool_ids: Vec<String>,
    },
}

/// What the file holds of a compaction's summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "text", rename_all = "snake_case")]
pub enum ImportedSummary {
    Text(String),
    /// The provider returned it encrypted: nothing readable.
    Encrypted,
    /// The file records no summary for it.
    Absent,
}

/// What the reader could not use. A file is never dropped for a bad line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportWarnings {
    /// Lines read, blank ones included.
    pub lines: u64,
    /// Lines over the per-line cap, skipped without being held whole.
    pub too_long_lines: u64,
    /// Lines that are not JSON objects of the expected shape (torn last
    /// lines, garbage, interleaved writes).
    pub unreadable_lines: u64,
    /// The first few unreadable or too long lines' numbers, for the log.
    pub skipped_line_numbers: Vec<u64>,
    /// Record types this reader does not know, with how often each came.
    pub unknown_types: BTreeMap<String, u64>,
    /// The read stopped early on an I/O or decompression error; what came
    /// before it is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_error: Option<String>,
}

/// How many skipped line numbers a session keeps.
pub const SKIPPED_LINES_KEPT: usize = 32;

impl ImportWarnings {
    pub(crate) fn skipped(&mut self, line: u64, too_long: bool) {
        if too_long {
            self.too_long_lines += 1;
        } else {
            self.unreadable_lines += 1;
        }
        if self.skipped_line_numbers.len() < SKIPPED_LINES_KEPT {
            self.skipped_line_numbers.push(line);
        }
    }

    pub(crate) fn unknown(&mut self, kind: &str) {
        // Hostile files can name a new type on every line: bound the map.
        const KINDS_KEPT: usize = 256;
        let kind: String = kind.chars().take(64).collect();
        if self.unknown_types.len() >= KINDS_KEPT && !self.unknown_types.contains_key(&kind) {
            *self.unknown_types.entry("(other)".to_owned()).or_insert(0) += 1;
            return;
        }
        *self.unknown_types.entry(kind).or_insert(0) += 1;
    }
}
