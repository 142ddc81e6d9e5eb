//! The command line's grammar (clap). Parsing only; each command group has
//! its own module.

mod mcp;
mod sessions;

pub use mcp::*;
pub use sessions::*;

use clap::builder::TypedValueParser as _;
use clap::{Args, Parser, Subcommand, ValueEnum};
use strata_core::tools::SandboxMode;
use strata_protocol::{
    CompactionPolicy, ProviderKind, ReasoningEffort, SandboxNetwork, ThresholdSetting,
};

/// Strata: an LLM agent that works in a folder, keeps every session on disk,
/// and compacts what the model sees when a conversation grows too long.
#[derive(Debug, Parser)]
#[command(name = "strata", version, propagate_version = true)]
#[command(
    after_help = "SESSION is a session id or a unique prefix of one. STRATA_HOME moves every file \
                  Strata writes (sessions, config, logs). NO_COLOR turns colour off.\n\
                  Exit codes: 0 success, 2 usage error, 3 `sessions verify` found a checkpoint \
                  that disagrees, 4 the rule check refused a compaction (nothing changed), 1 \
                  anything else (with a one-line reason on standard error)."
)]
pub struct Cli {
    /// When to colour the output (`auto` colours a terminal unless NO_COLOR is set).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Starts a session and runs one turn of PROMPT. The session id goes to
    /// standard error first; the assistant's text streams to standard
    /// output, tool calls and notices to standard error.
    Run(RunArgs),

    /// Continues a session with one turn of PROMPT (by default with the
    /// session's own provider, model and workspace).
    Resume(ResumeArgs),

    /// Compacts a session's history now (trigger `manual`).
    Compact(CompactArgs),

    /// An interactive session in the terminal: type a prompt, the turn runs,
    /// repeat. `/compact [focus]` compacts, `/quit` leaves.
    Chat(ChatArgs),

    /// Browse, export and delete sessions.
    #[command(subcommand)]
    Sessions(SessionsCommand),

    /// The history the model sees now: the session's records replayed, with
    /// compactions applied.
    Context(SessionJsonArgs),

    /// Every compaction of a session: when, why, how much it removed and kept.
    Compactions(SessionJsonArgs),

    /// Pins an item (a message or tool output, by id or unique prefix, as
    /// `strata sessions show --json` lists them): it survives every
    /// compaction and eviction verbatim (layered policy).
    Pin(PinArgs),

    /// Unpins an item.
    Unpin(PinArgs),

    /// A new session from a point of this one: right after an item, or just
    /// before a compaction (with the original items, not the summary).
    /// Files in the workspace are not rewound.
    Fork(ForkArgs),

    /// The files the session changed, per turn (write_file, apply_edit,
    /// shell commands, restores), each with its added and removed lines.
    Changes(SessionJsonArgs),

    /// Returns the workspace's files to what they were before a turn or an
    /// item; refused (exit 5, nothing changed) when a file was changed
    /// outside Strata since or its earlier content was not kept. The
    /// restore is recorded and can itself be undone.
    Restore(RestoreArgs),

    /// Opt-in evaluations with a real model (they cost tokens; see
    /// docs/CONTEXT.md).
    #[command(subcommand)]
    Eval(EvalCommand),

    /// Approval rules: the user's (`[rules]` in config.toml) or, with
    /// `--workspace DIR`, that workspace's (`.strata/rules.toml`).
    #[command(subcommand)]
    Rules(RulesCommand),

    /// MCP servers: the tools sessions get from them (`[mcp_servers.NAME]`
    /// in config.toml).
    #[command(subcommand)]
    Mcp(McpCommand),
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Every rule: the user's, and the workspace's with `--workspace`
    /// (allow rules of a workspace file changed outside Strata are listed
    /// as not applied).
    List(RulesListArgs),
    /// Adds a rule, e.g. `strata rules add allow 'cargo test*'`.
    Add(RuleEditArgs),
    /// Removes a rule, given exactly as listed (an mcp-allow rule also by
    /// its `SERVER/TOOL` part).
    Remove(RuleEditArgs),
    /// Saves the workspace's `.strata/network.toml`, trusted: what its
    /// sandboxed commands reach in the next sessions there, e.g.
    /// `strata rules network allow-list crates.io '*.npmjs.org' --workspace .`.
    Network(NetworkSaveArgs),
}

#[derive(Debug, Args)]
pub struct NetworkSaveArgs {
    /// `off`, `allow-list` or `on`.
    #[arg(value_parser = parse_network)]
    pub network: SandboxNetwork,
    /// The domains `allow-list` lets through (`crates.io`, `*.npmjs.org`).
    pub domains: Vec<String>,
    /// The workspace whose file is saved.
    #[arg(long, value_name = "DIR")]
    pub workspace: std::path::PathBuf,
}

#[derive(Debug, Args)]
pub struct RulesListArgs {
    /// Also this workspace's rules.
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<std::path::PathBuf>,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RuleEditArgs {
    /// Which list: allow, ask, deny (command patterns), write-allow,
    /// write-ask, write-deny (workspace-relative path globs) or mcp-allow,
    /// mcp-ask, mcp-deny (MCP tools).
    #[arg(value_enum)]
    pub list: RuleListArg,
    /// The pattern: `cargo test*`, `git status`; `src/**` for writes;
    /// `SERVER/TOOL` for MCP tools (`github/search_*`, `*/delete_*`). An
    /// mcp-allow rule is saved bound to that server's launch command as
    /// configured now (`@sha256:…` is appended): if the command changes,
    /// the rule stops applying.
    pub pattern: String,
    /// This workspace's rules instead of the user's.
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<std::path::PathBuf>,
    /// The rules after the change as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RuleListArg {
    Allow,
    Ask,
    Deny,
    WriteAllow,
    WriteAsk,
    WriteDeny,
    McpAllow,
    McpAsk,
    McpDeny,
}

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Compacts a recorded long session (built into the binary) under each
    /// policy (`base`, `layered`) with the model you name, asks it what the
    /// task was, which files changed, what failed and what comes next, and
    /// scores each answer by the facts the session planted. Makes 10 model
    /// requests (2 summaries, 8 probes); your sessions are not touched.
    Compaction(EvalArgs),
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The provider kind.
    #[arg(long, value_name = "KIND", value_parser = provider_kind())]
    pub provider: ProviderKind,

    /// The model id sent to the provider.
    #[arg(long, value_name = "MODEL")]
    pub model: String,

    /// The provider's base URL, version segment included (default: the
    /// kind's, or the config file's profile for it).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// The threshold the layered policy's eviction levels derive from
    /// (default: the model's).
    #[arg(long, value_name = "N|P%|left:N", value_parser = parse_threshold)]
    pub compact_threshold: Option<ThresholdSetting>,

    /// One JSON object (`CompactionEval`) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PinArgs {
    /// A session id, or a unique prefix of one.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// An item id, or a unique prefix of one.
    #[arg(value_name = "ITEM")]
    pub item: String,

    #[command(flatten)]
    pub agent: AgentFlags,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("point").required(true).args(["at", "before_compaction"])))]
pub struct ForkArgs {
    /// A session id, or a unique prefix of one.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// Fork right after this item (id or unique prefix).
    #[arg(long, value_name = "ITEM")]
    pub at: Option<String>,

    /// Fork just before compaction N (numbered as `strata compactions` shows).
    #[arg(long, value_name = "N")]
    pub before_compaction: Option<u32>,

    /// Return the files to that point too: `in-place` takes back, in the
    /// workspace, every recorded change made after it; `worktree` makes a
    /// new detached git worktree beside the repository and does it there.
    /// Refused (exit 5, nothing made) when a file changed outside Strata
    /// since.
    #[arg(long, value_name = "MODE")]
    pub with_files: Option<WithFilesArg>,

    /// With --with-files: show what the fork would do to the files (and
    /// what refuses it); make nothing.
    #[arg(long, requires = "with_files")]
    pub dry_run: bool,

    /// One JSON object with the new session's id.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WithFilesArg {
    InPlace,
    Worktree,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// What to ask.
    #[arg(short = 'p', long = "prompt", value_name = "PROMPT", value_parser = non_blank)]
    pub prompt: String,

    #[command(flatten)]
    pub agent: AgentFlags,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// A session id, or a unique prefix of one.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// What to ask.
    #[arg(short = 'p', long = "prompt", value_name = "PROMPT", value_parser = non_blank)]
    pub prompt: String,

    #[command(flatten)]
    pub agent: AgentFlags,
}

#[derive(Debug, Args)]
pub struct CompactArgs {
    /// A session id, or a unique prefix of one.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// Show what a compaction would evict, summarize and keep, the state
    /// sheet and estimated tokens, without calling a model or changing the
    /// session file.
    #[arg(long)]
    pub preview: bool,

    /// What the summary should stress.
    #[arg(long, value_name = "TEXT")]
    pub focus: Option<String>,

    /// Summarize only what comes before this item (id or unique prefix) and
    /// keep everything from it on verbatim.
    #[arg(long, value_name = "ITEM", conflicts_with_all = ["preview", "undo"])]
    pub up_to: Option<String>,

    /// Undo the latest compaction: restore the history before it plus
    /// everything since, if that fits under the threshold.
    #[arg(long, conflicts_with_all = ["preview", "focus"])]
    pub undo: bool,

    #[command(flatten)]
    pub agent: AgentFlags,
}

#[derive(Debug, Args)]
pub struct ChatArgs {
    /// Continue this session (id or unique prefix) instead of starting one.
    #[arg(long, value_name = "SESSION")]
    pub session: Option<String>,

    #[command(flatten)]
    pub agent: AgentFlags,
}

/// How a session talks to its model, where it works and when it compacts.
#[derive(Clone, Debug, Default, Args)]
pub struct AgentFlags {
    /// The provider kind (default: the config file's profile, else the
    /// environment's keys, else the offline demo model).
    #[arg(long, value_name = "KIND", value_parser = provider_kind())]
    pub provider: Option<ProviderKind>,

    /// The provider's base URL, version segment included
    /// (e.g. http://localhost:11434/v1).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// The model id sent to the provider.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,

    /// The folder the agent works in (default: the current folder; for a
    /// resumed session, its own).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<std::path::PathBuf>,

    /// Allow a workspace of `/` or your home folder itself, where the agent
    /// could read and change everything (refused without this flag).
    #[arg(long)]
    pub allow_broad_workspace: bool,

    /// Which tool calls run without asking: `ask` (writes and shell commands
    /// wait for you; refused when there is no terminal to ask on), `auto`
    /// (everything runs), `read-only` (writes and shell refused). Default:
    /// `ask` for a new session; a resumed one keeps the policy it recorded.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub approval: Option<ApprovalArg>,

    /// When to compact: a token count (`12000`), a share of the model's
    /// window (`80%`), or tokens left in it (`left:20000`) (default: the
    /// model's profile; a resumed session keeps the one it recorded).
    #[arg(long, value_name = "N|P%|left:N", value_parser = parse_threshold)]
    pub compact_threshold: Option<ThresholdSetting>,

    /// How the session manages its context: `layered` (evict old tool
    /// outputs first, then summarize with a state sheet; the default for
    /// new sessions), `base` (one summary at the threshold) or `off` (never
    /// compact automatically). A resumed session keeps its own unless given.
    #[arg(long, value_name = "POLICY", value_parser = parse_policy)]
    pub compaction: Option<CompactionPolicy>,

    /// How hard the model thinks: `off`, `low`, `medium`, `high` or `max`
    /// (OpenAI's effort, Anthropic's thinking budget; models that do not
    /// reason are sent nothing). Recorded in the session: a resumed one
    /// keeps its own unless given, a new one follows its profile's.
    #[arg(long, value_name = "LEVEL", value_parser = parse_reasoning)]
    pub reasoning: Option<ReasoningEffort>,

    /// How shell commands are confined (Linux: Landlock and a network
    /// namespace): `workspace-write` (writes only in the workspace and a
    /// temp folder, no network; the default), `read-only` (no writes in
    /// the workspace either) or `off` (commands run with your rights).
    /// Where the kernel cannot give the mode, every shell command asks
    /// first. Recorded in the session: a resume keeps it unless given.
    #[arg(long, value_name = "MODE", value_parser = parse_sandbox)]
    pub sandbox: Option<SandboxMode>,

    /// What sandboxed shell commands reach on the network: `off` (nothing,
    /// the default), `allow-list` (only `[tools] sandbox_allow_domains` and
    /// the workspace's `.strata/network.toml` domains, over HTTP and HTTPS
    /// through Strata's proxy) or `on`. Recorded in the session: a resumed
    /// one keeps its own choice and domains unless given.
    #[arg(long, value_name = "ACCESS", value_parser = parse_network)]
    pub network: Option<SandboxNetwork>,

    /// One JSON object per line: a session line, then every event.
    #[arg(long)]
    pub json: bool,
}

/// The provider kinds by their one name (strata-protocol's).
fn provider_kind() -> impl clap::builder::TypedValueParser<Value = ProviderKind> {
    clap::builder::PossibleValuesParser::new(ProviderKind::ALL.map(ProviderKind::as_str))
        .try_map(|name| name.parse::<ProviderKind>())
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ApprovalArg {
    #[default]
    Ask,
    Auto,
    ReadOnly,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("point").required(true).args(["before_turn", "before_item"])))]
pub struct RestoreArgs {
    /// A session id, or a unique prefix of one.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// Before this turn (1 is the session's first).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub before_turn: Option<u32>,

    /// Before this item (an id or unique prefix, as `strata sessions show
    /// --json` lists them), tool call id, or restore id.
    #[arg(long, value_name = "ID")]
    pub before_item: Option<String>,

    /// Show what would be restored (and what refuses it); change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SessionJsonArgs {
    /// A session id, or a unique prefix of one.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// A session id, or a unique prefix of one.
    #[arg(value_name = "SESSION")]
    pub session: String,

    /// `md`: a readable Markdown transcript; `json`: the session's records,
    /// one per line.
    #[arg(long, value_enum, default_value_t = ExportFormat::Md)]
    pub format: ExportFormat,

    /// Write to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Md,
    Json,
}

/// A prompt must say something.
fn non_blank(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("the prompt is empty".to_owned())
    } else {
        Ok(text.to_owned())
    }
}

fn parse_threshold(text: &str) -> Result<ThresholdSetting, String> {
    text.parse()
}

fn parse_reasoning(text: &str) -> Result<ReasoningEffort, String> {
    text.parse()
        .map_err(|error: strata_protocol::UnknownReasoningEffort| error.to_string())
}

fn parse_sandbox(text: &str) -> Result<SandboxMode, String> {
    SandboxMode::parse(text)
        .ok_or_else(|| format!("{text:?} is not a sandbox mode (workspace-write, read-only, off)"))
}

fn parse_network(text: &str) -> Result<SandboxNetwork, String> {
    SandboxNetwork::parse(text)
        .ok_or_else(|| format!("{text:?} is not a network choice (off, allow-list, on)"))
}

fn parse_policy(text: &str) -> Result<CompactionPolicy, String> {
    text.parse()
}
