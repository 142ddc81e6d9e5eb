//! `strata changes SESSION` and `strata restore SESSION`: the files the
//! session changed, per turn, and taking them back (over strata-core's
//! `changes`).

use std::io::Write;

use strata_core::CoreError;
use strata_core::changes::restore::Restorer;
use strata_core::changes::{
    BlobStore, ChangeEntry, RestoreConflict, RestorePlan, RestorePoint, change_log, line_counts,
    plan_restore,
};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, ChangeKind, FileChangeRow, FileChanges, FileState, OutputKind,
    RestoreFile, RestoreRefusal, RestoreReport, RestoreStep,
};

use crate::cli::RestoreArgs;
use crate::error::{CliError, Result};
use crate::store::Context;
use crate::style::{DIM, WARN, paint};
use crate::visible::{json_safe, visible_inline};

/// The text a state held, when kept and text: `Some("")` for an absent file.
fn text_of(blobs: &BlobStore, state: Option<&FileState>) -> Option<String> {
    let Some(state) = state else {
        return Some(String::new());
    };
    let bytes = blobs.get(state.sha256.as_deref()?).ok()??;
    String::from_utf8(bytes).ok()
}

fn restorable(blobs: &BlobStore, state: Option<&FileState>) -> bool {
    match state {
        None => true,
        Some(state) => state.stored && state.sha256.as_deref().is_some_and(|sha| blobs.has(sha)),
    }
}

fn row(blobs: &BlobStore, entry: ChangeEntry) -> FileChangeRow {
    let change = entry.change;
    let (before, after) = (change.before.as_ref(), change.after.as_ref());
    let counts = text_of(blobs, before)
        .zip(text_of(blobs, after))
        .map(|(old, new)| line_counts(&old, &new));
    FileChangeRow {
        turn: entry.turn,
        kind: ChangeKind::of(before, after),
        restorable: restorable(blobs, before),
        added: counts.map(|c| c.0 as u64),
        removed: counts.map(|c| c.1 as u64),
        path: change.path,
        cause: change.cause,
        call_id: change.call_id,
    }
}

pub fn changes(ctx: &Context, query: &str, json: bool) -> Result<()> {
    let read = ctx.browse(query)?;
    let blobs = BlobStore::beside(&read.path);
    let rows: Vec<FileChangeRow> = change_log(&read.records)
        .into_iter()
        .map(|entry| row(&blobs, entry))
        .collect();
    let mut out = ctx.out.stdout();
    if json {
        let output = FileChanges {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::FileChanges,
            session_id: read.meta.session_id,
            changes: rows,
        };
        writeln!(out, "{}", json_safe(&serde_json::to_string(&output)?))?;
        return Ok(());
    }
    if rows.is_empty() {
        writeln!(out, "no file changes recorded")?;
        return Ok(());
    }
    let mut heading = None;
    for row in &rows {
        let this = match row.turn {
            Some(turn) => format!("turn {turn}"),
            None => format!("{} {}", row.cause.as_str(), visible_inline(&row.call_id)),
        };
        if heading.as_ref() != Some(&this) {
            writeln!(out, "{}", paint(DIM, format!("── {this} ──")))?;
            heading = Some(this);
        }
        let counts = match (row.added, row.removed) {
            (Some(added), Some(removed)) => format!("+{added} -{removed}"),
            _ => "(not kept: binary or large)".to_owned(),
        };
        let note = if row.restorable {
            ""
        } else {
            " · not restorable"
        };
        writeln!(
            out,
            "  {:<8} {}  {counts}  {}{note}",
            row.kind.as_str(),
            visible_inline(&row.path),
            paint(
                DIM,
                format!("{} {}", row.cause.as_str(), visible_inline(&row.call_id))
            ),
        )?;
    }
    Ok(())
}

fn files_of(plan: &RestorePlan) -> Vec<RestoreFile> {
    plan.actions
        .iter()
        .map(|action| RestoreFile {
            path: action.path.clone(),
            step: if action.target.is_some() {
                RestoreStep::Write
            } else {
                RestoreStep::Delete
            },
        })
        .collect()
}

fn refused_of(conflicts: &[RestoreConflict]) -> Vec<RestoreRefusal> {
    let reasons = strata_core::changes::restore::describe(conflicts);
    conflicts
        .iter()
        .zip(reasons)
        .map(|(conflict, reason)| RestoreRefusal {
            path: conflict.path().to_owned(),
            reason: reason
                .strip_prefix(&format!("{}: ", conflict.path()))
                .map(str::to_owned)
                .unwrap_or(reason),
        })
        .collect()
}

pub fn restore(ctx: &Context, args: &RestoreArgs) -> Result<()> {
    let point = match (args.before_turn, &args.before_item) {
        (Some(turn), _) => RestorePoint::BeforeTurn(turn),
        (None, Some(item)) => RestorePoint::BeforeItem(item.clone()),
        (None, None) => unreachable_point()?,
    };
    let id = ctx.resolve(&args.session)?;
    let read = ctx.store.open_reader(id, strata_core::ReadMode::Browsing)?;
    let refused = |message: String| {
        CliError::Core(CoreError::RestoreRefused {
            files: vec![message],
        })
    };
    let plan = plan_restore(&read.records, &point).map_err(refused)?;
    let protected = [
        ctx.paths.config.clone(),
        ctx.paths.sessions.clone(),
        ctx.paths.logs.clone(),
    ];
    let workspace = std::path::PathBuf::from(&read.meta.workspace);
    let restorer = Restorer::open(&workspace, &read.path, &plan, &protected)?;
    let conflicts = restorer.preview(&plan);
    let mut output = RestoreReport {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::Restore,
        session_id: id,
        dry_run: args.dry_run,
        restored: conflicts.is_empty(),
        restore_id: None,
        files: files_of(&plan),
        refused: refused_of(&conflicts),
    };
    if conflicts.is_empty() && !args.dry_run && !plan.actions.is_empty() {
        let mut session = ctx.store.open_writer(id)?;
        // Planned again over what the writer holds: nothing may have been
        // appended since the read above.
        let records = session.read_records()?;
        let plan = plan_restore(&records, &point).map_err(refused)?;
        let done = restorer.execute(&mut session, &plan)?;
        output.restore_id = Some(done.restore_id);
        output.files = files_of(&plan);
    }
    print_restore(ctx, args.json, &output)?;
    if !conflicts.is_empty() {
        return Err(CliError::RestoreRefused {
            count: conflicts.len(),
        });
    }
    Ok(())
}

fn unreachable_point() -> Result<RestorePoint> {
    Err(CliError::Core(CoreError::RestoreRefused {
        files: vec!["give --before-turn N or --before-item ID".into()],
    }))
}

fn print_restore(ctx: &Context, json: bool, output: &RestoreReport) -> Result<()> {
    let mut out = ctx.out.stdout();
    if json {
        writeln!(out, "{}", json_safe(&serde_json::to_string(output)?))?;
        return Ok(());
    }
    if !output.refused.is_empty() {
        writeln!(
            out,
            "{}",
            paint(WARN, "the restore was refused; nothing was changed:")
        )?;
        for file in &output.refused {
            writeln!(
                out,
                "  {}: {}",
                visible_inline(&file.path),
                visible_inline(&file.reason)
            )?;
        }
        return Ok(());
    }
    if output.files.is_empty() {
        writeln!(out, "nothing to restore: no file changed since that point")?;
        return Ok(());
    }
    let verb = if output.dry_run { "would" } else { "did" };
    for file in &output.files {
        let what = match file.step {
            RestoreStep::Write => "restore",
            RestoreStep::Delete => "delete",
        };
        writeln!(out, "{verb} {what} {}", visible_inline(&file.path))?;
    }
    if let Some(restore_id) = &output.restore_id {
        writeln!(
            out,
            "{}",
            paint(
                DIM,
                format!(
                    "undo it with: strata restore {} --before-item {restore_id}",
                    output.session_id
                )
            )
        )?;
    }
    Ok(())
}
