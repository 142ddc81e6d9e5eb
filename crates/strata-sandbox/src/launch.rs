//! The launcher's command line, as `run_shell` builds it.

use std::path::Path;
use std::process::Command;

use crate::{SandboxPolicy, SandboxResult};

/// The launcher binary's file name (beside Strata's executables).
pub const LAUNCHER_NAME: &str = "strata-sandbox-exec";
/// `strata-sandbox-exec --policy JSON -- COMMAND`.
pub const POLICY_FLAG: &str = "--policy";
/// `strata-sandbox-exec --probe` prints what it could confine itself with.
pub const PROBE_FLAG: &str = "--probe";
/// The launcher's exit code when it could not confine itself: the command
/// did not run.
pub const LAUNCH_FAILED_EXIT: u8 = 125;
/// What the launcher's own messages start with.
pub const LAUNCHER_MESSAGE_PREFIX: &str = "strata-sandbox:";

/// `launcher` running `sh -c command` under `policy`; the caller sets the
/// working folder, the environment and the standard streams.
pub fn launcher_command(
    launcher: &Path,
    policy: &SandboxPolicy,
    command: &str,
) -> SandboxResult<Command> {
    let mut launch = Command::new(launcher);
    launch
        .arg(POLICY_FLAG)
        .arg(policy.to_json()?)
        .arg("--")
        .arg(command);
    Ok(launch)
}
