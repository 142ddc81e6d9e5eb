//! `strata`: the headless command line over strata-core and
//! strata-providers. The binary only parses, wires and renders; every
//! decision (the loop, compaction, tools, approvals, provider profiles)
//! lives in those crates.
//!
//! - `run`, `resume`, `compact`, `chat`: an [`strata_core::agent::Agent`]
//!   on a provider profile, its events rendered as they arrive (`run.rs`,
//!   `repl.rs`, `render.rs`), approvals asked on a terminal (`approve.rs`),
//!   Ctrl+C once to cancel and twice to exit (`terminal.rs`).
//! - `sessions list/search/show/export/delete`, `context`, `compactions`:
//!   read-only views of the session store (listing and search through the
//!   library's index) (`sessions.rs`, `show.rs`, `export.rs`,
//!   `context.rs`, over strata-core's transcript and export).
//!
//! Exit codes: 0 success, 2 usage errors, 3 a checkpoint that disagrees
//! (`sessions verify`), 4 a compaction the rule check refused, 5 a restore
//! refused (`restore`), 1 anything
//! else, always with a one-line reason on standard error.

mod approve;
mod changes;
mod chat_commands;
mod cli;
mod context;
mod error;
mod eval;
mod export;
mod fork;
mod import;
mod imported;
mod imported_loss;
mod items;
mod launch;
mod mcp;
mod preview;
mod render;
mod repl;
mod rules;
mod run;
mod sessions;
mod show;
mod store;
mod style;
mod terminal;
mod visible;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command, EvalCommand, SessionsCommand};
use crate::store::Context;
use crate::style::{ERROR, Output, paint};

fn main() -> ExitCode {
    strata_core::tools::end_commands_on_signals(strata_core::tools::ExitSignals::TermAndHangup);
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version exit 0; usage errors exit 2, as clap decides.
        Err(error) => error.exit(),
    };
    let out = Output::new(cli.color);
    match run(cli, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => {
            let reason = error.to_string().replace(['\n', '\r'], " ");
            let reason = visible::visible_inline(&reason);
            let _ = writeln!(out.stderr(), "{} {reason}", paint(ERROR, "strata: error:"));
            ExitCode::from(error.exit_code())
        }
    }
}

fn run(cli: Cli, out: Output) -> crate::error::Result<()> {
    let ctx = Context::from_env(out)?;
    match cli.command {
        Command::Run(args) => run::run(&ctx, args),
        Command::Resume(args) => run::resume(&ctx, args),
        Command::Compact(args) => run::compact(&ctx, args),
        Command::Chat(args) => repl::chat(&ctx, args),
        Command::Sessions(SessionsCommand::List(args)) => sessions::list(&ctx, &args),
        Command::Sessions(SessionsCommand::Show(args)) if args.json => {
            items::show_items(&ctx, &args.session)
        }
        Command::Sessions(SessionsCommand::Search(args)) => sessions::search(&ctx, &args),
        Command::Sessions(SessionsCommand::Show(args)) => show::show(&ctx, &args.session),
        Command::Sessions(SessionsCommand::Export(args)) => {
            export::export(&ctx, &args.session, args.format, args.output.as_deref())
        }
        Command::Sessions(SessionsCommand::Delete(args)) => {
            sessions::delete(&ctx, &args.session, args.json)
        }
        Command::Sessions(SessionsCommand::Import(args)) => import::import(&ctx, &args),
        Command::Sessions(SessionsCommand::Verify(args)) => {
            sessions::verify(&ctx, &args.session, args.json)
        }
        Command::Context(args) => context::context(&ctx, &args.session, args.json),
        Command::Compactions(args) => context::compactions(&ctx, &args.session, args.json),
        Command::Pin(args) => items::pin(&ctx, args, true),
        Command::Unpin(args) => items::pin(&ctx, args, false),
        Command::Fork(args) => fork::fork(&ctx, args),
        Command::Changes(args) => changes::changes(&ctx, &args.session, args.json),
        Command::Restore(args) => changes::restore(&ctx, &args),
        Command::Eval(EvalCommand::Compaction(args)) => eval::compaction(&ctx, &args),
        Command::Rules(command) => rules::rules(&ctx, command),
        Command::Mcp(command) => mcp::mcp(&ctx, command),
    }
}
