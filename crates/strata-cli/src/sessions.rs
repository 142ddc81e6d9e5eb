//! `strata sessions list`, `strata sessions delete` and `strata sessions
//! verify`.

use std::io::Write;

use strata_core::ReadMode;
use strata_core::store::verify_checkpoints;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, ListSessions, OutputKind, SessionDeleted, SessionVerification,
};

use crate::error::CliError;

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
