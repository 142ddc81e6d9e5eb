//! The demo model's answer to a summary request: a digest of the transcript
//! it was given (the user's requests, the tools used, the files touched).
//!
//! A summary request usually holds an instruction and one user message
//! containing a rendered transcript, one entry per header line such as
//! `[3] user:` or `[4] function_call read_file (call_id c1):`, followed by the
//! entry's content. Items given directly (a history without a transcript)
//! are digested the same way.

use strata_protocol::{ModelRequest, ResponseItem, Role};

use super::outputs::{excerpt, normalize_path, path_argument};

/// Requests shown in full before older ones are elided.
const MAX_REQUESTS: usize = 12;
const MAX_FILES: usize = 40;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Entry {
    User(String),
    Assistant(String),
    Call {
        name: String,
        arguments: String,
    },
    Summary(String),
    /// What the person asked the summary to stress.
    Focus(String),
    Other,
}

/// How the compaction prompt appends a person's focus after the transcript.
const FOCUS_PREFIX: &str = "Focus the summary on:";

const KINDS: &[&str] = &[
    "user",
    "assistant",
    "system",
    "developer",
    "function_call",
    "function_call_output",
    "tool_call",
    "tool_output",
    "compaction_summary",
    "summary",
    "reasoning",
];

/// A transcript header: `[n] kind[ detail]:[ inline content]`.
fn parse_header(line: &str) -> Option<(String, String, String)> {
    let rest = line.trim_start().strip_prefix('[')?;
    let close = rest.find(']')?;
    if close == 0 || !rest[..close].bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = rest[close + 1..].trim_start();
    let kind_len = rest.find([' ', ':']).unwrap_or(rest.len());
    let kind = &rest[..kind_len];
    if !KINDS.contains(&kind) {
        return None;
    }
    let after = &rest[kind_len..];
    // The header ends at "):" when it carries a parenthesised call id, else
    // at the first colon.
    let end = after
        .contains("(call_id")
        .then(|| after.find("):").map(|i| i + 1))
        .flatten()
        .or_else(|| after.find(':'))?;
    let detail = after[..end].trim();
    let name = detail.split('(').next().unwrap_or("").trim().to_string();
    Some((kind.to_string(), name, after[end + 1..].trim().to_string()))
}

fn has_transcript(text: &str) -> bool {
    text.lines().any(|line| parse_header(line).is_some())
}

fn transcript_entries(text: &str) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut current: Option<(String, String, Vec<String>)> = None;
    let mut flush = |current: Option<(String, String, Vec<String>)>| {
        if let Some((kind, name, body)) = current {
            let content = body.join("\n").trim().to_string();
            entries.push(match kind.as_str() {
                "user" => Entry::User(content),
                "assistant" => Entry::Assistant(content),
                "function_call" | "tool_call" => Entry::Call {
                    name,
                    arguments: content,
                },
                "compaction_summary" | "summary" => Entry::Summary(content),
                _ => Entry::Other,
            });
        }
    };
    let mut focus = None;
    for line in text.lines() {
        if let Some(wanted) = line.strip_prefix(FOCUS_PREFIX) {
            focus = Some(wanted.trim().to_string());
        } else if let Some((kind, name, inline)) = parse_header(line) {
            flush(current.take());
            let body = if inline.is_empty() {
                Vec::new()
            } else {
                vec![inline]
            };
            current = Some((kind, name, body));
        } else if let Some((_, _, body)) = current.as_mut() {
            body.push(line.to_string());
        }
    }
    flush(current);
    entries.extend(focus.map(Entry::Focus));
    entries
}

fn entries_of(request: &ModelRequest) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut last_direct_user = None;
    for item in &request.input {
        match item {
            ResponseItem::Message(m) if has_transcript(&m.content) => {
                entries.extend(transcript_entries(&m.content));
            }
            ResponseItem::Message(m) => match m.role {
                Role::User => {
                    last_direct_user = Some(entries.len());
                    entries.push(Entry::User(m.content.clone()));
                }
                Role::Assistant => entries.push(Entry::Assistant(m.content.clone())),
                Role::System | Role::Developer => {}
            },
            ResponseItem::FunctionCall(c) => entries.push(Entry::Call {
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            }),
            ResponseItem::CompactionSummary(s) => entries.push(Entry::Summary(s.summary.clone())),
            ResponseItem::FunctionCallOutput(_) | ResponseItem::Reasoning(_) => {
                entries.push(Entry::Other)
            }
        }
    }
    // A history given directly ends with the instruction to summarise it;
    // that is not one of the user's requests.
    if let Some(at) = last_direct_user
        && at + 1 == entries.len()
        && at > 0
        && matches!(&entries[at], Entry::User(text) if text.to_lowercase().contains("summar"))
    {
        entries.pop();
    }
    entries
}

/// The digest the demo model answers a summary request with.
pub(crate) fn digest(request: &ModelRequest) -> String {
    let entries = entries_of(request);
    let requests: Vec<&str> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::User(text) if !text.trim().is_empty() => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let mut tools: Vec<(String, usize)> = Vec::new();
    let mut files: Vec<String> = Vec::new();
    for entry in &entries {
        if let Entry::Call { name, arguments } = entry {
            match tools.iter_mut().find(|(tool, _)| tool == name) {
                Some((_, count)) => *count += 1,
                None => tools.push((name.clone(), 1)),
            }
            if let Some(path) = path_in(arguments)
                && path != "."
                && !files.contains(&path)
            {
                files.push(path);
            }
        }
    }
    let last_reply = entries.iter().rev().find_map(|e| match e {
        Entry::Assistant(text) if !text.trim().is_empty() => Some(text.as_str()),
        _ => None,
    });
    let earlier = entries.iter().find_map(|e| match e {
        Entry::Summary(text) if !text.trim().is_empty() => Some(text.as_str()),
        _ => None,
    });

    let focus = entries.iter().find_map(|e| match e {
        Entry::Focus(text) if !text.is_empty() => Some(text.as_str()),
        _ => None,
    });

    let mut out = String::from(
        "Summary of the earlier conversation (a digest by Strata's offline demo model).\n",
    );
    if requests.is_empty() {
        out.push_str("The user made no requests.\n");
    } else {
        out.push_str("The user asked:\n");
        let skipped = requests.len().saturating_sub(MAX_REQUESTS);
        if skipped > 0 {
            out.push_str(&format!("(… {skipped} earlier requests)\n"));
        }
        for (i, text) in requests.iter().enumerate().skip(skipped) {
            let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            out.push_str(&format!("{}. \"{}\"\n", i + 1, excerpt(line, 160)));
        }
    }
    if tools.is_empty() {
        out.push_str("No tools were used.\n");
    } else {
        let used: Vec<String> = tools
            .iter()
            .map(|(name, n)| format!("{name} ({n} call{})", if *n == 1 { "" } else { "s" }))
            .collect();
        out.push_str(&format!("Tools used: {}.\n", used.join(", ")));
    }
    if files.is_empty() {
        out.push_str("No files were touched.\n");
    } else {
        let more = files.len().saturating_sub(MAX_FILES);
        files.truncate(MAX_FILES);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        out.push_str(&format!("Files touched: {}{tail}.\n", files.join(", ")));
    }
    if let Some(reply) = last_reply {
        let line = reply.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        out.push_str(&format!(
            "Last assistant reply: \"{}\"\n",
            excerpt(line, 200)
        ));
    }
    if let Some(text) = focus {
        out.push_str(&format!("Focus requested: \"{}\"\n", excerpt(text, 200)));
    }
    if let Some(text) = earlier {
        out.push_str(&format!(
            "An earlier summary said: \"{}\"\n",
            excerpt(&text.replace('\n', " "), 600)
        ));
    }
    out
}

/// The `path` of a call's arguments: JSON, or a `"path": "..."` pair inside
/// text that is not quite JSON.
fn path_in(arguments: &str) -> Option<String> {
    if let Some(path) = path_argument(arguments) {
        return Some(path);
    }
    let at = arguments.find("\"path\"")?;
    let rest = arguments[at + "\"path\"".len()..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let value = serde_json::Deserializer::from_str(rest)
        .into_iter::<String>()
        .next()?
        .ok()?;
    Some(normalize_path(&value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_recognised_with_and_without_inline_content() {
        assert_eq!(
            parse_header("[3] user:"),
            Some(("user".into(), "".into(), "".into()))
        );
        assert_eq!(
            parse_header("[4] function_call read_file (call_id c1):"),
            Some(("function_call".into(), "read_file".into(), "".into()))
        );
        assert_eq!(
            parse_header("[5] function_call_output (call_id c:1): ok"),
            Some(("function_call_output".into(), "".into(), "ok".into()))
        );
        assert_eq!(parse_header("[x] user:"), None);
        assert_eq!(parse_header("[1] banana:"), None);
        assert_eq!(parse_header("plain text"), None);
    }

    #[test]
    fn paths_are_found_in_json_and_in_near_json() {
        assert_eq!(
            path_in(r#"{"path":"./src/a.rs"}"#).as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(
            path_in(r#"path args: "path": "b.txt", "x": 1"#).as_deref(),
            Some("b.txt")
        );
        assert_eq!(path_in("{}"), None);
    }
}
