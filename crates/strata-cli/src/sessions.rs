//! `strata sessions list` and `strata sessions delete`.

use std::io::Write;

use strata_protocol::{CONTRACT_FORMAT_VERSION, ListSessions, OutputKind, SessionDeleted};

use crate::store::Context;
use crate::style::{BOLD, DIM, paint};
use crate::visible::{json_safe, visible_inline};

/// `strata sessions list [--json]`.
pub fn list(ctx: &Context, json: bool) -> crate::error::Result<()> {
    let mut out = ctx.out.stdout();
    if json {
        // The same typed page the desktop's `list_sessions` returns.
        let page = ctx.app.list_sessions_blocking(&ListSessions {
            limit: Some(u32::MAX),
            ..ListSessions::default()
        })?;
        writeln!(out, "{}", json_safe(&serde_json::to_string(&page)?))?;
        return Ok(());
    }
    let sessions = ctx.store.list()?;
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
