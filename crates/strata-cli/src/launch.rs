//! Command-line flags to strata-app's agent construction: the profile flags,
//! the workspace, the approval policy, the compaction policy and threshold.
//! Which profile a session
//! resumes on, and the recording of an explicit switch, are strata-app's.

use std::path::PathBuf;

use strata_app::launch::LaunchOptions;
use strata_app::live::Opened;
use strata_app::transcript::recovery_notices;
use strata_app::transcript::text::{profile_line, recovery_text};
use strata_protocol::{ApprovalPolicy, SessionMeta};
use strata_providers::config::process_env;
use strata_providers::{ProfileFlags, ProviderProfile};

use crate::cli::{AgentFlags, ApprovalArg};
use crate::error::CliError;
use crate::store::Context;

/// The approval policy a flag names.
pub fn approval_policy(arg: ApprovalArg) -> ApprovalPolicy {
    match arg {
        ApprovalArg::Ask => ApprovalPolicy::Ask,
        ApprovalArg::Auto => ApprovalPolicy::Auto,
        ApprovalArg::ReadOnly => ApprovalPolicy::ReadOnly,
    }
}

fn profile_flags(flags: &AgentFlags) -> ProfileFlags {
    ProfileFlags {
        profile: None,
        kind: flags.provider,
        model: flags.model.clone(),
        base_url: flags.base_url.clone(),
    }
}

fn options(flags: &AgentFlags, interactive: bool) -> LaunchOptions {
    let policy = flags.approval.map(approval_policy);
    LaunchOptions {
        profile: profile_flags(flags),
        workspace: flags.workspace.clone(),
        compact_threshold: flags.compact_threshold,
        compaction: flags.compaction,
        reasoning: flags.reasoning,
        allow_broad_workspace: flags.allow_broad_workspace,
        sandbox: flags.sandbox,
        network: flags.network,
        ..LaunchOptions::new(policy, interactive)
    }
}

/// A new session in `--workspace` (default: the current folder), held
/// live by the app.
pub async fn start(
    ctx: &Context,
    flags: &AgentFlags,
    interactive: bool,
) -> crate::error::Result<Opened> {
    let workspace = match &flags.workspace {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|source| CliError::Io {
            action: "read",
            path: PathBuf::from("the current folder"),
            source,
        })?,
    };
    Ok(ctx
        .app
        .start_live(workspace, options(flags, interactive))
        .await?)
}

/// The session `query` names, held live by the app for writing on the
/// profile it records (the flags switch it explicitly), in its own
/// workspace unless `--workspace` moves it; what reopening repaired, a
/// legacy profile and a switch are said on standard error.
pub async fn resume(
    ctx: &Context,
    query: &str,
    flags: &AgentFlags,
    interactive: bool,
) -> crate::error::Result<Opened> {
    let id = ctx.resolve(query)?;
    let opened = ctx.app.resume_live(id, options(flags, interactive)).await?;
    // What reopening repaired: the notices its `session_repaired` record
    // makes in every transcript.
    for notice in recovery_notices(&opened.recovery.record()) {
        ctx.out.warn(recovery_text(&notice));
    }
    if opened.legacy {
        ctx.out.warn(format!(
            "this session predates recorded profiles; it resumed on {}",
            opened.profile
        ));
    }
    if let Some(switch) = &opened.switched {
        ctx.out.warn(profile_line(switch));
    }
    Ok(opened)
}

/// The profile a session would run on with these flags (its recorded one
/// unless they switch it), without building its gateway: for
/// `compact --preview`, which calls no model.
pub fn session_profile(
    ctx: &Context,
    flags: &AgentFlags,
    meta: &SessionMeta,
    recorded: Option<&strata_protocol::ProfileSet>,
) -> crate::error::Result<ProviderProfile> {
    let chosen = strata_app::profile::for_resume(
        &ctx.paths,
        &process_env,
        meta,
        recorded,
        &profile_flags(flags),
    )?;
    Ok(chosen.resolved.profile)
}
