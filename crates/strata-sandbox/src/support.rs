//! What the running kernel offers the sandbox.

use serde::{Deserialize, Serialize};

use crate::{SandboxMode, SandboxPolicy};

/// Set to `1`, every probe reports nothing supported, as on a kernel
/// without Landlock or namespaces. For tests of the fallback path only: it
/// can make Strata refuse or ask more, never confine less.
pub const FORCE_UNSUPPORTED_VAR: &str = "STRATA_SANDBOX_FORCE_UNSUPPORTED";

/// The Landlock ABI the write confinement needs: ABI 3 is the first that
/// controls truncation (`truncate(2)` of a file outside would be a write).
pub const MIN_LANDLOCK_ABI: u8 = 3;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSupport {
    /// The highest Landlock ABI whose features the kernel accepts (known to
    /// the `landlock` crate); `None` without Landlock.
    pub landlock_abi: Option<u8>,
    /// Whether a process can cut itself from the network: a new user and
    /// network namespace (or, as root, a network namespace).
    pub network_namespace: bool,
}

impl SandboxSupport {
    /// What this process can see without changing itself: Landlock's ABI,
    /// and whether namespaces are switched on. [`Self::probe_with`] asks
    /// the launcher, which really tries.
    pub fn detect() -> Self {
        if forced_unsupported() {
            return Self::default();
        }
        Self {
            landlock_abi: landlock_abi(),
            network_namespace: namespaces_enabled(),
        }
    }

    /// Runs `launcher --probe`, which unshares itself to see whether it can.
    pub fn probe_with(launcher: &std::path::Path) -> crate::SandboxResult<Self> {
        if forced_unsupported() {
            return Ok(Self::default());
        }
        let output = std::process::Command::new(launcher)
            .arg(crate::launch::PROBE_FLAG)
            .env_clear()
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .map_err(|error| crate::SandboxError::Exec(error.to_string()))?;
        Ok(serde_json::from_slice(&output.stdout)?)
    }

    /// What `policy` needs that the kernel lacks, in words; `None` when it
    /// can be had.
    pub fn missing_for(&self, policy: &SandboxPolicy) -> Option<String> {
        if policy.mode == SandboxMode::Off {
            return None;
        }
        let mut missing = Vec::new();
        if self.landlock_abi.is_none_or(|abi| abi < MIN_LANDLOCK_ABI) {
            missing.push(format!(
                "Landlock ABI {MIN_LANDLOCK_ABI} or later (this kernel: {})",
                self.landlock_abi
                    .map_or_else(|| "none".to_owned(), |abi| abi.to_string())
            ));
        }
        if !policy.network && !self.network_namespace {
            missing.push("a user and network namespace to cut the network".to_owned());
        }
        (!missing.is_empty()).then(|| missing.join("; "))
    }
}

fn forced_unsupported() -> bool {
    std::env::var_os(FORCE_UNSUPPORTED_VAR).is_some_and(|value| value == "1")
}

fn namespaces_enabled() -> bool {
    let max = std::fs::read_to_string("/proc/sys/user/max_user_namespaces");
    max.is_ok_and(|text| text.trim().parse::<u64>().is_ok_and(|n| n > 0))
        && std::path::Path::new("/proc/self/ns/net").exists()
}

/// Tries each ABI's features as hard requirements, newest first; only
/// rulesets are described, none is created or enforced.
#[cfg(target_os = "linux")]
fn landlock_abi() -> Option<u8> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, RestrictSelf, RestrictSelfAttr,
        Ruleset, RulesetAttr, Scope,
    };
    let accepts = |abi: ABI| -> Result<(), landlock::RulesetError> {
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(abi))?;
        if !AccessNet::from_all(abi).is_empty() {
            ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
        }
        if !Scope::from_all(abi).is_empty() {
            ruleset = ruleset.scope(Scope::from_all(abi))?;
        }
        // Described, never created: no ruleset exists in the kernel.
        let _described = ruleset;
        let restrict = RestrictSelf::default().set_compatibility(CompatLevel::HardRequirement);
        if abi >= ABI::V7 {
            let restrict = restrict.log_subdomains(false)?;
            if abi >= ABI::V8 {
                restrict.all_threads(true)?;
            }
        }
        Ok(())
    };
    [
        (ABI::V10, 10),
        (ABI::V9, 9),
        (ABI::V8, 8),
        (ABI::V7, 7),
        (ABI::V6, 6),
        (ABI::V5, 5),
        (ABI::V4, 4),
        (ABI::V3, 3),
        (ABI::V2, 2),
        (ABI::V1, 1),
    ]
    .into_iter()
    .find(|(abi, _)| accepts(*abi).is_ok())
    .map(|(_, number)| number)
}

#[cfg(not(target_os = "linux"))]
fn landlock_abi() -> Option<u8> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn policy(mode: SandboxMode, network: bool) -> SandboxPolicy {
        let mut policy = SandboxPolicy::new(mode, Path::new("/w"), Path::new("/t"), None);
        policy.network = network;
        policy
    }

    #[test]
    fn an_old_landlock_or_no_namespace_is_named_as_missing() {
        let old = SandboxSupport {
            landlock_abi: Some(2),
            network_namespace: false,
        };
        let missing = old
            .missing_for(&policy(SandboxMode::WorkspaceWrite, false))
            .unwrap();
        assert!(missing.contains("Landlock ABI 3 or later (this kernel: 2)"));
        assert!(missing.contains("network namespace"));
        assert_eq!(old.missing_for(&policy(SandboxMode::Off, false)), None);
        let enough = SandboxSupport {
            landlock_abi: Some(3),
            network_namespace: false,
        };
        assert_eq!(
            enough.missing_for(&policy(SandboxMode::ReadOnly, true)),
            None
        );
    }
}
