//! Issue 12's commands: `strata sessions show SESSION --json` (every item
//! ever recorded, with its id), `strata pin`/`unpin SESSION ITEM`,
//! `strata compact SESSION --undo` and `strata fork SESSION (--at ITEM |
//! --before-compaction N)`. Each goes through strata-app's contract
//! functions, as the desktop does, and `--json` prints their typed result.

use std::io::Write;

use strata_app::context_ops;
use strata_protocol::{ForkPoint, ForkSession, ListSessionItems, PinItem};

use crate::cli::{CompactArgs, ForkArgs, PinArgs};
use crate::launch;
use crate::store::Context;
use crate::style::{COMPACTION, paint};
use crate::visible::json_safe;

fn print_json<T: serde::Serialize>(ctx: &Context, value: &T) -> crate::error::Result<()> {
    writeln!(
        ctx.out.stdout(),
        "{}",
        json_safe(&serde_json::to_string(value)?)
    )?;
    Ok(())
}

/// `strata sessions show SESSION --json`: one `SessionItems` object.
pub fn show_items(ctx: &Context, query: &str) -> crate::error::Result<()> {
    let session_id = ctx.resolve(query)?;
    let items = context_ops::session_items(&ctx.store, &ListSessionItems { session_id })?;
    print_json(ctx, &items)
}

/// `strata pin|unpin SESSION ITEM`.
pub fn pin(ctx: &Context, args: PinArgs, pinned: bool) -> crate::error::Result<()> {
    let mut launched = launch::resume(ctx, &args.session, &args.agent, false)?;
    let request = PinItem {
        session_id: launched.agent.id(),
        item: args.item,
        pinned,
    };
    let result = context_ops::pin_item(&mut launched.agent, &request)?;
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
    let mut launched = launch::resume(ctx, &args.session, &args.agent, false)?;
    let result = context_ops::undo_compaction(&mut launched.agent)?;
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

/// `strata fork SESSION (--at ITEM | --before-compaction N) [--json]`.
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
    let request = ForkSession {
        session_id: read.meta.session_id,
        point,
    };
    let result = context_ops::fork_session(&ctx.store, &request)?;
    if args.json {
        return print_json(ctx, &result);
    }
    writeln!(ctx.out.stdout(), "{}", result.session_id)?;
    writeln!(
        ctx.out.stderr(),
        "forked from session {} with {} items in context; files in the workspace were not \
         rewound",
        result.parent_session_id,
        result.history_items
    )?;
    Ok(())
}
