//! Other agents' sessions on the command line: `strata sessions list
//! --all-tools` lists the Codex, Claude Code and Copilot CLI sessions under
//! `$HOME` after Strata's own, and `strata sessions show ID` opens one when
//! no Strata session has that id. Read through strata-app, never written.
//! Every string in them came from another tool's file and is escaped here.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;
use strata_app::error::AppError;
use strata_app::imported::{Scope, UnreadableFile};
use strata_app::imported_loss::session_audits;
use strata_app::transcript::text::trigger_name;
use strata_core::CoreError;
use strata_import::{
    CompactionKind, ImportedCompaction, ImportedItem, ImportedListItem, ImportedSession,
    ImportedSummary, ItemKind, KeptItems, ReasoningText,
};
use strata_index::{ImportedHit, snippet_spans};
use strata_protocol::{ImportedLossAudit, SearchSessions};

use crate::imported_loss::loss_lines;
use crate::store::Context;
use crate::style::{
    ASSISTANT, BOLD, COMPACTION, DIM, ERROR, TOOL, USER, indented, one_line, paint,
};
use crate::visible::{json_safe, visible_inline};

/// Tool output lines shown before the rest is folded away.
const OUTPUT_LINES: usize = 12;
/// Characters of a tool call's arguments on its line.
const ARGUMENT_CHARS: usize = 160;

/// The folder the other tools keep their sessions under.
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

#[derive(Serialize)]
struct ImportedPage<'a> {
    imported: &'a [ImportedListItem],
}

/// The imported sessions after Strata's list: with `--json` one more line,
/// `{"imported": [...]}`.
pub fn list(ctx: &Context, json: bool) -> crate::error::Result<()> {
    let Some(home) = home() else {
        ctx.out
            .warn("HOME is not set, so no other tools' sessions were looked for");
        return Ok(());
    };
    let listing = ctx.app.list_imported_blocking(Scope::AllTools)?;
    warn_unreadable(ctx, &listing.unreadable);
    let mut out = ctx.out.stdout();
    if json {
        let page = ImportedPage {
            imported: &listing.sessions,
        };
        writeln!(out, "{}", json_safe(&serde_json::to_string(&page)?))?;
        return Ok(());
    }
    if listing.sessions.is_empty() {
        writeln!(
            ctx.out.stderr(),
            "no Codex, Claude Code or Copilot CLI sessions under {}",
            visible_inline(&home.display().to_string())
        )?;
    }
    for session in &listing.sessions {
        let updated = when(session.updated_at);
        writeln!(
            out,
            "{}  {}  {}  {}  {:>4} items{}",
            paint(BOLD, format!("[{}]", session.source.label())),
            paint(BOLD, visible_inline(&session.id)),
            updated,
            paint(DIM, visible_inline(&session.models.join(", "))),
            session.item_count,
            compactions(session.compaction_count),
        )?;
        writeln!(
            out,
            "    {}  {}",
            visible_inline(session.title.as_deref().unwrap_or("(untitled)")),
            paint(
                DIM,
                visible_inline(session.workspace.as_deref().unwrap_or(""))
            )
        )?;
    }
    Ok(())
}

fn warn_unreadable(ctx: &Context, files: &[UnreadableFile]) {
    for file in files {
        ctx.out.warn(format!(
            "{}: {}",
            visible_inline(&file.path.display().to_string()),
            visible_inline(&file.reason)
        ));
    }
}

#[derive(Serialize)]
struct ImportedHits<'a> {
    imported_hits: &'a [ImportedHit],
}

/// The other tools' hits after Strata's search results: with `--json` one
/// more line, `{"imported_hits": [...]}`; their count is what is shown.
pub fn search(ctx: &Context, request: &SearchSessions, json: bool) -> crate::error::Result<usize> {
    if home().is_none() {
        return Ok(0);
    }
    let (hits, unreadable) = ctx.app.search_imported_blocking(Scope::AllTools, request)?;
    warn_unreadable(ctx, &unreadable);
    let mut out = ctx.out.stdout();
    if json {
        let page = ImportedHits {
            imported_hits: &hits,
        };
        writeln!(out, "{}", json_safe(&serde_json::to_string(&page)?))?;
        return Ok(hits.len());
    }
    for hit in &hits {
        let updated = when(hit.updated);
        writeln!(
            out,
            "{}  {}  {updated}  {}",
            paint(BOLD, format!("[{}]", hit.source.label())),
            paint(BOLD, visible_inline(&hit.session_id)),
            visible_inline(hit.session_title.as_deref().unwrap_or("(untitled)")),
        )?;
        let item = hit
            .item
            .map_or_else(|| "-".to_owned(), |item| format!("item {item}"));
        writeln!(
            out,
            "    {} {}  {}",
            paint(DIM, visible_inline(&hit.kind)),
            paint(DIM, item),
            marked(&hit.snippet),
        )?;
    }
    Ok(hits.len())
}

/// An index snippet on one line, every piece through the sanitiser, the
/// matches in bold.
fn marked(snippet: &str) -> String {
    snippet_spans(snippet)
        .iter()
        .map(|span| {
            let text = visible_inline(&span.text);
            if span.matched {
                paint(BOLD, text)
            } else {
                text.into_owned()
            }
        })
        .collect()
}

/// A session's last update as listings show it.
fn when(at: Option<chrono::DateTime<chrono::Utc>>) -> String {
    at.map_or_else(
        || "(no time)".to_owned(),
        |at| at.format("%Y-%m-%d %H:%M").to_string(),
    )
}

fn compactions(count: usize) -> String {
    match count {
        0 => String::new(),
        n => format!("  {}", counted(n, "compaction")),
    }
}

/// "1 round", "2 rounds".
fn counted(count: usize, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// The session as read, with each compaction's loss audit in a list beside
/// `compactions` (null for a microcompaction).
#[derive(Serialize)]
struct Shown<'a> {
    #[serde(flatten)]
    session: &'a ImportedSession,
    compaction_losses: &'a [Option<ImportedLossAudit>],
}

/// `strata sessions show QUERY [--json]` for an imported session, when
/// Strata's own library had none: `missing` is that answer, returned when
/// no other tool's session matches either.
pub fn show_instead(
    ctx: &Context,
    query: &str,
    json: bool,
    missing: CoreError,
) -> crate::error::Result<()> {
    if home().is_none() {
        return Err(missing.into());
    }
    let (item, session) = match ctx.app.open_imported_blocking(Scope::AllTools, query) {
        Ok(found) => found,
        Err(AppError::Core(CoreError::SessionNotFound { .. })) => return Err(missing.into()),
        Err(error) => return Err(error.into()),
    };
    let mut out = ctx.out.stdout();
    let audits = session_audits(&session);
    if json {
        let shown = Shown {
            session: &session,
            compaction_losses: &audits,
        };
        writeln!(out, "{}", json_safe(&serde_json::to_string(&shown)?))?;
        return Ok(());
    }
    write!(out, "{}", header(&item, &session))?;
    let mut boundaries = session.compactions.iter().zip(&audits).peekable();
    for (index, entry) in session.items.iter().enumerate() {
        while let Some((compaction, audit)) = boundaries.next_if(|(c, _)| c.at_item <= index) {
            write!(out, "{}", audited_card(compaction, audit.as_ref()))?;
        }
        write!(out, "{}", render(entry))?;
    }
    for (compaction, audit) in boundaries {
        write!(out, "{}", audited_card(compaction, audit.as_ref()))?;
    }
    Ok(())
}

fn header(item: &ImportedListItem, session: &ImportedSession) -> String {
    let version = session
        .tool_version
        .as_deref()
        .map(|version| format!(" {}", visible_inline(version)))
        .unwrap_or_default();
    let warnings = &session.warnings;
    let mut skipped = Vec::new();
    if warnings.unreadable_lines > 0 {
        skipped.push(format!(
            "{} unreadable lines skipped",
            warnings.unreadable_lines
        ));
    }
    if warnings.too_long_lines > 0 {
        skipped.push(format!(
            "{} over-long lines skipped",
            warnings.too_long_lines
        ));
    }
    if !warnings.unknown_types.is_empty() {
        let kinds: Vec<String> = warnings
            .unknown_types
            .iter()
            .map(|(kind, count)| format!("{} ×{count}", visible_inline(kind)))
            .collect();
        skipped.push(format!("unknown records: {}", kinds.join(", ")));
    }
    if let Some(error) = &warnings.read_error {
        skipped.push(format!("read stopped early: {}", visible_inline(error)));
    }
    let skipped = if skipped.is_empty() {
        String::new()
    } else {
        format!("{}\n", paint(DIM, skipped.join(" · ")))
    };
    format!(
        "{} {}\n{}\n{skipped}\n",
        paint(
            BOLD,
            format!(
                "{} session {}",
                item.source.label(),
                visible_inline(&item.id)
            )
        ),
        paint(
            BOLD,
            visible_inline(item.title.as_deref().unwrap_or("(untitled)"))
        ),
        paint(
            DIM,
            format!(
                "{}{version} · {} · {} · {} · {}{} · read-only from {}",
                item.source.label(),
                visible_inline(item.workspace.as_deref().unwrap_or("(no folder)")),
                visible_inline(&item.models.join(", ")),
                counted(item.item_count, "item"),
                counted(session.rounds.len(), "round"),
                match item.compaction_count {
                    0 => String::new(),
                    n => format!(" · {}", counted(n, "compaction")),
                },
                visible_inline(&item.path.display().to_string()),
            )
        ),
    )
}

fn render(item: &ImportedItem) -> String {
    let sidechain = if item.sidechain { " (subagent)" } else { "" };
    match &item.kind {
        ItemKind::User { text } => format!(
            "{}{sidechain}\n{}",
            paint(USER, "you"),
            indented(text, "  ")
        ),
        ItemKind::Assistant { text } => format!(
            "{}{sidechain}\n{}",
            paint(ASSISTANT, "assistant"),
            indented(text, "  ")
        ),
        ItemKind::Reasoning { reasoning } => {
            let text = match reasoning {
                ReasoningText::Summary(text) | ReasoningText::Text(text) => indented(text, "  "),
                ReasoningText::Encrypted => "  (encrypted by the provider)\n".to_owned(),
            };
            format!("{}\n{}", paint(DIM, "thinking"), paint(DIM, text))
        }
        ItemKind::ToolCall {
            name, arguments, ..
        } => format!(
            "{}\n",
            paint(
                TOOL,
                format!(
                    "▸ {} {}",
                    visible_inline(name),
                    one_line(&arguments.text, ARGUMENT_CHARS)
                )
            )
        ),
        ItemKind::ToolOutput {
            output, is_error, ..
        } => {
            let lines: Vec<&str> = output.text.lines().collect();
            let shown = lines[..lines.len().min(OUTPUT_LINES)].join("\n");
            let mut text = indented(&shown, "    ");
            if lines.len() > OUTPUT_LINES {
                let more = lines.len() - OUTPUT_LINES;
                text.push_str(&paint(DIM, format!("    … {more} more lines\n")));
            }
            if output.is_clipped() {
                text.push_str(&paint(
                    DIM,
                    format!(
                        "    (first {} of {} bytes)\n",
                        output.text.len(),
                        output.bytes
                    ),
                ));
            }
            match is_error {
                Some(true) => format!("{}\n{text}", paint(ERROR, "  failed:")),
                Some(false) | None => text,
            }
        }
    }
}

/// The card with its loss audit under it (none for a microcompaction).
fn audited_card(compaction: &ImportedCompaction, audit: Option<&ImportedLossAudit>) -> String {
    let card = compaction_card(compaction);
    match audit {
        Some(audit) => format!("{}{}\n", card.trim_end_matches('\n'), loss_lines(audit)),
        None => card,
    }
}

fn compaction_card(compaction: &ImportedCompaction) -> String {
    let tokens = match (compaction.tokens_before, compaction.tokens_after) {
        (Some(before), Some(after)) => format!(" · {before} → {after} tokens"),
        (Some(before), None) => format!(" · {before} tokens before"),
        (None, Some(after)) => format!(" · {after} tokens after"),
        (None, None) => String::new(),
    };
    let trigger = compaction
        .trigger
        .map(|trigger| format!(" ({})", trigger_name(trigger)))
        .unwrap_or_default();
    match &compaction.kind {
        CompactionKind::Micro {
            tokens_saved,
            cleared_tool_ids,
        } => {
            let saved = tokens_saved
                .map(|saved| format!(", {saved} tokens saved"))
                .unwrap_or_default();
            format!(
                "\n{}\n\n",
                paint(
                    COMPACTION,
                    format!(
                        "── microcompaction{trigger}: {} tool results cleared{saved}{tokens} ──",
                        cleared_tool_ids.len()
                    )
                )
            )
        }
        CompactionKind::Full => {
            let items = match (compaction.items_before, compaction.items_after) {
                (Some(before), Some(after)) => format!(" · {before} → {after} items"),
                _ => String::new(),
            };
            let summary = match &compaction.summary {
                ImportedSummary::Text(text) => indented(text, "  "),
                ImportedSummary::Encrypted => paint(DIM, "  summary encrypted by the provider\n"),
                ImportedSummary::Absent => paint(DIM, "  summary not recorded\n"),
            };
            let kept = compaction.kept.map(kept_line).unwrap_or_default();
            format!(
                "\n{}\n{kept}{summary}\n",
                paint(
                    COMPACTION,
                    format!("══ compaction{trigger}{tokens}{items} ══")
                )
            )
        }
    }
}

/// "  kept: 7 user messages, 2 context items, 1 summary item".
fn kept_line(kept: KeptItems) -> String {
    let parts: Vec<String> = [
        (kept.user_messages, "user message"),
        (kept.context, "context item"),
        (kept.summary, "summary item"),
        (kept.other, "other item"),
    ]
    .into_iter()
    .filter(|(count, _)| *count > 0)
    .map(|(count, noun)| counted(usize::try_from(count).unwrap_or(usize::MAX), noun))
    .collect();
    if parts.is_empty() {
        return String::new();
    }
    paint(DIM, format!("  kept: {}\n", parts.join(", ")))
}
