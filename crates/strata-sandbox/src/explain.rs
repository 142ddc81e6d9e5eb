//! The line that tells a sandbox refusal from a real error.
//!
//! Read from the policy and the command's output only: a failed command
//! whose output reports a permission error on a path the policy does not
//! let it write (or read), or a network failure while the network is off,
//! gains one line per rule naming it. A permission error on a path the
//! policy allows is the filesystem's own and is left alone. The lines
//! never repeat a path from the output (it is the command's text).

use std::path::{Path, PathBuf};

use crate::paths::{normalize, resolve_existing_prefix as resolve};
use crate::{SandboxMode, SandboxPolicy};

/// Phrases of the errors a refused filesystem access shows up as
/// (`EACCES`, `EPERM`, and `EXDEV` for a link or rename Landlock refused).
const PERMISSION_PHRASES: [&str; 4] = [
    "permission denied",
    "operation not permitted",
    "invalid cross-device link",
    "errno 13",
];

/// What a failed socket call is reported as, where a path would be.
const SOCKET_WORDS: [&str; 4] = ["connect", "socket", "bind", "sendto"];

/// Phrases of a network that is not there.
const NETWORK_PHRASES: [&str; 9] = [
    "network is unreachable",
    "temporary failure in name resolution",
    "could not resolve",
    "couldn't resolve",
    "name or service not known",
    "failed to resolve",
    "couldn't connect to server",
    "cannot assign requested address",
    "no address associated",
];

/// The lines to add to a command's output, in a stable order, each once;
/// empty when the command succeeded or nothing points at the sandbox.
pub fn explain_refusal(
    policy: &SandboxPolicy,
    cwd: &Path,
    output: &str,
    exit_code: Option<i32>,
) -> Vec<String> {
    if policy.mode == SandboxMode::Off || exit_code == Some(0) {
        return Vec::new();
    }
    let mut lines: Vec<String> = Vec::new();
    let mut add = |line: String| {
        if !lines.contains(&line) {
            lines.push(line);
        }
    };
    for line in output.lines() {
        let lower = line.to_lowercase();
        // With a proxy, nothing but its forwarder listens on the sandbox's
        // loopback: a refused connection is the sandbox's.
        let proxied_refusal = policy.proxy.is_some() && lower.contains("connection refused");
        if !policy.network && (proxied_refusal || NETWORK_PHRASES.iter().any(|p| lower.contains(p)))
        {
            add(network_line(policy));
            continue;
        }
        if !PERMISSION_PHRASES.iter().any(|p| lower.contains(p)) {
            continue;
        }
        let paths = path_candidates(line, &lower);
        let socket_call =
            paths.is_empty() || paths.iter().any(|p| SOCKET_WORDS.contains(&p.as_str()));
        if socket_call {
            if !policy.network {
                add(network_line(policy));
            }
            continue;
        }
        for path in paths {
            // bash's `/dev/tcp/HOST/PORT` and `/dev/udp/...` are sockets.
            if ["/dev/tcp/", "/dev/udp/"]
                .iter()
                .any(|p| path.starts_with(p))
            {
                if !policy.network {
                    add(network_line(policy));
                }
                continue;
            }
            if let Some(rule) = refusing_rule(policy, &absolute(cwd, &path)) {
                add(rule);
            }
        }
    }
    lines
}

fn network_line(policy: &SandboxPolicy) -> String {
    match policy.proxy {
        Some(_) => {
            "[sandbox: the network is reached only through Strata's proxy (HTTP_PROXY), to the allowed domains]"
                .to_owned()
        }
        None => "[sandbox: network is off for this session]".to_owned(),
    }
}

/// The rule that refuses access to `path`, if one does.
fn refusing_rule(policy: &SandboxPolicy, path: &Path) -> Option<String> {
    // The kernel judges the real path (a link in the workspace pointing
    // out is outside); a denied path is also named as written.
    let resolved = resolve(path);
    let under = |root: &Path| resolved.starts_with(resolve(root));
    let denied = policy
        .read_deny
        .iter()
        .find(|denied| path.starts_with(denied) || under(denied));
    if let Some(denied) = denied {
        return Some(format!(
            "[sandbox: reading {} is refused (read deny list)]",
            quote_path(denied)
        ));
    }
    if policy.writable().into_iter().any(under) {
        return None;
    }
    Some(match policy.mode {
        SandboxMode::WorkspaceWrite => {
            "[sandbox: writes outside the workspace are refused (workspace-write)]".to_owned()
        }
        SandboxMode::ReadOnly => {
            "[sandbox: writes are refused, the workspace's included (read-only)]".to_owned()
        }
        SandboxMode::Off => return None,
    })
}

/// Quoted (`'...'`, `"..."`, `` `...' ``) parts of a line, the word just
/// before the `: ` that precedes the error (`cannot create x: Permission
/// denied`), and unquoted absolute paths.
fn path_candidates(line: &str, lower: &str) -> Vec<String> {
    let mut candidates = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(['\'', '"', '`']) {
        let open = rest[start..].chars().next().unwrap_or('\'');
        let close = if open == '`' { '\'' } else { open };
        let after = &rest[start + open.len_utf8()..];
        let Some(end) = after.find(close) else {
            break;
        };
        candidates.push(after[..end].to_owned());
        rest = &after[end + close.len_utf8()..];
    }
    let parts: Vec<&str> = line.split(": ").collect();
    let lower_parts: Vec<&str> = lower.split(": ").collect();
    for (index, part) in parts.iter().enumerate() {
        let last_word = part.trim().rsplit(' ').next().unwrap_or_default();
        let before_error = lower_parts
            .get(index + 1)
            .is_some_and(|next| PERMISSION_PHRASES.iter().any(|p| next.starts_with(p)));
        let quoted = ['\'', '"', '`'].iter().any(|q| last_word.contains(*q));
        if !quoted && (last_word.starts_with('/') || before_error) {
            candidates.push(last_word.to_owned());
        }
    }
    candidates.retain(|c| !c.is_empty());
    candidates
}

fn absolute(cwd: &Path, path: &str) -> PathBuf {
    normalize(&cwd.join(path))
}

/// A configured path as text that cannot move a terminal's cursor.
fn quote_path(path: &Path) -> String {
    path.to_string_lossy()
        .chars()
        .flat_map(char::escape_debug)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(mode: SandboxMode) -> SandboxPolicy {
        SandboxPolicy::new(
            mode,
            Path::new("/w"),
            Path::new("/t"),
            Some(Path::new("/home/p")),
        )
    }

    const OUTSIDE: &str = "[sandbox: writes outside the workspace are refused (workspace-write)]";
    const NETWORK: &str = "[sandbox: network is off for this session]";
    const SSH: &str = "[sandbox: reading /home/p/.ssh is refused (read deny list)]";

    #[test]
    fn each_tools_way_of_reporting_a_refusal_names_the_rule() {
        let table: [(&str, &[&str]); 12] = [
            ("sh: 1: cannot create /etc/x: Permission denied", &[OUTSIDE]),
            (
                "touch: cannot touch '/opt/x': Permission denied",
                &[OUTSIDE],
            ),
            (
                "sh: 1: cannot create ../../x: Permission denied",
                &[OUTSIDE],
            ),
            (
                "mv: cannot move 'a' to '/x/b': Invalid cross-device link",
                &[OUTSIDE],
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/srv/f'",
                &[OUTSIDE],
            ),
            ("cat: /home/p/.ssh/id_ed25519: Permission denied", &[SSH]),
            (
                "cp: cannot open '/home/p/.ssh/id' for reading: Permission denied",
                &[SSH],
            ),
            ("bash: connect: Permission denied", &[NETWORK]),
            ("curl: (6) Could not resolve host: example.com", &[NETWORK]),
            ("ping: connect: Network is unreachable", &[NETWORK]),
            // The filesystem's own refusals inside the workspace are left alone.
            ("sh: 1: cannot create ro-file: Permission denied", &[]),
            ("error: could not compile `tally`", &[]),
        ];
        for (output, expected) in table {
            let lines = explain_refusal(
                &policy(SandboxMode::WorkspaceWrite),
                Path::new("/w/sub"),
                output,
                Some(1),
            );
            assert_eq!(lines, expected, "{output}");
        }
    }

    #[test]
    fn nothing_is_added_to_a_success_or_without_a_sandbox_or_with_the_network_on() {
        let output = "sh: 1: cannot create /etc/x: Permission denied";
        let workspace_write = policy(SandboxMode::WorkspaceWrite);
        assert!(explain_refusal(&workspace_write, Path::new("/w"), output, Some(0)).is_empty());
        assert!(
            explain_refusal(&policy(SandboxMode::Off), Path::new("/w"), output, Some(1)).is_empty()
        );
        let mut online = workspace_write;
        online.network = true;
        let unreachable = "ping: connect: Network is unreachable";
        assert!(explain_refusal(&online, Path::new("/w"), unreachable, Some(1)).is_empty());
    }

    #[test]
    fn with_a_proxy_a_direct_connection_is_explained_as_proxy_only() {
        let mut proxied = policy(SandboxMode::WorkspaceWrite);
        proxied.proxy = Some("/run/proxy.sock".into());
        let lines = explain_refusal(
            &proxied,
            Path::new("/w"),
            "bash: connect: Network is unreachable",
            Some(1),
        );
        assert_eq!(
            lines,
            [
                "[sandbox: the network is reached only through Strata's proxy (HTTP_PROXY), to the allowed domains]"
            ]
        );
    }

    #[test]
    fn several_refusals_give_one_line_per_rule() {
        let output = "cat: /home/p/.ssh/a: Permission denied\n\
                      cat: /home/p/.ssh/b: Permission denied\n\
                      sh: 1: cannot create /x: Permission denied\n\
                      sh: 1: cannot create /y: Permission denied\n";
        let lines = explain_refusal(
            &policy(SandboxMode::WorkspaceWrite),
            Path::new("/w"),
            output,
            Some(2),
        );
        assert_eq!(lines, [SSH, OUTSIDE]);
    }

    #[test]
    fn read_only_names_its_own_rule_for_the_workspace() {
        let lines = explain_refusal(
            &policy(SandboxMode::ReadOnly),
            Path::new("/w"),
            "sh: 1: cannot create new: Permission denied",
            Some(2),
        );
        assert_eq!(
            lines,
            ["[sandbox: writes are refused, the workspace's included (read-only)]"]
        );
    }
}
