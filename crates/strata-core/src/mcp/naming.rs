//! Tool names offered to the model for MCP tools: `mcp__<server>__<tool>`.
//!
//! Providers accept `[A-Za-z0-9_-]{1,64}`; server and tool names are hostile
//! strings, so every other character becomes `_`. When two distinct
//! (server, tool) pairs sanitise to the same name, or a name is longer than 64
//! bytes, it is cut and given a deterministic hash suffix of the original
//! pair. The result is sorted by name so the tools array (and with it the
//! provider's prompt cache) is stable whatever order servers answered in.

use std::collections::{BTreeMap, BTreeSet};

/// The longest tool name any provider accepts.
pub const MAX_TOOL_NAME_BYTES: usize = 64;

const PREFIX: &str = "mcp__";
const SEPARATOR: &str = "__";
/// `_` plus eight hex digits.
const SUFFIX_BYTES: usize = 9;

/// One MCP tool and the name the model sees for it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct McpToolName {
    /// The name offered to the model.
    pub name: String,
    /// The server's configured name.
    pub server: String,
    /// The tool's name as the server listed it (sent back verbatim on a call).
    pub tool: String,
}

/// Every character outside `[A-Za-z0-9_-]` becomes `_`.
#[must_use]
pub fn sanitise(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// FNV-1a, 64 bits: small, and stable across Rust versions (std's hasher is not).
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn hashed(base: &str, server: &str, tool: &str, salt: u32) -> String {
    let bytes = server
        .bytes()
        .chain([0])
        .chain(tool.bytes())
        .chain(salt.to_le_bytes());
    // Truncation is 32 bits of the hash, shown as eight hex digits.
    let suffix = fnv1a(bytes) & 0xffff_ffff;
    // `base` is ASCII after sanitising, so any byte index is a char boundary.
    let keep = base.len().min(MAX_TOOL_NAME_BYTES - SUFFIX_BYTES);
    format!("{}_{suffix:08x}", &base[..keep])
}

/// Names every (server, tool) pair: unique, at most 64 bytes, only
/// `[A-Za-z0-9_-]`, the same whatever order the pairs come in, sorted by name.
/// Duplicate pairs are named once.
#[must_use]
pub fn name_tools<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<McpToolName> {
    let pairs: BTreeSet<(&str, &str)> = pairs.into_iter().collect();
    let bases: Vec<(&str, &str, String)> = pairs
        .iter()
        .map(|&(server, tool)| {
            let base = format!("{PREFIX}{}{SEPARATOR}{}", sanitise(server), sanitise(tool));
            (server, tool, base)
        })
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, _, base) in &bases {
        *counts.entry(base.as_str()).or_default() += 1;
    }
    let plain = |base: &str| base.len() <= MAX_TOOL_NAME_BYTES && counts.get(base) == Some(&1);

    // Names that need no suffix are unique among themselves; claim them first
    // so a suffixed name can never take one.
    let mut used: BTreeSet<String> = bases
        .iter()
        .filter(|(_, _, base)| plain(base))
        .map(|(_, _, base)| base.clone())
        .collect();
    let mut named = Vec::with_capacity(bases.len());
    for (server, tool, base) in &bases {
        let name = if plain(base) {
            base.clone()
        } else {
            let mut salt = 0;
            loop {
                let candidate = hashed(base, server, tool, salt);
                if used.insert(candidate.clone()) {
                    break candidate;
                }
                salt += 1;
            }
        };
        named.push(McpToolName {
            name,
            server: (*server).to_owned(),
            tool: (*tool).to_owned(),
        });
    }
    named.sort();
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_pair_keeps_its_readable_name() {
        let named = name_tools([("everything", "echo")]);
        assert_eq!(named[0].name, "mcp__everything__echo");
        assert_eq!(named[0].tool, "echo");
    }

    #[test]
    fn hostile_characters_become_underscores_and_colliding_pairs_get_suffixes() {
        let named = name_tools([("fs", "read.file"), ("fs", "read file")]);
        assert_eq!(named.len(), 2);
        assert_ne!(named[0].name, named[1].name);
        for tool in &named {
            assert!(
                tool.name.starts_with("mcp__fs__read_file_"),
                "{}",
                tool.name
            );
        }
    }

    #[test]
    fn an_overlong_name_is_cut_to_64_bytes_with_a_suffix() {
        let long = "t".repeat(100);
        let named = name_tools([("srv", long.as_str())]);
        assert_eq!(named[0].name.len(), MAX_TOOL_NAME_BYTES);
        assert_eq!(named[0].tool, long);
    }
}
