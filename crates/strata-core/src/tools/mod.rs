//! The built-in tools, confined to one workspace folder, and their approvals.
//!
//! A call goes through two steps so an approval can sit between them:
//!
//! ```text
//! let call = tools.prepare(&fc.name, &fc.arguments)?;      // Err: tools.error_outcome(&e)
//! match approvals.check(&call, &fc.call_id) {
//!     ApprovalCheck::Run => {}
//!     ApprovalCheck::Ask(request) => /* show it, then */ approvals.resolve(&call, decision)?,
//!     ApprovalCheck::Refuse(e) => /* output: */ tools.error_outcome(&e),
//! }
//! let outcome = tools.execute(&call, &cancel).await;     // never fails: errors are outputs
//! ```
//!
//! Everything that leaves this module as text ([`ToolOutcome`], approval
//! requests) has the configured secrets redacted and, for outcomes, is capped
//! by [`OutputCap`] with the full text kept beside it.

mod allowances;
mod approval;
mod args;
mod attach;
pub(crate) mod beneath;
mod edit;
mod error;
mod external;
mod fs;
mod output;
pub(crate) mod own_folder;
pub mod rules;
mod search;
pub(crate) mod secrets;
mod shell;
mod tracked;
pub(crate) mod workspace;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use strata_protocol::{ApprovalKind, ApprovalPolicy, ApprovalRequest, ToolCallStatus, ToolSpec};

pub use allowances::{SessionAllowance, session_allowances};
pub use approval::{ApprovalCheck, Checked, SessionApprovals};
pub use attach::Attachment;
pub use beneath::OpenStrategy;
pub use error::{ToolError, ToolResult};
pub use external::{
    AnyCall, EXTERNAL_PREFIX, ExternalOutput, ExternalTool, ExternalTools, PreparedExternal,
    ToolHints,
};
pub use output::OutputCap;
pub use secrets::is_secret_path;
pub use shell::{
    ExitSignals, SANDBOX_EXEC_VAR, SHELL_ENV_ALLOWED, ShellSandbox, also_on_exit_signal,
    end_all_children, end_all_commands, end_commands_on_signals, sandbox_unavailable_here,
};
pub use strata_protocol::tool_names::{
    self, APPLY_EDIT, LIST_DIRECTORY, READ_FILE, RUN_SHELL, SEARCH_TEXT, WRITE_FILE,
};
pub use strata_sandbox::{AllowList, FORCE_UNSUPPORTED_VAR, SandboxMode};
pub use tokio_util::sync::CancellationToken;
pub use tracked::WriteTarget;
pub(crate) use workspace::read_agents_head;
pub use workspace::resolve_beneath;

use crate::error::{CoreError, Result};
use args::{
    ApplyEditArgs, ListDirectoryArgs, ReadFileArgs, RunShellArgs, SearchTextArgs, WriteFileArgs,
};
use output::Redactor;
use secrets::SecretGuard;
use workspace::Workspace;

/// What a tool does, which decides whether it needs approval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// Looks only: never needs approval.
    Read,
    /// Changes files.
    Write,
    /// Runs a command.
    Shell,
}

#[derive(Clone, Debug)]
pub struct ToolConfig {
    /// Caps every output entering the history.
    pub output_cap: OutputCap,
    /// `run_shell` timeout when the model gives none.
    pub shell_default_timeout: Duration,
    /// The longest `timeout_ms` the model may ask for; longer is clamped.
    pub shell_max_timeout: Duration,
    /// Shell output kept, even in full: beyond this, the first and the last
    /// half are kept and the middle is counted but not kept.
    pub shell_capture_bytes: usize,
    /// `search_text` stops after this many matches.
    pub search_max_matches: usize,
    /// Values (API keys) replaced by `[redacted]` wherever they appear.
    pub secrets: Vec<String>,
    /// Files and folders no tool may read or write, whatever is allowed:
    /// Strata's own config, keys, sessions and logs (by default, where
    /// [`crate::StrataPaths::from_env`] puts them) plus any key file a
    /// front end adds.
    pub protected_paths: Vec<PathBuf>,
    /// Secret-looking files (`.env`, SSH keys, cloud credentials; see
    /// [`is_secret_path`]) the person lets the tools touch: workspace-relative
    /// paths, a folder allowing what is in it.
    pub allowed_secret_files: Vec<String>,
    /// The person confirmed a workspace of `/` or their home folder.
    pub allow_broad_workspace: bool,
    /// How paths are opened beneath the workspace: the kernel's `openat2`
    /// (falling back by itself where missing) or the portable walk, which
    /// tests force to prove it as strict.
    pub open_strategy: OpenStrategy,
    /// Environment variables `run_shell` commands get besides
    /// [`SHELL_ENV_ALLOWED`] and `LC_*`: names the person chose to pass.
    pub shell_env: Vec<String>,
    /// How `run_shell` commands are confined.
    pub sandbox: ShellSandbox,
}

impl Default for ToolConfig {
    fn default() -> Self {
        Self {
            output_cap: OutputCap::default(),
            shell_default_timeout: Duration::from_secs(60),
            shell_max_timeout: Duration::from_secs(10 * 60),
            shell_capture_bytes: 4 * 1024 * 1024,
            search_max_matches: 200,
            secrets: Vec::new(),
            protected_paths: crate::StrataPaths::from_env()
                .map(|paths| vec![paths.config, paths.sessions, paths.logs])
                .unwrap_or_default(),
            allowed_secret_files: Vec::new(),
            allow_broad_workspace: false,
            open_strategy: OpenStrategy::Kernel,
            shell_env: Vec::new(),
            sandbox: ShellSandbox::default(),
        }
    }
}

/// What the tool called `name` does, if it is one of ours: lets a policy
/// refuse a call before anything about it is prepared.
pub fn tool_kind(name: &str) -> Option<(&'static str, ToolKind)> {
    let kind = match name {
        LIST_DIRECTORY => (LIST_DIRECTORY, ToolKind::Read),
        READ_FILE => (READ_FILE, ToolKind::Read),
        SEARCH_TEXT => (SEARCH_TEXT, ToolKind::Read),
        WRITE_FILE => (WRITE_FILE, ToolKind::Write),
        APPLY_EDIT => (APPLY_EDIT, ToolKind::Write),
        RUN_SHELL => (RUN_SHELL, ToolKind::Shell),
        _ => return None,
    };
    Some(kind)
}

/// How a tool call ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOutcome {
    /// What enters the history: redacted and capped.
    pub output: String,
    /// The whole redacted text when `output` was capped, for a
    /// `full_tool_output` record.
    pub full_output: Option<String>,
    pub status: ToolCallStatus,
    /// `run_shell`'s exit code, when the command exited by itself.
    pub exit_code: Option<i32>,
    pub duration: Duration,
}

/// A validated call, ready to be approved and executed.
#[derive(Clone, Debug)]
pub struct PreparedCall {
    name: &'static str,
    action: Action,
}

/// What approval rules judge about a call.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RuleSubject<'a> {
    Command(&'a str),
    Write(&'a str),
}

#[derive(Clone, Debug)]
enum Action {
    List(workspace::Resolved),
    Read(fs::ReadPlan),
    Search(search::SearchPlan),
    Write(edit::WritePlan),
    Edit(edit::EditPlan),
    Shell {
        plan: shell::ShellPlan,
        /// The command as approvals and denials show it: redacted.
        shown: String,
        cwd: PathBuf,
        /// Why the configured sandbox cannot confine it, when it cannot:
        /// then it waits for the person whatever the policy.
        sandbox_unavailable: Option<String>,
    },
}

impl Action {
    fn tool_name(&self) -> &'static str {
        match self {
            Action::List(_) => LIST_DIRECTORY,
            Action::Read(_) => READ_FILE,
            Action::Search(_) => SEARCH_TEXT,
            Action::Write(_) => WRITE_FILE,
            Action::Edit(_) => APPLY_EDIT,
            Action::Shell { .. } => RUN_SHELL,
        }
    }
}

impl PreparedCall {
    pub fn name(&self) -> &'static str {
        self.name
    }

    pub fn kind(&self) -> ToolKind {
        match self.action {
            Action::List(_) | Action::Read(_) | Action::Search(_) => ToolKind::Read,
            Action::Write(_) | Action::Edit(_) => ToolKind::Write,
            Action::Shell { .. } => ToolKind::Shell,
        }
    }

    /// Whether `policy` makes this call wait for the person (before any
    /// allow-for-session memory, which [`SessionApprovals`] adds). Under
    /// `read-only` writes and shell are refused, not asked: see
    /// [`SessionApprovals::check`].
    /// A shell command whose sandbox cannot be had waits under `auto` too.
    pub fn needs_approval(&self, policy: ApprovalPolicy) -> bool {
        let unconfined = self.sandbox_unavailable().is_some();
        self.kind() != ToolKind::Read
            && match policy {
                ApprovalPolicy::Ask => true,
                ApprovalPolicy::Auto => unconfined,
                ApprovalPolicy::ReadOnly => false,
            }
    }

    /// Why this call cannot be sandboxed as configured, if it cannot: the
    /// approvals then ask for it every time, under `auto` too.
    pub fn sandbox_unavailable(&self) -> Option<&str> {
        match &self.action {
            Action::Shell {
                sandbox_unavailable,
                ..
            } => sandbox_unavailable.as_deref(),
            Action::List(_)
            | Action::Read(_)
            | Action::Search(_)
            | Action::Write(_)
            | Action::Edit(_) => None,
        }
    }

    /// What an approval would show; `None` for reads.
    pub fn approval_request(&self, call_id: &str) -> Option<ApprovalRequest> {
        let kind = match &self.action {
            Action::Write(plan) => ApprovalKind::Write {
                path: plan.path.display.clone(),
                diff: plan.diff.clone(),
            },
            Action::Edit(plan) => ApprovalKind::Write {
                path: plan.path.display.clone(),
                diff: plan.diff.clone(),
            },
            Action::Shell { shown, cwd, .. } => ApprovalKind::Shell {
                command: shown.clone(),
                cwd: cwd.to_string_lossy().into_owned(),
            },
            Action::List(_) | Action::Read(_) | Action::Search(_) => return None,
        };
        Some(ApprovalRequest {
            call_id: call_id.to_owned(),
            tool: self.name.to_owned(),
            kind,
            proposed_rules: self.proposed_rules().unwrap_or_default(),
        })
    }

    /// What approval rules judge: the command that runs (not the redacted
    /// one shown), or the workspace-relative path a write changes.
    pub(crate) fn rule_subject(&self) -> Option<RuleSubject<'_>> {
        match &self.action {
            Action::Shell { plan, .. } => Some(RuleSubject::Command(&plan.command)),
            Action::Write(plan) => Some(RuleSubject::Write(&plan.path.display)),
            Action::Edit(plan) => Some(RuleSubject::Write(&plan.path.display)),
            Action::List(_) | Action::Read(_) | Action::Search(_) => None,
        }
    }

    /// The rules "always allow" would add for this shell command; `None`
    /// for other calls and for a command without a safe proposal. An exact
    /// proposal of a command whose shown form was redacted is withheld:
    /// it would carry the secret into a rules file.
    pub fn proposed_rules(&self) -> Option<Vec<String>> {
        let Action::Shell { plan, shown, .. } = &self.action else {
            return None;
        };
        let rules = rules::propose_rules(&plan.command)?;
        let redacted = *shown != plan.command;
        (!redacted || rules.iter().all(|rule| rule.ends_with('*'))).then_some(rules)
    }

    /// What a denial refers to, e.g. "write to src/a.rs".
    pub(crate) fn denial_subject(&self) -> String {
        match &self.action {
            Action::Write(plan) => format!("write to {}", plan.path.display),
            Action::Edit(plan) => format!("edit of {}", plan.path.display),
            Action::Shell { shown, .. } => format!("command ({shown})"),
            Action::List(path) => format!("listing of {}", path.display),
            Action::Read(plan) => format!("read of {}", plan.path.display),
            Action::Search(plan) => format!("search in {}", plan.path.display),
        }
    }
}

fn settle_confinement(config: &ToolConfig, workspace: &Workspace) -> shell::Confinement {
    let confinement =
        shell::Confinement::settle(&config.sandbox, workspace.root(), &config.protected_paths);
    if let Some(reason) = confinement.unavailable() {
        tracing::warn!(%reason, "every shell command will wait for approval");
    }
    confinement
}

/// The tools of one workspace folder. Immutable and shareable; approvals
/// live in [`SessionApprovals`].
#[derive(Clone, Debug)]
pub struct ToolRegistry {
    workspace: Workspace,
    config: ToolConfig,
    redactor: Redactor,
    confinement: shell::Confinement,
    /// Tools from outside the core (MCP servers), when the front end has any.
    external: Option<external::External>,
}

impl ToolRegistry {
    /// Tools confined to `workspace`, which must be an existing folder, and
    /// not `/` or the home folder unless `config.allow_broad_workspace`.
    pub fn new(workspace: impl AsRef<Path>, config: ToolConfig) -> Result<Self> {
        let path = workspace.as_ref();
        crate::paths::check_workspace_breadth(
            path,
            dirs::home_dir().as_deref(),
            config.allow_broad_workspace,
        )?;
        let guard = SecretGuard::new(&config.protected_paths, &config.allowed_secret_files);
        let workspace = Workspace::open(path, guard)
            .map_err(CoreError::io("open the workspace", path))?
            .with_strategy(config.open_strategy);
        let redactor = Redactor::new(config.secrets.iter().cloned());
        let confinement = settle_confinement(&config, &workspace);
        Ok(Self {
            workspace,
            config,
            redactor,
            confinement,
            external: None,
        })
    }

    /// The same tools, their commands confined by `set` (mode, network and
    /// allowed domains) from now on.
    pub fn with_sandbox(&self, set: &strata_protocol::SandboxSet) -> Self {
        let mut config = self.config.clone();
        config.sandbox.mode = set.mode;
        config.sandbox.network = set.network;
        config.sandbox.allow_domains = set.allow_domains.clone();
        let confinement = settle_confinement(&config, &self.workspace);
        Self {
            config,
            confinement,
            ..self.clone()
        }
    }

    /// The canonical workspace folder.
    pub fn workspace(&self) -> &Path {
        self.workspace.root()
    }

    pub fn config(&self) -> &ToolConfig {
        &self.config
    }

    /// Why shell commands cannot be sandboxed as configured, if they
    /// cannot (for the front end to say once).
    pub fn sandbox_unavailable(&self) -> Option<String> {
        self.confinement.unavailable()
    }

    /// Every tool's name, description and argument schema.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        args::specs(
            ms(self.config.shell_max_timeout),
            ms(self.config.shell_default_timeout),
            self.confinement.shell_rights(),
        )
    }

    /// The system prompt's words for what shell commands can reach.
    pub fn shell_reach(&self) -> &'static str {
        self.confinement.shell_reach()
    }

    /// Parses and checks a call, resolves its paths inside the workspace and
    /// computes what an approval would show (diffs are redacted).
    pub fn prepare(&self, name: &str, arguments: &str) -> ToolResult<PreparedCall> {
        let action = match name {
            LIST_DIRECTORY => {
                let a: ListDirectoryArgs = args::parse(LIST_DIRECTORY, arguments)?;
                Action::List(self.workspace.resolve(a.path.as_deref().unwrap_or("."))?)
            }
            READ_FILE => {
                let a: ReadFileArgs = args::parse(READ_FILE, arguments)?;
                fs::validate_range(a.start_line, a.end_line).map_err(|message| {
                    ToolError::InvalidArguments {
                        tool: READ_FILE,
                        message,
                    }
                })?;
                Action::Read(fs::ReadPlan {
                    path: self.workspace.resolve(&a.path)?,
                    start_line: a.start_line,
                    end_line: a.end_line,
                })
            }
            SEARCH_TEXT => {
                let a: SearchTextArgs = args::parse(SEARCH_TEXT, arguments)?;
                Action::Search(search::SearchPlan {
                    regex: search::compile(&a.pattern)?,
                    path: self.workspace.resolve(a.path.as_deref().unwrap_or("."))?,
                })
            }
            WRITE_FILE => {
                let a: WriteFileArgs = args::parse(WRITE_FILE, arguments)?;
                let mut plan = edit::prepare_write(&self.workspace, &a.path, a.content)?;
                plan.diff = self.redactor.redact(&plan.diff);
                Action::Write(plan)
            }
            APPLY_EDIT => {
                let a: ApplyEditArgs = args::parse(APPLY_EDIT, arguments)?;
                let mut plan =
                    edit::prepare_edit(&self.workspace, &a.path, a.old_text, a.new_text)?;
                plan.diff = self.redactor.redact(&plan.diff);
                Action::Edit(plan)
            }
            RUN_SHELL => {
                let a: RunShellArgs = args::parse(RUN_SHELL, arguments)?;
                if a.command.trim().is_empty() {
                    return Err(ToolError::InvalidArguments {
                        tool: RUN_SHELL,
                        message: "command is empty".into(),
                    });
                }
                let timeout = a
                    .timeout_ms
                    .map_or(self.config.shell_default_timeout, |ms| {
                        Duration::from_millis(ms.max(1)).min(self.config.shell_max_timeout)
                    });
                Action::Shell {
                    shown: self.redactor.redact(&a.command),
                    plan: shell::ShellPlan {
                        command: a.command,
                        timeout,
                    },
                    cwd: self.workspace.root().to_owned(),
                    sandbox_unavailable: self.confinement.unavailable(),
                }
            }
            unknown => {
                return Err(ToolError::UnknownTool {
                    name: unknown.to_owned(),
                    available: tool_names::ALL.join(", "),
                });
            }
        };
        Ok(PreparedCall {
            name: action.tool_name(),
            action,
        })
    }

    /// Runs a prepared (and, if needed, approved) call. Failures are outputs
    /// with an error status, never `Err`: the model reads them. Needs a
    /// Tokio runtime with IO and time enabled (for the shell's child process).
    pub async fn execute(&self, call: &PreparedCall, cancel: &CancellationToken) -> ToolOutcome {
        let started = Instant::now();
        if cancel.is_cancelled() {
            return self.finish(
                format!("The {} call was cancelled before it ran.", call.name),
                ToolCallStatus::Cancelled,
                None,
                started,
            );
        }
        let cancelled = || format!("The {} call was cancelled.", call.name);
        let result = match &call.action {
            Action::List(path) => fs::list_directory(&self.workspace, path),
            Action::Read(plan) => fs::read_file(&self.workspace, plan, self.read_limits()),
            // Writes are quick and must not be abandoned half way: no
            // cancellation once started.
            Action::Write(plan) => edit::execute_write(&self.workspace, plan),
            Action::Edit(plan) => edit::execute_edit(&self.workspace, plan),
            Action::Search(plan) => {
                // A big tree takes a while: off the async threads, stopping
                // between files on cancellation.
                let display = plan.path.display.clone();
                let (plan, workspace) = (plan.clone(), self.workspace.clone());
                let (max, token) = (self.config.search_max_matches, cancel.clone());
                let joined = tokio::task::spawn_blocking(move || {
                    search::search(&plan, &workspace, max, &token)
                })
                .await;
                match joined {
                    Ok(Ok(Some(text))) => Ok(text),
                    Ok(Ok(None)) => {
                        return self.finish(cancelled(), ToolCallStatus::Cancelled, None, started);
                    }
                    Ok(Err(error)) => Err(error),
                    Err(join) => Err(ToolError::Io {
                        action: "could not search",
                        path: display,
                        message: join.to_string(),
                    }),
                }
            }
            Action::Shell { plan, cwd, .. } => {
                let (limit, env) = (self.config.shell_capture_bytes, &self.config.shell_env);
                let confinement = &self.confinement;
                match shell::run(plan, confinement, cwd, env, limit, &self.redactor, cancel).await {
                    Ok(run) => return self.finish(run.text, run.status, run.exit_code, started),
                    Err(error) => Err(error),
                }
            }
        };
        match result {
            Ok(text) => self.finish(text, ToolCallStatus::Success, None, started),
            Err(error) => self.finish(error.to_string(), error.status(), None, started),
        }
    }

    /// The output for a call that did not run: invalid, refused or denied.
    pub fn error_outcome(&self, error: &ToolError) -> ToolOutcome {
        self.finish(error.to_string(), error.status(), None, Instant::now())
    }

    fn finish(
        &self,
        text: String,
        status: ToolCallStatus,
        exit_code: Option<i32>,
        started: Instant,
    ) -> ToolOutcome {
        // Redacted before the cap cuts it, so no cut can split a secret.
        let (output, full_output) = self.config.output_cap.apply(self.redactor.redact(&text));
        ToolOutcome {
            output,
            full_output,
            status,
            exit_code,
            duration: started.elapsed(),
        }
    }

    fn read_limits(&self) -> fs::ReadLimits {
        // Leave room for the "read on" note so the history cap never cuts a read.
        let cap = self.config.output_cap;
        fs::ReadLimits {
            max_bytes: cap.max_bytes.saturating_sub(200).max(1),
            max_lines: cap.max_lines.saturating_sub(1).max(1),
        }
    }
}
