//! The `[mcp_servers.NAME]` tables of `config.toml`, read one by one: a
//! broken table is an error that names its server and leaves the others
//! to start. Besides the launch spec (`strata_mcp::StdioServerConfig`,
//! Codex's field names), a table may say:
//!
//! ```toml
//! [mcp_servers.everything]
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-everything"]
//! enabled = false                 # kept, not started
//! approval = "auto"               # or "ask" (the default)
//! read_only_tools = ["echo"]      # may run under the read-only policy
//! ```

use std::collections::BTreeMap;

use strata_core::mcp::approval::{
    McpApprovalMode, McpApprovals, McpServerSettings, McpToolSettings,
};
use strata_mcp::StdioServerConfig;
use strata_mcp::config::is_server_name;
use strata_providers::config::McpServerTables;

/// One configured server with Strata's own settings for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpServerEntry {
    pub launch: StdioServerConfig,
    pub enabled: bool,
    pub approval: McpApprovalMode,
    /// Tools (by the server's own names) the person marked read-only.
    pub read_only_tools: Vec<String>,
}

/// A table that could not be read, by server name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpConfigProblem {
    pub server: String,
    pub message: String,
}

impl std::fmt::Display for McpConfigProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MCP server {:?} in config.toml is not started: {}",
            self.server, self.message
        )
    }
}

/// Every table as an entry, in name order, and the tables that could not
/// be read.
pub fn read_servers(tables: &McpServerTables) -> (Vec<McpServerEntry>, Vec<McpConfigProblem>) {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for (name, value) in &tables.0 {
        match read_server(name, value) {
            Ok(entry) => entries.push(entry),
            Err(message) => problems.push(McpConfigProblem {
                server: name.clone(),
                message,
            }),
        }
    }
    (entries, problems)
}

fn read_server(name: &str, value: &toml::Value) -> Result<McpServerEntry, String> {
    if !is_server_name(name) {
        return Err("a server name is 1 to 32 characters of A-Z, a-z, 0-9, '_' and '-'".into());
    }
    let Some(table) = value.as_table() else {
        return Err("it is not a table".into());
    };
    let mut table = table.clone();
    let enabled = match table.remove("enabled") {
        None => true,
        Some(toml::Value::Boolean(enabled)) => enabled,
        Some(_) => return Err("enabled must be true or false".into()),
    };
    let approval = match table.remove("approval") {
        None => McpApprovalMode::default(),
        Some(value) => value
            .try_into()
            .map_err(|_| "approval must be \"ask\" or \"auto\"".to_owned())?,
    };
    let read_only_tools = match table.remove("read_only_tools") {
        None => Vec::new(),
        Some(value) => value
            .try_into()
            .map_err(|_| "read_only_tools must be a list of tool names".to_owned())?,
    };
    let mut launch: StdioServerConfig = toml::Value::Table(table)
        .try_into()
        .map_err(|error: toml::de::Error| error.message().to_owned())?;
    launch.name = name.to_owned();
    Ok(McpServerEntry {
        launch,
        enabled,
        approval,
        read_only_tools,
    })
}

/// The person's approval settings for `entries`, by fingerprint (a changed
/// command under an old name does not inherit them).
pub fn approvals(entries: &[McpServerEntry]) -> McpApprovals {
    let mut servers = BTreeMap::new();
    for entry in entries {
        let tools = entry
            .read_only_tools
            .iter()
            .map(|tool| {
                let settings = McpToolSettings {
                    approval: None,
                    read_only: true,
                };
                (tool.clone(), settings)
            })
            .collect();
        let settings = McpServerSettings {
            approval: entry.approval,
            tools,
        };
        servers.insert(entry.launch.fingerprint(), settings);
    }
    McpApprovals { servers }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables(text: &str) -> McpServerTables {
        let config: strata_providers::StrataConfig = toml::from_str(text).unwrap();
        config.mcp_servers
    }

    #[test]
    fn a_broken_table_is_a_named_problem_and_the_others_are_read() {
        let (entries, problems) = read_servers(&tables(
            r#"
            [mcp_servers.good]
            command = "server"
            args = ["--stdio"]
            enabled = false
            approval = "auto"
            read_only_tools = ["echo"]

            [mcp_servers.typo]
            comand = "server"

            [mcp_servers.bad-approval]
            command = "server"
            approval = "always"
            "#,
        ));
        assert_eq!(entries.len(), 1);
        let good = &entries[0];
        assert_eq!(good.launch.name, "good");
        assert_eq!(good.launch.args, ["--stdio"]);
        assert!(!good.enabled);
        assert_eq!(good.approval, McpApprovalMode::Auto);
        assert_eq!(good.read_only_tools, ["echo"]);
        let named: Vec<&str> = problems.iter().map(|p| p.server.as_str()).collect();
        assert_eq!(named, ["bad-approval", "typo"]);
        assert!(problems[1].message.contains("comand"), "{}", problems[1]);
        assert!(problems[0].to_string().contains("\"ask\" or \"auto\""));
    }

    #[test]
    fn settings_are_keyed_by_the_launch_spec_not_the_name() {
        let (entries, _) = read_servers(&tables(
            r#"
            [mcp_servers.one]
            command = "server"
            approval = "auto"
            read_only_tools = ["echo"]
            "#,
        ));
        let settings = approvals(&entries);
        let (renamed, _) = read_servers(&tables("[mcp_servers.two]\ncommand = \"server\"\n"));
        let (changed, _) = read_servers(&tables("[mcp_servers.one]\ncommand = \"other\"\n"));
        let server = &settings.servers[&renamed[0].launch.fingerprint()];
        assert_eq!(server.approval, McpApprovalMode::Auto);
        assert!(server.tools["echo"].read_only);
        assert!(
            !settings
                .servers
                .contains_key(&changed[0].launch.fingerprint())
        );
    }
}
