//! `strata sessions list`, `strata sessions search`, `strata sessions
//! delete` and `strata sessions verify`.

use std::io::Write;

use strata_core::ReadMode;
use strata_core::store::verify_checkpoints;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, ListSessions, OutputKind, SearchHit, SearchHitKind, SearchSessions,
    SessionDeleted, SessionVerification,
};

use crate::error::CliError;

use crate::cli::{ListArgs, ListSort, SearchArgs};
use crate::store::Context;
use crate::style::{BOLD, DIM, paint};
use crate::visible::{json_safe, visible_inline};

/// `strata sessions list [--json]`: every session, read from the library's
/// index (the same typed page the desktop's `list_sessions` returns).
pub fn list(ctx: &Context, args: &ListArgs) -> crate::error::Result<()> {
    let json = args.json;
    let mut out = ctx.out.stdout();
    let mut page = ctx.app.list_sessions_blocking(&ListSessions {
        limit: Some(u32::MAX),
        ..ListSessions::default()
    })?;
    if args.sort == ListSort::Cost {
        // Stable: equal costs keep the newest-first order.
        page.sessions
            .sort_by_key(|session| std::cmp::Reverse(session.cost.as_ref().map(|cost| cost.usd)));
    }
    say_notice(ctx, page.notice.as_deref())?;
    if json {
        writeln!(out, "{}", json_safe(&serde_json::to_string(&page)?))?;
        drop(out);
        return imported_too(ctx, args);
    }
    if page.sessions.is_empty() {
        writeln!(
            ctx.out.stderr(),
            "no sessions in {}",
            visible_inline(&ctx.store.root().display().to_string())
        )?;
    }
    for session in &page.sessions {
        let title = visible_inline(session.title.as_deref().unwrap_or("(untitled)"));
        let compactions = match session.compaction_count {
            0 => String::new(),
            1 => "  1 compaction".to_owned(),
            n => format!("  {n} compactions"),
        };
        let cost = session
            .cost
            .as_ref()
            .map_or_else(|| "no price".to_owned(), |cost| cost.usd.to_string());
        writeln!(
            out,
            "{}  {}  {}  {:>4} items  {cost}{}",
            paint(BOLD, session.id),
            session.updated_at.format("%Y-%m-%d %H:%M"),
            paint(
                DIM,
                visible_inline(&format!("{}/{}", session.provider_kind, session.model))
            ),
            session.item_count,
            compactions,
        )?;
        writeln!(
            out,
            "    {title}  {}",
            paint(DIM, visible_inline(&session.workspace))
        )?;
    }
    drop(out);
    imported_too(ctx, args)
}

/// With `--all-tools`, the other tools' sessions after Strata's.
fn imported_too(ctx: &Context, args: &ListArgs) -> crate::error::Result<()> {
    if args.all_tools {
        crate::imported::list(ctx, args.json)?;
    }
    Ok(())
}

/// What recovering the library's index took, as one line on stderr (stdout
/// stays the listing, `--json` included).
fn say_notice(ctx: &Context, notice: Option<&str>) -> crate::error::Result<()> {
    if let Some(notice) = notice {
        writeln!(ctx.out.stderr(), "strata: {}", visible_inline(notice))?;
    }
    Ok(())
}

/// `strata sessions search QUERY [filters] [--json]`: hits from the
/// library's index, newest text first.
pub fn search(ctx: &Context, args: &SearchArgs) -> crate::error::Result<()> {
    let request = SearchSessions {
        query: args.query.clone(),
        workspace: args.workspace.clone(),
        model: args.model.clone(),
        updated_from: args.since,
        updated_until: args.until,
        offset: None,
        limit: Some(args.limit),
    };
    let results = ctx.app.search_sessions_blocking(&request)?;
    say_notice(ctx, ctx.app.take_library_notice().as_deref())?;
    let mut out = ctx.out.stdout();
    if args.json {
        writeln!(out, "{}", json_safe(&serde_json::to_string(&results)?))?;
        drop(out);
        if args.all_tools {
            crate::imported::search(ctx, &request, true)?;
        }
        return Ok(());
    }
    for hit in &results.hits {
        let title = visible_inline(hit.session_title.as_deref().unwrap_or("(untitled)"));
        writeln!(
            out,
            "{}  {}  {title}",
            paint(BOLD, hit.session_id),
            hit.updated_at.format("%Y-%m-%d %H:%M"),
        )?;
        let item = hit
            .item_id
            .map_or_else(|| "-".to_owned(), |id| id.to_string());
        writeln!(
            out,
            "    {} {}  {}",
            paint(DIM, kind_label(hit.kind)),
            paint(DIM, item),
            marked_snippet(hit),
        )?;
    }
    drop(out);
    let imported = if args.all_tools {
        crate::imported::search(ctx, &request, false)?
    } else {
        0
    };
    if results.hits.is_empty() && imported == 0 {
        writeln!(
            ctx.out.stderr(),
            "nothing matches {}",
            visible_inline(&results.query)
        )?;
        return Ok(());
    }
    if results.total_capped || results.total as usize > results.hits.len() {
        let plus = if results.total_capped { "+" } else { "" };
        writeln!(
            ctx.out.stderr(),
            "{} of {}{plus} hits shown (--limit shows more)",
            results.hits.len(),
            results.total
        )?;
    }
    Ok(())
}

fn kind_label(kind: SearchHitKind) -> &'static str {
    match kind {
        SearchHitKind::User => "user",
        SearchHitKind::Assistant => "assistant",
        SearchHitKind::ToolCall => "tool call",
        SearchHitKind::ToolOutput => "tool output",
        SearchHitKind::Summary => "summary",
    }
}

/// The snippet on one line, every piece through the sanitiser, the
/// matches in bold.
fn marked_snippet(hit: &SearchHit) -> String {
    let chars: Vec<char> = hit.snippet.chars().collect();
    let piece = |from: usize, to: usize| -> String {
        let text: String = chars[from.min(chars.len())..to.min(chars.len())]
            .iter()
            .collect();
        visible_inline(&text).into_owned()
    };
    let mut line = String::new();
    let mut at = 0usize;
    for range in &hit.matches {
        let (start, end) = (range.start as usize, range.end as usize);
        if start < at || end < start {
            continue;
        }
        line.push_str(&piece(at, start));
        line.push_str(&paint(BOLD, piece(start, end)));
        at = end;
    }
    line.push_str(&piece(at, chars.len()));
    line
}

/// `strata sessions delete SESSION [--json]`.
pub fn delete(ctx: &Context, query: &str, json: bool) -> crate::error::Result<()> {
    let id = ctx.resolve(query)?;
    ctx.app.delete_blocking(id)?;
    let mut out = ctx.out.stdout();
    if json {
        let deleted = SessionDeleted {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::SessionDeleted,
            session_id: id,
        };
        writeln!(out, "{}", serde_json::to_string(&deleted)?)?;
    } else {
        writeln!(out, "deleted session {id}")?;
    }
    Ok(())
}

/// `strata sessions verify SESSION [--json]`: the whole file, read strictly
/// (a corrupt line fails with its number), replayed from its first record;
/// every checkpoint compared with the replay of the records before it.
pub fn verify(ctx: &Context, query: &str, json: bool) -> crate::error::Result<()> {
    let id = ctx.resolve(query)?;
    let read = ctx.store.open_reader(id, ReadMode::Strict)?;
    let found = verify_checkpoints(&read);
    let mut out = ctx.out.stdout();
    if json {
        let report = SessionVerification {
            v: CONTRACT_FORMAT_VERSION,
            session_id: id,
            records: found.records as u64,
            checkpoints: found.checkpoints as u64,
            divergences: found.divergences.clone(),
        };
        writeln!(out, "{}", json_safe(&serde_json::to_string(&report)?))?;
    } else {
        for divergence in &found.divergences {
            let item = divergence
                .item
                .map(|index| format!(" at item {index}"))
                .unwrap_or_default();
            let show = |text: &Option<String>| {
                visible_inline(text.as_deref().unwrap_or("(nothing)")).into_owned()
            };
            writeln!(
                out,
                "checkpoint {} (line {}): {}{item} differs: the records replay to {}, the checkpoint holds {}",
                divergence.checkpoint,
                divergence.line,
                visible_inline(&divergence.field),
                show(&divergence.replayed),
                show(&divergence.stored),
            )?;
        }
        if found.divergences.is_empty() {
            writeln!(
                out,
                "session {id}: {} records, {} checkpoint(s), each equal to the replay of the records before it",
                found.records, found.checkpoints
            )?;
        }
    }
    if found.divergences.is_empty() {
        Ok(())
    } else {
        Err(CliError::CheckpointsDiverge {
            count: found.divergences.len(),
            checkpoints: found.checkpoints,
        })
    }
}
