//! Confining the current process (the launcher, before it execs the
//! command): first the network namespace, while `/proc/self` may still be
//! written, then Landlock, which every process started after inherits and
//! none can drop.

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, LandlockStatus, NetPort, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::sched::{CloneFlags, unshare};
use nix::unistd::{getgid, getuid};

use crate::support::MIN_LANDLOCK_ABI;
use crate::{SandboxError, SandboxMode, SandboxPolicy, SandboxResult, SandboxSupport};

/// The newest ABI whose rights these rules were written and tested for;
/// older kernels get what they have (at least [`MIN_LANDLOCK_ABI`]).
const TARGET_ABI: ABI = ABI::V7;

/// Devices every command may write (`> /dev/null`) and read.
const WRITABLE_DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// Confines this process to `policy`; on error it must not go on to run
/// the command. Returns the port of the proxy's forwarder on the
/// sandbox's loopback when the policy names a proxy.
pub fn confine(policy: &SandboxPolicy) -> SandboxResult<Option<u16>> {
    if policy.mode == SandboxMode::Off {
        return Ok(None);
    }
    if !policy.network {
        cut_network()?;
    }
    let forwarder = match (&policy.proxy, policy.network) {
        (Some(socket), false) => {
            crate::forward::loopback_up()?;
            Some(crate::forward::start_forwarder(socket)?)
        }
        (Some(_), true) | (None, _) => None,
    };
    restrict_filesystem(policy, forwarder)?;
    Ok(forwarder)
}

/// `--probe`: what this process can confine itself with. Cuts this
/// process's network to find out, so it is only for a process that exits
/// next.
pub fn probe() -> SandboxSupport {
    let detected = SandboxSupport::detect();
    if detected == SandboxSupport::default() {
        return detected;
    }
    SandboxSupport {
        network_namespace: cut_network().is_ok(),
        ..detected
    }
}

/// A new network namespace (only a downed loopback in it). A person who is
/// not root needs a user namespace for it, mapped to their own uid and gid
/// so the files the command creates are still theirs; root makes it
/// directly and stays root.
fn cut_network() -> SandboxResult<()> {
    let namespace_error = |what: &str, error: &dyn std::fmt::Display| {
        SandboxError::Namespace(format!("{what}: {error}"))
    };
    let uid = getuid();
    if uid.is_root() {
        return unshare(CloneFlags::CLONE_NEWNET).map_err(|e| namespace_error("unshare", &e));
    }
    let gid = getgid();
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET)
        .map_err(|e| namespace_error("unshare", &e))?;
    // The kernel wants setgroups off before an unprivileged gid map.
    std::fs::write("/proc/self/setgroups", "deny").map_err(|e| namespace_error("setgroups", &e))?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"))
        .map_err(|e| namespace_error("uid_map", &e))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"))
        .map_err(|e| namespace_error("gid_map", &e))?;
    Ok(())
}

fn restrict_filesystem(policy: &SandboxPolicy, forwarder: Option<u16>) -> SandboxResult<()> {
    let all = AccessFs::from_all(TARGET_ABI);
    let read = AccessFs::from_read(TARGET_ABI);
    let mut ruleset = Ruleset::default().handle_access(all)?;
    if !policy.network {
        // No port is granted: every TCP bind and connect is refused, also
        // inside a namespace the command might make itself.
        ruleset = ruleset.handle_access(AccessNet::from_all(TARGET_ABI))?;
    }
    // Abstract UNIX sockets and signals outside the sandbox.
    let mut created = ruleset.scope(Scope::from_all(TARGET_ABI))?.create()?;
    if let Some(port) = forwarder {
        // The one TCP connection the command may make: to the forwarder.
        created = created.add_rule(NetPort::new(port, AccessNet::ConnectTcp))?;
    }

    for path in crate::read_grants(&policy.read_deny) {
        match rule(&path, read) {
            Ok(rule) => created = created.add_rule(rule)?,
            // A sibling listed a moment ago and gone since (another
            // process's temp folder): nothing left to grant.
            Err(_) if std::fs::symlink_metadata(&path).is_err() => {}
            Err(error) => return Err(error),
        }
    }
    for (index, root) in policy.writable().into_iter().enumerate() {
        // The workspace and the temp folder (the first two) must exist;
        // an extra root that does not is skipped.
        if index >= 2 && !root.exists() {
            continue;
        }
        created = created.add_rule(rule(root, all)?)?;
    }
    for device in WRITABLE_DEVICES.map(Path::new) {
        if device.exists() {
            created = created.add_rule(rule(device, all)?)?;
        }
    }
    let status = created.restrict_self()?;
    let enforced_abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => Some(effective_abi),
        LandlockStatus::NotEnabled | LandlockStatus::NotImplemented => None,
    };
    let strong_enough = enforced_abi.is_some_and(|abi| abi >= ABI::V3);
    if status.ruleset == RulesetStatus::NotEnforced || !strong_enough {
        return Err(SandboxError::Unsupported {
            mode: policy.mode.to_string(),
            missing: format!("Landlock ABI {MIN_LANDLOCK_ABI} or later"),
        });
    }
    Ok(())
}

/// A rule for `path` with `access` narrowed to what a file can have when
/// it is not a folder (Landlock refuses folder rights on a file).
fn rule(path: &Path, access: landlock::BitFlags<AccessFs>) -> SandboxResult<PathBeneath<PathFd>> {
    let fd = PathFd::new(path).map_err(|error| SandboxError::RulePath {
        path: path.to_path_buf(),
        message: error.to_string(),
    })?;
    let access = if path.is_dir() {
        access
    } else {
        access & AccessFs::from_file(TARGET_ABI)
    };
    Ok(PathBeneath::new(fd, access))
}
