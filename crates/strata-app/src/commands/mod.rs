//! What the front ends can ask, one module per group of the command list
//! (`strata_protocol::with_commands!`), each holding exactly that group's
//! `App` methods in list order:
//!
//! | group          | module             | commands                                            |
//! |----------------|--------------------|-----------------------------------------------------|
//! | `library`      | [`library`]        | list, search, open, transcript, create, rename, delete, export, fork, recent folders |
//! | `imported`     | [`imported`]       | other agents' sessions: list, open, search, hide, import, which to show |
//! | `conversation` | [`conversation`]   | send a message, stop, answer an approval, a tool's whole output |
//! | `context`      | [`context`]        | compact now / up to an item, undo, policy and status, preview, threshold, items and pins, compaction views |
//! | `console`      | [`console`]        | the console's folded view, the rounds log           |
//! | `changes`      | [`changes`]        | a session's file changes by turn and call, a change's diff, restore preview and restore |
//! | `settings`     | [`settings`]       | app info, settings and keys, layout, switch profile, provider kinds, test connection, models |
//! | `mcp`          | [`mcp`]            | the person's MCP servers: list, add, remove, enable or disable, test |
//!
//! The `shell` group (the folder and file pickers, the system opener, the library
//! feed) is the desktop shell's own. A command method here is the entry:
//! it validates its request and hands the work to the module that owns it
//! (the manager, the library, the transcript and console folds, settings).
//! A test keeps every command in its group's module and nowhere else.

pub mod changes;
pub mod console;
pub mod context;
pub mod conversation;
pub mod imported;
pub mod library;
pub mod mcp;
pub mod settings;

/// Each group's module source, for the placement check.
#[cfg(test)]
const GROUP_SOURCES: &[(&str, &str)] = &[
    ("library", include_str!("library.rs")),
    ("imported", include_str!("imported.rs")),
    ("conversation", include_str!("conversation.rs")),
    ("context", include_str!("context.rs")),
    ("console", include_str!("console.rs")),
    ("changes", include_str!("changes.rs")),
    ("settings", include_str!("settings.rs")),
    ("mcp", include_str!("mcp.rs")),
];

#[cfg(test)]
mod tests {
    use std::path::Path;

    use strata_protocol::{COMMANDS, Handler};

    use super::GROUP_SOURCES;

    /// The names of the public methods a source defines in `impl App`
    /// blocks (four-space indented `pub fn` / `pub async fn`).
    fn public_methods(source: &str) -> Vec<String> {
        let mut in_app = false;
        source
            .lines()
            .filter_map(|line| {
                if line.starts_with("impl App") {
                    in_app = true;
                } else if line.starts_with('}') {
                    in_app = false;
                }
                if !in_app {
                    return None;
                }
                let rest = line.strip_prefix("    pub ")?;
                let rest = rest.strip_prefix("async ").unwrap_or(rest);
                let rest = rest.strip_prefix("fn ")?;
                let end = rest.find(['(', '<'])?;
                Some(rest[..end].to_owned())
            })
            .collect()
    }

    fn sources_outside_commands(dir: &Path, found: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().unwrap() != "commands" {
                    sources_outside_commands(&path, found);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                found.push((path.display().to_string(), text));
            }
        }
    }

    #[test]
    fn each_group_module_holds_exactly_its_commands_in_list_order() {
        let groups: Vec<&str> = GROUP_SOURCES.iter().map(|(group, _)| *group).collect();
        let mut listed: Vec<&str> = COMMANDS
            .iter()
            .filter(|command| command.handler == Handler::App)
            .map(|command| command.group)
            .collect();
        listed.dedup();
        assert_eq!(groups, listed, "one module per App group, in list order");
        for (group, source) in GROUP_SOURCES {
            let expected: Vec<&str> = COMMANDS
                .iter()
                .filter(|command| command.handler == Handler::App && command.group == *group)
                .map(|command| command.name)
                .collect();
            assert_eq!(public_methods(source), expected, "commands/{group}.rs");
        }
    }

    #[test]
    fn no_command_method_is_defined_outside_its_group_module() {
        let mut sources = Vec::new();
        sources_outside_commands(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut sources,
        );
        assert!(sources.len() > 10, "the crate's sources were found");
        for (path, text) in &sources {
            for method in public_methods(text) {
                assert!(
                    !COMMANDS
                        .iter()
                        .any(|command| command.handler == Handler::App && command.name == method),
                    "{path} defines the command method `{method}`: it belongs in commands/"
                );
            }
        }
    }
}
