//! Other agents' sessions (Codex, Claude Code, Copilot CLI) in the desktop
//! library: listed with their source, opened read-only as a transcript and
//! compaction cards, searched, hidden from the library, imported from a
//! path; and the person's choice of which to show. Every string here came
//! from another tool's file: show it as text, never as markup.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::console::ChartPoint;
use crate::contract::TextRange;
use crate::items::CompactionTrigger;
use crate::transcript::TranscriptEntry;

/// The tool that wrote an imported session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ImportSource {
    Codex,
    ClaudeCode,
    CopilotCli,
}

impl ImportSource {
    pub const ALL: [ImportSource; 3] = [
        ImportSource::Codex,
        ImportSource::ClaudeCode,
        ImportSource::CopilotCli,
    ];

    /// The name a person knows the tool by.
    pub fn label(self) -> &'static str {
        match self {
            ImportSource::Codex => "Codex",
            ImportSource::ClaudeCode => "Claude Code",
            ImportSource::CopilotCli => "Copilot",
        }
    }
}

/// One imported session's row in the sidebar.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportedSessionItem {
    /// The tool's session id (else the one its file name carries): what
    /// `open_imported` and `hide_imported` name.
    pub id: String,
    pub source: ImportSource,
    /// The file it was read from (never written).
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub workspace: Option<String>,
    /// Every model the session used, in the order first seen.
    pub models: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub updated_at: Option<DateTime<Utc>>,
    pub item_count: u32,
    pub compaction_count: u32,
    /// The version of the tool that wrote the file, as the file names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool_version: Option<String>,
    /// The context the last model request filled, where the file says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_tokens: Option<u64>,
}

/// A session file that was found but would not open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UnreadableImport {
    pub path: String,
    pub reason: String,
}

/// `list_imported`: the imported sessions the library shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListImported {}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportedPage {
    pub v: u32,
    /// Newest first, hidden ones left out.
    pub sessions: Vec<ImportedSessionItem>,
    pub unreadable: Vec<UnreadableImport>,
}

/// How many session files of each tool the standard folders hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportCounts {
    pub codex: u32,
    pub claude_code: u32,
    pub copilot_cli: u32,
}

/// Which other agents' sessions the library shows: the standard folders
/// of the tools in `tools` (once the person was asked), and every session
/// file at `extra_paths`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportSettings {
    /// The person answered the discovery question (or chose in Settings):
    /// it is not asked again.
    pub asked: bool,
    /// The tools whose standard folders are shown.
    pub tools: Vec<ImportSource>,
    /// Files and folders added by the person, shown whatever `tools` says.
    pub extra_paths: Vec<String>,
}

/// `import_settings`: the choice and what the standard folders hold now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GetImportSettings {}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportSettingsView {
    pub settings: ImportSettings,
    /// Session files found in the tools' standard folders.
    pub found: ImportCounts,
}

/// `save_import_settings`: replaces the choice (extra paths must be
/// absolute).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SaveImportSettings {
    pub settings: ImportSettings,
}

/// `open_imported`: one imported session, read-only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenImported {
    pub id: String,
}

/// What the file holds of a compaction's summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ImportedSummaryView {
    Text {
        text: String,
    },
    /// The provider returned it encrypted: nothing readable.
    Encrypted,
    /// The file records no summary for it.
    NotRecorded,
}

/// What a compaction did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ImportedCompactionKind {
    /// The history was replaced by a summary (and what was kept).
    Summary,
    /// Old tool results were cleared without a summary (Claude Code's
    /// microcompaction): an eviction.
    Eviction {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        tokens_saved: Option<u64>,
        cleared_tools: u32,
    },
}

/// One compaction of an imported session, for its card and divider.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportedCompactionCard {
    /// `imported-compaction:N`, N its 1-based place among the session's.
    pub id: String,
    /// 1-based among the session's compactions of either kind.
    pub number: u32,
    /// Its 1-based line in the file.
    pub line: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub at: Option<DateTime<Utc>>,
    /// Rounds of the session before it: where the context chart marks it.
    pub after_round: u32,
    /// The transcript entry it sits above; none when it came last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub before_entry: Option<String>,
    pub kind: ImportedCompactionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub trigger: Option<CompactionTrigger>,
    pub summary: ImportedSummaryView,
    /// The context just before, as the tool counted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tokens_before: Option<u64>,
    /// The context just after: the tool's own estimate, else the first
    /// request's input after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tokens_after: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub items_before: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub items_after: Option<u64>,
    /// What the items before it mentioned that the model no longer saw
    /// after it; none for a microcompaction (it clears tool results only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub loss: Option<ImportedLossAudit>,
}

/// The loss audit of one imported compaction: the paths, commands, errors
/// and rules Strata's own extractor finds in the items before it that are
/// absent from what the model saw after (the summary, when readable, and
/// the items the file says were kept).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportedLossAudit {
    /// False when the summary is encrypted or not recorded: the audit is
    /// then against the kept items only.
    pub against_summary: bool,
    pub paths: Vec<String>,
    pub commands: Vec<String>,
    pub errors: Vec<String>,
    pub rules: Vec<String>,
}

/// What the reader could not use of the file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportedWarnings {
    /// Lines skipped: unreadable, or longer than the reader holds.
    pub skipped_lines: u64,
    /// Record types the reader does not know.
    pub unknown_types: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub read_error: Option<String>,
}

/// `open_imported`'s answer: the transcript (messages, reasoning, tool
/// cards; ids `item:N` for the session's N-th item, `call:ID` for a tool
/// card), the compaction cards, and the rounds for the context chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ImportedSessionView {
    pub v: u32,
    pub summary: ImportedSessionItem,
    pub entries: Vec<TranscriptEntry>,
    pub compactions: Vec<ImportedCompactionCard>,
    /// Rounds the file reports usage for, with a time.
    pub chart: Vec<ChartPoint>,
    pub warnings: ImportedWarnings,
}

/// `search_imported`: the imported sessions' messages and readable
/// summaries holding `query` as literal text, case ignored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SearchImported {
    pub query: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportedSearchHit {
    pub source: ImportSource,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub session_title: Option<String>,
    /// The transcript entry to open at (`item:N`); none for a summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub entry_id: Option<String>,
    /// `user`, `assistant` or `summary`.
    pub kind: String,
    /// Plain text around the match.
    pub snippet: String,
    /// Where the match is in `snippet`, in characters.
    pub matches: Vec<TextRange>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportedHits {
    pub v: u32,
    pub hits: Vec<ImportedSearchHit>,
}

/// `hide_imported`: takes the session out of the library (a list the
/// library keeps); its file is not touched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct HideImported {
    pub id: String,
}

/// `import_sessions`: adds files or folders (absolute paths) to the
/// library's extra paths and reports the sessions found there; what
/// `strata sessions import PATH... --json` prints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportSessions {
    pub paths: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportReport {
    pub v: u32,
    /// Always `import_report`.
    pub kind: String,
    /// The paths added (those already there are not repeated).
    pub added_paths: Vec<String>,
    /// The sessions found at the paths asked for.
    pub sessions: Vec<ImportedSessionItem>,
    pub unreadable: Vec<UnreadableImport>,
}

/// `pick_import_paths`: the native file picker for "Open file…"; the
/// files chosen (none when cancelled).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PickImportPaths {}

/// `session_imported` record: this session continues another tool's session
/// ("Continue in Strata"). Written right after `session_meta`, before the
/// converted items; the other tool's file is only ever read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionImported {
    pub source: ImportSource,
    /// The other tool's file, as text (lossily for a path that is not Unicode).
    pub source_path: String,
    /// The other tool's id for the session, where its file names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub source_session_id: Option<String>,
    /// How many of the imported session's items the cut covered.
    pub source_items: u32,
    /// Items left out: reasoning (encrypted or provider-specific), subagent
    /// items, calls without outputs and outputs without calls.
    pub dropped_items: u32,
}
