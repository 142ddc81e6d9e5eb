//! Command patterns and write path patterns.

use globset::{Glob, GlobBuilder, GlobMatcher};

use super::parse::{Classified, SimpleCommand, classify};

/// A command pattern such as `cargo test*`, `git status` or `npm run lint`.
///
/// It is parsed like a command, then matched word by word against a parsed
/// simple command. Only a trailing `*` is a wildcard: `cargo test*` allows
/// any characters after `test` and any words after it; `cargo test *`
/// allows any words after `test`. Leading `NAME=value` words in a pattern
/// must be the command's assignments exactly, and an allow pattern without
/// any never matches a command that has some (`PATH=…`, `RUSTC_WRAPPER=…`
/// change what an allowed program does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandPattern {
    text: String,
    assignments: Vec<String>,
    words: Vec<String>,
    tail: Tail,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    Exact,
    /// ` *`: any further words.
    AnyWords,
    /// `word*`: the last word may go on, then any further words.
    AnyChars,
}

/// Programs that run another program given in their arguments; a deny or
/// ask rule looks through them (`sudo rm …`, `xargs rm`, `timeout 5 rm`).
const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "xargs",
    "nice",
    "ionice",
    "timeout",
    "nohup",
    "watch",
    "stdbuf",
    "setsid",
    "strace",
    "ltrace",
    "chroot",
    "unshare",
    "flock",
    "chrt",
    "taskset",
    "busybox",
    "find",
    "parallel",
    "script",
    "su",
    "runuser",
    "systemd-run",
    "firejail",
    "bwrap",
    "env",
];

impl CommandPattern {
    pub fn parse(text: &str) -> Result<Self, String> {
        let trimmed = text.trim();
        let (body, tail) = match trimmed.strip_suffix('*') {
            Some(body) if !body.ends_with('\\') => {
                if body.is_empty() || body.ends_with([' ', '\t']) {
                    (body, Tail::AnyWords)
                } else {
                    (body, Tail::AnyChars)
                }
            }
            _ => (trimmed, Tail::Exact),
        };
        if trimmed.is_empty() {
            return Err("an empty command pattern".to_owned());
        }
        let command = match classify(body) {
            Classified::Commands(mut commands) if commands.len() <= 1 => {
                commands.pop().unwrap_or_default()
            }
            Classified::Commands(_) => {
                return Err(format!(
                    "`{trimmed}` is more than one command; write one rule per command"
                ));
            }
            Classified::Unclassifiable { reason, .. } => {
                return Err(format!("`{trimmed}` is not a plain command ({reason})"));
            }
        };
        if !command.redirections.is_empty() {
            return Err(format!(
                "`{trimmed}` has a redirection; write paths are `write_*` rules"
            ));
        }
        if command.words.is_empty() && tail == Tail::Exact {
            return Err(format!("`{trimmed}` names no program"));
        }
        Ok(Self {
            text: trimmed.to_owned(),
            assignments: command.assignments,
            words: command.words,
            tail,
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether `words` start as the pattern says.
    fn matches_words(&self, words: &[String]) -> bool {
        let n = self.words.len();
        match self.tail {
            Tail::Exact => words == self.words.as_slice(),
            Tail::AnyWords => words.len() >= n && words[..n] == self.words[..],
            Tail::AnyChars => {
                let Some((last, head)) = self.words.split_last() else {
                    return true;
                };
                words.len() >= n
                    && words[..n - 1] == head[..]
                    && words[n - 1].starts_with(last.as_str())
            }
        }
    }

    /// As an allow rule: the command's program, arguments and assignments.
    pub fn allows(&self, command: &SimpleCommand) -> bool {
        !command.words.is_empty()
            && command.assignments == self.assignments
            && self.matches_words(&command.words)
    }

    /// As a deny or ask rule: the command's words, or the command a wrapper
    /// in front of it runs; assignments only when the pattern has some.
    pub fn catches(&self, command: &SimpleCommand) -> bool {
        if !self
            .assignments
            .iter()
            .all(|a| command.assignments.contains(a))
        {
            return false;
        }
        if self.matches_words(&command.words) {
            return true;
        }
        let wrapped = command
            .program()
            .is_some_and(|program| WRAPPERS.contains(&base_name(program)));
        wrapped && (1..command.words.len()).any(|i| self.matches_words(&command.words[i..]))
    }
}

fn base_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// A workspace-relative glob for paths a write may change (`src/**`,
/// `*.md`, `docs/notes.txt`); `*` stays within one folder, `**` crosses.
#[derive(Clone, Debug)]
pub struct PathPattern {
    text: String,
    matcher: GlobMatcher,
}

impl PathPattern {
    pub fn parse(text: &str) -> Result<Self, String> {
        let trimmed = text.trim().trim_start_matches("./");
        if trimmed.is_empty() {
            return Err("an empty path pattern".to_owned());
        }
        if trimmed.starts_with('/') || trimmed.split('/').any(|part| part == "..") {
            return Err(format!(
                "`{trimmed}` leaves the workspace; path patterns are relative to it"
            ));
        }
        let glob: Glob = GlobBuilder::new(trimmed)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("`{trimmed}`: {e}"))?;
        Ok(Self {
            text: trimmed.to_owned(),
            matcher: glob.compile_matcher(),
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// `path` is workspace-relative with `/` separators.
    pub fn matches(&self, path: &str) -> bool {
        self.matcher.is_match(path)
    }
}

/// A shell redirection's target as a workspace-relative path: `None` when
/// it is absolute, climbs out with `..`, or holds an expansion.
pub fn relative_target(target: &str, expands: bool) -> Option<String> {
    if expands || target.is_empty() || target.starts_with('/') {
        return None;
    }
    let mut parts = Vec::new();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            part => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}
