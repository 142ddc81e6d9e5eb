//! The confinement holds for everything the command starts, however it
//! starts it: a new session, a double fork, new namespaces.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{Sandbox, has_program, sh_quote, supported};
use strata_sandbox::SandboxMode;

/// Runs `template` with `{}` replaced by a write to `outside/escaped`, then
/// the same with a write into the workspace (so a test of the first cannot
/// pass because the construction never writes at all).
fn assert_contained(test: &str, template: &str) {
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let outside = sandbox.outside.join("escaped");
    let inside = sandbox.workspace.join("stayed");
    for (target, must_exist) in [(&outside, false), (&inside, true)] {
        let write = format!("echo x > {}", sh_quote(target));
        let ran = sandbox.run(&template.replace("{}", &write.replace('\'', r#"'"'"'"#)));
        // A background writer may still be running after `sh` returned.
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            target.exists(),
            must_exist,
            "{test}: {template} with {}: {}",
            target.display(),
            ran.output
        );
    }
}

#[test]
fn confinement_survives_setsid() {
    let test = "confinement_survives_setsid";
    if !supported(test, true) || !has_program(test, "setsid") {
        return;
    }
    assert_contained(test, "setsid -w sh -c '{}'");
}

#[test]
fn confinement_survives_a_double_fork() {
    if !supported("confinement_survives_a_double_fork", true) {
        return;
    }
    assert_contained(
        "confinement_survives_a_double_fork",
        "sh -c '(sh -c \"$0\" &)' '{}'",
    );
}

#[test]
fn confinement_survives_unshare_attempts() {
    let test = "confinement_survives_unshare_attempts";
    if !supported(test, true) || !has_program(test, "unshare") {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    for flags in ["-r", "-n", "-rn", "-rm", "-U"] {
        let target = sh_quote(&sandbox.outside.join("unshared"));
        let ran = sandbox.run(&format!("unshare {flags} sh -c 'echo x > {target}'"));
        assert!(
            !sandbox.outside.join("unshared").exists(),
            "unshare {flags}: {}",
            ran.output
        );
    }
    // Nor does a new namespace bring the network back.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    if has_program(test, "bash") {
        for flags in ["-r", "-rn", "-n"] {
            sandbox.run(&format!(
                "unshare {flags} bash -c 'echo x > /dev/tcp/127.0.0.1/{port}'"
            ));
            assert!(
                listener.accept().is_err(),
                "unshare {flags} reached the network"
            );
        }
    }
}

#[test]
fn entering_the_hosts_network_namespace_is_refused() {
    let test = "entering_the_hosts_network_namespace_is_refused";
    if !supported(test, true) || !has_program(test, "nsenter") || !has_program(test, "bash") {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let parent = std::process::id();
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    for target in ["1".to_owned(), parent.to_string()] {
        let ran = sandbox.run(&format!(
            "nsenter -t {target} -n bash -c 'echo x > /dev/tcp/127.0.0.1/{port}'"
        ));
        assert_ne!(ran.code, Some(0), "{}", ran.output);
        assert!(
            listener.accept().is_err(),
            "nsenter -t {target} reached the network"
        );
    }
}
