//! Under `workspace-write` a command writes inside the workspace and the
//! session's temp folder, and nowhere else, however it names the place.

#![allow(clippy::unwrap_used)]

mod common;

use common::{Sandbox, sh_quote, supported};
use strata_sandbox::SandboxMode;

const OUTSIDE_RULE: &str = "[sandbox: writes outside the workspace are refused (workspace-write)]";

#[test]
fn writes_inside_the_workspace_and_the_session_temp_folder_work() {
    if !supported(
        "writes_inside_the_workspace_and_the_session_temp_folder_work",
        true,
    ) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let ran = sandbox.run(&format!(
        "mkdir -p sub && echo in > sub/f && mv sub/f g && echo t > {}/t && : > /dev/null && cat g",
        sh_quote(&sandbox.temp)
    ));
    assert_eq!(ran.code, Some(0), "{}", ran.output);
    assert_eq!(ran.output, "in\n");
    assert!(sandbox.workspace.join("g").is_file());
    assert!(sandbox.temp.join("t").is_file());
    assert!(ran.explained(&sandbox).is_empty());
}

#[test]
fn files_the_command_creates_keep_the_persons_uid() {
    if !supported("files_the_command_creates_keep_the_persons_uid", true) {
        return;
    }
    use std::os::unix::fs::MetadataExt;
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let ran = sandbox.run("echo x > mine");
    assert_eq!(ran.code, Some(0), "{}", ran.output);
    let meta = std::fs::metadata(sandbox.workspace.join("mine")).unwrap();
    let me = std::fs::metadata(&sandbox.workspace).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (me.uid(), me.gid()));
}

/// Runs `command`, which tries to create `outside/name`, and checks it
/// failed, the file is not there, and the refusal is explained.
fn assert_refused(sandbox: &Sandbox, command: &str, name: &str) {
    let ran = sandbox.run(command);
    assert_ne!(ran.code, Some(0), "{command}: {}", ran.output);
    assert!(
        !sandbox.outside.join(name).exists(),
        "{command} wrote outside: {}",
        ran.output
    );
    assert_eq!(
        ran.explained(sandbox),
        vec![OUTSIDE_RULE.to_owned()],
        "{}",
        ran.output
    );
}

#[test]
fn a_direct_write_outside_the_workspace_is_refused_and_explained() {
    if !supported(
        "a_direct_write_outside_the_workspace_is_refused_and_explained",
        true,
    ) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let target = sh_quote(&sandbox.outside.join("direct"));
    assert_refused(&sandbox, &format!("echo x > {target}"), "direct");
    assert_refused(&sandbox, &format!("touch {target}"), "direct");
    // Changing an existing file outside: writing, truncating, removing.
    let existing = sh_quote(&sandbox.outside.join("existing"));
    for command in [
        format!("echo x >> {existing}"),
        format!("truncate -s 0 {existing}"),
        format!("rm -f {existing}"),
    ] {
        let ran = sandbox.run(&command);
        assert_ne!(ran.code, Some(0), "{command}: {}", ran.output);
    }
    assert_eq!(
        std::fs::read_to_string(sandbox.outside.join("existing")).unwrap(),
        "OUTSIDE"
    );
}

#[test]
fn a_write_through_dot_dot_is_refused() {
    if !supported("a_write_through_dot_dot_is_refused", true) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    assert_refused(&sandbox, "echo x > ../outside/dotdot", "dotdot");
    assert_refused(
        &sandbox,
        "mkdir -p a && echo x > a/../../outside/dotdot",
        "dotdot",
    );
}

#[test]
fn a_write_through_a_symlink_in_the_workspace_pointing_out_is_refused() {
    if !supported(
        "a_write_through_a_symlink_in_the_workspace_pointing_out_is_refused",
        true,
    ) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    // One the repository brought, and one the command makes itself.
    std::os::unix::fs::symlink(&sandbox.outside, sandbox.workspace.join("planted")).unwrap();
    assert_refused(&sandbox, "echo x > planted/via-link", "via-link");
    let made = format!(
        "ln -s {} made && echo x > made/via-link",
        sh_quote(&sandbox.outside)
    );
    assert_refused(&sandbox, &made, "via-link");
}

#[test]
fn a_hard_link_of_an_outside_file_into_the_workspace_fails() {
    if !supported(
        "a_hard_link_of_an_outside_file_into_the_workspace_fails",
        true,
    ) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let existing = sh_quote(&sandbox.outside.join("existing"));
    let ran = sandbox.run(&format!("ln {existing} linked && echo changed > linked"));
    assert!(!sandbox.workspace.join("linked").exists() || !is_same_file(&sandbox));
    assert_eq!(
        std::fs::read_to_string(sandbox.outside.join("existing")).unwrap(),
        "OUTSIDE",
        "{}",
        ran.output
    );
    assert!(
        ran.explained(&sandbox).contains(&OUTSIDE_RULE.to_owned()),
        "{}",
        ran.output
    );
}

fn is_same_file(sandbox: &Sandbox) -> bool {
    use std::os::unix::fs::MetadataExt;
    let linked = std::fs::metadata(sandbox.workspace.join("linked")).unwrap();
    let original = std::fs::metadata(sandbox.outside.join("existing")).unwrap();
    linked.ino() == original.ino()
}

#[test]
fn a_write_through_proc_self_root_is_refused() {
    if !supported("a_write_through_proc_self_root_is_refused", true) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let target = format!("/proc/self/root{}", sandbox.outside.join("proc").display());
    assert_refused(&sandbox, &format!("echo x > '{target}'"), "proc");
}

#[test]
fn renaming_a_temp_file_to_outside_is_refused() {
    if !supported("renaming_a_temp_file_to_outside_is_refused", true) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let temp_file = sh_quote(&sandbox.temp.join("staged"));
    let target = sh_quote(&sandbox.outside.join("renamed"));
    let command = format!("echo x > {temp_file} && mv {temp_file} {target}");
    assert_refused(&sandbox, &command, "renamed");
    assert!(
        sandbox.temp.join("staged").exists(),
        "the temp file was lost"
    );
}

#[test]
fn read_only_mode_refuses_workspace_writes() {
    if !supported("read_only_mode_refuses_workspace_writes", true) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::ReadOnly);
    std::fs::write(sandbox.workspace.join("kept"), "KEPT").unwrap();
    let ran = sandbox.run("echo x > new");
    assert_ne!(ran.code, Some(0));
    assert!(!sandbox.workspace.join("new").exists());
    assert_eq!(
        ran.explained(&sandbox),
        vec!["[sandbox: writes are refused, the workspace's included (read-only)]".to_owned()]
    );
    let ran = sandbox.run("rm kept");
    assert_ne!(ran.code, Some(0));
    assert_eq!(
        std::fs::read_to_string(sandbox.workspace.join("kept")).unwrap(),
        "KEPT"
    );
    let ran = sandbox.run(&format!(
        "cat kept && echo s > {}/scratch",
        sh_quote(&sandbox.temp)
    ));
    assert_eq!(ran.code, Some(0), "{}", ran.output);
    assert_eq!(ran.output, "KEPT");
}

#[test]
fn the_launcher_runs_nothing_when_it_cannot_confine_itself() {
    let mut sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let marker = sandbox.outside.join("ran");
    sandbox.policy.workspace = sandbox.outside.join("missing-workspace");
    let ran = sandbox.run(&format!("echo x > {}", sh_quote(&marker)));
    assert_eq!(
        ran.code,
        Some(i32::from(strata_sandbox::LAUNCH_FAILED_EXIT)),
        "{}",
        ran.output
    );
    assert!(
        ran.output
            .starts_with(strata_sandbox::LAUNCHER_MESSAGE_PREFIX)
    );
    assert!(!marker.exists());
}

/// As root the usual tests cannot tell a mapped uid from root's own, so the
/// launcher is also run as `nobody`, which needs the user namespace.
#[test]
fn a_person_who_is_not_root_gets_their_own_uid_and_no_network() {
    let test = "a_person_who_is_not_root_gets_their_own_uid_and_no_network";
    if !nix::unistd::getuid().is_root() {
        eprintln!(
            "SKIPPED (not root, so files_the_command_creates_keep_the_persons_uid covers it): {test}"
        );
        return;
    }
    if !supported(test, true) || !common::has_program(test, "setpriv") {
        return;
    }
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let base = sandbox.workspace.parent().unwrap();
    std::fs::set_permissions(base, std::fs::Permissions::from_mode(0o755)).unwrap();
    let nobody = nix::unistd::Uid::from_raw(65534);
    let nogroup = nix::unistd::Gid::from_raw(65534);
    for dir in [&sandbox.workspace, &sandbox.temp] {
        nix::unistd::chown(dir.as_path(), Some(nobody), Some(nogroup)).unwrap();
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let launcher = env!("CARGO_BIN_EXE_strata-sandbox-exec");
    let command = format!(
        "echo x > mine; echo x > {}; bash -c 'echo > /dev/tcp/127.0.0.1/{port}' 2>/dev/null || echo offline",
        sh_quote(&sandbox.outside.join("escaped"))
    );
    let output = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", launcher])
        .arg(strata_sandbox::POLICY_FLAG)
        .arg(sandbox.policy.to_json().unwrap())
        .arg("--")
        .arg(&command)
        .current_dir(&sandbox.workspace)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        text,
        "offline\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(listener.accept().is_err(), "nobody reached the listener");
    let meta = std::fs::metadata(sandbox.workspace.join("mine")).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (65534, 65534));
    assert!(!sandbox.outside.join("escaped").exists());
}
