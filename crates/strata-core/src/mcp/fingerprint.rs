//! Fingerprints: what a trust decision about an MCP server or tool is keyed
//! by, so that it follows what runs rather than what it is called.
//!
//! A server's fingerprint hashes its launch spec (command, arguments,
//! working directory and the names of the variables its config sets or
//! copies), never its name: renaming a server keeps its decisions, and a
//! changed command under an old name is a new server. Variable *values* are
//! left out so a rotated token does not ask again; what a value could change
//! about what runs (`PATH`, `LD_*`, `NODE_OPTIONS`) a config cannot set.
//!
//! SHA-256, not a fast hash: a project may propose a server, and a crafted
//! collision with an approved fingerprint would be a bypass.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// What a stdio server runs, as far as trust is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerLaunch<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    pub cwd: Option<&'a str>,
    /// The variables the config sets (`env`) or copies (`env_vars`).
    pub env_names: BTreeSet<&'a str>,
}

/// A server's launch spec, hashed: `sha256:` and 64 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ServerFingerprint(String);

/// A tool's definition as listed, hashed: `sha256:` and 64 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ToolDefinitionHash(String);

impl ServerFingerprint {
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A fingerprint as written in a rule: `sha256:` and 64 lowercase hex
    /// digits; anything else is `None`.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let hex = text.strip_prefix("sha256:")?;
        let well_formed = hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        well_formed.then(|| Self(text.to_owned()))
    }
}

impl ToolDefinitionHash {
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Feeds `bytes` with its length first, so no two field sequences encode
/// the same (`["a b"]` and `["a", "b"]` differ).
fn field(hasher: &mut Sha256, bytes: &[u8]) {
    hasher.update((bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

fn finish(hasher: Sha256) -> String {
    let digest = hasher.finalize();
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in digest {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

impl ServerLaunch<'_> {
    /// The launch spec's fingerprint.
    #[must_use]
    pub fn fingerprint(&self) -> ServerFingerprint {
        let mut hasher = Sha256::new();
        field(&mut hasher, b"strata mcp stdio server v1");
        field(&mut hasher, self.command.as_bytes());
        hasher.update((self.args.len() as u64).to_le_bytes());
        for arg in self.args {
            field(&mut hasher, arg.as_bytes());
        }
        match self.cwd {
            None => hasher.update([0]),
            Some(cwd) => {
                hasher.update([1]);
                field(&mut hasher, cwd.as_bytes());
            }
        }
        hasher.update((self.env_names.len() as u64).to_le_bytes());
        for name in &self.env_names {
            field(&mut hasher, name.as_bytes());
        }
        ServerFingerprint(finish(hasher))
    }
}

#[cfg(test)]
impl ServerFingerprint {
    /// The fingerprint of a server launched as `command` alone, no
    /// arguments, folder or variables (for the crate's tests).
    pub(crate) fn of_command(command: &str) -> Self {
        ServerLaunch {
            command,
            args: &[],
            cwd: None,
            env_names: BTreeSet::new(),
        }
        .fingerprint()
    }
}

/// The hash of a tool's definition as the server listed it (name,
/// description, schemas, annotations: the whole JSON object).
#[must_use]
pub fn tool_definition_hash(definition: &Value) -> ToolDefinitionHash {
    let mut hasher = Sha256::new();
    field(&mut hasher, b"strata mcp tool definition v1");
    field(&mut hasher, definition.to_string().as_bytes());
    ToolDefinitionHash(finish(hasher))
}
