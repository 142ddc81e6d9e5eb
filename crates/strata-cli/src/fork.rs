//! `strata fork SESSION (--at ITEM | --before-compaction N)
//! [--with-files in-place|worktree [--dry-run]] [--json]`: the desktop's
//! `fork_session` (and, with files, `preview_fork` first, so a refusal
//! lists the files and exits 5 as `strata restore` does).

use std::io::Write;

use strata_protocol::{
    CommandError, CommandErrorKind, ForkFiles, ForkPoint, ForkPreview, ForkSession, PreviewFork,
    RestoreStep,
};

use crate::cli::{ForkArgs, WithFilesArg};
use crate::error::CliError;
use crate::items::print_json;
use crate::run::runtime;
use crate::store::Context;
use crate::style::{DIM, WARN, paint};
use crate::visible::visible_inline;

pub fn fork(ctx: &Context, args: ForkArgs) -> crate::error::Result<()> {
    let read = ctx.browse(&args.session)?;
    let point = match (args.at, args.before_compaction) {
        (Some(item), _) => {
            let item = strata_app::validate::item_query(&item)?;
            ForkPoint::AtItem {
                item_id: strata_core::recall::resolve_recorded_item(&read.records, &item)?,
            }
        }
        (None, Some(number)) => ForkPoint::BeforeCompaction { number },
        // clap requires one of the two.
        (None, None) => ForkPoint::BeforeCompaction { number: 0 },
    };
    let session_id = read.meta.session_id;
    let files = args.with_files.map(|mode| match mode {
        WithFilesArg::InPlace => ForkFiles::InPlace,
        WithFilesArg::Worktree => ForkFiles::Worktree,
    });
    let runtime = runtime()?;
    if let Some(mode) = files {
        let request = PreviewFork {
            session_id,
            point: point.clone(),
        };
        let preview = runtime.block_on(ctx.app.preview_fork(request))?;
        if args.dry_run || !preview.refused.is_empty() {
            print_preview(ctx, args.json, mode, &preview)?;
            if !preview.refused.is_empty() {
                return Err(CliError::RestoreRefused {
                    count: preview.refused.len(),
                });
            }
            if let (ForkFiles::Worktree, Some(why)) = (mode, &preview.worktree_unavailable) {
                let message = format!("a fork into a new git worktree is not possible: {why}");
                return Err(CommandError::new(CommandErrorKind::InvalidInput, message).into());
            }
            return Ok(());
        }
    }
    let request = ForkSession {
        session_id,
        point,
        files,
    };
    let result = runtime.block_on(ctx.app.fork_session(request))?;
    if args.json {
        return print_json(ctx, &result);
    }
    writeln!(ctx.out.stdout(), "{}", result.session_id)?;
    let mut err = ctx.out.stderr();
    let Some(done) = &result.files else {
        writeln!(
            err,
            "forked from session {} with {} items in context; files in the workspace were not \
             rewound",
            result.parent_session_id, result.history_items
        )?;
        return Ok(());
    };
    writeln!(
        err,
        "forked from session {} with {} items in context; {} file(s) returned to that point in {}",
        result.parent_session_id,
        result.history_items,
        done.restore.files.len(),
        visible_inline(&done.workspace)
    )?;
    if let Some(restore_id) = &done.restore.restore_id {
        let undo = format!(
            "undo it with: strata restore {} --before-item {restore_id}",
            result.session_id
        );
        writeln!(err, "{}", paint(DIM, undo))?;
    }
    Ok(())
}

fn print_preview(
    ctx: &Context,
    json: bool,
    mode: ForkFiles,
    preview: &ForkPreview,
) -> crate::error::Result<()> {
    if json {
        return print_json(ctx, preview);
    }
    let mut out = ctx.out.stdout();
    if !preview.refused.is_empty() {
        let refused = "the fork with files was refused; nothing was made:";
        writeln!(out, "{}", paint(WARN, refused))?;
        for file in &preview.refused {
            let (path, reason) = (visible_inline(&file.path), visible_inline(&file.reason));
            writeln!(out, "  {path}: {reason}")?;
        }
        return Ok(());
    }
    let place = match (mode, &preview.worktree, &preview.worktree_unavailable) {
        (ForkFiles::Worktree, Some(worktree), _) => {
            format!("in a new git worktree at {}", visible_inline(worktree))
        }
        (ForkFiles::Worktree, None, why) => {
            let why = why
                .as_deref()
                .unwrap_or("the workspace is not in a git repository");
            format!("(refused: {})", visible_inline(why))
        }
        (ForkFiles::Keep | ForkFiles::InPlace, _, _) => {
            format!("in {}", visible_inline(&preview.workspace))
        }
    };
    writeln!(out, "the fork would work {place}")?;
    if preview.files.is_empty() {
        writeln!(
            out,
            "no file changed after that point: nothing to take back"
        )?;
    }
    for file in &preview.files {
        let what = match file.step {
            RestoreStep::Write => "restore",
            RestoreStep::Delete => "delete",
        };
        writeln!(out, "would {what} {}", visible_inline(&file.path))?;
    }
    Ok(())
}
