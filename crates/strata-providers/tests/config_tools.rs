//! Config keys that reach the agent and its tools: `[tools]
//! allow_secret_files` opens the named secret files and nothing else, a
//! profile's own key file is refused to the tools wherever it lies, and
//! `[network] turn_deadline_ms` becomes the agent's turn deadline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;
use std::time::Duration;

use serde_json::json;
use strata_core::agent::{ApprovalBroker, DEFAULT_TURN_DEADLINE};
use strata_core::tools::{CancellationToken, READ_FILE, ToolRegistry};
use strata_core::{SessionApprovals, StrataPaths};
use strata_protocol::ApprovalPolicy;
use strata_providers::config::{ProfileFlags, ResolvedProfile, StrataConfig, load_and_resolve};
use strata_providers::{agent_parts, tool_config};

fn no_env(_: &str) -> Option<String> {
    None
}

/// Writes `text` as the config under a fresh Strata home and resolves it.
fn resolved_from(home: &Path, text: &str) -> ResolvedProfile {
    let paths = StrataPaths::under(home);
    fs::create_dir_all(&paths.config).unwrap();
    fs::write(paths.config_file(), text).unwrap();
    load_and_resolve(&paths, &ProfileFlags::default(), &no_env)
        .unwrap()
        .1
}

async fn read(tools: &ToolRegistry, path: &str) -> String {
    let arguments = json!({ "path": path }).to_string();
    match tools.prepare(READ_FILE, &arguments) {
        Ok(prepared) => {
            tools
                .execute(&prepared, &CancellationToken::new())
                .await
                .output
        }
        Err(error) => tools.error_outcome(&error).output,
    }
}

#[tokio::test]
async fn allow_secret_files_opens_only_the_named_secret_files_and_the_key_file_stays_refused() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path();
    fs::create_dir_all(ws.join("app")).unwrap();
    fs::create_dir_all(ws.join("secrets")).unwrap();
    fs::write(ws.join("app/.env"), "APP_MODE=dev\n").unwrap();
    fs::write(ws.join(".env"), "API_TOKEN=hunter2\n").unwrap();
    fs::write(ws.join("secrets/.env.production"), "DB=prod\n").unwrap();
    // A key file outside Strata's config folder, under an innocent name.
    let key_file = ws.join("provider-key.txt");
    fs::write(&key_file, "sk-from-file\n").unwrap();
    let resolved = resolved_from(
        home.path(),
        &format!(
            "default_profile = \"local\"\n\
             [profiles.local]\n\
             kind = \"openai-chat\"\n\
             model = \"m\"\n\
             base_url = \"http://127.0.0.1:9/v1\"\n\
             api_key = {{ file = {key:?} }}\n\
             context_window = 8000\n\
             max_output_tokens = 1000\n\
             [tools]\n\
             allow_secret_files = [\"app/.env\", \"./secrets/\"]\n",
            key = key_file.to_str().unwrap()
        ),
    );
    assert_eq!(resolved.api_key.as_ref().unwrap().expose(), "sk-from-file");

    let config = tool_config(&resolved, &no_env);
    assert_eq!(config.allowed_secret_files, ["app/.env", "secrets"]);
    assert!(config.protected_paths.contains(&key_file));
    let tools = ToolRegistry::new(ws, config).unwrap();

    assert_eq!(read(&tools, "app/.env").await, "APP_MODE=dev\n");
    assert_eq!(read(&tools, "secrets/.env.production").await, "DB=prod\n");
    let refused = read(&tools, ".env").await;
    assert!(refused.contains("looks like a secret file"), "{refused}");
    let refused = read(&tools, "provider-key.txt").await;
    assert!(refused.contains("belongs to Strata itself"), "{refused}");
    assert!(!refused.contains("sk-from-file"), "{refused}");
}

#[test]
fn allow_secret_files_entries_must_stay_inside_the_workspace() {
    for entry in [
        "../outside/.env",
        "/etc/.env",
        "app/../../.env",
        "\\\\host\\share",
        "./",
        "",
    ] {
        let text = format!("[tools]\nallow_secret_files = [{entry:?}]\n");
        let error = StrataConfig::parse(&text, Path::new("config.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(&format!(
                "tools.allow_secret_files: {entry:?} must be a path inside the workspace"
            )),
            "{entry}: {error}"
        );
    }
    let config = StrataConfig::parse(
        "[tools]\nallow_secret_files = [\".env.local\", \"keys/\"]\n",
        Path::new("config.toml"),
    )
    .unwrap();
    assert_eq!(config.tools.allowed_secret_files(), [".env.local", "keys"]);
}

#[test]
fn network_turn_deadline_reaches_the_agent_config() {
    let workspace = tempfile::tempdir().unwrap();
    for (text, expected) in [
        (
            "[network]\nturn_deadline_ms = 250\n",
            Duration::from_millis(250),
        ),
        ("[network]\nturn_deadline_ms = 0\n", DEFAULT_TURN_DEADLINE),
        ("", DEFAULT_TURN_DEADLINE),
    ] {
        let home = tempfile::tempdir().unwrap();
        let resolved = resolved_from(home.path(), text);
        let tools = ToolRegistry::new(workspace.path(), tool_config(&resolved, &no_env)).unwrap();
        let (parts, _events) = agent_parts(
            &resolved,
            tools,
            SessionApprovals::new(ApprovalPolicy::Ask),
            ApprovalBroker::non_interactive(),
        )
        .unwrap();
        assert_eq!(parts.config.turn_deadline, expected, "{text}");
    }
}

#[test]
fn the_readme_example_of_limits_and_tool_settings_parses() {
    let readme = include_str!("../../../README.md");
    let (_, after) = readme
        .split_once("The same file holds limits and tool settings")
        .expect("README.md documents [network] and [tools]");
    let example = after
        .split_once("```toml\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("a toml block")
        .0;
    let config = StrataConfig::parse(example, Path::new("README.md")).unwrap();
    assert_eq!(config.network.turn_deadline(), Duration::from_secs(7200));
    assert_eq!(
        config.tools.allowed_secret_files(),
        [".env.local", "secrets"]
    );
    assert_eq!(config.rules.allow, ["cargo test*", "git status"]);
    assert_eq!(config.rules.write_allow, ["src/**", "*.md"]);
}

#[test]
fn the_rules_table_reaches_the_resolved_profile_and_a_bad_pattern_is_a_config_error() {
    let home = tempfile::tempdir().unwrap();
    let resolved = resolved_from(
        home.path(),
        "[rules]
allow = [\"cargo test*\"]
deny = [\"rm*\"]
",
    );
    assert_eq!(resolved.rules.allow, ["cargo test*"]);
    assert_eq!(resolved.rules.deny, ["rm*"]);
    for (text, named) in [
        ("[rules]\nallow = [\"ls && rm x\"]\n", "ls && rm x"),
        ("[rules]\nwrite_allow = [\"../up/**\"]\n", "../up/**"),
    ] {
        let error = StrataConfig::parse(text, Path::new("config.toml"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("rules:") && error.contains(named), "{error}");
    }
}

#[test]
fn the_sandbox_network_and_its_domains_are_read_and_a_domain_that_is_none_is_an_error() {
    let config = StrataConfig::parse(
        "[tools]\nsandbox_network = \"allow-list\"\nsandbox_allow_domains = [\"crates.io\", \"*.npmjs.org\"]\n",
        Path::new("config.toml"),
    )
    .unwrap();
    assert_eq!(
        config.tools.sandbox_network,
        Some(strata_protocol::SandboxNetwork::AllowList)
    );
    assert_eq!(
        config.tools.sandbox_allow_domains,
        ["crates.io", "*.npmjs.org"]
    );
    let error = StrataConfig::parse(
        "[tools]\nsandbox_allow_domains = [\"not a domain\"]\n",
        Path::new("config.toml"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("tools.sandbox_allow_domains: \"not a domain\" is not a domain"),
        "{error}"
    );
    assert!(
        StrataConfig::parse(
            "[tools]\nsandbox_network = \"sometimes\"\n",
            Path::new("c.toml")
        )
        .is_err()
    );
}
