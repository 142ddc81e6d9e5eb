//! A sandbox in a fresh folder, run through the real launcher on the real
//! kernel: `root/ws` (the workspace), `root/tmp` (the session's temp
//! folder), `root/outside` (anything else), `root/home` (a fake HOME with
//! an SSH key).

#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use strata_sandbox::{SandboxMode, SandboxPolicy, SandboxSupport};

pub struct Sandbox {
    _root: tempfile::TempDir,
    pub workspace: PathBuf,
    pub temp: PathBuf,
    pub outside: PathBuf,
    pub home: PathBuf,
    pub policy: SandboxPolicy,
}

pub struct Ran {
    pub code: Option<i32>,
    pub output: String,
}

impl Ran {
    pub fn explained(&self, sandbox: &Sandbox) -> Vec<String> {
        strata_sandbox::explain_refusal(
            &sandbox.policy,
            &sandbox.workspace,
            &self.output,
            self.code,
        )
    }
}

impl Sandbox {
    pub fn new(mode: SandboxMode) -> Self {
        let root = tempfile::tempdir().unwrap();
        // The kernel sees the real path; so must the policy.
        let base = std::fs::canonicalize(root.path()).unwrap();
        let [workspace, temp, outside, home] =
            ["ws", "tmp", "outside", "home"].map(|name| base.join(name));
        for dir in [&workspace, &temp, &outside, &home.join(".ssh")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "PRIVATE KEY").unwrap();
        std::fs::write(home.join(".bashrc"), "BASHRC").unwrap();
        std::fs::write(outside.join("existing"), "OUTSIDE").unwrap();
        let mut policy = SandboxPolicy::new(mode, &workspace, &temp, Some(&home));
        policy.read_deny.push(PathBuf::from("/root/.ssh"));
        Self {
            _root: root,
            workspace,
            temp,
            outside,
            home,
            policy,
        }
    }

    pub fn with_network(mut self, network: bool) -> Self {
        self.policy.network = network;
        self
    }

    fn command(&self, command: &str) -> Command {
        let launcher = Path::new(env!("CARGO_BIN_EXE_strata-sandbox-exec"));
        let mut launch = strata_sandbox::launcher_command(launcher, &self.policy, command).unwrap();
        launch
            .current_dir(&self.workspace)
            .env("HOME", &self.home)
            .env("TMPDIR", &self.temp)
            .stdin(Stdio::null());
        launch
    }

    /// Starts `sh -c command` in the workspace through the launcher.
    pub fn spawn(&self, command: &str) -> Child {
        self.command(command)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs `sh -c command` in the workspace through the launcher.
    pub fn run(&self, command: &str) -> Ran {
        let output = self.command(command).output().unwrap();
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        Ran {
            code: output.status.code(),
            output: text,
        }
    }
}

/// Whether the kernel can give what `test` needs; prints why not.
pub fn supported(test: &str, needs_network_namespace: bool) -> bool {
    let launcher = Path::new(env!("CARGO_BIN_EXE_strata-sandbox-exec"));
    let support = SandboxSupport::probe_with(launcher).unwrap_or_default();
    let missing = if support.landlock_abi.is_none_or(|abi| abi < 3) {
        Some("Landlock ABI 3")
    } else if needs_network_namespace && !support.network_namespace {
        Some("a user and network namespace")
    } else {
        None
    };
    match missing {
        Some(what) => {
            eprintln!("SKIPPED (kernel lacks {what}): {test}");
            false
        }
        None => true,
    }
}

/// `bash` (for `/dev/tcp` and `/dev/udp`), or `None` with the test skipped.
pub fn has_program(test: &str, program: &str) -> bool {
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .output()
        .is_ok_and(|output| output.status.success());
    if !found {
        eprintln!("SKIPPED (no {program} installed): {test}");
    }
    found
}

pub fn sh_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}
