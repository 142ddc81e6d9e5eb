//! One connected stdio server: the `initialize` handshake within the
//! startup timeout, every page of `tools/list`, and `tools/call` with an
//! idle timeout that progress resets, cancellation that reaches the server
//! as `notifications/cancelled`, and progress passed on to the caller.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientRequest, Implementation,
    InitializeRequestParams, JsonObject, PaginatedRequestParams, ProgressNotificationParam,
    ProgressToken, Request, ServerResult, Tool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::process::ServerProcess;
use crate::stderr::printable;
use crate::stdout::{StrayStdout, WatchedStdout};
use crate::{McpError, StdioServerConfig, env};

/// The most `tools/list` pages followed (a server that never stops paging
/// is an error, not a hang).
pub const MAX_TOOL_PAGES: usize = 100;
/// The longest line read from a server's stdout; longer messages are dropped.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// Lines of stderr quoted in an error.
const STDERR_TAIL_LINES: usize = 20;
/// Progress for calls not yet (or no longer) registered, kept this many deep.
const EARLY_PROGRESS: usize = 32;

/// One `notifications/progress` of a running call; the message is the
/// server's text, unescaped.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolProgress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

impl From<ProgressNotificationParam> for ToolProgress {
    fn from(param: ProgressNotificationParam) -> Self {
        Self {
            progress: param.progress,
            total: param.total,
            message: param.message,
        }
    }
}

#[derive(Debug, Default)]
struct ProgressRoutes {
    routes: HashMap<ProgressToken, mpsc::UnboundedSender<ToolProgress>>,
    /// A notification can arrive before its call is registered (the token is
    /// known only once the request is sent).
    early: VecDeque<(ProgressToken, ToolProgress)>,
}

/// The client side's handler: routes progress to the call that asked, and
/// tells whoever waits that the server's tool list changed.
#[derive(Debug, Clone, Default)]
struct ClientEvents {
    progress: Arc<Mutex<ProgressRoutes>>,
    tools_changed: ToolListChanges,
}

/// `notifications/tools/list_changed` from one server: a handle that does not
/// keep the server's client alive, so a watcher never delays its stop.
#[derive(Debug, Clone, Default)]
pub struct ToolListChanges {
    notify: Arc<tokio::sync::Notify>,
}

impl ToolListChanges {
    /// Resolves at the next notification (one sent while nobody waited is
    /// kept for the next wait).
    pub async fn changed(&self) {
        self.notify.notified().await;
    }
}

impl ClientEvents {
    fn route(&self, token: ProgressToken, sender: mpsc::UnboundedSender<ToolProgress>) {
        let mut progress = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        let early = std::mem::take(&mut progress.early);
        for (early_token, update) in early {
            if early_token == token {
                let _ = sender.send(update);
            } else {
                progress.early.push_back((early_token, update));
            }
        }
        progress.routes.insert(token, sender);
    }

    fn unroute(&self, token: &ProgressToken) {
        let mut progress = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        progress.routes.remove(token);
    }
}

impl ClientHandler for ClientEvents {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let mut progress = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        let token = params.progress_token.clone();
        match progress.routes.get(&token) {
            Some(sender) => {
                let _ = sender.send(params.into());
            }
            None => {
                if progress.early.len() == EARLY_PROGRESS {
                    progress.early.pop_front();
                }
                progress.early.push_back((token, params.into()));
            }
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.notify.notify_one();
    }

    fn get_info(&self) -> InitializeRequestParams {
        InitializeRequestParams::new(
            ClientCapabilities::default(),
            Implementation::new("strata", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// Unregisters a call's progress route however the call ends.
struct RouteGuard<'a> {
    events: &'a ClientEvents,
    token: ProgressToken,
}

impl Drop for RouteGuard<'_> {
    fn drop(&mut self) {
        self.events.unroute(&self.token);
    }
}

/// A started, initialized stdio server. Dropping it SIGKILLs its group;
/// [`McpClient::stop`] stops it gracefully.
pub struct McpClient {
    server: String,
    call_timeout: Duration,
    events: ClientEvents,
    service: Option<RunningService<RoleClient, ClientEvents>>,
    process: ServerProcess,
    stray_stdout: StrayStdout,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.server)
            .field("pid", &self.process.pid())
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// Starts the server with Strata's current environment as the parent.
    pub async fn start(config: &StdioServerConfig) -> Result<Self, McpError> {
        Self::start_with_parent_env(config, &env::current_environment()).await
    }

    /// Starts the server, its environment built from `parent`, and runs the
    /// `initialize` handshake within the config's startup timeout.
    pub async fn start_with_parent_env(
        config: &StdioServerConfig,
        parent: &std::collections::BTreeMap<String, String>,
    ) -> Result<Self, McpError> {
        let environment = env::server_environment(config, parent)?;
        let (mut process, pipes) = ServerProcess::spawn(config, &environment)?;
        let events = ClientEvents::default();
        let stray_stdout = StrayStdout::default();
        let stdout = WatchedStdout::new(pipes.stdout, stray_stdout.clone());
        let transport = AsyncRwTransport::new_client(stdout, pipes.stdin)
            .with_max_line_length(MAX_MESSAGE_BYTES);
        let handshake = events.clone().serve(transport);
        let tail = |process: &ServerProcess| process.stderr().tail(STDERR_TAIL_LINES);
        let service = match tokio::time::timeout(config.startup_timeout, handshake).await {
            Ok(Ok(service)) => service,
            Ok(Err(error)) => {
                process.stop().await;
                return Err(McpError::Handshake {
                    server: config.name.clone(),
                    reason: printable(&error.to_string()),
                    stderr_tail: tail(&process),
                });
            }
            Err(_) => {
                process.stop().await;
                return Err(McpError::StartupTimeout {
                    server: config.name.clone(),
                    timeout: config.startup_timeout,
                    stderr_tail: tail(&process),
                });
            }
        };
        Ok(Self {
            server: config.name.clone(),
            call_timeout: config.call_timeout,
            events,
            service: Some(service),
            process,
            stray_stdout,
        })
    }

    /// The server's configured name.
    #[must_use]
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The server process's pid (also its process group's id).
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The server's `notifications/tools/list_changed`, to wait on.
    #[must_use]
    pub fn tool_list_changes(&self) -> ToolListChanges {
        self.events.tools_changed.clone()
    }

    /// The server's stderr so far.
    #[must_use]
    pub fn stderr(&self) -> &crate::stderr::StderrRing {
        self.process.stderr()
    }

    /// The server process's exit status once it has exited (a crash, when
    /// the client was not stopped); `None` while it runs.
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.process.try_exit()
    }

    /// What the server printed to stdout that was not a message.
    #[must_use]
    pub fn stray_stdout(&self) -> &StrayStdout {
        &self.stray_stdout
    }

    /// The name and version the server gave in its handshake, escaped.
    #[must_use]
    pub fn server_version(&self) -> Option<(String, String)> {
        let info = self.service.as_ref()?.peer().peer_info()?;
        let implementation = info.server_info.as_ref()?;
        Some((
            printable(&implementation.name),
            printable(&implementation.version),
        ))
    }

    fn peer(&self) -> Result<&rmcp::Peer<RoleClient>, McpError> {
        match &self.service {
            Some(service) => Ok(service.peer()),
            None => Err(self.exited()),
        }
    }

    fn exited(&self) -> McpError {
        McpError::ServerExited {
            server: self.server.clone(),
            stderr_tail: self.process.stderr().tail(STDERR_TAIL_LINES),
        }
    }

    fn protocol_error(&self, error: ServiceError) -> McpError {
        match error {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => self.exited(),
            source => McpError::Protocol {
                server: self.server.clone(),
                source,
            },
        }
    }

    /// Every tool the server lists, following `nextCursor` page by page.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, McpError> {
        let peer = self.peer()?;
        let mut tools = Vec::new();
        let mut cursors = BTreeSet::new();
        let mut cursor = None;
        for _ in 0..MAX_TOOL_PAGES {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let page = peer
                .list_tools(Some(params))
                .await
                .map_err(|error| self.protocol_error(error))?;
            tools.extend(page.tools);
            match page.next_cursor {
                None => return Ok(tools),
                Some(next) => {
                    if !cursors.insert(next.clone()) {
                        return Err(McpError::RepeatedCursor {
                            server: self.server.clone(),
                        });
                    }
                    cursor = Some(next);
                }
            }
        }
        Err(McpError::TooManyPages {
            server: self.server.clone(),
            pages: MAX_TOOL_PAGES,
        })
    }

    /// Calls `tool` with `arguments`. The call fails after the config's
    /// call timeout without a result or progress; `cancel` ends it at once
    /// and tells the server (`notifications/cancelled`); each progress
    /// notification is sent to `progress`.
    pub async fn call_tool(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        cancel: &CancellationToken,
        progress: Option<mpsc::UnboundedSender<ToolProgress>>,
    ) -> Result<CallToolResult, McpError> {
        let peer = self.peer()?;
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = arguments;
        let request = ClientRequest::CallToolRequest(Request::new(params));
        // The idle timeout is kept here, not by the SDK, so that a cancelled
        // or timed-out request is ended through `RequestHandle::cancel`,
        // which also forgets the SDK's state for it.
        let mut handle = peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|error| self.protocol_error(error))?;
        let (updates, mut incoming) = mpsc::unbounded_channel();
        self.events.route(handle.progress_token.clone(), updates);
        let _route = RouteGuard {
            events: &self.events,
            token: handle.progress_token.clone(),
        };
        let idle = tokio::time::sleep(self.call_timeout);
        tokio::pin!(idle);
        let response = loop {
            tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    // The server may be gone already; the call is cancelled either way.
                    let _ = handle.cancel(Some("cancelled by the person".to_owned())).await;
                    return Err(McpError::Cancelled {
                        server: self.server.clone(),
                        tool: tool.to_owned(),
                    });
                }
                Some(update) = incoming.recv() => {
                    idle.as_mut().reset(tokio::time::Instant::now() + self.call_timeout);
                    if let Some(progress) = &progress {
                        let _ = progress.send(update);
                    }
                }
                // Progress sent before the result is passed on before it.
                response = &mut handle.rx => break response,
                () = &mut idle => {
                    let _ = handle.cancel(Some("request timeout".to_owned())).await;
                    return Err(McpError::CallTimeout {
                        server: self.server.clone(),
                        tool: tool.to_owned(),
                        timeout: self.call_timeout,
                    });
                }
            }
        };
        // The SDK handles each notification in a task of its own, so the
        // last progress can be a moment behind the result: let those tasks
        // run, then pass on what arrived. Later ones are dropped with the
        // route (the call is over).
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
        while let Ok(update) = incoming.try_recv() {
            if let Some(progress) = &progress {
                let _ = progress.send(update);
            }
        }
        // A dropped responder means the service ended: the server is gone.
        match response.unwrap_or(Err(ServiceError::TransportClosed)) {
            Ok(ServerResult::CallToolResult(result)) => Ok(result),
            Ok(_) => Err(McpError::UnexpectedResponse {
                server: self.server.clone(),
            }),
            Err(error) => Err(self.protocol_error(error)),
        }
    }

    /// Closes stdin (by closing the protocol), then stops the group: SIGTERM,
    /// SIGKILL, reaped. Returns the leader's exit status.
    pub async fn stop(mut self) -> Option<std::process::ExitStatus> {
        if let Some(service) = self.service.take() {
            // Ends the protocol's task, which drops the transport and with it
            // the server's stdin.
            let _ = service.cancel().await;
        }
        self.process.stop().await
    }
}
