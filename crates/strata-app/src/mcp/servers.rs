//! A session run's MCP servers: started concurrently in the background when
//! the run's agent is built, offered to the model from the first round that
//! starts after a server is ready, and stopped with the run. Dropping the
//! handle stops every ready server the way the MCP stdio rules ask (stdin
//! closed, then SIGTERM, then SIGKILL of its group, always reaped) in a task
//! on the current runtime, which [`servers_stopped`] waits for; without a
//! runtime, and on an exit signal ([`strata_mcp::kill_every_server`]), the
//! groups are SIGKILLed. Nothing waits for a server to start: a slow or
//! broken one only leaves its tools out, with a warning.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use strata_core::mcp::fingerprint::{ServerFingerprint, tool_definition_hash};
use strata_core::tools::{
    CancellationToken, ExternalOutput, ExternalTool, ExternalTools, ToolHints,
};
use strata_mcp::{McpClient, SchemaDialect, ServerTools, Tool, offer_tools, result_text};
use strata_protocol::{ProviderKind, ToolCallStatus, ToolSpec};

use super::config::McpServerEntry;
use crate::manager::lock;

/// The schema dialect of the provider a session talks to.
pub fn dialect_for(kind: ProviderKind) -> SchemaDialect {
    match kind {
        ProviderKind::Anthropic => SchemaDialect::Anthropic,
        ProviderKind::OpenaiResponses | ProviderKind::OpenaiChat | ProviderKind::Demo => {
            SchemaDialect::OpenAi
        }
    }
}

/// One ready server.
struct Ready {
    client: Arc<McpClient>,
    fingerprint: ServerFingerprint,
    tools: Vec<Tool>,
}

/// The tools of the ready servers, as the registry reads them.
pub struct McpTools {
    dialect: SchemaDialect,
    /// Where each server's stderr is kept past its run (`strata mcp logs`).
    logs: std::path::PathBuf,
    ready: Mutex<BTreeMap<String, Ready>>,
    /// Set when the run ended: a server that finishes starting after it is
    /// stopped at once.
    closed: Mutex<bool>,
}

impl std::fmt::Debug for McpTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ready: Vec<String> = lock(&self.ready).keys().cloned().collect();
        f.debug_struct("McpTools").field("ready", &ready).finish()
    }
}

/// The servers of one session run. Dropping it stops them all.
#[derive(Debug)]
pub struct McpServers {
    tools: Arc<McpTools>,
    starting: Vec<tokio::task::JoinHandle<()>>,
}

impl McpServers {
    /// Starts every enabled server of `entries` in the background (on the
    /// current Tokio runtime) and returns at once.
    pub fn start(
        entries: &[McpServerEntry],
        dialect: SchemaDialect,
        logs: &std::path::Path,
    ) -> Self {
        strata_core::tools::also_on_exit_signal(strata_mcp::kill_every_server);
        let tools = Arc::new(McpTools {
            dialect,
            logs: logs.to_owned(),
            ready: Mutex::new(BTreeMap::new()),
            closed: Mutex::new(false),
        });
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no async runtime: MCP servers are not started");
            return Self {
                tools,
                starting: Vec::new(),
            };
        };
        // What a Strata killed outright left behind goes before more start.
        runtime.spawn_blocking(strata_mcp::reap_leftovers);
        let starting = entries
            .iter()
            .filter(|entry| entry.enabled)
            .map(|entry| {
                let (tools, launch) = (Arc::clone(&tools), entry.launch.clone());
                runtime.spawn(async move { start_one(&tools, &launch).await })
            })
            .collect();
        Self { tools, starting }
    }

    /// What the tool registry offers and calls.
    pub fn tools(&self) -> Arc<McpTools> {
        Arc::clone(&self.tools)
    }

    /// The pids (and process groups) of the servers ready now.
    pub fn pids(&self) -> Vec<u32> {
        lock(&self.tools.ready)
            .values()
            .map(|ready| ready.client.pid())
            .collect()
    }
}

impl Drop for McpServers {
    fn drop(&mut self) {
        *lock(&self.tools.closed) = true;
        // A server still starting is dropped with its task, which kills it.
        for task in &self.starting {
            task.abort();
        }
        let ready = std::mem::take(&mut *lock(&self.tools.ready));
        if ready.is_empty() {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let stopping = runtime.spawn(stop_gracefully(ready, self.tools.logs.clone()));
                lock(&STOPPING).push(stopping);
            }
            // No runtime to stop them on: each last handle's drop SIGKILLs
            // its group and reaps it.
            Err(_) => drop(ready),
        }
    }
}

/// The graceful stops under way, for [`servers_stopped`].
static STOPPING: Mutex<Vec<tokio::task::JoinHandle<()>>> = Mutex::new(Vec::new());

/// Stops every server of `ready` at once, each as [`McpClient::stop`] does.
async fn stop_gracefully(ready: BTreeMap<String, Ready>, logs: std::path::PathBuf) {
    let mut stops = tokio::task::JoinSet::new();
    for (server, ready) in ready {
        let logs = logs.clone();
        stops.spawn(async move {
            let pid = ready.client.pid();
            match Arc::try_unwrap(ready.client) {
                Ok(client) => {
                    let started = std::time::Instant::now();
                    let stderr = client.stderr().clone();
                    let status = client.stop().await;
                    tracing::info!(%server, pid, ?status, elapsed = ?started.elapsed(), "MCP server stopped");
                    let how = status.map_or_else(|| "not reaped".to_owned(), |status| status.to_string());
                    keep_log(&logs, &server, &format!("pid {pid} stopped: {how}"), &stderr.lines());
                }
                // A call still holds it (the run was dropped mid-call): the
                // call's end drops the last handle, which SIGKILLs the group.
                Err(shared) => drop(shared),
            }
        });
    }
    while stops.join_next().await.is_some() {}
}

/// Waits until every server whose run has ended is stopped: what a front
/// end awaits before it exits, so no server is cut off mid-stop.
pub async fn servers_stopped() {
    loop {
        let stopping = std::mem::take(&mut *lock(&STOPPING));
        if stopping.is_empty() {
            return;
        }
        for stop in stopping {
            let _ = stop.await;
        }
    }
}

/// Appends one run of `server` to its log (`strata mcp logs`); a log that
/// cannot be written is a warning, never a failed run.
pub(crate) fn keep_log(logs: &std::path::Path, server: &str, what: &str, lines: &[String]) {
    let header = format!(
        "{} {what}",
        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    if let Err(error) = strata_mcp::server_log::append_run(logs, server, &header, lines) {
        tracing::warn!(%server, %error, "cannot keep the MCP server's log");
    }
}

async fn start_one(tools: &McpTools, launch: &strata_mcp::StdioServerConfig) {
    let server = launch.name.clone();
    let client = match McpClient::start(launch).await {
        Ok(client) => client,
        Err(error) => {
            tracing::warn!(%server, %error, "MCP server did not start; its tools are not offered");
            let lines: Vec<String> = error.to_string().lines().map(str::to_owned).collect();
            keep_log(&tools.logs, &server, "did not start", &lines);
            return;
        }
    };
    let listed = match client.list_tools().await {
        Ok(listed) => listed,
        Err(error) => {
            tracing::warn!(%server, %error, "MCP server's tools could not be listed");
            client.stop().await;
            return;
        }
    };
    let offer = offer_tools(
        &[ServerTools {
            server: server.clone(),
            tools: listed.clone(),
        }],
        tools.dialect,
    );
    for left_out in &offer.quarantined {
        tracing::warn!(%server, tool = %strata_mcp::stderr::printable(&left_out.tool), reason = ?left_out.reason, "MCP tool left out: its schema cannot be sent");
    }
    if *lock(&tools.closed) {
        client.stop().await;
        return;
    }
    tracing::info!(%server, pid = client.pid(), tools = offer.offered.len(), "MCP server ready");
    let changes = client.tool_list_changes();
    let client = Arc::new(client);
    let watched = Arc::downgrade(&client);
    let ready = Ready {
        client,
        fingerprint: launch.fingerprint(),
        tools: listed,
    };
    lock(&tools.ready).insert(server.clone(), ready);
    follow_tool_list(tools, &server, &changes, &watched).await;
}

/// Lists the server's tools again at each `notifications/tools/list_changed`
/// until it stops. The new list reaches the model from the next round
/// boundary (the registry reads the tools once per round), where a changed
/// catalog is recorded. Runs in the server's start task, so the run's end
/// aborts it; it holds the client only while listing.
async fn follow_tool_list(
    tools: &McpTools,
    server: &str,
    changes: &strata_mcp::ToolListChanges,
    watched: &std::sync::Weak<McpClient>,
) {
    loop {
        changes.changed().await;
        let Some(client) = watched.upgrade() else {
            return;
        };
        match client.list_tools().await {
            Ok(listed) => {
                let mut ready = lock(&tools.ready);
                if let Some(entry) = ready
                    .get_mut(server)
                    .filter(|entry| Arc::ptr_eq(&entry.client, &client))
                {
                    tracing::info!(%server, tools = listed.len(), "MCP server's tools changed; offered from the next round");
                    entry.tools = listed;
                }
            }
            Err(error) => {
                tracing::warn!(%server, %error, "MCP server said its tools changed but could not list them");
            }
        }
    }
}

fn hints(tool: &Tool) -> ToolHints {
    let Some(annotations) = &tool.annotations else {
        return ToolHints::default();
    };
    ToolHints {
        read_only: annotations.read_only_hint,
        destructive: annotations.destructive_hint,
        idempotent: annotations.idempotent_hint,
        open_world: annotations.open_world_hint,
    }
}

impl ExternalTools for McpTools {
    fn tools(&self) -> Vec<ExternalTool> {
        let ready = lock(&self.ready);
        let listed: Vec<ServerTools> = ready
            .iter()
            .map(|(server, ready)| ServerTools {
                server: server.clone(),
                tools: ready.tools.clone(),
            })
            .collect();
        let offer = offer_tools(&listed, self.dialect);
        offer
            .offered
            .into_iter()
            .filter_map(|offered| {
                let server = ready.get(&offered.name.server)?;
                let tool = server
                    .tools
                    .iter()
                    .find(|tool| tool.name.as_ref() == offered.name.tool)?;
                let definition = serde_json::to_value(tool).unwrap_or(Value::Null);
                Some(ExternalTool {
                    spec: ToolSpec {
                        name: offered.name.name.clone(),
                        description: offered.description,
                        parameters: offered.input_schema,
                    },
                    server: offered.name.server,
                    tool: offered.name.tool,
                    fingerprint: server.fingerprint.clone(),
                    definition: tool_definition_hash(&definition),
                    hints: hints(tool),
                })
            })
            .collect()
    }

    fn call<'a>(
        &'a self,
        tool: &'a ExternalTool,
        arguments: Option<Map<String, Value>>,
        cancel: &'a CancellationToken,
    ) -> Pin<Box<dyn Future<Output = ExternalOutput> + Send + 'a>> {
        let client = lock(&self.ready)
            .get(&tool.server)
            .filter(|ready| ready.fingerprint == tool.fingerprint)
            .map(|ready| Arc::clone(&ready.client));
        Box::pin(async move {
            let Some(client) = client else {
                return ExternalOutput {
                    text: format!(
                        "MCP server {} is not running; {} cannot be called.",
                        tool.server, tool.spec.name
                    ),
                    status: ToolCallStatus::Error,
                };
            };
            match client.call_tool(&tool.tool, arguments, cancel, None).await {
                Ok(result) => {
                    let (text, is_error) = result_text(&result);
                    let status = if is_error {
                        ToolCallStatus::Error
                    } else {
                        ToolCallStatus::Success
                    };
                    ExternalOutput { text, status }
                }
                Err(strata_mcp::McpError::Cancelled { .. }) => ExternalOutput {
                    text: format!("The {} call was cancelled.", tool.spec.name),
                    status: ToolCallStatus::Cancelled,
                },
                Err(error) => ExternalOutput {
                    text: error.to_string(),
                    status: ToolCallStatus::Error,
                },
            }
        })
    }
}
