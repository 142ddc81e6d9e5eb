//! Reads are allowed broadly, except under the deny list.

#![allow(clippy::unwrap_used)]

mod common;

use common::{Sandbox, sh_quote, supported};
use strata_sandbox::SandboxMode;

#[test]
fn reading_a_key_under_a_denied_folder_is_refused_while_its_siblings_are_readable() {
    let test = "reading_a_key_under_a_denied_folder_is_refused_while_its_siblings_are_readable";
    if !supported(test, true) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let ran = sandbox.run("cat \"$HOME/.ssh/id_ed25519\"");
    assert_ne!(ran.code, Some(0));
    assert!(!ran.output.contains("PRIVATE KEY"), "{}", ran.output);
    let ssh = sandbox.home.join(".ssh");
    assert_eq!(
        ran.explained(&sandbox),
        vec![format!(
            "[sandbox: reading {} is refused (read deny list)]",
            ssh.display()
        )]
    );
    // Nor listed, nor copied out through the workspace.
    let ran = sandbox.run("ls \"$HOME/.ssh\"; cp \"$HOME/.ssh/id_ed25519\" stolen");
    assert!(!ran.output.contains("id_ed25519\n"), "{}", ran.output);
    assert!(!sandbox.workspace.join("stolen").exists());

    let ran = sandbox.run(&format!(
        "cat \"$HOME/.bashrc\" {} /etc/hostname >/dev/null && cat \"$HOME/.bashrc\"",
        sh_quote(&sandbox.outside.join("existing"))
    ));
    assert_eq!(ran.code, Some(0), "{}", ran.output);
    assert_eq!(ran.output, "BASHRC");
}

#[test]
fn a_denied_folder_created_after_the_sandbox_started_is_still_unreadable() {
    let test = "a_denied_folder_created_after_the_sandbox_started_is_still_unreadable";
    if !supported(test, true) {
        return;
    }
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    // ~/.aws does not exist when the rules are made; it appears while the
    // command runs, beside files that were granted one by one.
    let aws = sandbox.home.join(".aws");
    let child = sandbox.spawn(&format!(
        "sleep 0.5; cat {}/credentials; cat \"$HOME/.bashrc\"",
        sh_quote(&aws)
    ));
    std::thread::sleep(std::time::Duration::from_millis(100));
    std::fs::create_dir_all(&aws).unwrap();
    std::fs::write(aws.join("credentials"), "AWS SECRET").unwrap();
    let output = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        text,
        "BASHRC",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
