//! How `run_shell` confines a command: through `strata-sandbox-exec`
//! (Landlock and a network namespace) when the configured mode can be had,
//! and never silently without it when it cannot: then the call says so and
//! the approvals ask for every command (see `approval.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use strata_protocol::SandboxNetwork;
use strata_sandbox::proxy::Proxy;
use strata_sandbox::{AllowList, SandboxMode, SandboxPolicy, SandboxSupport};

/// Overrides where the launcher is looked for (its full path).
pub const SANDBOX_EXEC_VAR: &str = "STRATA_SANDBOX_EXEC";

/// The sandbox settings of a session's tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellSandbox {
    pub mode: SandboxMode,
    /// What commands may reach on the network.
    pub network: SandboxNetwork,
    /// The domains the proxy lets through under [`SandboxNetwork::AllowList`].
    pub allow_domains: Vec<String>,
    /// More folders commands may write to, besides the workspace and the
    /// session's temp folder.
    pub writable_roots: Vec<PathBuf>,
    /// Folders and files commands may not read (the tools' protected paths
    /// are added to it).
    pub read_deny: Vec<PathBuf>,
    /// The launcher to use instead of the one found beside the executable
    /// (or named by `STRATA_SANDBOX_EXEC`).
    pub launcher: Option<PathBuf>,
}

impl Default for ShellSandbox {
    /// Off until a front end turns it on: the mode comes from the person's
    /// settings or the command line.
    fn default() -> Self {
        Self {
            mode: SandboxMode::Off,
            network: SandboxNetwork::Off,
            allow_domains: Vec::new(),
            writable_roots: Vec::new(),
            read_deny: dirs::home_dir()
                .map(|home| strata_sandbox::default_read_deny(&home))
                .unwrap_or_default(),
            launcher: None,
        }
    }
}

/// What a registry's commands run under, settled once when it is made.
#[derive(Clone, Debug)]
pub(crate) enum Confinement {
    /// The person turned the sandbox off.
    Off,
    /// Through the launcher under this policy; the temp folder lives as
    /// long as the registry.
    Sandboxed {
        launcher: PathBuf,
        policy: SandboxPolicy,
        _temp: Arc<tempfile::TempDir>,
        /// The session's proxy under an allow-list, for as long as the
        /// registry.
        proxy: Option<Arc<SessionProxy>>,
    },
    /// The mode was asked for and cannot be had: each command waits for
    /// the person and runs unconfined only once they allowed it.
    Unavailable { mode: SandboxMode, reason: String },
}

impl Confinement {
    pub(crate) fn settle(settings: &ShellSandbox, workspace: &Path, protected: &[PathBuf]) -> Self {
        if settings.mode == SandboxMode::Off {
            return Self::Off;
        }
        let unavailable = |reason: String| Self::Unavailable {
            mode: settings.mode,
            reason,
        };
        let Some(launcher) = settings.launcher.clone().or_else(find_launcher) else {
            return unavailable(format!(
                "the sandbox launcher {} was not found beside Strata",
                strata_sandbox::LAUNCHER_NAME
            ));
        };
        let temp = match tempfile::Builder::new().prefix("strata-shell-").tempdir() {
            Ok(temp) => temp,
            Err(error) => return unavailable(format!("no session temp folder: {error}")),
        };
        let temp_dir = std::fs::canonicalize(temp.path()).unwrap_or_else(|_| temp.path().into());
        let mut policy = SandboxPolicy::new(settings.mode, workspace, &temp_dir, None);
        policy.network = settings.network == SandboxNetwork::On;
        let proxy = match settings.network {
            SandboxNetwork::AllowList => match SessionProxy::start(&settings.allow_domains) {
                Ok(proxy) => {
                    policy.proxy = Some(proxy.proxy.socket().to_path_buf());
                    Some(Arc::new(proxy))
                }
                Err(reason) => return unavailable(reason),
            },
            SandboxNetwork::Off | SandboxNetwork::On => None,
        };
        policy.writable_roots = settings.writable_roots.clone();
        policy.read_deny = settings.read_deny.clone();
        policy.read_deny.extend(protected.iter().cloned());
        match kernel_gap(&launcher, &policy) {
            Some(reason) => unavailable(reason),
            None => Self::Sandboxed {
                launcher,
                policy,
                _temp: Arc::new(temp),
                proxy,
            },
        }
    }

    /// Completes the tool description's "Run a command ... in the
    /// workspace folder ...".
    pub(crate) fn shell_rights(&self) -> &'static str {
        match self {
            Self::Sandboxed { policy, proxy, .. } if proxy.is_some() => match policy.mode {
                SandboxMode::ReadOnly => {
                    "in a read-only sandbox (writes only in $TMPDIR; network only to the allowed \
                     domains, through the proxy in HTTP_PROXY/HTTPS_PROXY)"
                }
                SandboxMode::WorkspaceWrite | SandboxMode::Off => {
                    "in a sandbox (writes only in the workspace and $TMPDIR; network only to the \
                     allowed domains, through the proxy in HTTP_PROXY/HTTPS_PROXY)"
                }
            },
            Self::Sandboxed { policy, .. } => match (policy.mode, policy.network) {
                (SandboxMode::ReadOnly, false) => {
                    "in a read-only sandbox (writes only in $TMPDIR; no network)"
                }
                (SandboxMode::ReadOnly, true) => "in a read-only sandbox (writes only in $TMPDIR)",
                (SandboxMode::WorkspaceWrite | SandboxMode::Off, false) => {
                    "in a sandbox (writes only in the workspace and $TMPDIR; no network)"
                }
                (SandboxMode::WorkspaceWrite | SandboxMode::Off, true) => {
                    "in a sandbox (writes only in the workspace and $TMPDIR)"
                }
            },
            Self::Off | Self::Unavailable { .. } => crate::tools::args::SHELL_UNCONFINED,
        }
    }

    /// The system prompt's sentence on what commands reach.
    pub(crate) fn shell_reach(&self) -> &'static str {
        match self {
            Self::Sandboxed { .. } => {
                "and run_shell runs in a sandbox: writes outside the workspace are refused, and \
                 a refusal says which rule refused it."
            }
            Self::Off | Self::Unavailable { .. } => crate::agent::prompt::SHELL_UNCONFINED_REACH,
        }
    }

    /// Why commands cannot be confined as configured, if they cannot.
    pub(crate) fn unavailable(&self) -> Option<String> {
        match self {
            Self::Unavailable { mode, reason } => {
                Some(format!("the {mode} sandbox is unavailable ({reason})"))
            }
            Self::Off | Self::Sandboxed { .. } => None,
        }
    }
}

/// Why `mode` (network off, as by default) cannot be had on this machine
/// with the launcher Strata finds, if it cannot: what a front end tells
/// the person once, before any session runs a command.
pub fn sandbox_unavailable_here(mode: SandboxMode) -> Option<String> {
    if mode == SandboxMode::Off {
        return None;
    }
    let Some(launcher) = find_launcher() else {
        return Some(format!(
            "the sandbox launcher {} was not found beside Strata",
            strata_sandbox::LAUNCHER_NAME
        ));
    };
    let here = Path::new("/");
    kernel_gap(&launcher, &SandboxPolicy::new(mode, here, here, None))
        .map(|reason| format!("the {mode} sandbox is unavailable ({reason})"))
}

/// What `policy` needs that the kernel lacks (or why the launcher could
/// not say), in words; `None` when it can be had.
fn kernel_gap(launcher: &Path, policy: &SandboxPolicy) -> Option<String> {
    match probed(launcher) {
        Ok(support) => support
            .missing_for(policy)
            .map(|missing| format!("this kernel lacks {missing}")),
        Err(error) => Some(format!("the sandbox launcher failed: {error}")),
    }
}

/// `launcher --probe`'s answer, asked once per launcher and process (the
/// kernel does not change under a running Strata); a failure is not kept,
/// so the next session asks again.
fn probed(launcher: &Path) -> Result<SandboxSupport, strata_sandbox::SandboxError> {
    static PROBED: OnceLock<Mutex<HashMap<PathBuf, SandboxSupport>>> = OnceLock::new();
    let cache = PROBED.get_or_init(Mutex::default);
    let known = cache
        .lock()
        .ok()
        .and_then(|known| known.get(launcher).copied());
    if let Some(support) = known {
        return Ok(support);
    }
    let support = SandboxSupport::probe_with(launcher)?;
    if let Ok(mut known) = cache.lock() {
        known.insert(launcher.to_owned(), support);
    }
    Ok(support)
}

/// The proxy a session's allow-list runs through, its socket in a folder
/// of its own (outside every writable root, so no command can replace it).
#[derive(Debug)]
pub(crate) struct SessionProxy {
    proxy: Proxy,
    _dir: tempfile::TempDir,
}

impl SessionProxy {
    fn start(domains: &[String]) -> Result<Self, String> {
        let allow =
            AllowList::parse(domains).map_err(|error| format!("the allow-list: {error}"))?;
        let dir = tempfile::Builder::new()
            .prefix("strata-proxy-")
            .tempdir()
            .map_err(|error| format!("no folder for the network proxy: {error}"))?;
        let socket = std::fs::canonicalize(dir.path())
            .unwrap_or_else(|_| dir.path().into())
            .join("proxy.sock");
        let proxy = Proxy::start(&socket, allow)
            .map_err(|error| format!("the network proxy did not start: {error}"))?;
        Ok(Self { proxy, _dir: dir })
    }

    /// A mark to take before a command runs.
    pub(crate) fn mark(&self) -> usize {
        self.proxy.refusal_count()
    }

    /// One line per refusal since `mark`.
    pub(crate) fn explanations_since(&self, mark: usize) -> Vec<String> {
        self.proxy
            .refusals_since(mark)
            .iter()
            .map(strata_sandbox::Refusal::explanation)
            .collect()
    }
}

/// `STRATA_SANDBOX_EXEC`, else the launcher beside the current executable,
/// else one folder up (test binaries live in `target/*/deps`).
fn find_launcher() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(SANDBOX_EXEC_VAR) {
        return Some(PathBuf::from(path)).filter(|path| path.is_file());
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [Some(dir), dir.parent()]
        .into_iter()
        .flatten()
        .map(|dir| dir.join(strata_sandbox::LAUNCHER_NAME))
        .find(|path| path.is_file())
}
