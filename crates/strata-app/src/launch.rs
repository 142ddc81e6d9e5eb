//! Agent construction, the one way both front ends build an agent: the
//! provider profile (see [`crate::profile`]), its gateway, the workspace's
//! tools, the approval policy, and the session, new or resumed.

use std::path::{Path, PathBuf};

use strata_core::agent::{Agent, ApprovalBroker, EventReceiver};
use strata_core::tools::SandboxMode;
use strata_core::tools::rules::{RuleSet, load_workspace_network, load_workspace_rules};
use strata_core::{
    CoreError, SessionApprovals, SessionStore, StrataPaths, ToolConfig, ToolRegistry,
};
use strata_protocol::{
    ApprovalPolicy, CONTRACT_FORMAT_VERSION, CompactionPolicy, OutputKind, ProfileChange,
    ProfileSet, ProviderKind, ReasoningEffort, RuleSource, SandboxNetwork, SandboxSet, SessionId,
    SessionStarted, ThresholdSetting,
};
use strata_providers::config::{EnvLookup, load_and_resolve};
use strata_providers::{
    ProfileFlags, ProviderProfile, ResolvedProfile, agent_parts, estimator_for, tool_config,
};

use crate::catalog::WritingNote;
use crate::error::{AppError, AppResult, invalid_input};
use crate::mcp::{McpConfigProblem, McpServers};
use crate::profile::{self, profile_set};

/// How to build an agent.
#[derive(Clone, Debug)]
pub struct LaunchOptions {
    /// Profile flags a person gave explicitly. Starting: they pick the
    /// profile (none: the active one). Resuming: they switch the session
    /// to another (none: back to the recorded one).
    pub profile: ProfileFlags,
    /// Resuming: a folder other than the session's own.
    pub workspace: Option<PathBuf>,
    /// The approval policy; `None` keeps a resumed session's recorded one
    /// (a new session, and one from before policies were recorded, `ask`).
    pub policy: Option<ApprovalPolicy>,
    /// Whether approvals wait for an answer (a person is there to give
    /// one) or are refused at once.
    pub interactive: bool,
    /// Overrides the profile's compaction threshold (a percentage of the
    /// window, tokens, or tokens left).
    pub compact_threshold: Option<ThresholdSetting>,
    /// The compaction policy; `None` keeps a resumed session's recorded
    /// one (a new session gets the default).
    pub compaction: Option<CompactionPolicy>,
    /// The session's reasoning setting from now on (recorded when it
    /// changes); `None` keeps a resumed session's own, and a session that
    /// never set one follows its profile's.
    pub reasoning: Option<ReasoningEffort>,
    /// Lets the tools work in a folder as broad as the home folder or `/`
    /// (refused by default).
    pub allow_broad_workspace: bool,
    /// How `run_shell` commands are confined from now on (recorded when it
    /// changes); `None` keeps a resumed session's recorded mode, and a
    /// session that recorded none gets the config's `[tools] sandbox`
    /// (`workspace-write` when absent; where the kernel cannot have it,
    /// every command asks first, never runs unconfined silently).
    pub sandbox: Option<SandboxMode>,
    /// What sandboxed commands reach from now on (recorded when it
    /// changes); `None` keeps a resumed session's recorded choice, else the
    /// workspace's `.strata/network.toml` (when it may apply), else the
    /// config's `[tools] sandbox_network` (off when absent).
    pub network: Option<SandboxNetwork>,
}

impl LaunchOptions {
    pub fn new(policy: Option<ApprovalPolicy>, interactive: bool) -> Self {
        Self {
            profile: ProfileFlags::default(),
            workspace: None,
            policy,
            interactive,
            compact_threshold: None,
            compaction: None,
            reasoning: None,
            allow_broad_workspace: false,
            sandbox: None,
            network: None,
        }
    }
}

/// An agent ready to run, with where its events arrive.
pub struct Launched {
    pub agent: Agent,
    pub events: EventReceiver,
    /// Marks the session open for writing in the library's index; keep it
    /// as long as the agent (declared after it, so it drops after it).
    pub note: WritingNote,
    pub profile: ProviderProfile,
    pub policy: ApprovalPolicy,
    pub resumed: bool,
    /// The switch recorded at this resume, if the person chose another
    /// profile.
    pub switched: Option<ProfileSet>,
    /// The session predates `profile_set` records and resumed on its
    /// `session_meta`'s kind and model.
    pub legacy: bool,
    /// The MCP servers this run starts (in the background; none when the
    /// config has no enabled one).
    pub mcp: Option<McpServers>,
    /// `[mcp_servers]` tables that could not be read: each names its server.
    pub mcp_problems: Vec<McpConfigProblem>,
}

impl Launched {
    /// The first line of the command line's `--json` output.
    pub fn started_line(&self) -> SessionStarted {
        let record = profile_set(&self.profile, ProfileChange::Created);
        SessionStarted {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::SessionStarted,
            session_id: self.agent.id(),
            resumed: self.resumed,
            workspace: self.agent.workspace().display().to_string(),
            provider_kind: self.profile.kind,
            model: self.profile.model.clone(),
            model_label: self.profile.model_label.clone(),
            base_url: record.base_url,
            profile: record.profile,
            switched: self.switched.clone(),
            legacy_profile: self.legacy,
            approval: self.policy,
            compact_threshold: self.agent.threshold(),
            path: self.agent.session().path().display().to_string(),
        }
    }

    /// What a person reads after the session id: model, endpoint,
    /// workspace, policy and threshold.
    pub fn details(&self) -> String {
        let at = self
            .profile
            .base_url
            .as_deref()
            .map(|url| format!(" at {}", strata_protocol::endpoint_without_secrets(url)))
            .unwrap_or_default();
        // The sandbox beside the policy, always: together they say what a
        // command may do without asking.
        let sandbox = match self.agent.sandbox() {
            (strata_core::tools::SandboxMode::Off, None) => " · sandbox off".to_owned(),
            (mode, None) => format!(
                " · sandbox {mode}, network {}",
                self.agent.sandbox_settings().network
            ),
            (_, Some(reason)) => {
                format!(" · {reason}: every shell command asks first")
            }
        };
        format!(
            "{} ({}){at} · {} · approval {}{sandbox} · compacts at {} tokens",
            self.profile.model_label,
            self.profile.kind.as_str(),
            self.agent.workspace().display(),
            self.policy.as_str(),
            self.agent.threshold(),
        )
    }
}

/// The sandbox a session's commands run in: the flag's, else the mode the
/// session recorded, else the config's, else [`SandboxMode::default`]
/// (`workspace-write`). `off` is only ever chosen, never a fallback.
pub fn sandbox_mode(
    flag: Option<SandboxMode>,
    recorded: Option<SandboxMode>,
    configured: Option<SandboxMode>,
) -> SandboxMode {
    flag.or(recorded).or(configured).unwrap_or_default()
}

/// The network a session's sandboxed commands get and the domains an
/// allow-list lets through: the flag's, else the session's recorded
/// choice (with its recorded domains), else the workspace file's (where it
/// may apply), else the config's, else off. A fresh choice lists the
/// workspace's domains and the config's.
pub fn sandbox_network(
    flag: Option<SandboxNetwork>,
    recorded: Option<&SandboxSet>,
    workspace: Option<&(SandboxNetwork, Vec<String>)>,
    configured: (Option<SandboxNetwork>, &[String]),
) -> (SandboxNetwork, Vec<String>) {
    let fresh = || {
        let mut domains: Vec<String> = workspace
            .map(|(_, listed)| listed.clone())
            .unwrap_or_default();
        for domain in configured.1 {
            if !domains.contains(domain) {
                domains.push(domain.clone());
            }
        }
        domains
    };
    if let Some(network) = flag {
        return (network, fresh());
    }
    if let Some(set) = recorded {
        return (set.network, set.allow_domains.clone());
    }
    let network = workspace
        .map(|(network, _)| *network)
        .or(configured.0)
        .unwrap_or(SandboxNetwork::Off);
    (network, fresh())
}

/// The session's whole sandbox: the mode settled by [`sandbox_mode`] and
/// the network by [`sandbox_network`], the workspace's network file read
/// (its wider choices only where Strata saved it).
fn settle_sandbox(
    mode: SandboxMode,
    options: &LaunchOptions,
    recorded: Option<&SandboxSet>,
    resolved: &ResolvedProfile,
    paths: &StrataPaths,
    workspace: &Path,
) -> AppResult<SandboxSet> {
    let loaded = load_workspace_network(workspace, &paths.config)?;
    if let Some(ignored) = loaded.untrusted {
        tracing::warn!(
            workspace = %workspace.display(),
            network = %ignored,
            "the workspace's network file changed outside Strata and is not applied"
        );
    }
    let (network, allow_domains) = sandbox_network(
        options.network,
        recorded,
        loaded.applies.as_ref(),
        (resolved.sandbox_network, &resolved.sandbox_allow_domains),
    );
    Ok(SandboxSet {
        mode,
        network,
        allow_domains,
    })
}

/// A new session in `workspace`, its profile and sandbox recorded.
pub fn start(
    store: &SessionStore,
    paths: &StrataPaths,
    env: EnvLookup<'_>,
    workspace: &Path,
    options: &LaunchOptions,
) -> AppResult<Launched> {
    let (config, resolved) = load_and_resolve(paths, &options.profile, env)?;
    let policy = options.policy.unwrap_or_default();
    let mode = sandbox_mode(options.sandbox, None, resolved.sandbox);
    let sandbox = settle_sandbox(mode, options, None, &resolved, paths, workspace)?;
    let mcp = McpRun::read(&config.mcp_servers, resolved.profile.kind, &paths.logs);
    let settled = Settled {
        policy,
        sandbox: sandbox.clone(),
        mcp: &mcp,
    };
    let (mut parts, events) = parts(&resolved, paths, env, workspace, options, settled)?;
    // A new session: the flag's policy, else the config file's default.
    parts.config.compaction = options.compaction.or(config.compaction_policy);
    let mut agent = Agent::start(store, parts)?.with_estimator(estimator_for(
        resolved.profile.kind,
        &resolved.profile.model,
    ));
    agent.record_profile(ProfileSet {
        approval: Some(policy),
        ..profile_set(&resolved.profile, ProfileChange::Created)
    })?;
    if let Some(effort) = options.reasoning {
        agent.set_reasoning(effort)?;
    }
    agent.set_sandbox(sandbox)?;
    tracing::info!(session = %agent.id(), workspace = %workspace.display(), "session created");
    let note = WritingNote::new(paths, agent.id());
    Ok(Launched {
        agent,
        events,
        note,
        profile: resolved.profile,
        policy,
        resumed: false,
        switched: None,
        legacy: false,
        mcp: mcp.servers,
        mcp_problems: mcp.problems,
    })
}

/// The session `id`, opened for writing, on its recorded profile unless
/// `options.profile` switches it (the switch is recorded), in its own
/// workspace unless `options.workspace` moves it.
pub fn resume(
    store: &SessionStore,
    paths: &StrataPaths,
    env: EnvLookup<'_>,
    id: SessionId,
    options: &LaunchOptions,
) -> AppResult<Launched> {
    let session = store.open_writer(id)?;
    log_recovery(&session);
    let meta = session.meta().clone();
    let chosen = profile::for_resume(
        paths,
        env,
        &meta,
        session.state().profile(),
        &options.profile,
    )?;
    let workspace = options
        .workspace
        .clone()
        .unwrap_or_else(|| PathBuf::from(&meta.workspace));
    // The flag's policy for this run, else the one the session recorded.
    let recorded_policy = session.state().profile().and_then(|set| set.approval);
    let policy = options.policy.or(recorded_policy).unwrap_or_default();
    let mode = sandbox_mode(
        options.sandbox,
        session.state().sandbox(),
        chosen.resolved.sandbox,
    );
    let sandbox = settle_sandbox(
        mode,
        options,
        session.state().sandbox_set(),
        &chosen.resolved,
        paths,
        &workspace,
    )?;
    let config = strata_providers::StrataConfig::load(&paths.config_file())?;
    let mcp = McpRun::read(
        &config.mcp_servers,
        chosen.resolved.profile.kind,
        &paths.logs,
    );
    let settled = Settled {
        policy,
        sandbox: sandbox.clone(),
        mcp: &mcp,
    };
    let (parts, events) = parts(&chosen.resolved, paths, env, &workspace, options, settled)?;
    let profile = &chosen.resolved.profile;
    let mut agent =
        Agent::resume(session, parts)?.with_estimator(estimator_for(profile.kind, &profile.model));
    // A switch carries the session's own policy on: a flag given to one
    // resume applies to that run only.
    let switched = chosen.switched.map(|switch| ProfileSet {
        approval: recorded_policy,
        ..switch
    });
    if let Some(switch) = &switched {
        agent.record_profile(switch.clone())?;
        tracing::info!(session = %id, kind = %switch.provider_kind, model = %switch.model, "session switched to another profile");
    }
    if let Some(effort) = options.reasoning {
        agent.set_reasoning(effort)?;
    }
    agent.set_sandbox(sandbox)?;
    tracing::info!(session = %id, legacy = chosen.legacy, "session resumed");
    Ok(Launched {
        agent,
        events,
        note: WritingNote::new(paths, id),
        profile: chosen.resolved.profile,
        policy,
        resumed: true,
        switched,
        legacy: chosen.legacy,
        mcp: mcp.servers,
        mcp_problems: mcp.problems,
    })
}

/// What `start` or `resume` settled for this run before its tools exist.
struct Settled<'a> {
    policy: ApprovalPolicy,
    sandbox: SandboxSet,
    mcp: &'a McpRun,
}

fn parts(
    resolved: &ResolvedProfile,
    paths: &StrataPaths,
    env: EnvLookup<'_>,
    workspace: &Path,
    options: &LaunchOptions,
    settled: Settled<'_>,
) -> AppResult<(strata_core::agent::AgentParts, EventReceiver)> {
    let Settled {
        policy,
        sandbox,
        mcp,
    } = settled;
    let mut config = ToolConfig {
        allow_broad_workspace: options.allow_broad_workspace,
        ..tool_config(resolved, env)
    };
    config.sandbox.mode = sandbox.mode;
    config.sandbox.network = sandbox.network;
    config.sandbox.allow_domains = sandbox.allow_domains;
    // The agent never edits the rules that judge it.
    // Absolute and real, as the file tools compare what they open with it.
    let real = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_owned());
    config
        .protected_paths
        .push(real.join(strata_core::tools::rules::WORKSPACE_RULES_FILE));
    config
        .protected_paths
        .push(real.join(strata_core::tools::rules::WORKSPACE_NETWORK_FILE));
    let rules = session_rules(resolved, paths, workspace)?;
    let tools = ToolRegistry::new(workspace, config).map_err(|error| match error {
        // Its own kind, so the desktop asks the person to confirm.
        CoreError::BroadWorkspace { .. } => AppError::from(error),
        _ => invalid_input(format!(
            "Cannot use {} as the workspace: {error}",
            workspace.display()
        )),
    })?;
    let tools = match &mcp.servers {
        Some(servers) => tools.with_external(servers.tools(), mcp.approvals.clone()),
        None => tools,
    };
    let broker = if options.interactive {
        ApprovalBroker::interactive()
    } else {
        ApprovalBroker::non_interactive()
    };
    let (mut parts, events) = agent_parts(
        resolved,
        tools,
        SessionApprovals::with_rules(policy, rules),
        broker,
    )?;
    parts.config.threshold_setting = options.compact_threshold;
    parts.config.compaction = options.compaction;
    // The person's own AGENTS.md lives beside their config.toml.
    parts.config.own_instructions = Some(paths.config.clone());
    Ok((parts, events))
}

/// The MCP servers of one run: read from the config's tables, the enabled
/// ones started in the background.
struct McpRun {
    servers: Option<McpServers>,
    approvals: strata_core::mcp::approval::McpApprovals,
    problems: Vec<McpConfigProblem>,
}

impl McpRun {
    fn read(
        tables: &strata_providers::config::McpServerTables,
        kind: ProviderKind,
        logs: &Path,
    ) -> Self {
        let (entries, problems) = crate::mcp::read_servers(tables);
        for problem in &problems {
            tracing::warn!(server = %problem.server, "{problem}");
        }
        let servers = entries
            .iter()
            .any(|entry| entry.enabled)
            .then(|| McpServers::start(&entries, crate::mcp::dialect_for(kind), logs));
        Self {
            servers,
            approvals: crate::mcp::approvals(&entries),
            problems,
        }
    }
}

/// The user's `[rules]` and the workspace's `.strata/rules.toml` (its allow
/// lists only when Strata saved the file as it is). A rule that does not
/// parse stops the launch: a typo must not allow or deny something else.
fn session_rules(
    resolved: &ResolvedProfile,
    paths: &StrataPaths,
    workspace: &Path,
) -> AppResult<RuleSet> {
    let loaded = load_workspace_rules(workspace, &paths.config)?;
    if !loaded.untrusted_allow.is_empty() {
        tracing::warn!(
            workspace = %workspace.display(),
            "the workspace's allow rules changed outside Strata and are not applied"
        );
    }
    RuleSet::from_configs(&[
        (RuleSource::User, &resolved.rules),
        (RuleSource::Workspace, &loaded.rules),
    ])
    .map_err(|problems| invalid_input(format!("Invalid approval rules: {problems}")))
}

fn log_recovery(session: &strata_core::LiveSession) {
    let recovery = session.recovery();
    if !recovery.is_empty() {
        tracing::warn!(
            session = %session.id(),
            torn_tail = recovery.torn_tail.is_some(),
            aborted_calls = recovery.aborted_calls.len(),
            "the session needed repairs when it was reopened"
        );
    }
}

#[cfg(test)]
#[path = "launch_tests.rs"]
mod tests;
