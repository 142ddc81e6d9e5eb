//! The sandbox `run_shell`'s commands run in on Linux.
//!
//! The filesystem is confined with Landlock (reads allowed broadly except a
//! deny list, writes only inside the workspace, the session's temp folder
//! and roots the person added) and the network is cut with a network
//! namespace (plus Landlock's TCP rules and scopes where the kernel has
//! them). The workspace denies `unsafe`, so confinement happens in a small
//! launcher, `strata-sandbox-exec`, which confines itself and then execs
//! `sh -c COMMAND`: [`launcher_command`] builds its command line.
//!
//! The pure parts: the [`SandboxMode`] and [`SandboxPolicy`], the read
//! grants that stand in for a deny list in Landlock's allow-list model
//! ([`read_grants`]), and the one line that explains a refusal
//! ([`explain_refusal`]). [`SandboxSupport::detect`] says what the running
//! kernel offers.
//!
//! Under a domain allow-list the command keeps its namespace, and reaches
//! the session's [`proxy::Proxy`] (judging each host by an [`AllowList`])
//! through a forwarder the launcher starts on the namespace's loopback.

mod allow;
mod error;
mod explain;
mod launch;
mod paths;
mod policy;
pub mod proxy;
mod readable;
mod support;

#[cfg(target_os = "linux")]
pub mod confine;
#[cfg(target_os = "linux")]
pub mod forward;

pub use allow::{AllowList, DEFAULT_PORTS, Host, Refusal, normalize_host};
pub use error::{SandboxError, SandboxResult};
pub use explain::explain_refusal;
pub use launch::{
    LAUNCH_FAILED_EXIT, LAUNCHER_MESSAGE_PREFIX, LAUNCHER_NAME, POLICY_FLAG, PROBE_FLAG,
    launcher_command,
};
pub use policy::{SandboxMode, SandboxPolicy, default_read_deny};
pub use readable::read_grants;
pub use support::{FORCE_UNSUPPORTED_VAR, SandboxSupport};
