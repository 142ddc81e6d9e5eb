//! Turning command-line flags into a running agent: the provider profile
//! (flags over the config file over the environment over the demo model),
//! its gateway, the workspace's tools, the approval policy, and the session
//! (new or resumed).

use std::path::{Path, PathBuf};

use serde_json::json;
use strata_core::agent::{Agent, AgentParts, ApprovalBroker, EventReceiver};
use strata_core::{SessionApprovals, ToolConfig, ToolRegistry};
use strata_protocol::{ApprovalPolicy, SessionMeta};
use strata_providers::config::{
    ProfileFlags, ProviderKind, ProviderProfile, load_and_resolve, process_env,
};
use strata_providers::{agent_parts, estimator_for, tool_config};

use crate::cli::{AgentFlags, ApprovalArg, ProviderArg};
use crate::error::CliError;
use crate::store::Context;

/// An agent ready to run, with where its events arrive.
pub struct Launched {
    pub agent: Agent,
    pub events: EventReceiver,
    pub profile: ProviderProfile,
    pub policy: ApprovalPolicy,
    pub resumed: bool,
}

impl Launched {
    /// The first `--json` line: which session, where, and with what model.
    pub fn session_line(&self) -> serde_json::Value {
        json!({
            "v": 1,
            "kind": "session_started",
            "session_id": self.agent.id(),
            "resumed": self.resumed,
            "workspace": self.agent.workspace(),
            "provider_kind": self.profile.kind.as_str(),
            "model": self.profile.model,
            "model_label": self.profile.model_label,
            "approval": self.policy.as_str(),
            "compact_threshold": self.agent.threshold(),
            "path": self.agent.session().path(),
        })
    }

    /// What a person reads after the session id: model, workspace, policy
    /// and threshold.
    pub fn details(&self) -> String {
        format!(
            "{} ({}) · {} · approval {} · compacts at {} tokens",
            self.profile.model_label,
            self.profile.kind.as_str(),
            self.agent.workspace().display(),
            self.policy.as_str(),
            self.agent.threshold(),
        )
    }
}

/// A new session in `--workspace` (default: the current folder).
pub fn start(
    ctx: &Context,
    flags: &AgentFlags,
    interactive: bool,
) -> crate::error::Result<Launched> {
    let workspace = match &flags.workspace {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|source| CliError::Io {
            action: "read",
            path: PathBuf::from("the current folder"),
            source,
        })?,
    };
    let (parts, events, profile, policy) = parts(ctx, flags, None, &workspace, interactive)?;
    let agent = Agent::start(&ctx.store, parts)?
        .with_estimator(estimator_for(profile.kind, &profile.model));
    Ok(Launched {
        agent,
        events,
        profile,
        policy,
        resumed: false,
    })
}

/// The session `query` names, opened for writing, in its own workspace
/// unless `--workspace` moves it.
pub fn resume(
    ctx: &Context,
    query: &str,
    flags: &AgentFlags,
    interactive: bool,
) -> crate::error::Result<Launched> {
    let id = ctx.resolve(query)?;
    let session = ctx.store.open_writer(id)?;
    let recovery = session.recovery();
    if let Some(torn) = &recovery.torn_tail {
        ctx.out.warn(format!(
            "the session file ended in an unfinished line; it was moved aside ({torn:?})"
        ));
    }
    if !recovery.aborted_calls.is_empty() {
        ctx.out.warn(format!(
            "{} tool call(s) of an earlier run never finished; they were recorded as aborted",
            recovery.aborted_calls.len()
        ));
    }
    let meta = session.meta().clone();
    let workspace = flags
        .workspace
        .clone()
        .unwrap_or_else(|| PathBuf::from(&meta.workspace));
    let (parts, events, profile, policy) = parts(ctx, flags, Some(&meta), &workspace, interactive)?;
    let agent =
        Agent::resume(session, parts)?.with_estimator(estimator_for(profile.kind, &profile.model));
    Ok(Launched {
        agent,
        events,
        profile,
        policy,
        resumed: true,
    })
}

type Parts = (AgentParts, EventReceiver, ProviderProfile, ApprovalPolicy);

fn parts(
    ctx: &Context,
    flags: &AgentFlags,
    resumed: Option<&SessionMeta>,
    workspace: &Path,
    interactive: bool,
) -> crate::error::Result<Parts> {
    let profile_flags = profile_flags(flags, resumed);
    let (_config, resolved) = load_and_resolve(&ctx.paths, &profile_flags, &process_env)?;
    let tool_config = ToolConfig {
        allow_broad_workspace: flags.allow_broad_workspace,
        ..tool_config(&resolved, &process_env)
    };
    let tools =
        ToolRegistry::new(workspace, tool_config).map_err(|source| CliError::Workspace {
            path: workspace.to_owned(),
            source,
        })?;
    let policy = approval_policy(flags.approval);
    let broker = if interactive {
        ApprovalBroker::interactive()
    } else {
        ApprovalBroker::non_interactive()
    };
    let (mut parts, events) = agent_parts(&resolved, tools, SessionApprovals::new(policy), broker)?;
    parts.config.threshold_setting = flags.compact_threshold;
    parts.config.compaction = flags.compaction;
    Ok((parts, events, resolved.profile, policy))
}

/// The approval policy a flag names.
pub fn approval_policy(arg: ApprovalArg) -> ApprovalPolicy {
    match arg {
        ApprovalArg::Ask => ApprovalPolicy::Ask,
        ApprovalArg::Auto => ApprovalPolicy::Auto,
        ApprovalArg::ReadOnly => ApprovalPolicy::ReadOnly,
    }
}

/// The profile a session would run on with these flags, without building
/// its gateway (for `compact --preview`, which calls no model).
pub fn session_profile(
    ctx: &Context,
    flags: &AgentFlags,
    meta: &SessionMeta,
) -> crate::error::Result<ProviderProfile> {
    let (_config, resolved) =
        load_and_resolve(&ctx.paths, &profile_flags(flags, Some(meta)), &process_env)?;
    Ok(resolved.profile)
}

/// The flags the resolver sees. A resumed session keeps its own provider
/// kind and model unless a flag names others.
fn profile_flags(flags: &AgentFlags, resumed: Option<&SessionMeta>) -> ProfileFlags {
    let kind = flags
        .provider
        .map(provider_kind)
        .or_else(|| resumed.and_then(|meta| meta.provider_kind.parse::<ProviderKind>().ok()));
    let session_kind_kept = flags.provider.is_none() && kind.is_some();
    let model = flags.model.clone().or_else(|| {
        resumed
            .filter(|_| session_kind_kept)
            .map(|meta| meta.model.clone())
    });
    ProfileFlags {
        profile: None,
        kind,
        model,
        base_url: flags.base_url.clone(),
    }
}

fn provider_kind(arg: ProviderArg) -> ProviderKind {
    match arg {
        ProviderArg::OpenaiResponses => ProviderKind::OpenaiResponses,
        ProviderArg::OpenaiChat => ProviderKind::OpenaiChat,
        ProviderArg::Anthropic => ProviderKind::Anthropic,
        ProviderArg::Demo => ProviderKind::Demo,
    }
}
