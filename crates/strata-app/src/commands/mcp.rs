//! The `mcp` commands: the person's MCP servers in config.toml, as the
//! desktop's Settings edit and try them, through the same
//! [`crate::mcp::manage`] as `strata mcp`.

use std::sync::Arc;

use strata_protocol::{
    AddMcpServer, GetMcpServerLog, ListMcpServers, McpServerListing, McpServerLog, McpServerTest,
    RemoveMcpServer, SetMcpServerEnabled, TestMcpServer,
};

use crate::App;
use crate::error::{AppResult, CommandResult, invalid_input};
use crate::mcp::manage::{self, NewMcpServer};

/// The most lines `mcp_server_log` returns.
const MAX_LOG_LINES: u32 = 2_000;

/// The most a command line given to `add_mcp_server` may hold.
const MAX_COMMAND_LINE_BYTES: usize = 8 * 1024;

impl App {
    /// `list_mcp_servers`: every configured server and every table that
    /// cannot be read (what `strata mcp list --json` prints).
    pub async fn list_mcp_servers(
        self: &Arc<Self>,
        _request: ListMcpServers,
    ) -> CommandResult<McpServerListing> {
        self.blocking(|app| manage::listing(&app.paths)).await
    }

    /// `add_mcp_server`: adds a stdio server, its command line split into
    /// words as a POSIX shell splits them (quotes and backslashes; nothing is
    /// expanded or run). Open sessions pick it up at their next turn.
    pub async fn add_mcp_server(
        self: &Arc<Self>,
        request: AddMcpServer,
    ) -> CommandResult<McpServerListing> {
        let server = new_server(&request)?;
        let name = request.name.trim().to_owned();
        self.edit_mcp(move |app| manage::add(&app.paths, &name, &server))
            .await
    }

    /// `remove_mcp_server`: takes the server's table out of config.toml.
    pub async fn remove_mcp_server(
        self: &Arc<Self>,
        request: RemoveMcpServer,
    ) -> CommandResult<McpServerListing> {
        self.edit_mcp(move |app| manage::remove(&app.paths, &request.name))
            .await
    }

    /// `set_mcp_server_enabled`: whether sessions start the server.
    pub async fn set_mcp_server_enabled(
        self: &Arc<Self>,
        request: SetMcpServerEnabled,
    ) -> CommandResult<McpServerListing> {
        self.edit_mcp(move |app| {
            manage::set_enabled(&app.paths, &request.name, request.enabled)
                .map(|(_, listing)| listing)
        })
        .await
    }

    /// `test_mcp_server`: starts the server once, enabled or not, and
    /// reports each phase (what `strata mcp test --json` prints).
    pub async fn test_mcp_server(
        self: &Arc<Self>,
        request: TestMcpServer,
    ) -> CommandResult<McpServerTest> {
        let plan = self
            .blocking(move |app| manage::plan_test(&app.paths, &request.name, app.env()))
            .await?;
        Ok(manage::test(plan).await)
    }

    /// `mcp_server_log`: the last lines of the server's kept stderr (what
    /// `strata mcp logs` prints), escaped.
    pub async fn mcp_server_log(
        self: &Arc<Self>,
        request: GetMcpServerLog,
    ) -> CommandResult<McpServerLog> {
        let count = usize::try_from(request.lines.min(MAX_LOG_LINES)).unwrap_or(0);
        self.blocking(move |app| {
            let lines = manage::log_tail(&app.paths, &request.name, count)?;
            Ok(McpServerLog {
                name: request.name,
                lines: lines
                    .iter()
                    .map(|line| strata_mcp::stderr::printable(line))
                    .collect(),
            })
        })
        .await
    }

    async fn edit_mcp<F>(self: &Arc<Self>, edit: F) -> CommandResult<McpServerListing>
    where
        F: FnOnce(&App) -> AppResult<McpServerListing> + Send + 'static,
    {
        let listing = self.blocking(edit).await?;
        // Each session starts its servers when it opens: idle ones close now,
        // running ones after their turn, so the next turn has the new list.
        self.settings_changed();
        Ok(listing)
    }
}

fn new_server(request: &AddMcpServer) -> AppResult<NewMcpServer> {
    if request.command_line.len() > MAX_COMMAND_LINE_BYTES {
        return Err(invalid_input(format!(
            "A server's command line is at most {MAX_COMMAND_LINE_BYTES} bytes."
        )));
    }
    let Some(mut words) = shlex::split(&request.command_line) else {
        return Err(invalid_input(
            "The command line has an unclosed quote or a trailing backslash.",
        ));
    };
    if words.is_empty() {
        return Err(invalid_input(
            "Type the command that starts the server, e.g. npx -y @modelcontextprotocol/server-everything stdio.",
        ));
    }
    let command = words.remove(0);
    let env_vars = request
        .env_vars
        .iter()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .collect();
    Ok(NewMcpServer {
        command,
        args: words,
        env_vars,
        approval: request.approval,
        enabled: true,
        ..NewMcpServer::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_protocol::McpApprovalMode;

    fn request(command_line: &str) -> AddMcpServer {
        AddMcpServer {
            name: "docs".into(),
            command_line: command_line.into(),
            env_vars: vec![" DOCS_TOKEN ".into(), String::new()],
            approval: McpApprovalMode::Auto,
        }
    }

    #[test]
    fn a_command_line_is_split_as_a_shell_splits_words_and_nothing_is_expanded() {
        let server = new_server(&request(r#"npx -y "my server" it\'s $HOME `id`"#)).unwrap();
        assert_eq!(server.command, "npx");
        assert_eq!(server.args, ["-y", "my server", "it's", "$HOME", "`id`"]);
        assert_eq!(server.env_vars, ["DOCS_TOKEN"]);
        assert_eq!(server.approval, McpApprovalMode::Auto);
        assert!(server.enabled);
    }

    #[test]
    fn an_empty_or_unclosed_command_line_is_refused_with_what_to_type() {
        for bad in ["", "   ", "npx 'unclosed", "npx trailing\\"] {
            assert!(new_server(&request(bad)).is_err(), "{bad:?} was accepted");
        }
        let long = "x".repeat(MAX_COMMAND_LINE_BYTES + 1);
        assert!(new_server(&request(&long)).is_err());
    }
}
