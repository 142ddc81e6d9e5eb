//! `strata changes SESSION` and `strata restore SESSION`: the files the
//! session changed, per turn, and taking them back (over strata-core's
//! `changes`).

use std::io::Write;

use strata_app::changes::restore::restore as restore_files;
use strata_core::CoreError;
use strata_core::changes::{BlobStore, RestorePoint};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, FileChangeRow, FileChanges, OutputKind, RestoreReport, RestoreStep,
};

use crate::cli::RestoreArgs;
use crate::error::{CliError, Result};
use crate::store::Context;
use crate::style::{DIM, WARN, paint};
use crate::visible::{json_safe, visible_inline};

pub fn changes(ctx: &Context, query: &str, json: bool) -> Result<()> {
    let read = ctx.browse(query)?;
    let blobs = BlobStore::beside(&read.path);
    let rows: Vec<FileChangeRow> = strata_app::changes::rows(&read.records, &blobs);
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

pub fn restore(ctx: &Context, args: &RestoreArgs) -> Result<()> {
    let point = match (args.before_turn, &args.before_item) {
        (Some(turn), _) => RestorePoint::BeforeTurn(turn),
        (None, Some(item)) => RestorePoint::BeforeItem(item.clone()),
        (None, None) => unreachable_point()?,
    };
    let id = ctx.resolve(&args.session)?;
    let output = restore_files(&ctx.app, id, &point, args.dry_run)?;
    print_restore(ctx, args.json, &output)?;
    if !output.refused.is_empty() {
        return Err(CliError::RestoreRefused {
            count: output.refused.len(),
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
