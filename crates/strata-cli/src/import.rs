//! `strata sessions import PATH...`: adds other agents' session files, or
//! folders holding them, to the library through strata-app's
//! `import_sessions` (the command "Open file…" runs in the desktop) and
//! prints what was found. The files are only read. Every string printed
//! came from another tool's file or the person's path and is escaped.

use std::io::Write;

use strata_protocol::ImportSessions;

use crate::cli::ImportArgs;
use crate::run::runtime;
use crate::store::Context;
use crate::style::{BOLD, DIM, paint};
use crate::visible::{json_safe, visible_inline};

pub fn import(ctx: &Context, args: &ImportArgs) -> crate::error::Result<()> {
    let mut paths = Vec::with_capacity(args.paths.len());
    for path in &args.paths {
        let absolute = std::path::absolute(path)?;
        paths.push(absolute.to_string_lossy().into_owned());
    }
    let report = runtime()?.block_on(ctx.app.import_sessions(ImportSessions { paths }))?;
    for file in &report.unreadable {
        ctx.out.warn(format!(
            "{}: {}",
            visible_inline(&file.path),
            visible_inline(&file.reason)
        ));
    }
    let mut out = ctx.out.stdout();
    if args.json {
        writeln!(out, "{}", json_safe(&serde_json::to_string(&report)?))?;
        return Ok(());
    }
    if report.sessions.is_empty() {
        writeln!(
            ctx.out.stderr(),
            "no Codex, Claude Code or Copilot CLI sessions found there"
        )?;
    }
    for session in &report.sessions {
        let title = session.title.as_deref().unwrap_or("(untitled)");
        writeln!(
            out,
            "{}  {}  {}  {}",
            paint(BOLD, format!("[{}]", session.source.label())),
            paint(BOLD, visible_inline(&session.id)),
            visible_inline(title),
            paint(DIM, visible_inline(&session.path)),
        )?;
    }
    for path in &report.added_paths {
        writeln!(
            ctx.out.stderr(),
            "added {} to the library",
            visible_inline(path)
        )?;
    }
    Ok(())
}
