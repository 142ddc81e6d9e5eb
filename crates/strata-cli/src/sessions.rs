//! `strata sessions list` and `strata sessions delete`.

use std::io::Write;

use serde_json::json;
use strata_core::SessionSummary;

use crate::store::Context;
use crate::style::{BOLD, DIM, paint};
use crate::visible::{json_safe, visible_inline};

/// `strata sessions list [--json]`.
pub fn list(ctx: &Context, json: bool) -> crate::error::Result<()> {
    let sessions = ctx.store.list()?;
    let mut out = ctx.out.stdout();
    if json {
        for session in &sessions {
            writeln!(out, "{}", json_safe(&summary_json(session).to_string()))?;
        }
        return Ok(());
    }
    if sessions.is_empty() {
        writeln!(
            ctx.out.stderr(),
            "no sessions in {}",
            visible_inline(&ctx.store.root().display().to_string())
        )?;
        return Ok(());
    }
    for session in &sessions {
        let title = visible_inline(session.title.as_deref().unwrap_or("(untitled)"));
        let compactions = match session.compactions {
            0 => String::new(),
            1 => "  1 compaction".to_owned(),
            n => format!("  {n} compactions"),
        };
        writeln!(
            out,
            "{}  {}  {}  {:>4} items{}",
            paint(BOLD, session.id),
            session.updated.format("%Y-%m-%d %H:%M"),
            paint(
                DIM,
                visible_inline(&format!("{}/{}", session.provider_kind, session.model))
            ),
            session.items,
            compactions,
        )?;
        writeln!(
            out,
            "    {title}  {}",
            paint(DIM, visible_inline(&session.workspace))
        )?;
    }
    Ok(())
}

fn summary_json(session: &SessionSummary) -> serde_json::Value {
    json!({
        "id": session.id,
        "title": session.title,
        "created": session.created,
        "updated": session.updated,
        "items": session.items,
        "compactions": session.compactions,
        "workspace": session.workspace,
        "provider_kind": session.provider_kind,
        "model": session.model,
        "skipped_lines": session.skipped_lines,
        "torn_tail": session.torn_tail,
        "path": session.path,
    })
}

/// `strata sessions delete SESSION [--json]`.
pub fn delete(ctx: &Context, query: &str, json: bool) -> crate::error::Result<()> {
    let id = ctx.resolve(query)?;
    ctx.store.delete(id)?;
    let mut out = ctx.out.stdout();
    if json {
        writeln!(out, "{}", json!({ "deleted": id }))?;
    } else {
        writeln!(out, "deleted session {id}")?;
    }
    Ok(())
}
