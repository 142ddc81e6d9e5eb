//! `strata rules list|add|remove [--workspace DIR] [--json]`: the user's
//! approval rules (`[rules]` in config.toml) and a workspace's
//! (`.strata/rules.toml`, saved so that Strata trusts its allow rules).

use std::io::Write;
use std::path::Path;

use strata_protocol::{RuleKind, RuleList, RuleRef, RuleSource, RulesListing};

use crate::cli::{RuleEditArgs, RuleListArg, RulesCommand, RulesListArgs};
use crate::store::Context;
use crate::visible::visible_inline;

pub fn rules(ctx: &Context, command: RulesCommand) -> crate::error::Result<()> {
    match command {
        RulesCommand::List(args) => list(ctx, &args),
        RulesCommand::Add(args) => edit(ctx, &args, true),
        RulesCommand::Remove(args) => edit(ctx, &args, false),
        RulesCommand::Network(args) => {
            let place = strata_app::network_file::save(
                &ctx.paths,
                &args.workspace,
                args.network,
                &args.domains,
            )?;
            writeln!(
                ctx.out.stdout(),
                "saved network {} ({})",
                args.network,
                visible_inline(&place.display().to_string())
            )?;
            Ok(())
        }
    }
}

fn list(ctx: &Context, args: &RulesListArgs) -> crate::error::Result<()> {
    let listing = listing(ctx, true, args.workspace.as_deref())?;
    show(ctx, &listing, args.json)
}

fn edit(ctx: &Context, args: &RuleEditArgs, add: bool) -> crate::error::Result<()> {
    let (kind, list) = list_of(args.list);
    let pattern = args.pattern.trim().to_owned();
    let edit = strata_app::rules::RuleEdit {
        workspace: args.workspace.as_deref(),
        kind,
        list,
        pattern: &pattern,
    };
    let edited = strata_app::rules::edit(&ctx.paths, edit, add)?;
    let listing = listing(ctx, args.workspace.is_none(), args.workspace.as_deref())?;
    if args.json {
        return show(ctx, &listing, true);
    }
    let rule = RuleRef {
        source: if args.workspace.is_some() {
            RuleSource::Workspace
        } else {
            RuleSource::User
        },
        list,
        kind,
        pattern: edited.pattern,
    };
    let what = match (add, edited.changed) {
        (true, true) => "added",
        (true, false) => "already there:",
        (false, true) => "removed",
        (false, false) => "no such rule:",
    };
    writeln!(
        ctx.out.stdout(),
        "{what} {} ({})",
        visible_inline(&rule.to_string()),
        visible_inline(&edited.file.display().to_string())
    )?;
    Ok(())
}

/// The user's rules (when `user`) and the workspace's.
fn listing(
    ctx: &Context,
    user: bool,
    workspace: Option<&Path>,
) -> crate::error::Result<RulesListing> {
    Ok(strata_app::rules::listing(&ctx.paths, user, workspace)?)
}

fn show(ctx: &Context, listing: &RulesListing, json: bool) -> crate::error::Result<()> {
    let mut out = ctx.out.stdout();
    if json {
        writeln!(out, "{}", serde_json::to_string(listing)?)?;
        return Ok(());
    }
    if listing.rules.is_empty() && listing.not_applied.is_empty() {
        writeln!(out, "no approval rules")?;
    }
    for rule in &listing.rules {
        if listing.no_server.contains(rule) {
            writeln!(
                out,
                "{} (matches nothing: no configured MCP server has this launch command now; add it \
                 again for the server as it is)",
                visible_inline(&rule.to_string())
            )?;
        } else {
            writeln!(out, "{}", visible_inline(&rule.to_string()))?;
        }
    }
    for rule in &listing.not_applied {
        writeln!(
            out,
            "{} (not applied: the file changed outside Strata; add it again to trust it)",
            visible_inline(&rule.to_string())
        )?;
    }
    Ok(())
}

fn list_of(arg: RuleListArg) -> (RuleKind, RuleList) {
    match arg {
        RuleListArg::Allow => (RuleKind::Command, RuleList::Allow),
        RuleListArg::Ask => (RuleKind::Command, RuleList::Ask),
        RuleListArg::Deny => (RuleKind::Command, RuleList::Deny),
        RuleListArg::WriteAllow => (RuleKind::Write, RuleList::Allow),
        RuleListArg::WriteAsk => (RuleKind::Write, RuleList::Ask),
        RuleListArg::WriteDeny => (RuleKind::Write, RuleList::Deny),
        RuleListArg::McpAllow => (RuleKind::Mcp, RuleList::Allow),
        RuleListArg::McpAsk => (RuleKind::Mcp, RuleList::Ask),
        RuleListArg::McpDeny => (RuleKind::Mcp, RuleList::Deny),
    }
}
