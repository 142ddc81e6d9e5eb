//! Servers left behind by a Strata that was killed outright (SIGKILL, a
//! crash, an OOM kill), where no destructor and no signal handler ran.
//!
//! Two guards, both Linux's: each server's leader gets SIGKILL when Strata
//! dies (`PR_SET_PDEATHSIG`, set in [`crate::process`] before the exec), and
//! every process of a server carries [`OWNER_ENV`], naming the Strata that
//! started it by pid and start time (a pid alone can be reused). Members that
//! outlive their leader (an `npx` wrapper's `node`, a server's own children)
//! keep the variable, so the next Strata that starts servers finds them in
//! `/proc` and SIGKILLs each one whose owner is gone. Only processes of the
//! same user can be read, and so only those are ever signalled.

use std::sync::OnceLock;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// The variable naming the Strata that started a server: `PID:START`, the
/// start in clock ticks since boot (`/proc/PID/stat`'s 22nd field).
pub const OWNER_ENV: &str = "STRATA_MCP_OWNER";

/// This process's [`OWNER_ENV`] value.
#[must_use]
pub fn owner_marker() -> &'static str {
    static MARKER: OnceLock<String> = OnceLock::new();
    MARKER.get_or_init(|| {
        let pid = std::process::id();
        format!("{pid}:{}", start_ticks(pid).unwrap_or(0))
    })
}

/// When `pid` started, in clock ticks since boot; `None` once it is gone.
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command's closing parenthesis (the name may hold spaces and
    // parentheses): state is field 3, starttime field 22.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the process a marker names is still that process.
fn owner_alive(marker: &str) -> bool {
    let Some((pid, start)) = marker.split_once(':') else {
        return false;
    };
    match (pid.parse::<u32>(), start.parse::<u64>()) {
        (Ok(pid), Ok(start)) => start_ticks(pid) == Some(start),
        _ => false,
    }
}

/// The [`OWNER_ENV`] a process was started with, if it can be read.
fn marker_of(pid: u32) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{OWNER_ENV}=");
    environ
        .split(|&byte| byte == 0)
        .find_map(|entry| entry.strip_prefix(prefix.as_bytes()))
        .map(|value| String::from_utf8_lossy(value).into_owned())
}

/// SIGKILLs every process left by a Strata that is gone: those whose
/// [`OWNER_ENV`] names a process that no longer runs. Returns their pids.
/// Cheap (one pass over `/proc`); a front end calls it before starting
/// servers.
pub fn reap_leftovers() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let ours = owner_marker();
    let mut reaped = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Some(marker) = marker_of(pid) else {
            continue;
        };
        if marker == ours || owner_alive(&marker) {
            continue;
        }
        let Ok(raw) = i32::try_from(pid) else {
            continue;
        };
        if kill(Pid::from_raw(raw), Signal::SIGKILL).is_ok() {
            tracing::warn!(pid, owner = %marker, "SIGKILLed an MCP server process left by a Strata that is gone");
            reaped.push(pid);
        }
    }
    reaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_made_up_owner_is_not() {
        assert!(owner_alive(owner_marker()));
        let (pid, start) = owner_marker().split_once(':').unwrap();
        let later: u64 = start.parse::<u64>().unwrap() + 1;
        // The same pid, started at another time: a reused pid, not us.
        assert!(!owner_alive(&format!("{pid}:{later}")));
        assert!(!owner_alive("not-a-marker"));
        assert!(!owner_alive("4294967295:1"));
    }

    #[test]
    fn a_process_is_reaped_only_when_its_owner_is_gone() {
        use std::process::Command;
        let gone = Command::new("sh")
            .args(["-c", "sleep 30"])
            .env(OWNER_ENV, "4294967295:1")
            .spawn()
            .unwrap();
        let kept = Command::new("sh")
            .args(["-c", "sleep 30"])
            .env(OWNER_ENV, owner_marker())
            .spawn()
            .unwrap();
        let mut gone = gone;
        let mut kept = kept;
        // /proc/PID/environ is readable once the child has exec'd.
        std::thread::sleep(std::time::Duration::from_millis(100));
        let reaped = reap_leftovers();
        assert!(reaped.contains(&gone.id()), "{reaped:?}");
        assert!(!reaped.contains(&kept.id()), "{reaped:?}");
        assert!(gone.wait().unwrap().code().is_none(), "killed by a signal");
        assert!(kept.try_wait().unwrap().is_none(), "still running");
        kept.kill().unwrap();
        kept.wait().unwrap();
    }
}
