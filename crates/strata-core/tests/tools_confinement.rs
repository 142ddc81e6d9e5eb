//! Hostile paths against the file tools on real folders: escapes through
//! `..` after missing folders and through symlinks, FIFOs and devices,
//! secret files, Strata's own files and broad workspaces.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::json;
use strata_core::CoreError;
use strata_core::tools::{
    APPLY_EDIT, CancellationToken, LIST_DIRECTORY, OpenStrategy, READ_FILE, SEARCH_TEXT,
    ToolConfig, ToolOutcome, ToolRegistry, WRITE_FILE,
};
use strata_protocol::ToolCallStatus;

const SENTINEL: &str = "OUTSIDE-SENTINEL";

/// A workspace beside a folder outside it holding `secret.txt`, and a link
/// `link` inside pointing at that folder.
struct Scene {
    workspace: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Scene {
    fn new() -> Self {
        let workspace = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), SENTINEL).unwrap();
        symlink(outside.path(), workspace.path().join("link")).unwrap();
        Self { workspace, outside }
    }

    fn tools(&self, config: ToolConfig) -> Vec<ToolRegistry> {
        [OpenStrategy::Kernel, OpenStrategy::Walk]
            .into_iter()
            .map(|open_strategy| {
                let config = ToolConfig {
                    open_strategy,
                    ..config.clone()
                };
                ToolRegistry::new(self.workspace.path(), config).unwrap()
            })
            .collect()
    }

    fn outside_names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.outside.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Prepares and runs a call as the agent loop does under `auto`.
async fn call(tools: &ToolRegistry, name: &str, arguments: serde_json::Value) -> ToolOutcome {
    match tools.prepare(name, &arguments.to_string()) {
        Ok(prepared) => tools.execute(&prepared, &CancellationToken::new()).await,
        Err(error) => tools.error_outcome(&error),
    }
}

#[tokio::test]
async fn dot_dot_after_a_missing_folder_cannot_reach_a_linked_folder_outside() {
    let scene = Scene::new();
    for tools in scene.tools(ToolConfig::default()) {
        for (name, arguments) in [
            (READ_FILE, json!({"path": "missing/../link/secret.txt"})),
            (LIST_DIRECTORY, json!({"path": "missing/../link"})),
            (
                SEARCH_TEXT,
                json!({"pattern": "SENTINEL", "path": "missing/../link"}),
            ),
            (
                WRITE_FILE,
                json!({"path": "missing/../link/planted.txt", "content": "x"}),
            ),
            (
                APPLY_EDIT,
                json!({"path": "missing/../link/secret.txt", "old_text": "OUTSIDE", "new_text": "x"}),
            ),
        ] {
            let outcome = call(&tools, name, arguments).await;
            assert_eq!(outcome.status, ToolCallStatus::Error, "{name}");
            assert_eq!(outcome.output, "missing does not exist", "{name}");
        }
        // Searching the whole workspace does not follow the link either.
        let outcome = call(&tools, SEARCH_TEXT, json!({"pattern": "SENTINEL"})).await;
        assert!(
            outcome.output.starts_with("No matches"),
            "{}",
            outcome.output
        );
        assert!(!scene.workspace.path().join("missing").exists());
    }
    assert_eq!(scene.outside_names(), ["secret.txt"]);
    assert_eq!(
        std::fs::read_to_string(scene.outside.path().join("secret.txt")).unwrap(),
        SENTINEL
    );
}

#[tokio::test]
async fn links_out_by_every_route_are_refused_and_nothing_is_written_outside() {
    let scene = Scene::new();
    let ws = scene.workspace.path();
    std::fs::create_dir(ws.join("sub")).unwrap();
    symlink("../link", ws.join("sub/rel_out")).unwrap();
    symlink("/", ws.join("root_link")).unwrap();
    symlink(
        scene.outside.path().join("secret.txt"),
        ws.join("file_link"),
    )
    .unwrap();
    symlink(
        scene.outside.path().join("new.txt"),
        ws.join("dangling_out"),
    )
    .unwrap();
    for tools in scene.tools(ToolConfig::default()) {
        for path in [
            "link/secret.txt",
            "sub/rel_out/secret.txt",
            "sub/../link/secret.txt",
            "root_link/etc/passwd",
            "file_link",
            "dangling_out",
            "./sub/./rel_out/../rel_out/secret.txt",
        ] {
            for (name, arguments) in [
                (READ_FILE, json!({"path": path})),
                (WRITE_FILE, json!({"path": path, "content": "planted"})),
                (LIST_DIRECTORY, json!({"path": path})),
            ] {
                let outcome = call(&tools, name, arguments).await;
                assert_eq!(outcome.status, ToolCallStatus::Error, "{name} {path}");
                assert!(!outcome.output.contains(SENTINEL), "{name} {path}");
                assert!(
                    outcome.output.starts_with("path escapes the workspace"),
                    "{name} {path}: {}",
                    outcome.output
                );
            }
        }
    }
    assert_eq!(scene.outside_names(), ["secret.txt"]);
}

#[tokio::test]
async fn fifos_sockets_and_devices_are_refused_by_every_file_tool_without_blocking() {
    let scene = Scene::new();
    let ws = scene.workspace.path();
    mkfifo(&ws.join("pipe"));
    let _socket = std::os::unix::net::UnixListener::bind(ws.join("sock")).unwrap();
    // A device node needs root; the FIFO and the socket cover the rest.
    let device = std::process::Command::new("mknod")
        .arg(ws.join("zero"))
        .args(["c", "1", "5"])
        .status()
        .is_ok_and(|s| s.success());
    std::fs::write(ws.join("plain.txt"), "needle\n").unwrap();
    let mut special = vec!["pipe", "sock"];
    if device {
        special.push("zero");
    }
    for tools in scene.tools(ToolConfig::default()) {
        for path in &special {
            for (name, arguments) in [
                (READ_FILE, json!({"path": path})),
                (WRITE_FILE, json!({"path": path, "content": "x"})),
                (
                    APPLY_EDIT,
                    json!({"path": path, "old_text": "a", "new_text": "b"}),
                ),
            ] {
                let outcome = call(&tools, name, arguments).await;
                assert_eq!(
                    outcome.output,
                    format!(
                        "{path} is not a regular file (a FIFO, socket or device); only regular files are read or written"
                    ),
                    "{name}"
                );
            }
        }
        // The search walks past them and reads only the regular file.
        let outcome = call(&tools, SEARCH_TEXT, json!({"pattern": "needle|x"})).await;
        assert_eq!(outcome.output, "plain.txt:1: needle");
    }
}

#[tokio::test]
async fn secret_files_are_refused_unless_allowed_and_found_through_links() {
    let scene = Scene::new();
    let ws = scene.workspace.path();
    std::fs::write(ws.join(".env"), "API_TOKEN=hunter2\n").unwrap();
    std::fs::create_dir(ws.join(".ssh")).unwrap();
    std::fs::write(ws.join(".ssh/id_ed25519"), "PRIVATE\n").unwrap();
    std::fs::write(ws.join("server.pem"), "PRIVATE\n").unwrap();
    symlink(".env", ws.join("innocent.txt")).unwrap();
    for tools in scene.tools(ToolConfig::default()) {
        for path in [
            ".env",
            ".ssh/id_ed25519",
            "server.pem",
            "innocent.txt",
            ".ssh",
        ] {
            for (name, arguments) in [
                (READ_FILE, json!({"path": path})),
                (WRITE_FILE, json!({"path": path, "content": "x"})),
                (LIST_DIRECTORY, json!({"path": path})),
            ] {
                let outcome = call(&tools, name, arguments).await;
                assert!(
                    outcome.output.contains("looks like a secret file"),
                    "{name} {path}: {}",
                    outcome.output
                );
            }
        }
        let outcome = call(&tools, SEARCH_TEXT, json!({"pattern": "hunter2|PRIVATE"})).await;
        assert!(
            outcome.output.starts_with("No matches"),
            "{}",
            outcome.output
        );
    }
    assert_eq!(
        std::fs::read_to_string(ws.join(".env")).unwrap(),
        "API_TOKEN=hunter2\n"
    );

    let allowed = ToolConfig {
        allowed_secret_files: vec![".env".into()],
        ..ToolConfig::default()
    };
    for tools in scene.tools(allowed) {
        let outcome = call(&tools, READ_FILE, json!({"path": "innocent.txt"})).await;
        assert_eq!(outcome.output, "API_TOKEN=hunter2\n");
        let outcome = call(&tools, READ_FILE, json!({"path": "server.pem"})).await;
        assert!(outcome.output.contains("looks like a secret file"));
    }
}

#[tokio::test]
async fn strata_own_folders_inside_the_workspace_are_never_touched() {
    let scene = Scene::new();
    let ws = scene.workspace.path();
    let home = ws.join(".strata-home");
    let paths = strata_core::StrataPaths::under(&home);
    std::fs::create_dir_all(&paths.config).unwrap();
    std::fs::write(paths.config_file(), "approval = \"ask\"\n").unwrap();
    std::fs::write(paths.config.join("keys.toml"), "key = \"sk-x\"\n").unwrap();
    let config = ToolConfig {
        protected_paths: vec![
            paths.config.clone(),
            paths.sessions.clone(),
            paths.logs.clone(),
        ],
        // Even an allow-list naming them does not open Strata's own files.
        allowed_secret_files: vec![".strata-home".into()],
        ..ToolConfig::default()
    };
    symlink(".strata-home/config", ws.join("settings")).unwrap();
    for tools in scene.tools(config) {
        for path in [
            ".strata-home/config/config.toml",
            ".strata-home/config/keys.toml",
            "settings/config.toml",
            ".strata-home/sessions/new.jsonl",
        ] {
            for (name, arguments) in [
                (READ_FILE, json!({"path": path})),
                (
                    WRITE_FILE,
                    json!({"path": path, "content": "approval = \"auto\"\n"}),
                ),
                (
                    APPLY_EDIT,
                    json!({"path": path, "old_text": "ask", "new_text": "auto"}),
                ),
            ] {
                let outcome = call(&tools, name, arguments).await;
                assert!(
                    outcome.output.contains("belongs to Strata itself"),
                    "{name} {path}: {}",
                    outcome.output
                );
            }
        }
    }
    assert_eq!(
        std::fs::read_to_string(paths.config_file()).unwrap(),
        "approval = \"ask\"\n"
    );
    assert!(!paths.sessions.exists());
}

#[test]
fn a_workspace_of_the_root_or_the_home_folder_needs_a_confirmation() {
    let error = ToolRegistry::new("/", ToolConfig::default()).unwrap_err();
    assert!(matches!(error, CoreError::BroadWorkspace { .. }), "{error}");
    let confirmed = ToolConfig {
        allow_broad_workspace: true,
        ..ToolConfig::default()
    };
    assert_eq!(
        ToolRegistry::new("/", confirmed).unwrap().workspace(),
        Path::new("/")
    );
}
