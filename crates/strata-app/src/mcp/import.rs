//! `strata mcp import`: the stdio servers other tools' MCP configs name,
//! added to config.toml disabled, so nothing another tool configured starts
//! until the person enables it. Read, never written: a project's or Claude
//! Code's `.mcp.json`, Claude Desktop's `claude_desktop_config.json` (both
//! `{"mcpServers": {NAME: {command, args, env, type, url}}}`), and Codex's
//! `config.toml` (`[mcp_servers.NAME]`, the field names Strata uses too).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use strata_core::StrataPaths;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, McpImportReport, McpImportSkipped, McpImportedServer, OutputKind,
};
use strata_providers::StrataConfig;

use super::manage::{NewMcpServer, check_table};
use crate::error::AppResult;

/// The largest config file read (they are a few kilobytes).
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// One server another tool's config names, or why it cannot be imported.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub name: String,
    pub server: Result<toml::Table, String>,
}

#[derive(Deserialize)]
struct McpJson {
    #[serde(rename = "mcpServers", default)]
    servers: BTreeMap<String, McpJsonServer>,
}

/// A server of `mcpServers`; other fields (descriptions, tool filters the
/// tools add) are left alone.
#[derive(Deserialize)]
struct McpJsonServer {
    #[serde(rename = "type")]
    transport: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
}

const NOT_STDIO: &str =
    "it is reached over HTTP, and Strata runs stdio servers only so far (issue 23)";

/// The servers of an `mcpServers` JSON file.
pub fn from_mcp_json(text: &str) -> Result<Vec<Found>, String> {
    let file: McpJson = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|error| format!("not an mcpServers JSON file: {error}"))?;
    Ok(file
        .servers
        .into_iter()
        .map(|(name, server)| {
            let server = match (server.transport.as_deref(), server.command, server.url) {
                (Some("http" | "sse" | "streamable-http"), _, _) | (None, None, Some(_)) => {
                    Err(NOT_STDIO.to_owned())
                }
                (Some("stdio") | None, Some(command), _) => Ok(NewMcpServer {
                    command,
                    args: server.args,
                    env: server.env,
                    cwd: server.cwd,
                    ..NewMcpServer::default()
                }
                .table()),
                (Some(other), _, _) if other != "stdio" => {
                    Err(format!("its transport {other:?} is not one Strata knows"))
                }
                _ => Err("it names no command".to_owned()),
            };
            Found { name, server }
        })
        .collect())
}

#[derive(Deserialize)]
struct CodexConfig {
    #[serde(default)]
    mcp_servers: BTreeMap<String, toml::Value>,
}

/// The servers of a Codex `config.toml`.
pub fn from_codex_toml(text: &str) -> Result<Vec<Found>, String> {
    let file: CodexConfig =
        toml::from_str(text).map_err(|error| format!("not a Codex config.toml: {error}"))?;
    Ok(file
        .mcp_servers
        .into_iter()
        .map(|(name, value)| {
            let server = match value {
                toml::Value::Table(mut table) => {
                    // Imported servers are disabled whatever Codex said.
                    table.remove("enabled");
                    if table.contains_key("url") {
                        Err(NOT_STDIO.to_owned())
                    } else if table.contains_key("enabled_tools")
                        || table.contains_key("disabled_tools")
                    {
                        Err("it limits its tools (enabled_tools, disabled_tools), which Strata does not read yet: add it by hand without them".to_owned())
                    } else {
                        Ok(table)
                    }
                }
                _ => Err("it is not a table".to_owned()),
            };
            Found { name, server }
        })
        .collect())
}

/// Where other tools keep their MCP configs: the workspace's `.mcp.json`,
/// Claude Desktop's config, Codex's (`$CODEX_HOME`, else `~/.codex`).
pub fn standard_places(
    workspace: &Path,
    env: strata_providers::config::EnvLookup<'_>,
) -> Vec<PathBuf> {
    let mut places = vec![workspace.join(".mcp.json")];
    let home = env("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from);
    let config_home = env("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".config")));
    if let Some(config_home) = config_home {
        places.push(config_home.join("Claude/claude_desktop_config.json"));
    }
    let codex = env("CODEX_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.map(|home| home.join(".codex")));
    if let Some(codex) = codex {
        places.push(codex.join("config.toml"));
    }
    places
}

/// Reads each of `files` (missing ones are skipped silently when
/// `missing_ok`, the standard places), adds every importable server to
/// config.toml disabled, and reports what was added and what not.
pub fn import(
    paths: &StrataPaths,
    files: &[PathBuf],
    missing_ok: bool,
) -> AppResult<McpImportReport> {
    let config_path = paths.config_file();
    let mut config = StrataConfig::load(&config_path)?;
    let mut report = McpImportReport {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::McpImport,
        config: config_path.display().to_string(),
        read: Vec::new(),
        imported: Vec::new(),
        skipped: Vec::new(),
        unreadable: Vec::new(),
    };
    for file in files {
        let source = file.display().to_string();
        let unreadable = |reason: String| McpImportSkipped {
            name: source.clone(),
            source: source.clone(),
            reason,
        };
        let found = match read_config(file) {
            Ok(None) if missing_ok => continue,
            Ok(None) => Err("no such file".to_owned()),
            Ok(Some(text)) if is_toml(file) => from_codex_toml(&text),
            Ok(Some(text)) => from_mcp_json(&text),
            Err(reason) => Err(reason),
        };
        let found = match found {
            Ok(found) => found,
            Err(reason) => {
                report.unreadable.push(unreadable(reason));
                continue;
            }
        };
        report.read.push(source.clone());
        for Found { name, server } in found {
            let skip = |reason: String| McpImportSkipped {
                name: name.clone(),
                source: source.clone(),
                reason,
            };
            let outcome = server.and_then(|mut table| {
                if config.mcp_servers.0.contains_key(&name) {
                    return Err("a server of that name is configured already".to_owned());
                }
                table.insert("enabled".into(), false.into());
                check_table(&name, &table)?;
                Ok(table)
            });
            match outcome {
                Ok(table) => {
                    config
                        .mcp_servers
                        .0
                        .insert(name.clone(), toml::Value::Table(table));
                    report.imported.push(McpImportedServer {
                        name: name.clone(),
                        source: source.clone(),
                    });
                }
                Err(reason) => report.skipped.push(skip(reason)),
            }
        }
    }
    if !report.imported.is_empty() {
        config.save(&config_path)?;
    }
    Ok(report)
}

fn is_toml(file: &Path) -> bool {
    file.extension().is_some_and(|ext| ext == "toml")
}

/// A config file's text; `None` when there is none. Only regular files,
/// and only so large.
fn read_config(file: &Path) -> Result<Option<String>, String> {
    let metadata = match std::fs::metadata(file) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.to_string()),
    };
    if !metadata.is_file() {
        return Err("not a regular file".to_owned());
    }
    if metadata.len() > MAX_CONFIG_BYTES {
        return Err(format!(
            "larger than {} KiB: not a config file",
            MAX_CONFIG_BYTES / 1024
        ));
    }
    std::fs::read_to_string(file)
        .map(Some)
        .map_err(|error| error.to_string())
}

#[cfg(test)]
#[path = "import_tests.rs"]
mod tests;
