//! `run_shell` through the sandbox: confined where the mode can be had, and
//! where it cannot (no launcher, a kernel without the feature), never run
//! unconfined without the person: every command waits for them, under
//! `auto` and after "allow for this session" too.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::json;
use strata_core::tools::{
    ApprovalCheck, CancellationToken, FORCE_UNSUPPORTED_VAR, RUN_SHELL, SandboxMode,
    SessionApprovals, ShellSandbox, ToolConfig, ToolRegistry, WRITE_FILE,
};
use strata_protocol::{ApprovalDecision, ApprovalPolicy, ToolCallStatus};

/// The launcher cargo built beside this test binary's folder, if it did
/// (`cargo test --workspace` and `make test` build it).
fn built_launcher(test: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().unwrap();
    let found = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join("strata-sandbox-exec"))
        .find(|path| path.is_file());
    if found.is_none() {
        eprintln!("SKIPPED (strata-sandbox-exec not built; cargo build -p strata-sandbox): {test}");
    }
    found
}

fn sandboxed(mode: SandboxMode, launcher: &Path) -> (tempfile::TempDir, ToolRegistry) {
    sandboxed_with(ShellSandbox {
        mode,
        launcher: Some(launcher.to_path_buf()),
        ..ShellSandbox::default()
    })
}

fn sandboxed_with(sandbox: ShellSandbox) -> (tempfile::TempDir, ToolRegistry) {
    let dir = tempfile::tempdir().unwrap();
    let config = ToolConfig {
        sandbox,
        ..ToolConfig::default()
    };
    let tools = ToolRegistry::new(dir.path(), config).unwrap();
    (dir, tools)
}

async fn shell(tools: &ToolRegistry, command: &str) -> strata_core::tools::ToolOutcome {
    let call = tools
        .prepare(RUN_SHELL, &json!({ "command": command }).to_string())
        .unwrap();
    tools.execute(&call, &CancellationToken::new()).await
}

#[tokio::test]
async fn a_sandboxed_command_writes_in_the_workspace_and_is_refused_outside_with_the_rule_named() {
    let test =
        "a_sandboxed_command_writes_in_the_workspace_and_is_refused_outside_with_the_rule_named";
    let Some(launcher) = built_launcher(test) else {
        return;
    };
    let (dir, tools) = sandboxed(SandboxMode::WorkspaceWrite, &launcher);
    if let Some(reason) = tools.sandbox_unavailable() {
        eprintln!("SKIPPED ({reason}): {test}");
        return;
    }
    // The model is told what the sandbox lets it do.
    let specs = tools.specs();
    let run_shell = specs.iter().find(|spec| spec.name == RUN_SHELL).unwrap();
    assert!(
        run_shell
            .description
            .contains("in a sandbox (writes only in the workspace and $TMPDIR; no network)"),
        "{}",
        run_shell.description
    );
    assert!(
        tools
            .shell_reach()
            .starts_with("and run_shell runs in a sandbox")
    );
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped");
    let outcome = shell(
        &tools,
        &format!(
            "echo in > made && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && echo x > '{}'",
            target.display()
        ),
    )
    .await;
    assert_eq!(outcome.status, ToolCallStatus::Error, "{}", outcome.output);
    assert!(dir.path().join("made").is_file());
    assert!(!target.exists());
    assert!(outcome.output.starts_with("t\n"), "{}", outcome.output);
    assert!(
        outcome.output.contains(
            "\n[sandbox: writes outside the workspace are refused (workspace-write)]\n[exit code: 2]"
        ),
        "{}",
        outcome.output
    );
}

#[tokio::test]
async fn strata_own_files_are_unreadable_from_a_sandboxed_command() {
    let test = "strata_own_files_are_unreadable_from_a_sandboxed_command";
    let Some(launcher) = built_launcher(test) else {
        return;
    };
    let protected = tempfile::tempdir().unwrap();
    std::fs::write(protected.path().join("config.toml"), "api_key = 'sk-x'").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = ToolConfig {
        protected_paths: vec![protected.path().to_path_buf()],
        sandbox: ShellSandbox {
            mode: SandboxMode::WorkspaceWrite,
            launcher: Some(launcher),
            ..ShellSandbox::default()
        },
        ..ToolConfig::default()
    };
    let tools = ToolRegistry::new(dir.path(), config).unwrap();
    if let Some(reason) = tools.sandbox_unavailable() {
        eprintln!("SKIPPED ({reason}): {test}");
        return;
    }
    let config_file = protected.path().join("config.toml");
    let outcome = shell(&tools, &format!("cat '{}'", config_file.display())).await;
    assert!(!outcome.output.contains("sk-x"), "{}", outcome.output);
    assert!(
        outcome.output.contains("is refused (read deny list)]"),
        "{}",
        outcome.output
    );
}

/// The checks every unavailable sandbox must pass: shell waits for the
/// person under `auto` and after "allow for this session", other tools do
/// not, and what runs once allowed says it ran unconfined.
async fn assert_every_command_waits(tools: &ToolRegistry, reason_part: &str) {
    let reason = tools
        .sandbox_unavailable()
        .expect("the sandbox is unavailable");
    assert!(reason.contains(reason_part), "{reason}");
    let call = tools
        .prepare(RUN_SHELL, &json!({ "command": "echo ran" }).to_string())
        .unwrap();
    assert_eq!(call.sandbox_unavailable(), Some(reason.as_str()));

    assert!(call.needs_approval(ApprovalPolicy::Auto));
    assert!(
        tools
            .shell_reach()
            .starts_with("but run_shell has no sandbox")
    );
    let auto = SessionApprovals::new(ApprovalPolicy::Auto);
    assert!(matches!(auto.check(&call, "c1"), ApprovalCheck::Ask(_)));
    let write = tools
        .prepare(
            WRITE_FILE,
            &json!({ "path": "a", "content": "x" }).to_string(),
        )
        .unwrap();
    assert_eq!(auto.check(&write, "c2"), ApprovalCheck::Run);

    let mut ask = SessionApprovals::new(ApprovalPolicy::Ask);
    ask.resolve(&call, ApprovalDecision::AllowForSession)
        .unwrap();
    assert!(matches!(ask.check(&call, "c3"), ApprovalCheck::Ask(_)));

    let outcome = tools.execute(&call, &CancellationToken::new()).await;
    assert_eq!(outcome.status, ToolCallStatus::Success);
    assert!(
        outcome.output.contains(&format!(
            "[sandbox: {reason}; this command ran unconfined because the person allowed it]"
        )),
        "{}",
        outcome.output
    );
}

#[tokio::test]
async fn without_its_launcher_the_sandbox_makes_every_command_wait_for_the_person() {
    let (_dir, tools) = sandboxed(
        SandboxMode::WorkspaceWrite,
        Path::new("/nonexistent/strata-sandbox-exec"),
    );
    assert_every_command_waits(&tools, "the sandbox launcher failed").await;
}

/// Runs itself again with the kernel's features forced off (an environment
/// variable a test cannot set in its own process without `unsafe`).
#[tokio::test]
async fn a_kernel_without_the_sandbox_makes_every_command_wait_for_the_person() {
    let test = "a_kernel_without_the_sandbox_makes_every_command_wait_for_the_person";
    if std::env::var_os(FORCE_UNSUPPORTED_VAR).is_none() {
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--nocapture"])
            .env(FORCE_UNSUPPORTED_VAR, "1")
            .status()
            .unwrap();
        assert!(status.success());
        return;
    }
    let Some(launcher) = built_launcher(test) else {
        return;
    };
    for mode in [SandboxMode::WorkspaceWrite, SandboxMode::ReadOnly] {
        let (_dir, tools) = sandboxed(mode, &launcher);
        assert_every_command_waits(&tools, "this kernel lacks Landlock ABI 3 or later").await;
    }
    let (_dir, off) = sandboxed(SandboxMode::Off, &launcher);
    assert_eq!(off.sandbox_unavailable(), None);
}

#[tokio::test]
async fn under_an_allow_list_an_unlisted_host_is_refused_by_the_proxy_and_named_in_the_output() {
    let test =
        "under_an_allow_list_an_unlisted_host_is_refused_by_the_proxy_and_named_in_the_output";
    let Some(launcher) = built_launcher(test) else {
        return;
    };
    let has_curl = std::process::Command::new("sh")
        .args(["-c", "command -v curl"])
        .output()
        .is_ok_and(|out| out.status.success());
    if !has_curl {
        eprintln!("SKIPPED (no curl installed): {test}");
        return;
    }
    let (_dir, tools) = sandboxed_with(ShellSandbox {
        mode: SandboxMode::WorkspaceWrite,
        network: strata_protocol::SandboxNetwork::AllowList,
        allow_domains: vec!["crates.io".into()],
        launcher: Some(launcher),
        ..ShellSandbox::default()
    });
    if let Some(reason) = tools.sandbox_unavailable() {
        eprintln!("SKIPPED ({reason}): {test}");
        return;
    }
    let specs = tools.specs();
    let run_shell = specs.iter().find(|spec| spec.name == RUN_SHELL).unwrap();
    assert!(
        run_shell
            .description
            .contains("network only to the allowed domains, through the proxy"),
        "{}",
        run_shell.description
    );
    let outcome = shell(&tools, "curl -sSf https://example.com/").await;
    assert_eq!(outcome.status, ToolCallStatus::Error, "{}", outcome.output);
    assert!(
        outcome
            .output
            .contains("[sandbox: network to example.com is not on the allow-list]\n"),
        "{}",
        outcome.output
    );
    // A second command is judged on its own: the first refusal is not
    // repeated.
    let outcome = shell(&tools, "echo fine").await;
    assert!(!outcome.output.contains("allow-list"), "{}", outcome.output);
}
