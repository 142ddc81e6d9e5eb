//! The `[tools]` table of `config.toml`: what `run_shell` gets from
//! Strata's environment, the secret files the tools may use after all, and
//! the sandbox new sessions start in.

use std::path::{Component, Path};

use serde::{Deserialize, Serialize};
use strata_protocol::{SandboxMode, SandboxNetwork};

use super::file::is_env_name;

/// The `[tools]` table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsConfig {
    /// Environment variables `run_shell` commands get besides the built-in
    /// allow-list (`strata_core::tools::SHELL_ENV_ALLOWED` and `LC_*`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shell_env: Vec<String>,
    /// Secret files (`.env`, keys, ...) the file tools may use after all:
    /// workspace-relative paths, a trailing `/` for a folder and what is in
    /// it. Strata's own config, keys and sessions stay refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_secret_files: Vec<String>,
    /// The sandbox `run_shell` runs in for sessions that recorded none
    /// (new ones; a `--sandbox` flag overrides it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
    /// The network sandboxed commands get in sessions that recorded none
    /// (a `--network` flag, a recorded choice and the workspace's
    /// `.strata/network.toml` come first): `off` (the default), `on`, or
    /// `allow-list` (only `sandbox_allow_domains`, through Strata's proxy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_network: Option<SandboxNetwork>,
    /// The domains `allow-list` lets through: `crates.io`, `*.npmjs.org`,
    /// an IP address, each with an optional `:PORT` (else 80 and 443).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sandbox_allow_domains: Vec<String>,
}

impl ToolsConfig {
    pub(super) fn is_empty(&self) -> bool {
        self.shell_env.is_empty()
            && self.allow_secret_files.is_empty()
            && self.sandbox.is_none()
            && self.sandbox_network.is_none()
            && self.sandbox_allow_domains.is_empty()
    }

    /// `allow_secret_files` as the tools match them: `/`-separated names,
    /// without `.` components (a folder's trailing `/` is not needed there).
    pub fn allowed_secret_files(&self) -> Vec<String> {
        self.allow_secret_files
            .iter()
            .filter(|entry| is_workspace_relative(entry))
            .map(|entry| {
                Path::new(entry)
                    .components()
                    .filter_map(|c| match c {
                        Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .filter(|entry| !entry.is_empty())
            .collect()
    }

    pub(super) fn problems(&self, problems: &mut Vec<String>) {
        for name in &self.shell_env {
            if !is_env_name(name) {
                problems.push(format!(
                    "tools.shell_env: {name:?} is not an environment variable name"
                ));
            }
        }
        if let Err(error) = strata_core::tools::AllowList::parse(&self.sandbox_allow_domains) {
            problems.push(format!("tools.sandbox_allow_domains: {error}"));
        }
        for entry in &self.allow_secret_files {
            if !is_workspace_relative(entry) {
                problems.push(format!(
                    "tools.allow_secret_files: {entry:?} must be a path inside the workspace, \
                     relative and without `..`"
                ));
            }
        }
    }
}

/// Whether an `allow_secret_files` entry stays inside the workspace: only
/// plain names, no root, drive prefix or `..` (a leading backslash counts as
/// a root too, whatever the platform).
fn is_workspace_relative(entry: &str) -> bool {
    let components = || Path::new(entry).components();
    !entry.starts_with(['/', '\\'])
        && components().any(|c| matches!(c, Component::Normal(_)))
        && components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}
