//! The `strata sessions` subcommands' grammar: list, show, search, import
//! and the rest, with their filters.

use super::*;

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Every session, most recently updated first (read from the
    /// library's index, which is rebuilt from the files when missing), with
    /// what each cost.
    List(ListArgs),

    /// Searches the text of every session (messages, tool calls and
    /// outputs, summaries) for QUERY as literal text, case ignored; prints
    /// each hit's session, item and the text around it, newest first.
    Search(SearchArgs),

    /// The transcript as the person saw it: every item in write order,
    /// including items later compacted away, with compactions and errors
    /// (`--json`: every item's id, whether the model sees it, pinned or not).
    /// An id no Strata session has may name a Codex, Claude Code or Copilot
    /// CLI session under $HOME, shown read-only.
    Show(SessionJsonArgs),

    /// Writes the transcript as Markdown, or the session's records as JSON lines.
    Export(ExportArgs),

    /// Deletes a session's file (refused while the session is open elsewhere).
    Delete(SessionJsonArgs),

    /// Replays the whole file from its first record and checks every
    /// checkpoint (the copy a resume starts from) against it; exits 3 when
    /// one disagrees.
    Verify(SessionJsonArgs),

    /// Adds Codex, Claude Code or Copilot CLI session files, or folders
    /// holding them, to the library (read-only: the files are never
    /// written, moved or deleted); prints what was found there.
    Import(ImportArgs),
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Session files or folders (searched a few levels deep).
    #[arg(value_name = "PATH", required = true, num_args = 1..)]
    pub paths: Vec<std::path::PathBuf>,
    /// One JSON object (`ImportReport`) instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
    /// The order: `updated` (newest first, the default) or `cost` (the
    /// dearest first; sessions without a price last).
    #[arg(long, value_enum, default_value_t = ListSort::Updated)]
    pub sort: ListSort,
    /// Also the Codex, Claude Code and Copilot CLI sessions under $HOME,
    /// read-only (`--json`: a second line, `{"imported": [...]}`).
    #[arg(long)]
    pub all_tools: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ListSort {
    #[default]
    Updated,
    Cost,
}

#[derive(Debug, Args)]
pub struct JsonArgs {
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for (three characters or more use the index's trigrams;
    /// shorter ones scan).
    #[arg(value_name = "QUERY", value_parser = non_blank_query)]
    pub query: String,

    /// Only sessions in this workspace folder (exactly as recorded).
    #[arg(long, value_name = "FOLDER")]
    pub workspace: Option<String>,

    /// Only sessions updated on or after this day (YYYY-MM-DD, UTC) or
    /// instant (RFC 3339).
    #[arg(long, value_name = "DATE", value_parser = parse_since)]
    pub since: Option<chrono::DateTime<chrono::Utc>>,

    /// Only sessions updated on or before this day (YYYY-MM-DD, UTC, the
    /// whole day) or before this instant (RFC 3339).
    #[arg(long, value_name = "DATE", value_parser = parse_until)]
    pub until: Option<chrono::DateTime<chrono::Utc>>,

    /// Only sessions talking to this model (exactly as recorded).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,

    /// At most this many hits.
    #[arg(long, value_name = "N", default_value_t = 50,
          value_parser = clap::value_parser!(u32).range(1..=500))]
    pub limit: u32,

    /// Also the Codex, Claude Code and Copilot CLI sessions under $HOME
    /// (read-only, from the library's index of them), their hits after
    /// Strata's with their source (`--json`: a second line,
    /// `{"imported_hits": [...]}`).
    #[arg(long)]
    pub all_tools: bool,

    /// One JSON object (`SearchResults`) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A day (its start, UTC) or an RFC 3339 instant.
fn parse_instant(text: &str, day_end: bool) -> Result<chrono::DateTime<chrono::Utc>, String> {
    if let Ok(day) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let day = if day_end {
            day.succ_opt().ok_or("the date is out of range")?
        } else {
            day
        };
        return Ok(day.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|at| at.with_timezone(&chrono::Utc))
        .map_err(|_| format!("expected YYYY-MM-DD or an RFC 3339 time, not {text:?}"))
}

fn parse_since(text: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    parse_instant(text, false)
}

fn parse_until(text: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    parse_instant(text, true)
}

fn non_blank_query(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("the search is empty".to_owned())
    } else {
        Ok(text.to_owned())
    }
}
