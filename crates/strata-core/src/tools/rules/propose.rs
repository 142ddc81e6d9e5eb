//! The rule "always allow" proposes for a command: its program and stable
//! prefix (`cargo test --workspace` → `cargo test*`), or the exact command
//! when its program takes operands rather than subcommands (`rm -rf build`
//! stays `rm -rf build`: `rm*` would allow every removal).

use super::parse::{Classified, SimpleCommand, classify};
use super::pattern::CommandPattern;

/// Programs whose first word is a subcommand.
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "cargo",
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "go",
    "make",
    "just",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "rustup",
    "gh",
    "dotnet",
    "mvn",
    "gradle",
    "deno",
    "terraform",
    "bazel",
    "cmake",
    "mix",
    "composer",
    "swift",
    "zig",
];

/// Subcommands that run a named script: the script's name is kept too
/// (`npm run lint` → `npm run lint*`, not every script).
const RUNNERS: &[&str] = &["run", "exec", "x", "dlx", "run-script"];

/// The proposals for a command line, one per distinct part; `None` when it
/// cannot be classified or a part has nothing safe to propose.
pub fn propose_rules(line: &str) -> Option<Vec<String>> {
    let Classified::Commands(parts) = classify(line) else {
        return None;
    };
    let mut rules: Vec<String> = Vec::new();
    for part in parts.iter().filter(|part| !part.words.is_empty()) {
        let rule = propose_rule(part)?;
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    (!rules.is_empty()).then_some(rules)
}

/// The proposal for one simple command; it always allows that command.
pub fn propose_rule(command: &SimpleCommand) -> Option<String> {
    let program = command.program()?;
    let mut prefix = vec![program];
    if SUBCOMMAND_PROGRAMS.contains(&program)
        && let Some(sub) = command.words.get(1).filter(|w| subcommand_like(w))
    {
        prefix.push(sub);
        if RUNNERS.contains(&sub.as_str())
            && let Some(script) = command.words.get(2).filter(|w| subcommand_like(w))
        {
            prefix.push(script);
        }
    }
    let mut words: Vec<String> = command.assignments.iter().map(|a| quote(a)).collect();
    let text = if prefix.len() > 1 {
        words.extend(prefix.iter().map(|w| quote(w)));
        format!("{}*", words.join(" "))
    } else {
        if command.words.iter().any(|w| w.contains(['$', '`'])) {
            return None;
        }
        words.extend(command.words.iter().map(|w| quote(w)));
        words.join(" ")
    };
    CommandPattern::parse(&text)
        .ok()
        .filter(|pattern| pattern.allows(command))
        .map(|_| text)
}

fn subcommand_like(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | ':'))
}

/// A word as the shell reads it back: bare when safe, else single-quoted.
pub fn quote(word: &str) -> String {
    let bare = !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | '@' | '%' | '+' | ',')
        });
    if bare {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
