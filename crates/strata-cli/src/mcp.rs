//! `strata mcp list|get|add|remove|enable|disable|test|import|logs`: the person's MCP
//! servers in config.toml, through strata-app's `mcp::manage`. Every string
//! printed came from the config or a server and is escaped for the terminal.

use std::io::Write;

use strata_app::mcp::manage::{self, NewMcpServer};
use strata_protocol::{McpApprovalMode, McpServerListing, McpServerTest, McpServerView};

use crate::cli::{McpAddArgs, McpApprovalArg, McpCommand, McpImportArgs, McpLogsArgs, McpNameArgs};
use crate::error::CliError;
use crate::run::runtime;
use crate::store::Context;
use crate::style::{BOLD, DIM, ERROR, paint};
use crate::visible::{json_safe, visible_inline};

pub fn mcp(ctx: &Context, command: McpCommand) -> crate::error::Result<()> {
    match command {
        McpCommand::List(args) => {
            let listing = manage::listing(&ctx.paths)?;
            show_listing(ctx, &listing, args.json)
        }
        McpCommand::Get(args) => {
            let server = manage::get(&ctx.paths, &args.name)?;
            if args.json {
                return json(ctx, &server);
            }
            show_server(ctx, &server, true)
        }
        McpCommand::Add(args) => add(ctx, args),
        McpCommand::Remove(args) => {
            let listing = manage::remove(&ctx.paths, &args.name)?;
            done(ctx, &listing, args.json, &format!("removed {}", args.name))
        }
        McpCommand::Enable(args) => enable(ctx, &args, true),
        McpCommand::Disable(args) => enable(ctx, &args, false),
        McpCommand::Test(args) => test(ctx, &args.name, args.json),
        McpCommand::Import(args) => import(ctx, &args),
        McpCommand::Logs(args) => logs(ctx, &args),
    }
}

fn logs(ctx: &Context, args: &McpLogsArgs) -> crate::error::Result<()> {
    let lines = manage::log_tail(&ctx.paths, &args.name, args.lines)?;
    let mut out = ctx.out.stdout();
    if lines.is_empty() {
        writeln!(
            out,
            "no log of {} yet: it is written when a run of it ends",
            visible_inline(&args.name)
        )?;
    }
    for line in &lines {
        match line.strip_prefix(manage::LOG_RUN_HEADER) {
            Some(header) => writeln!(out, "{}", paint(DIM, visible_inline(header)))?,
            None => writeln!(out, "{}", visible_inline(line))?,
        }
    }
    Ok(())
}

fn import(ctx: &Context, args: &McpImportArgs) -> crate::error::Result<()> {
    let (files, missing_ok) = if args.paths.is_empty() {
        let here = std::env::current_dir()?;
        (
            strata_app::mcp::import::standard_places(&here, ctx.app.env()),
            true,
        )
    } else {
        let files = args
            .paths
            .iter()
            .map(std::path::absolute)
            .collect::<Result<Vec<_>, _>>()?;
        (files, false)
    };
    let report = strata_app::mcp::import::import(&ctx.paths, &files, missing_ok)?;
    if args.json {
        return json(ctx, &report);
    }
    let mut out = ctx.out.stdout();
    if report.read.is_empty() && report.unreadable.is_empty() {
        writeln!(
            out,
            "no MCP config found (looked at {})",
            files
                .iter()
                .map(|f| visible_inline(&f.display().to_string()).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    for server in &report.imported {
        writeln!(
            out,
            "imported {} from {}, disabled",
            paint(BOLD, visible_inline(&server.name)),
            visible_inline(&server.source)
        )?;
    }
    for skipped in &report.skipped {
        writeln!(
            out,
            "skipped {} from {}: {}",
            visible_inline(&skipped.name),
            visible_inline(&skipped.source),
            visible_inline(&skipped.reason)
        )?;
    }
    for file in &report.unreadable {
        ctx.out.warn(format!(
            "{}: {}",
            visible_inline(&file.source),
            visible_inline(&file.reason)
        ));
    }
    if !report.imported.is_empty() {
        writeln!(
            out,
            "{}",
            paint(
                DIM,
                "`strata mcp test NAME` tries one; `strata mcp enable NAME` lets sessions start it."
            )
        )?;
    }
    Ok(())
}

fn add(ctx: &Context, args: McpAddArgs) -> crate::error::Result<()> {
    let mut words = args.command.into_iter();
    let command = words.next().unwrap_or_default();
    let server = NewMcpServer {
        command,
        args: words.collect(),
        env: args.env.into_iter().collect(),
        env_vars: args.env_vars,
        cwd: args.cwd.map(std::path::absolute).transpose()?,
        approval: match args.approval {
            McpApprovalArg::Ask => McpApprovalMode::Ask,
            McpApprovalArg::Auto => McpApprovalMode::Auto,
        },
        enabled: !args.disabled,
        startup_timeout_sec: args.startup_timeout,
        tool_timeout_sec: args.tool_timeout,
    };
    let listing = manage::add(&ctx.paths, &args.name, &server)?;
    let what = format!(
        "added {}{} (`strata mcp test {}` starts it once)",
        args.name,
        if args.disabled { ", disabled" } else { "" },
        args.name
    );
    done(ctx, &listing, args.json, &what)
}

fn enable(ctx: &Context, args: &McpNameArgs, enabled: bool) -> crate::error::Result<()> {
    let (changed, listing) = manage::set_enabled(&ctx.paths, &args.name, enabled)?;
    let state = if enabled { "enabled" } else { "disabled" };
    let what = if changed {
        format!("{state} {}", args.name)
    } else {
        format!("{} was {state} already", args.name)
    };
    done(ctx, &listing, args.json, &what)
}

/// What a change did, in a line, or the listing after it as JSON.
fn done(
    ctx: &Context,
    listing: &McpServerListing,
    as_json: bool,
    what: &str,
) -> crate::error::Result<()> {
    if as_json {
        return json(ctx, listing);
    }
    writeln!(
        ctx.out.stdout(),
        "{} ({})",
        visible_inline(what),
        visible_inline(&listing.config)
    )?;
    Ok(())
}

fn json(ctx: &Context, value: &impl serde::Serialize) -> crate::error::Result<()> {
    let text = serde_json::to_string(value)?;
    writeln!(ctx.out.stdout(), "{}", json_safe(&text))?;
    Ok(())
}

fn show_listing(
    ctx: &Context,
    listing: &McpServerListing,
    as_json: bool,
) -> crate::error::Result<()> {
    if as_json {
        return json(ctx, listing);
    }
    if listing.servers.is_empty() && listing.problems.is_empty() {
        writeln!(
            ctx.out.stdout(),
            "no MCP servers in {} (`strata mcp add NAME -- COMMAND [ARGS...]` adds one)",
            visible_inline(&listing.config)
        )?;
    }
    for server in &listing.servers {
        show_server(ctx, server, false)?;
    }
    for problem in &listing.problems {
        writeln!(
            ctx.out.stdout(),
            "{}  {} {}",
            paint(BOLD, visible_inline(&problem.name)),
            paint(ERROR, "not started:"),
            visible_inline(&problem.message)
        )?;
    }
    Ok(())
}

/// `command arg…` as a shell would read it back, escaped.
fn command_line(server: &McpServerView) -> String {
    std::iter::once(&server.command)
        .chain(&server.args)
        .map(|word| visible_inline(&strata_core::tools::rules::shell_word(word)).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

fn show_server(ctx: &Context, server: &McpServerView, full: bool) -> crate::error::Result<()> {
    let mut out = ctx.out.stdout();
    let state = if server.enabled { "" } else { " (disabled)" };
    writeln!(
        out,
        "{}{}  {}  {}",
        paint(BOLD, visible_inline(&server.name)),
        state,
        command_line(server),
        paint(DIM, format!("approval {}", server.approval))
    )?;
    if !full {
        return Ok(());
    }
    let names = |names: &[String]| {
        names
            .iter()
            .map(|name| visible_inline(name).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(cwd) = &server.cwd {
        writeln!(out, "  cwd             {}", visible_inline(cwd))?;
    }
    if !server.env.is_empty() {
        writeln!(
            out,
            "  env             {} (values not shown)",
            names(&server.env)
        )?;
    }
    if !server.env_vars.is_empty() {
        writeln!(out, "  env_vars        {}", names(&server.env_vars))?;
    }
    if !server.read_only_tools.is_empty() {
        writeln!(out, "  read-only tools {}", names(&server.read_only_tools))?;
    }
    writeln!(
        out,
        "  timeouts        start {} s, call {} s without progress",
        seconds(server.startup_timeout_ms),
        seconds(server.tool_timeout_ms)
    )?;
    writeln!(out, "  fingerprint     {}", server.fingerprint)?;
    Ok(())
}

#[allow(clippy::cast_precision_loss)]
fn seconds(millis: u64) -> String {
    let seconds = millis as f64 / 1000.0;
    format!("{seconds}")
}

fn test(ctx: &Context, name: &str, as_json: bool) -> crate::error::Result<()> {
    let plan = manage::plan_test(&ctx.paths, name, ctx.app.env())?;
    let report = runtime()?.block_on(manage::test(plan));
    if as_json {
        json(ctx, &report)?;
    } else {
        show_test(ctx, &report)?;
    }
    if report.ok {
        Ok(())
    } else {
        Err(CliError::McpTestFailed {
            server: name.to_owned(),
        })
    }
}

fn show_test(ctx: &Context, report: &McpServerTest) -> crate::error::Result<()> {
    let mut out = ctx.out.stdout();
    if let Some(info) = &report.server_info {
        writeln!(out, "server   {}", visible_inline(info))?;
    }
    for phase in &report.phases {
        let label = match phase.phase {
            strata_protocol::McpTestPhaseKind::Initialize => "started and initialized",
            strata_protocol::McpTestPhaseKind::ListTools => "listed its tools",
            strata_protocol::McpTestPhaseKind::Stop => "stopped",
        };
        writeln!(out, "{:>6} ms  {label}", phase.millis)?;
    }
    if !report.tools.is_empty() {
        writeln!(
            out,
            "{} tools, {} tokens in every request ({}):",
            report.tools.len(),
            report.definition_tokens,
            visible_inline(&report.estimator)
        )?;
    }
    for tool in &report.tools {
        let description = crate::style::one_line(&tool.description, 72);
        writeln!(
            out,
            "  {:>5}  {}  {}",
            tool.tokens,
            visible_inline(&tool.name),
            paint(DIM, visible_inline(&description))
        )?;
    }
    for left_out in &report.left_out {
        writeln!(
            out,
            "  {} {}: {}",
            paint(ERROR, "left out"),
            visible_inline(&left_out.tool),
            visible_inline(&left_out.reason)
        )?;
    }
    if report.stray_stdout_lines > 0 {
        writeln!(
            out,
            "{} lines on stdout were not MCP messages (a server must write only protocol messages there)",
            report.stray_stdout_lines
        )?;
    }
    if !report.stderr_tail.is_empty() {
        writeln!(out, "{}", paint(DIM, "stderr (last lines):"))?;
        for line in &report.stderr_tail {
            writeln!(out, "  {}", paint(DIM, visible_inline(line)))?;
        }
    }
    if let Some(error) = &report.error {
        for line in error.lines() {
            writeln!(out, "{}", paint(ERROR, visible_inline(line)))?;
        }
    }
    Ok(())
}
