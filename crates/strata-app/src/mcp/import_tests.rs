use super::*;

#[test]
fn an_mcp_json_file_gives_its_stdio_servers_and_names_why_it_leaves_the_others() {
    let found = from_mcp_json(
        r#"{
          "mcpServers": {
            "github": {"command": "npx", "args": ["-y", "github-mcp"], "env": {"GITHUB_TOKEN": "ghp_x"}},
            "typed": {"type": "stdio", "command": "docs-server", "cwd": "/srv/docs"},
            "remote": {"type": "http", "url": "https://mcp.example.com/mcp"},
            "bare-url": {"url": "https://mcp.example.com/sse"},
            "odd": {"type": "websocket", "command": "x"},
            "empty": {}
          },
          "otherKey": true
        }"#,
    )
    .unwrap();
    let by_name: BTreeMap<&str, &Result<toml::Table, String>> =
        found.iter().map(|f| (f.name.as_str(), &f.server)).collect();
    let github = by_name["github"].as_ref().unwrap();
    assert_eq!(github["command"].as_str(), Some("npx"));
    assert_eq!(github["env"]["GITHUB_TOKEN"].as_str(), Some("ghp_x"));
    let typed = by_name["typed"].as_ref().unwrap();
    assert_eq!(typed["cwd"].as_str(), Some("/srv/docs"));
    for http in ["remote", "bare-url"] {
        assert!(
            by_name[http]
                .as_ref()
                .unwrap_err()
                .contains("stdio servers only")
        );
    }
    assert!(by_name["odd"].as_ref().unwrap_err().contains("websocket"));
    assert!(
        by_name["empty"]
            .as_ref()
            .unwrap_err()
            .contains("no command")
    );
    assert!(from_mcp_json("[1, 2]").is_err());
    // A byte-order mark, as some editors write one.
    assert_eq!(from_mcp_json("\u{feff}{}").unwrap(), []);
}

#[test]
fn a_codex_config_gives_its_stdio_tables_and_leaves_http_and_tool_filters() {
    let found = from_codex_toml(
        r#"
        model = "gpt-5.4"
        [mcp_servers.docs]
        command = "docs-server"
        args = ["--stdio"]
        env_vars = ["DOCS_TOKEN"]
        enabled = true
        [mcp_servers.web]
        url = "https://mcp.example.com/mcp"
        [mcp_servers.filtered]
        command = "x"
        enabled_tools = ["a"]
        "#,
    )
    .unwrap();
    let docs = found[0].server.as_ref().unwrap();
    assert_eq!(found[0].name, "docs");
    assert!(!docs.contains_key("enabled"), "{docs:?}");
    assert_eq!(docs["env_vars"][0].as_str(), Some("DOCS_TOKEN"));
    assert!(
        found[1]
            .server
            .as_ref()
            .unwrap_err()
            .contains("enabled_tools")
    );
    assert!(
        found[2]
            .server
            .as_ref()
            .unwrap_err()
            .contains("stdio servers only")
    );
}

fn home() -> (tempfile::TempDir, StrataPaths) {
    let dir = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(dir.path());
    (dir, paths)
}

#[test]
fn imported_servers_are_added_disabled_and_a_taken_or_bad_name_is_skipped() {
    let (dir, paths) = home();
    std::fs::create_dir_all(&paths.config).unwrap();
    std::fs::write(
        paths.config_file(),
        "[mcp_servers.docs]\ncommand = \"mine\"\n",
    )
    .unwrap();
    let claude = dir.path().join("claude_desktop_config.json");
    std::fs::write(
        &claude,
        r#"{"mcpServers": {"docs": {"command": "theirs"}, "fs": {"command": "fs-server", "args": ["/tmp"]}, "has space": {"command": "x"}}}"#,
    )
    .unwrap();
    let codex = dir.path().join("config.toml");
    std::fs::write(
        &codex,
        "[mcp_servers.search]\ncommand = \"search\"\ntool_timeout_sec = 0\n",
    )
    .unwrap();
    let missing = dir.path().join("nowhere/.mcp.json");

    let report = import(
        &paths,
        &[claude.clone(), codex.clone(), missing.clone()],
        false,
    )
    .unwrap();
    let imported: Vec<&str> = report.imported.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(imported, ["fs"]);
    let skipped: Vec<(&str, &str)> = report
        .skipped
        .iter()
        .map(|s| (s.name.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(
        skipped[0],
        ("docs", "a server of that name is configured already")
    );
    assert_eq!(skipped[1].0, "has space");
    assert!(skipped[1].1.contains("1 to 32 characters"), "{skipped:?}");
    assert_eq!(skipped[2].0, "search");
    assert!(skipped[2].1.contains("not a timeout"), "{skipped:?}");
    assert_eq!(report.unreadable.len(), 1);
    assert_eq!(report.unreadable[0].reason, "no such file");

    let listing = super::super::manage::listing(&paths).unwrap();
    let fs = listing.servers.iter().find(|s| s.name == "fs").unwrap();
    assert!(!fs.enabled);
    assert_eq!(fs.args, ["/tmp"]);
    let docs = listing.servers.iter().find(|s| s.name == "docs").unwrap();
    assert_eq!(docs.command, "mine", "an existing server is never replaced");

    // The standard places that do not exist are not an error.
    let quiet = import(&paths, &[missing], true).unwrap();
    assert!(quiet.read.is_empty() && quiet.unreadable.is_empty());
}
