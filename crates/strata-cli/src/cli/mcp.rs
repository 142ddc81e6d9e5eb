//! The `strata mcp` subcommands' grammar: the person's MCP servers in
//! config.toml (`[mcp_servers.NAME]`), and starting one once to see it work.

use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Every configured server, and every table that cannot be read.
    List(McpListArgs),
    /// One server's configuration (variables by name only).
    Get(McpNameArgs),
    /// Adds a stdio server: `strata mcp add NAME [options] -- COMMAND [ARGS...]`.
    Add(McpAddArgs),
    /// Removes a server from config.toml.
    Remove(McpNameArgs),
    /// Lets sessions start the server again.
    Enable(McpNameArgs),
    /// Keeps the server in config.toml but starts it in no session.
    Disable(McpNameArgs),
    /// Starts the server once, enabled or not: each phase's time, its tools
    /// with what their definitions cost in tokens, the tail of its stderr;
    /// then stops it. Exits 1 when a phase failed.
    Test(McpNameArgs),
    /// Adds the stdio servers other tools configured, disabled: from PATHs,
    /// or from this folder's `.mcp.json`, Claude Desktop's config and
    /// Codex's `~/.codex/config.toml`. Their files are only read.
    Import(McpImportArgs),
    /// The server's stderr from its last runs (kept in Strata's logs folder,
    /// `mcp/NAME.log`, each run under a `===` line), escaped.
    Logs(McpLogsArgs),
}

#[derive(Debug, Args)]
pub struct McpLogsArgs {
    pub name: String,
    /// How many lines from the end.
    #[arg(long, short = 'n', default_value_t = 50)]
    pub lines: usize,
}

#[derive(Debug, Args)]
pub struct McpImportArgs {
    /// `.mcp.json`-style JSON files or Codex `config.toml` files.
    pub paths: Vec<std::path::PathBuf>,
    /// One JSON object (`McpImportReport`) instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct McpListArgs {
    /// One JSON object (`McpServerListing`) instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct McpNameArgs {
    /// The server's name, as `[mcp_servers.NAME]` gives it.
    pub name: String,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum McpApprovalArg {
    /// Each call waits for the person.
    Ask,
    /// Calls run without asking.
    Auto,
}

#[derive(Debug, Args)]
pub struct McpAddArgs {
    /// `[A-Za-z0-9_-]`, at most 32 characters; the model sees its tools as
    /// `mcp__NAME__TOOL`.
    pub name: String,
    /// A variable set for the server (repeatable). Kept in config.toml, which
    /// only you can read; prefer `--env-var` for secrets.
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_assignment)]
    pub env: Vec<(String, String)>,
    /// A variable copied from Strata's environment at start (repeatable);
    /// a missing one stops the server with its name.
    #[arg(long = "env-var", value_name = "NAME")]
    pub env_vars: Vec<String>,
    /// The server's working directory.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
    /// Whether its calls wait for you (`ask`, the default) or run (`auto`).
    #[arg(long, value_enum, default_value_t = McpApprovalArg::Ask)]
    pub approval: McpApprovalArg,
    /// Seconds from start to the end of the handshake (default 10).
    #[arg(long, value_name = "SECONDS")]
    pub startup_timeout: Option<u64>,
    /// Seconds a call may go without a result or progress (default 60).
    #[arg(long, value_name = "SECONDS")]
    pub tool_timeout: Option<u64>,
    /// Adds it disabled (`strata mcp enable NAME` later).
    #[arg(long)]
    pub disabled: bool,
    /// One JSON object (`McpServerListing`) instead of text.
    #[arg(long)]
    pub json: bool,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

fn parse_assignment(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("{text:?} is not KEY=VALUE")),
    }
}
