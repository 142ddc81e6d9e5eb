//! What the MCP tests share: the fixture server's path, checks on process
//! ids, and reading arguments and results. Each test binary uses part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;
use strata_mcp::StdioServerConfig;

/// The fixture server: see [`strata_testkit::mcp_fixture::path`].
pub fn fixture() -> PathBuf {
    strata_testkit::mcp_fixture::path()
}

/// A config that starts the fixture with `args`.
pub fn fixture_config(name: &str, args: &[&str]) -> StdioServerConfig {
    let fixture = fixture();
    let mut config =
        StdioServerConfig::new(name, fixture.to_str().expect("a UTF-8 target path"), args);
    config.startup_timeout = Duration::from_secs(10);
    config
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// Whether `pid` has exited. An orphan that exited is reparented to init and
/// waits there for init to reap it; some container inits never do, so an
/// exited orphan (a zombie) counts as gone. Use [`is_reaped`] for Strata's
/// own children.
pub fn has_exited(pid: i32) -> bool {
    match kill(Pid::from_raw(pid), None) {
        Err(Errno::ESRCH) => true,
        Ok(()) => is_zombie(pid),
        Err(_) => false,
    }
}

/// Whether `pid` no longer exists at all: exited and reaped.
pub fn is_reaped(pid: i32) -> bool {
    kill(Pid::from_raw(pid), None) == Err(Errno::ESRCH)
}

/// Waits up to `limit` for `done`, letting the runtime run meanwhile.
pub async fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A JSON object as a call's arguments.
pub fn arguments(value: serde_json::Value) -> Option<serde_json::Map<String, serde_json::Value>> {
    value.as_object().cloned()
}

/// The text blocks of a result, joined.
pub fn text_of(result: &strata_mcp::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect()
}
