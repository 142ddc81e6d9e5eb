//! The person's MCP servers for `strata mcp`: listed as the config holds
//! them, added, removed, enabled and disabled in `config.toml` (each change
//! read back the way a session reads it, so a table Strata writes always
//! starts), and started once to show what a session would get.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use strata_core::StrataPaths;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, McpApprovalMode, McpLeftOutTool, McpServerListing, McpServerProblem,
    McpServerTest, McpServerView, McpTestPhase, McpTestPhaseKind, McpTestTool, OutputKind,
    ProviderKind,
};
use strata_providers::StrataConfig;
use strata_providers::config::McpServerTables;

use super::config::{McpServerEntry, read_servers};
use crate::error::{AppResult, invalid_input, not_found};

/// Lines of a server's stderr `strata mcp test` shows.
const STDERR_TAIL_LINES: usize = 20;

/// A server to add, as `strata mcp add` gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewMcpServer {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub env_vars: Vec<String>,
    pub cwd: Option<PathBuf>,
    pub approval: McpApprovalMode,
    pub enabled: bool,
    pub startup_timeout_sec: Option<u64>,
    pub tool_timeout_sec: Option<u64>,
}

impl NewMcpServer {
    /// The `[mcp_servers.NAME]` table that starts this server.
    pub(crate) fn table(&self) -> toml::Table {
        let strings = |values: &[String]| {
            toml::Value::Array(values.iter().cloned().map(toml::Value::String).collect())
        };
        let mut table = toml::Table::new();
        table.insert("command".into(), self.command.clone().into());
        if !self.args.is_empty() {
            table.insert("args".into(), strings(&self.args));
        }
        if !self.env.is_empty() {
            let env = self
                .env
                .iter()
                .map(|(name, value)| (name.clone(), toml::Value::String(value.clone())))
                .collect();
            table.insert("env".into(), toml::Value::Table(env));
        }
        if !self.env_vars.is_empty() {
            table.insert("env_vars".into(), strings(&self.env_vars));
        }
        if let Some(cwd) = &self.cwd {
            table.insert("cwd".into(), cwd.to_string_lossy().into_owned().into());
        }
        for (key, seconds) in [
            ("startup_timeout_sec", self.startup_timeout_sec),
            ("tool_timeout_sec", self.tool_timeout_sec),
        ] {
            if let Some(seconds) = seconds {
                let seconds = i64::try_from(seconds).unwrap_or(i64::MAX);
                table.insert(key.into(), toml::Value::Integer(seconds));
            }
        }
        if !self.enabled {
            table.insert("enabled".into(), false.into());
        }
        if self.approval != McpApprovalMode::default() {
            table.insert("approval".into(), self.approval.to_string().into());
        }
        table
    }
}

/// Every configured server and every table that could not be read.
pub fn listing(paths: &StrataPaths) -> AppResult<McpServerListing> {
    let path = paths.config_file();
    let config = StrataConfig::load(&path)?;
    Ok(listing_of(&config.mcp_servers, &path))
}

fn listing_of(tables: &McpServerTables, path: &std::path::Path) -> McpServerListing {
    let (entries, problems) = read_servers(tables);
    McpServerListing {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::McpServers,
        config: path.display().to_string(),
        servers: entries.iter().map(view).collect(),
        problems: problems
            .into_iter()
            .map(|problem| McpServerProblem {
                name: problem.server,
                message: problem.message,
            })
            .collect(),
    }
}

fn view(entry: &McpServerEntry) -> McpServerView {
    let launch = &entry.launch;
    McpServerView {
        name: launch.name.clone(),
        enabled: entry.enabled,
        command: launch.command.clone(),
        args: launch.args.clone(),
        cwd: launch.cwd.as_ref().map(|cwd| cwd.display().to_string()),
        env: launch.env.keys().cloned().collect(),
        env_vars: launch.env_vars.clone(),
        approval: entry.approval,
        read_only_tools: entry.read_only_tools.clone(),
        startup_timeout_ms: millis(launch.startup_timeout),
        tool_timeout_ms: millis(launch.call_timeout),
        fingerprint: launch.fingerprint().as_str().to_owned(),
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Adds `name`. Refused, nothing written, when a server of that name is
/// configured or the table would not start (a name out of
/// `[A-Za-z0-9_-]{1,32}`, a bad timeout, …).
pub fn add(paths: &StrataPaths, name: &str, server: &NewMcpServer) -> AppResult<McpServerListing> {
    if server.command.trim().is_empty() {
        return Err(invalid_input("An MCP server needs a command to start it."));
    }
    let path = paths.config_file();
    let mut config = StrataConfig::load(&path)?;
    if config.mcp_servers.0.contains_key(name) {
        return Err(invalid_input(format!(
            "An MCP server named {name:?} is configured already; remove it first or pick another name."
        )));
    }
    let table = server.table();
    if let Err(reason) = check_table(name, &table) {
        return Err(invalid_input(format!(
            "MCP server {name:?} was not added: {reason}"
        )));
    }
    config
        .mcp_servers
        .0
        .insert(name.to_owned(), toml::Value::Table(table));
    config.save(&path)?;
    Ok(listing_of(&config.mcp_servers, &path))
}

/// Whether `table` under `name` is a server a session would start (read
/// back the way a session reads it); the reason when it is not.
pub(crate) fn check_table(name: &str, table: &toml::Table) -> Result<(), String> {
    let mut alone = McpServerTables::default();
    alone
        .0
        .insert(name.to_owned(), toml::Value::Table(table.clone()));
    match read_servers(&alone).1.into_iter().next() {
        Some(problem) => Err(problem.message),
        None => Ok(()),
    }
}

/// Removes `name`'s table; `not_found` when there is none.
pub fn remove(paths: &StrataPaths, name: &str) -> AppResult<McpServerListing> {
    let path = paths.config_file();
    let mut config = StrataConfig::load(&path)?;
    if config.mcp_servers.0.remove(name).is_none() {
        return Err(no_such_server(name));
    }
    config.save(&path)?;
    Ok(listing_of(&config.mcp_servers, &path))
}

/// Sets `name`'s `enabled` (removing the key when it is the default, true).
/// Returns whether anything changed.
pub fn set_enabled(
    paths: &StrataPaths,
    name: &str,
    enabled: bool,
) -> AppResult<(bool, McpServerListing)> {
    let path = paths.config_file();
    let mut config = StrataConfig::load(&path)?;
    let Some(value) = config.mcp_servers.0.get_mut(name) else {
        return Err(no_such_server(name));
    };
    let Some(table) = value.as_table_mut() else {
        return Err(invalid_input(format!(
            "[mcp_servers.{name}] in config.toml is not a table; fix it by hand."
        )));
    };
    let was = table
        .get("enabled")
        .is_none_or(|value| value.as_bool() != Some(false));
    if enabled {
        table.remove("enabled");
    } else {
        table.insert("enabled".into(), false.into());
    }
    let changed = was != enabled;
    if changed {
        config.save(&path)?;
    }
    Ok((changed, listing_of(&config.mcp_servers, &path)))
}

fn no_such_server(name: &str) -> crate::error::AppError {
    not_found(format!(
        "No MCP server named {name:?} is configured (`strata mcp list` shows them)."
    ))
}

/// The configured server `name`, whether or not it is enabled.
fn entry(paths: &StrataPaths, name: &str) -> AppResult<McpServerEntry> {
    let config = StrataConfig::load(&paths.config_file())?;
    let (entries, problems) = read_servers(&config.mcp_servers);
    if let Some(problem) = problems.into_iter().find(|problem| problem.server == name) {
        return Err(invalid_input(problem.to_string()));
    }
    entries
        .into_iter()
        .find(|entry| entry.launch.name == name)
        .ok_or_else(|| no_such_server(name))
}

/// What starts each run in a server's log (`strata mcp logs`).
pub use strata_mcp::server_log::RUN_HEADER as LOG_RUN_HEADER;

/// The last `count` lines of the server's log, as it wrote them (raw: the
/// caller escapes them); empty when none was kept yet.
pub fn log_tail(paths: &StrataPaths, name: &str, count: usize) -> AppResult<Vec<String>> {
    strata_mcp::server_log::tail(&paths.logs, name, count)
        .map_err(|error| crate::error::io(format!("Cannot read the log of {name}: {error}")))
}

/// The configured server `name` as `strata mcp get` shows it.
pub fn get(paths: &StrataPaths, name: &str) -> AppResult<McpServerView> {
    Ok(view(&entry(paths, name)?))
}

/// What [`test`] starts and how it counts: the configured server `name`
/// (enabled or not) and the default profile's token estimator.
pub struct McpTestPlan {
    entry: McpServerEntry,
    /// The default profile's provider: the schema dialect tools are fitted to.
    kind: ProviderKind,
    /// Where the server's log is kept.
    logs: std::path::PathBuf,
    estimator: std::sync::Arc<dyn strata_core::compaction::TokenEstimator>,
}

/// Reads the config for [`test`] (blocking: the config file).
pub fn plan_test(
    paths: &StrataPaths,
    name: &str,
    env: strata_providers::config::EnvLookup<'_>,
) -> AppResult<McpTestPlan> {
    let entry = entry(paths, name)?;
    strata_mcp::reap_leftovers();
    let config = StrataConfig::load(&paths.config_file())?;
    // Counted as the default profile's model would count them.
    let (kind, model) =
        strata_providers::config::resolve_profile(&config, &Default::default(), env)
            .map_or((ProviderKind::OpenaiResponses, String::new()), |profile| {
                (profile.kind, profile.model)
            });
    Ok(McpTestPlan {
        entry,
        kind,
        logs: paths.logs.clone(),
        estimator: strata_providers::estimator_for(kind, &model),
    })
}

/// Starts the planned server once, lists its tools as a session on the
/// default profile would be offered them, and stops it: each phase timed,
/// each definition's tokens counted, the stderr's tail kept. A server that
/// fails a phase is a report with `ok: false`.
pub async fn test(plan: McpTestPlan) -> McpServerTest {
    let McpTestPlan {
        entry,
        kind,
        logs,
        estimator,
    } = plan;
    let name = entry.launch.name.clone();
    let mut report = McpServerTest {
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::McpTest,
        server: name.clone(),
        ok: false,
        phases: Vec::new(),
        server_info: None,
        tools: Vec::new(),
        left_out: Vec::new(),
        estimator: estimator.name().to_owned(),
        definition_tokens: 0,
        stderr_tail: Vec::new(),
        stray_stdout_lines: 0,
        error: None,
    };
    let started = Instant::now();
    let client = match strata_mcp::McpClient::start(&entry.launch).await {
        Ok(client) => client,
        Err(error) => {
            let lines: Vec<String> = error.to_string().lines().map(str::to_owned).collect();
            super::servers::keep_log(&logs, &name, "tested: did not start", &lines);
            report.error = Some(error.to_string());
            return report;
        }
    };
    report
        .phases
        .push(phase(McpTestPhaseKind::Initialize, started));
    report.server_info = client
        .server_version()
        .map(|(name, version)| format!("{name} {version}"));
    let listing = Instant::now();
    match client.list_tools().await {
        Ok(tools) => {
            report
                .phases
                .push(phase(McpTestPhaseKind::ListTools, listing));
            let offer = strata_mcp::offer_tools(
                &[strata_mcp::ServerTools {
                    server: name.to_owned(),
                    tools,
                }],
                super::dialect_for(kind),
            );
            for offered in offer.offered {
                let definition = serde_json::json!({
                    "name": offered.name.name,
                    "description": offered.description,
                    "parameters": offered.input_schema,
                });
                let tokens = estimator.count(&definition.to_string());
                report.definition_tokens += tokens;
                report.tools.push(McpTestTool {
                    name: offered.name.name,
                    tool: strata_mcp::stderr::printable(&offered.name.tool),
                    description: strata_mcp::stderr::printable(&offered.description),
                    tokens,
                });
            }
            report.left_out = offer
                .quarantined
                .into_iter()
                .map(|left_out| McpLeftOutTool {
                    tool: strata_mcp::stderr::printable(&left_out.tool),
                    reason: format!("{:?}", left_out.reason),
                })
                .collect();
            report.ok = true;
        }
        Err(error) => report.error = Some(error.to_string()),
    }
    let stderr = client.stderr().clone();
    let lines = stderr.lines();
    report.stderr_tail = lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..]
        .iter()
        .map(|line| strata_mcp::stderr::printable(line))
        .collect();
    report.stray_stdout_lines = client.stray_stdout().count();
    let stopping = Instant::now();
    let pid = client.pid();
    client.stop().await;
    report.phases.push(phase(McpTestPhaseKind::Stop, stopping));
    let what = format!(
        "pid {pid} tested: {}",
        if report.ok { "ready" } else { "failed" }
    );
    super::servers::keep_log(&logs, &name, &what, &stderr.lines());
    report
}

fn phase(phase: McpTestPhaseKind, since: Instant) -> McpTestPhase {
    McpTestPhase {
        phase,
        millis: millis(since.elapsed()),
    }
}
