//! MCP tool patterns: `SERVER/TOOL`, with `*` for any run of characters in
//! either part (`github/search_*`, `*/delete_*`), and in allow rules the
//! launch spec they were made for (`github/search_*@sha256:…`).
//!
//! Ask and deny rules match by the server's configured name: they only
//! ask more or refuse, so a renamed server escaping one is the person's
//! own doing. An allow rule matches by the server's fingerprint instead,
//! like the per-tool settings: a renamed server keeps it, and a changed
//! command under an old name (an edited config, an imported one) does not
//! inherit it. The name before `/` stays for the person to read.

use globset::{GlobBuilder, GlobMatcher};
use strata_protocol::RuleList;

use crate::mcp::fingerprint::ServerFingerprint;

/// One MCP tool call, as the rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct McpRuleSubject<'a> {
    /// The server's configured name.
    pub server: &'a str,
    /// The tool's name as the server lists it.
    pub tool: &'a str,
    pub fingerprint: &'a ServerFingerprint,
}

/// A compiled MCP tool pattern.
#[derive(Clone, Debug)]
pub struct McpPattern {
    text: String,
    server: GlobMatcher,
    tool: GlobMatcher,
    fingerprint: Option<ServerFingerprint>,
}

impl McpPattern {
    /// Parses a pattern of `list`: an allow rule must name one server (no
    /// `*` before `/`) and the fingerprint it is bound to.
    pub fn parse(text: &str, list: RuleList) -> Result<Self, String> {
        let text = text.trim();
        let (names, fingerprint) = match text.split_once('@') {
            Some((names, fingerprint)) => {
                let parsed = ServerFingerprint::parse(fingerprint).ok_or_else(|| {
                    format!("`{text}`: after `@` comes a server fingerprint, `sha256:` and 64 hex digits")
                })?;
                (names, Some(parsed))
            }
            None => (text, None),
        };
        let Some((server, tool)) = names.split_once('/') else {
            return Err(format!(
                "`{text}`: an MCP rule is SERVER/TOOL, e.g. `github/search_*`"
            ));
        };
        for (part, what) in [(server, "server"), (tool, "tool")] {
            if part.is_empty() {
                return Err(format!("`{text}`: the {what} part is empty"));
            }
            if part
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '@')
            {
                return Err(format!(
                    "`{text}`: the {what} part holds a space, a control character or `@`"
                ));
            }
        }
        if list == RuleList::Allow {
            if server.contains('*') {
                return Err(format!(
                    "`{text}`: an MCP allow rule names one server (it is bound to that server's launch command)"
                ));
            }
            if fingerprint.is_none() {
                return Err(format!(
                    "`{text}`: an MCP allow rule is bound to the server's launch spec; add it with \
                     `strata rules add mcp-allow {names}` (or from Settings), which appends it"
                ));
            }
        }
        Ok(Self {
            text: text.to_owned(),
            server: wildcard(server)?,
            tool: wildcard(tool)?,
            fingerprint,
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The launch spec an allow rule is bound to.
    pub fn fingerprint(&self) -> Option<&ServerFingerprint> {
        self.fingerprint.as_ref()
    }

    /// Whether the rule covers `call`: by fingerprint when the rule names
    /// one (the server's name is then only a label), else by name.
    pub fn matches(&self, call: McpRuleSubject<'_>) -> bool {
        let server = match &self.fingerprint {
            Some(fingerprint) => fingerprint == call.fingerprint,
            None => self.server.is_match(call.server),
        };
        server && self.tool.is_match(call.tool)
    }
}

/// A matcher where only `*` is special (any run of characters, `/`
/// included); `?`, `[` and `{` are literal, as names may hold them.
fn wildcard(part: &str) -> Result<GlobMatcher, String> {
    let escaped: Vec<String> = part.split('*').map(globset::escape).collect();
    GlobBuilder::new(&escaped.join("*"))
        .literal_separator(false)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| format!("`{part}`: {e}"))
}

/// The rule "always allow" saves for one MCP tool: `server/tool@fingerprint`,
/// or `None` when a name holds what a pattern would read as syntax (`*`,
/// `/`, `@`, spaces, control characters) and the rule could cover more than
/// the tool asked about.
pub fn propose_mcp_rule(call: McpRuleSubject<'_>) -> Option<String> {
    let plain = |name: &str| {
        !name.is_empty()
            && !name
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '*' | '/' | '@'))
    };
    (plain(call.server) && plain(call.tool)).then(|| {
        format!(
            "{}/{}@{}",
            call.server,
            call.tool,
            call.fingerprint.as_str()
        )
    })
}

/// `pattern` with `fingerprint` appended, for an allow rule the person
/// wrote by name (`github/search_*`); a pattern that names one already is
/// returned as it is.
#[must_use]
pub fn bind_mcp_rule(pattern: &str, fingerprint: &ServerFingerprint) -> String {
    let pattern = pattern.trim();
    if pattern.contains('@') {
        pattern.to_owned()
    } else {
        format!("{pattern}@{}", fingerprint.as_str())
    }
}

/// The server name an MCP pattern starts with (`github` of
/// `github/search_*`), to find the server an allow rule is for.
#[must_use]
pub fn mcp_rule_server(pattern: &str) -> Option<&str> {
    pattern
        .trim()
        .split_once('/')
        .map(|(server, _)| server)
        .filter(|server| !server.is_empty())
}
