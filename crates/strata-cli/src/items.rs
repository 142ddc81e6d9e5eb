//! Issue 12's commands: `strata sessions show SESSION --json` (every item
//! ever recorded, with its id), `strata pin`/`unpin SESSION ITEM`,
//! `strata compact SESSION --undo` and `strata fork SESSION (--at ITEM |
//! --before-compaction N)` (in fork.rs). Each is the `App` method the desktop's command
//! of that name calls, and `--json` prints its typed result.

use std::io::Write;

use strata_core::CoreError;
use strata_protocol::{ListSessionItems, PinItem, UndoCompaction};

use crate::cli::{CompactArgs, PinArgs};
use crate::error::CliError;
use crate::launch;
use crate::run::runtime;
use crate::store::Context;
use crate::style::{COMPACTION, paint};
use crate::visible::json_safe;

pub(crate) fn print_json<T: serde::Serialize>(
    ctx: &Context,
    value: &T,
) -> crate::error::Result<()> {
    writeln!(
        ctx.out.stdout(),
        "{}",
        json_safe(&serde_json::to_string(value)?)
    )?;
    Ok(())
}

/// `strata sessions show SESSION --json`: one `SessionItems` object.
/// An id no Strata session has may name another tool's session: its
/// `ImportedSession` then.
pub fn show_items(ctx: &Context, query: &str) -> crate::error::Result<()> {
    let session_id = match ctx.resolve(query) {
        Ok(id) => id,
        Err(missing @ CoreError::SessionNotFound { .. }) => {
            return crate::imported::show_instead(ctx, query, true, missing);
        }
        Err(error) => return Err(error.into()),
    };
    let items = runtime()?.block_on(ctx.app.session_items(ListSessionItems { session_id }))?;
    print_json(ctx, &items)
}

/// `strata pin|unpin SESSION ITEM`.
pub fn pin(ctx: &Context, args: PinArgs, pinned: bool) -> crate::error::Result<()> {
    let result = runtime()?.block_on(async {
        let opened = launch::resume(ctx, &args.session, &args.agent, false).await?;
        let request = PinItem {
            session_id: opened.session_id,
            item: args.item,
            pinned,
        };
        Ok::<_, CliError>(ctx.app.pin_item(request).await?)
    })?;
    if args.agent.json {
        return print_json(ctx, &result);
    }
    let verb = if pinned { "pinned" } else { "unpinned" };
    writeln!(
        ctx.out.stdout(),
        "{verb} item {} of session {}",
        result.item_id,
        result.session_id
    )?;
    Ok(())
}

/// `strata compact SESSION --undo`.
pub fn undo(ctx: &Context, args: &CompactArgs) -> crate::error::Result<()> {
    let result = runtime()?.block_on(async {
        let opened = launch::resume(ctx, &args.session, &args.agent, false).await?;
        let request = UndoCompaction {
            session_id: opened.session_id,
        };
        Ok::<_, CliError>(ctx.app.undo_compaction(request).await?)
    })?;
    if args.agent.json {
        return print_json(ctx, &result);
    }
    writeln!(
        ctx.out.stdout(),
        "{}",
        paint(
            COMPACTION,
            format!(
                "compaction undone: {} items restored, about {} tokens (an estimate of the \
                 restored history; with the tool specs, under the threshold of {})",
                result.undone.restored.len(),
                result.undone.estimated_tokens,
                result.undone.threshold
            )
        )
    )?;
    Ok(())
}
