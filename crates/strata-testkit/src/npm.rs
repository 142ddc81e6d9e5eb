//! The real npm MCP servers the tests start, installed by
//! `scripts/mcp-npm-servers.sh` (pinned in `crates/strata-mcp/tests/npm`)
//! into `$STRATA_NPM_CACHE`, by default `~/.cache/strata/npm`. A test asks
//! with [`needs_everything`] and returns on `None`: it printed
//! `SKIPPED (no npm MCP server): <test>: <why>` (counted by
//! `scripts/cargo-tests.sh`), or panicked under `CI=true`.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use crate::SKIP_LOG_VAR;

/// The reference server.
pub const EVERYTHING: &str = "@modelcontextprotocol/server-everything";
/// How a skip line starts.
pub const SKIP_PREFIX: &str = "SKIPPED (no npm MCP server): ";

/// Where the servers are installed.
pub fn npm_cache() -> PathBuf {
    match std::env::var_os("STRATA_NPM_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/strata/npm")
        }
    }
}

/// The string value of `"key": "value"` in a package.json (enough for
/// npm's own flat manifests).
fn string_field(json: &str, key: &str) -> Option<String> {
    let at = json.find(&format!("\"{key}\""))? + key.len() + 2;
    let rest = json[at..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_owned())
}

/// The entry point of server-everything, or why it cannot run here.
pub fn everything_server() -> Result<PathBuf, String> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|output| output.status.success()) {
        return Err("node is not installed".into());
    }
    let pinned = crate::workspace_root().join("crates/strata-mcp/tests/npm/package.json");
    let pinned = std::fs::read_to_string(&pinned)
        .ok()
        .and_then(|text| string_field(&text, EVERYTHING))
        .ok_or_else(|| format!("{} names no {EVERYTHING} version", pinned.display()))?;
    let package = npm_cache().join("node_modules").join(EVERYTHING);
    let installed = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|text| string_field(&text, "version"));
    match installed {
        Some(version) if version == pinned => Ok(package.join("dist/index.js")),
        Some(version) => Err(format!(
            "{EVERYTHING} {version} is installed in {}, not the pinned {pinned}; run scripts/mcp-npm-servers.sh",
            npm_cache().display()
        )),
        None => Err(format!(
            "{EVERYTHING} is not installed in {}; run scripts/mcp-npm-servers.sh",
            npm_cache().display()
        )),
    }
}

/// server-everything's entry point for `test`; `None` after saying why it
/// skips (a panic under `CI=true`).
pub fn needs_everything(test: &str) -> Option<PathBuf> {
    match everything_server() {
        Ok(entry) => Some(entry),
        Err(reason) if std::env::var("CI").is_ok_and(|ci| ci == "true") => {
            panic!("{test}: {reason} (CI=true: the npm MCP servers must be installed)")
        }
        Err(reason) => {
            let line = format!("{SKIP_PREFIX}{test}: {reason}\n");
            let _ = std::io::stderr().write_all(line.as_bytes());
            if let Some(log) = std::env::var_os(SKIP_LOG_VAR) {
                let _ = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
                    .and_then(|mut file| file.write_all(line.as_bytes()));
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_field_is_read_and_a_missing_one_is_none() {
        let manifest =
            r#"{"name": "x", "version" : "2026.1.2", "dependencies": {"@a/b": "1.0.0"}}"#;
        assert_eq!(
            string_field(manifest, "version").as_deref(),
            Some("2026.1.2")
        );
        assert_eq!(string_field(manifest, "@a/b").as_deref(), Some("1.0.0"));
        assert_eq!(string_field(manifest, "missing"), None);
    }
}
