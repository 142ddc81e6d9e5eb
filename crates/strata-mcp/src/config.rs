//! A stdio server's launch spec: one `[mcp_servers.NAME]` table of
//! `config.toml`, with the field names Codex uses so its configs port
//! unchanged.
//!
//! ```toml
//! [mcp_servers.docs]
//! command = "npx"
//! args = ["-y", "some-mcp-server"]
//! env = { DOCS_REGION = "eu" }
//! env_vars = ["DOCS_TOKEN"]     # copied from Strata's environment
//! cwd = "/srv/docs"
//! startup_timeout_sec = 20
//! tool_timeout_sec = 120
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use strata_core::mcp::fingerprint::{ServerFingerprint, ServerLaunch};

use crate::McpError;

/// How long a server may take to start and answer `initialize` by default.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a call may go without a result or progress by default.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest timeout a config may ask for (a day): anything longer is a typo.
const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// One stdio MCP server as configured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StdioServerConfig {
    /// The table's key; set by [`stdio_servers`], never read from the table.
    #[serde(skip)]
    pub name: String,
    /// The program, found on the allow-listed `PATH` unless absolute.
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables set for the server, besides the allow-list.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Names of variables copied from Strata's environment; a missing one is
    /// a startup error that names it.
    #[serde(default)]
    pub env_vars: Vec<String>,
    /// The server's working directory (Strata's own when absent).
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// From spawn to the end of the `initialize` handshake.
    #[serde(
        rename = "startup_timeout_sec",
        default = "default_startup_timeout",
        deserialize_with = "seconds_from_config",
        serialize_with = "seconds_to_config"
    )]
    pub startup_timeout: Duration,
    /// How long one `tools/call` may go without a result or a progress
    /// notification (progress resets it).
    #[serde(
        rename = "tool_timeout_sec",
        default = "default_call_timeout",
        deserialize_with = "seconds_from_config",
        serialize_with = "seconds_to_config"
    )]
    pub call_timeout: Duration,
}

impl StdioServerConfig {
    /// A config with the default timeouts and no environment.
    #[must_use]
    pub fn new(name: &str, command: &str, args: &[&str]) -> Self {
        Self {
            name: name.to_owned(),
            command: command.to_owned(),
            args: args.iter().map(|&arg| arg.to_owned()).collect(),
            env: BTreeMap::new(),
            env_vars: Vec::new(),
            cwd: None,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
        }
    }
}

impl StdioServerConfig {
    /// What trust decisions about this server are keyed by: its command,
    /// arguments, working directory and the names of the variables it sets
    /// or copies; not its name, not the variables' values.
    #[must_use]
    pub fn fingerprint(&self) -> ServerFingerprint {
        let cwd = self.cwd.as_ref().map(|cwd| cwd.to_string_lossy());
        ServerLaunch {
            command: &self.command,
            args: &self.args,
            cwd: cwd.as_deref(),
            env_names: self
                .env
                .keys()
                .chain(&self.env_vars)
                .map(String::as_str)
                .collect(),
        }
        .fingerprint()
    }
}

fn default_startup_timeout() -> Duration {
    DEFAULT_STARTUP_TIMEOUT
}

fn default_call_timeout() -> Duration {
    DEFAULT_CALL_TIMEOUT
}

fn seconds_from_config<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let seconds = f64::deserialize(deserializer)?;
    match Duration::try_from_secs_f64(seconds) {
        Ok(duration) if !duration.is_zero() && duration <= MAX_TIMEOUT => Ok(duration),
        _ => Err(serde::de::Error::custom(format!(
            "{seconds} is not a timeout in seconds above 0 and at most {}",
            MAX_TIMEOUT.as_secs()
        ))),
    }
}

fn seconds_to_config<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64())
}

/// Whether `name` is a server name: `[A-Za-z0-9_-]{1,32}`.
#[must_use]
pub fn is_server_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The servers of an `[mcp_servers]` table, each given its key as its name,
/// in name order; a key that is not a server name is an error.
pub fn stdio_servers(
    table: BTreeMap<String, StdioServerConfig>,
) -> Result<Vec<StdioServerConfig>, McpError> {
    table
        .into_iter()
        .map(|(name, mut server)| {
            if !is_server_name(&name) {
                return Err(McpError::InvalidServerName(name));
            }
            server.name = name;
            Ok(server)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct ConfigFile {
        mcp_servers: BTreeMap<String, StdioServerConfig>,
    }

    fn servers(text: &str) -> Result<Vec<StdioServerConfig>, String> {
        let file: ConfigFile = toml::from_str(text).map_err(|error| error.to_string())?;
        stdio_servers(file.mcp_servers).map_err(|error| error.to_string())
    }

    #[test]
    fn a_codex_style_table_parses_with_its_key_as_the_name() {
        let parsed = servers(
            r#"
            [mcp_servers.docs]
            command = "npx"
            args = ["-y", "docs-server"]
            env = { DOCS_REGION = "eu" }
            env_vars = ["DOCS_TOKEN"]
            cwd = "/srv/docs"
            startup_timeout_sec = 20
            tool_timeout_sec = 2.5

            [mcp_servers.plain]
            command = "plain-server"
            "#,
        )
        .unwrap();
        let docs = &parsed[0];
        assert_eq!(docs.name, "docs");
        assert_eq!(docs.args, ["-y", "docs-server"]);
        assert_eq!(docs.env["DOCS_REGION"], "eu");
        assert_eq!(docs.env_vars, ["DOCS_TOKEN"]);
        assert_eq!(docs.cwd.as_deref(), Some(std::path::Path::new("/srv/docs")));
        assert_eq!(docs.startup_timeout, Duration::from_secs(20));
        assert_eq!(docs.call_timeout, Duration::from_millis(2500));
        let plain = &parsed[1];
        assert_eq!(plain, &StdioServerConfig::new("plain", "plain-server", &[]));
    }

    #[test]
    fn an_unknown_field_is_an_error_that_names_it() {
        let error = servers("[mcp_servers.docs]\ncommand = \"x\"\ncomand_args = []\n").unwrap_err();
        assert!(error.contains("comand_args"), "{error}");
    }

    #[test]
    fn a_bad_server_name_or_timeout_is_refused() {
        let error = servers("[mcp_servers.\"my server\"]\ncommand = \"x\"\n").unwrap_err();
        assert!(error.contains("my server"), "{error}");
        for timeout in ["0", "-1", "1e12", "nan"] {
            let text =
                format!("[mcp_servers.docs]\ncommand = \"x\"\ntool_timeout_sec = {timeout}\n");
            assert!(servers(&text).is_err(), "{timeout} was accepted");
        }
    }

    #[test]
    fn the_fingerprint_follows_the_launch_spec_not_the_name_or_the_values() {
        let mut docs = StdioServerConfig::new("docs", "npx", &["-y", "docs-server"]);
        docs.env.insert("DOCS_TOKEN".into(), "one".into());
        let mut renamed = docs.clone();
        renamed.name = "documentation".into();
        renamed.env.insert("DOCS_TOKEN".into(), "rotated".into());
        assert_eq!(docs.fingerprint(), renamed.fingerprint());

        let mut changed = docs.clone();
        changed.args.push("--and-more".into());
        assert_ne!(docs.fingerprint(), changed.fingerprint());
        let mut copies_more = docs.clone();
        copies_more.env_vars.push("AWS_SECRET_ACCESS_KEY".into());
        assert_ne!(docs.fingerprint(), copies_more.fingerprint());
        let mut elsewhere = docs.clone();
        elsewhere.cwd = Some("/tmp/other".into());
        assert_ne!(docs.fingerprint(), elsewhere.fingerprint());
    }

    #[test]
    fn server_names_are_short_and_plain() {
        assert!(is_server_name("github-issues_2"));
        assert!(!is_server_name(""));
        assert!(!is_server_name(&"a".repeat(33)));
        assert!(!is_server_name("docs.v2"));
        assert!(!is_server_name("dócs"));
    }
}
