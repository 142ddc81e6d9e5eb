//! A real MCP server in a CLI test: server-everything behind `tee` (so the
//! test sees what Strata sent it) in `config.toml`, and a scripted model
//! that calls its echo tool once it is offered.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::Home;
use super::procs::groups_mentioning;
use super::server::{Reply, ResponsesServer, sse_call, sse_text};

pub const ECHO: &str = "mcp__everything__echo";
pub const MESSAGE: &str = "hello from the model";

/// Writes a config whose `everything` server is server-everything behind
/// `tee` (its input copied to the returned log), with a `sleep` in its
/// group that no closed pipe would end: only Strata stopping the group
/// does. The server's policy is `approval`.
pub fn configure(home: &Home, entry: &Path, approval: &str) -> PathBuf {
    configure_leader(home, entry, approval, "")
}

/// [`configure`], the leader (`sh`) running `then` after the server ends.
pub fn configure_leader(home: &Home, entry: &Path, approval: &str, then: &str) -> PathBuf {
    let log = home.path().join("mcp-input.log");
    let config = home.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let text = format!(
        r#"
[mcp_servers.everything]
command = "sh"
args = ["-c", "sleep 600 & tee \"$0\" | exec node \"$1\" stdio{then}", {log:?}, {entry:?}]
approval = "{approval}"
startup_timeout_sec = 30

[mcp_servers.broken]
comand = "typo"
"#,
        log = log.display().to_string(),
        entry = entry.display().to_string(),
    );
    std::fs::write(config.join("config.toml"), text).unwrap();
    log
}

pub fn offered(body: &Value, name: &str) -> bool {
    body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|tool| tool["name"] == name))
}

pub fn output_of(body: &Value, call_id: &str) -> Option<String> {
    body["input"].as_array()?.iter().find_map(|item| {
        (item["type"] == "function_call_output" && item["call_id"] == call_id)
            .then(|| item["output"].as_str().unwrap_or_default().to_owned())
    })
}

/// A model that waits for the echo tool to be offered (making harmless
/// rounds until then), calls it once, then answers. The server's process
/// groups are noted when the tool is first offered.
pub fn echo_model(marker: String, groups: Arc<Mutex<BTreeSet<i32>>>) -> ResponsesServer {
    ResponsesServer::start(move |n, body| {
        if let Some(output) = output_of(body, "call_echo") {
            return Reply::Sse(sse_text(&format!("The tool said: {output}"), 500, 8));
        }
        if offered(body, ECHO) {
            groups.lock().unwrap().extend(groups_mentioning(&marker));
            return Reply::Sse(sse_call(
                "call_echo",
                ECHO,
                &json!({"message": MESSAGE}),
                400,
                12,
            ));
        }
        // Not ready yet: the turn goes on without it.
        std::thread::sleep(Duration::from_millis(300));
        Reply::Sse(sse_call(
            &format!("call_wait_{n}"),
            "list_directory",
            &json!({}),
            300,
            8,
        ))
    })
}
