//! How the demo model answers a turn: list the workspace, read one or two
//! files it found and has not read yet, then describe them in light of the
//! user's request. Everything it says comes from the request it was given.

use std::collections::HashSet;

use strata_protocol::{ModelRequest, ResponseItem, Role, ToolChoice};

use super::outputs::{
    Entry, excerpt, looks_like_error, parse_listing, path_argument, read_content,
};
use super::{LIST_DIRECTORY_TOOL, READ_FILE_TOOL};

/// Files read per turn at most.
const FILES_PER_TURN: usize = 2;

/// The demo model's next move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Call(Vec<PlannedCall>),
    Answer(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlannedCall {
    pub name: &'static str,
    pub arguments: String,
}

fn path_arguments(path: &str) -> String {
    serde_json::json!({ "path": path }).to_string()
}

pub(crate) fn plan(request: &ModelRequest) -> Step {
    let Some(user_at) = request
        .input
        .iter()
        .rposition(|item| item.is_message_with_role(Role::User))
    else {
        return Step::Answer(
            "Hello! I am Strata's offline demo model. Ask me something about this workspace \
             and I will look around it with the tools I am given."
                .to_string(),
        );
    };
    let ask = match &request.input[user_at] {
        ResponseItem::Message(m) => m.content.clone(),
        _ => String::new(),
    };
    let turn = &request.input[user_at + 1..];
    let tools_allowed = request.tool_choice != Some(ToolChoice::None);
    let offers = |name: &str| tools_allowed && request.tools.iter().any(|t| t.name == name);

    let calls_in_turn = |name: &str| -> Vec<(&str, &str)> {
        turn.iter()
            .filter_map(|item| match item {
                ResponseItem::FunctionCall(c) if c.name == name => {
                    Some((c.call_id.as_str(), c.arguments.as_str()))
                }
                _ => None,
            })
            .collect()
    };
    let output_of = |call_id: &str| {
        turn.iter().find_map(|item| match item {
            ResponseItem::FunctionCallOutput(o) if o.call_id == call_id => Some(o.output.as_str()),
            _ => None,
        })
    };

    let listings = calls_in_turn(LIST_DIRECTORY_TOOL);
    if offers(LIST_DIRECTORY_TOOL) && listings.is_empty() {
        return Step::Call(vec![PlannedCall {
            name: LIST_DIRECTORY_TOOL,
            arguments: path_arguments("."),
        }]);
    }
    let listing: Vec<Entry> = listings
        .iter()
        .filter_map(|(call_id, arguments)| {
            let dir = path_argument(arguments).unwrap_or_else(|| ".".into());
            output_of(call_id).map(|out| (dir, out))
        })
        .flat_map(|(dir, out)| {
            parse_listing(out)
                .into_iter()
                .map(move |entry| entry.under(&dir))
        })
        .collect();

    let reads = calls_in_turn(READ_FILE_TOOL);
    if offers(READ_FILE_TOOL) && reads.is_empty() {
        let already_read = read_anywhere(&request.input);
        let picks = pick_files(&listing, &already_read, &ask);
        if !picks.is_empty() {
            return Step::Call(
                picks
                    .into_iter()
                    .map(|path| PlannedCall {
                        name: READ_FILE_TOOL,
                        arguments: path_arguments(&path),
                    })
                    .collect(),
            );
        }
        // Nothing to read here: look one folder deeper, as a person would.
        if let Some(dir) = next_folder(&listing, &listings)
            && offers(LIST_DIRECTORY_TOOL)
        {
            return Step::Call(vec![PlannedCall {
                name: LIST_DIRECTORY_TOOL,
                arguments: path_arguments(&dir),
            }]);
        }
    }
    let read: Vec<(String, Option<&str>)> = reads
        .iter()
        .map(|(call_id, arguments)| {
            let path = path_argument(arguments).unwrap_or_else(|| "(unnamed file)".into());
            (path, output_of(call_id))
        })
        .collect();
    let earlier = read_anywhere(&request.input[..user_at]);
    // Said once per session: not again once an earlier answer the model still sees said it.
    let disclaimed = request.input[..user_at].iter().any(|item| {
        matches!(item, ResponseItem::Message(m) if m.role == Role::Assistant && m.content.contains(DISCLAIMER))
    });
    let mut text = answer(&ask, &listing, &read, &earlier);
    if !disclaimed {
        text.push('\n');
        text.push_str(DISCLAIMER);
    }
    Step::Answer(text)
}

/// Folders listed per turn at most.
const LISTINGS_PER_TURN: usize = 3;

/// Folders that hold build output or dependencies, not the project.
const SKIPPED_FOLDERS: &[&str] = &["target", "node_modules", "dist", "build", "vendor"];

/// A folder of the listing not listed yet this turn, `src` first.
fn next_folder(listing: &[Entry], listed: &[(&str, &str)]) -> Option<String> {
    if listed.len() >= LISTINGS_PER_TURN {
        return None;
    }
    let done: Vec<String> = listed
        .iter()
        .map(|(_, arguments)| path_argument(arguments).unwrap_or_else(|| ".".into()))
        .collect();
    let mut folders: Vec<&Entry> = listing
        .iter()
        .filter(|e| e.is_dir && !done.contains(&e.path))
        .filter(|e| {
            let name = e.path.rsplit('/').next().unwrap_or(&e.path);
            !name.starts_with('.') && !SKIPPED_FOLDERS.contains(&name)
        })
        .collect();
    folders.sort_by_key(|e| !e.path.ends_with("src"));
    folders.first().map(|e| e.path.clone())
}

/// Paths passed to `read_file` anywhere in `items`, in order.
pub(crate) fn read_anywhere(items: &[ResponseItem]) -> Vec<String> {
    let mut seen = Vec::new();
    for item in items {
        if let ResponseItem::FunctionCall(c) = item
            && c.name == READ_FILE_TOOL
            && let Some(path) = path_argument(&c.arguments)
            && !seen.contains(&path)
        {
            seen.push(path);
        }
    }
    seen
}

/// Extensions the demo model will not open: they are not text.
const BINARY_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "ico", "webp", "pdf", "zip", "gz", "tgz", "xz", "bz2", "7z",
    "tar", "jar", "exe", "dll", "so", "dylib", "a", "o", "rlib", "bin", "wasm", "class", "pyc",
    "woff", "woff2", "ttf", "otf", "mp3", "mp4", "mov", "db", "sqlite",
];

fn extension(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Files worth reading, best first: ones the request names, then READMEs,
/// then other text files in listing order. Binary files and files read
/// earlier in the session are skipped.
fn pick_files(listing: &[Entry], already_read: &[String], ask: &str) -> Vec<String> {
    let ask_lower = ask.to_lowercase();
    let mut seen = HashSet::new();
    let mut candidates: Vec<(u8, usize, &str)> = listing
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.is_dir && !already_read.contains(&e.path))
        .filter(|(_, e)| !BINARY_EXTENSIONS.contains(&extension(&e.path).as_str()))
        .filter(|(_, e)| seen.insert(e.path.as_str()))
        .map(|(i, e)| {
            let name = e.path.rsplit('/').next().unwrap_or(&e.path).to_lowercase();
            let rank = if ask_lower.contains(&name) {
                0
            } else if name.starts_with("readme") {
                1
            } else if extension(&e.path) == "lock" || name.starts_with('.') {
                3
            } else {
                2
            };
            (rank, i, e.path.as_str())
        })
        .collect();
    candidates.sort();
    candidates
        .into_iter()
        .take(FILES_PER_TURN)
        .map(|(_, _, path)| path.to_string())
        .collect()
}

fn answer(
    ask: &str,
    listing: &[Entry],
    read: &[(String, Option<&str>)],
    earlier: &[String],
) -> String {
    let first_line = ask.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut out = format!("You asked: \"{}\"\n\n", excerpt(first_line, 160));
    if !listing.is_empty() {
        let files = listing.iter().filter(|e| !e.is_dir).count();
        let dirs = listing.len() - files;
        let names: Vec<String> = listing
            .iter()
            .take(8)
            .map(|e| {
                if e.is_dir {
                    format!("{}/", e.path)
                } else {
                    e.path.clone()
                }
            })
            .collect();
        let more = if listing.len() > names.len() {
            ", …"
        } else {
            ""
        };
        out.push_str(&format!(
            "I listed the workspace: {} entries ({files} files, {dirs} folders): {}{more}.\n",
            listing.len(),
            names.join(", ")
        ));
    }
    for (path, output) in read {
        match output {
            Some(text) if looks_like_error(text) => out.push_str(&format!(
                "I could not read {path}: {}\n",
                excerpt(text.lines().next().unwrap_or(""), 120)
            )),
            Some(text) if !text.contains('\n') && text.trim_end().ends_with(" is empty.") => {
                out.push_str(&format!("I read {path}: it is empty.\n"));
            }
            Some(text) => {
                let (lines, total) = read_content(text);
                let first = lines.iter().find(|l| !l.trim().is_empty()).unwrap_or(&"");
                let count = total.unwrap_or(lines.len() as u64);
                let noun = if count == 1 { "line" } else { "lines" };
                if first.trim().is_empty() {
                    out.push_str(&format!("I read {path}: {count} {noun}, all blank.\n"));
                } else {
                    out.push_str(&format!(
                        "I read {path}: {count} {noun}, starting with \"{}\".\n",
                        excerpt(first, 100)
                    ));
                }
            }
            None => out.push_str(&format!("I asked to read {path} but got no output.\n")),
        }
    }
    if read.is_empty() {
        if earlier.is_empty() {
            out.push_str("I found no file to read.\n");
        } else {
            out.push_str(&format!(
                "I had already read {} earlier in this session, so I read nothing new.\n",
                earlier.join(", ")
            ));
        }
    }
    out
}

/// What the demo model says about itself, once per session (while the
/// model still sees the answer that said it).
pub(crate) const DISCLAIMER: &str = "I am Strata's offline demo model: I explore the workspace \
    with real tools and report what I find, but I do not reason about your request. Set \
    OPENAI_API_KEY or ANTHROPIC_API_KEY, or configure a provider profile, to work with a real model.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_files_come_first_then_readmes_and_binaries_never() {
        let entries: Vec<Entry> = ["logo.png", "main.rs", "README.md", "notes.txt"]
            .iter()
            .map(|p| Entry {
                path: p.to_string(),
                is_dir: false,
            })
            .collect();
        assert_eq!(
            pick_files(&entries, &[], "what is in notes.txt?"),
            ["notes.txt", "README.md"]
        );
        assert_eq!(
            pick_files(&entries, &["README.md".into()], "hi"),
            ["main.rs", "notes.txt"]
        );
    }

    #[test]
    fn the_disclaimer_is_said_once_while_the_model_still_sees_the_answer_that_said_it() {
        let ask = |input: Vec<ResponseItem>| -> String {
            let request = ModelRequest {
                model: "strata-demo".into(),
                input,
                tools: vec![],
                tool_choice: Some(ToolChoice::None),
                max_output_tokens: None,
                session_id: None,
                reasoning: None,
                cache_anchors: Vec::new(),
            };
            match plan(&request) {
                Step::Answer(text) => text,
                Step::Call(calls) => panic!("no tools offered, yet it called {calls:?}"),
            }
        };
        let first = ask(vec![ResponseItem::user("What is here?")]);
        assert!(first.ends_with(DISCLAIMER), "{first}");
        let second = ask(vec![
            ResponseItem::user("What is here?"),
            ResponseItem::assistant(first),
            ResponseItem::user("And now?"),
        ]);
        assert!(!second.contains(DISCLAIMER), "{second}");
        assert!(second.starts_with("You asked: \"And now?\""), "{second}");
        // After a compaction dropped that answer, it says so again.
        let after = ask(vec![ResponseItem::user("Again?")]);
        assert!(after.contains(DISCLAIMER));
    }
}
