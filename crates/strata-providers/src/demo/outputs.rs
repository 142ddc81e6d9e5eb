//! How the demo model reads tool outputs: directory listings in their
//! common shapes, file contents with or without line-number gutters, the
//! built-in tools' notes and errors.

/// The `path` argument of a tool call's arguments, if it has one.
pub(crate) fn path_argument(arguments: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(arguments.trim()).ok()?;
    value.get("path")?.as_str().map(normalize_path)
}

pub(crate) fn normalize_path(path: &str) -> String {
    let trimmed = path.trim();
    let stripped = trimmed.strip_prefix("./").unwrap_or(trimmed);
    if stripped.is_empty() {
        ".".to_string()
    } else {
        stripped.to_string()
    }
}

/// One entry of a directory listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub path: String,
    pub is_dir: bool,
}

impl Entry {
    pub(crate) fn under(self, dir: &str) -> Entry {
        let path = if dir == "." || self.path.starts_with('/') {
            self.path
        } else {
            format!("{}/{}", dir.trim_end_matches('/'), self.path)
        };
        Entry {
            path: normalize_path(&path),
            is_dir: self.is_dir,
        }
    }
}

/// Reads a listing leniently: a JSON array (of names, or of objects with
/// `name`/`path` and `type`/`kind`/`is_dir`), or one entry per line with
/// directories marked by a trailing `/`, a `[dir]`/`dir`/`d` prefix, and
/// decorations (bullets, tab-separated columns, `(size)` suffixes) ignored.
pub(crate) fn parse_listing(output: &str) -> Vec<Entry> {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(output.trim()) {
        return json_entries(&value);
    }
    if looks_like_error(output) || output.trim_end().ends_with("is an empty directory.") {
        return Vec::new();
    }
    output.lines().filter_map(line_entry).collect()
}

fn json_entries(value: &serde_json::Value) -> Vec<Entry> {
    use serde_json::Value;
    match value {
        Value::Array(items) => items.iter().filter_map(json_entry).collect(),
        Value::Object(map) => map
            .get("entries")
            .or_else(|| map.get("files"))
            .map(json_entries)
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn json_entry(value: &serde_json::Value) -> Option<Entry> {
    if let Some(name) = value.as_str() {
        return named_entry(name, false);
    }
    let name = value.get("name").or_else(|| value.get("path"))?.as_str()?;
    let kind = value
        .get("type")
        .or_else(|| value.get("kind"))
        .and_then(|k| k.as_str())
        .unwrap_or("");
    let is_dir = value
        .get("is_dir")
        .and_then(|d| d.as_bool())
        .unwrap_or(matches!(kind, "dir" | "directory" | "folder"));
    named_entry(name, is_dir)
}

fn line_entry(line: &str) -> Option<Entry> {
    let mut text = line.split('\t').next().unwrap_or("").trim();
    // Headers, `ls -l` totals and bracketed notes such as
    // "[... 12 more entries not shown]" are not entries.
    if text.is_empty()
        || text.ends_with(':')
        || text.starts_with("total ")
        || (text.starts_with('[') && text.ends_with(']') && text.contains(' '))
    {
        return None;
    }
    for bullet in ["- ", "* ", "• "] {
        text = text.strip_prefix(bullet).unwrap_or(text).trim_start();
    }
    let mut is_dir = false;
    for (prefix, dir) in [
        ("[dir] ", true),
        ("[d] ", true),
        ("dir ", true),
        ("d ", true),
        ("[file] ", false),
        ("[f] ", false),
        ("file ", false),
        ("f ", false),
    ] {
        if let Some(rest) = text.strip_prefix(prefix) {
            text = rest.trim_start();
            is_dir = dir;
            break;
        }
    }
    if text.ends_with(')')
        && let Some(open) = text.rfind(" (")
    {
        text = text[..open].trim_end();
    }
    named_entry(text, is_dir)
}

fn named_entry(name: &str, is_dir: bool) -> Option<Entry> {
    let name = name.trim();
    let (name, is_dir) = match name.strip_suffix('/') {
        Some(stripped) => (stripped, true),
        None => (name, is_dir),
    };
    let path = normalize_path(name);
    (!matches!(path.as_str(), "." | "..")).then_some(Entry { path, is_dir })
}

/// The lines of a `read_file` output, without line-number gutters
/// (`12\t`, `12: `, `12 | `, `12→`) when every line has one.
pub(crate) fn content_lines(output: &str) -> Vec<&str> {
    let lines: Vec<&str> = output.lines().collect();
    let gutter = |line: &str| -> Option<usize> {
        let trimmed = line.trim_start();
        let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let rest = &trimmed[digits..];
        ["\t", ": ", " | ", "| ", "|", "→"]
            .iter()
            .find(|sep| rest.starts_with(**sep))
            .map(|sep| line.len() - rest.len() + sep.len())
    };
    let numbered = lines.iter().filter(|l| !l.trim().is_empty()).count() > 0
        && lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .all(|l| gutter(l).is_some());
    if numbered {
        lines
            .into_iter()
            .map(|l| gutter(l).map_or(l, |at| &l[at..]))
            .collect()
    } else {
        lines
    }
}

/// Whether a tool output reports a failure rather than content: it starts
/// like an error, or it is one line phrased like one of the built-in tools'
/// errors (a file's content can say "does not exist" on one of many lines).
pub(crate) fn looks_like_error(output: &str) -> bool {
    let text = output.trim().to_lowercase();
    let starts = [
        "error",
        "failed",
        "no such file",
        "not found",
        "permission denied",
        "invalid arguments for",
        "path escapes the workspace",
        "unknown tool",
        "the user denied",
    ];
    let single_line = [
        "does not exist",
        "is not utf-8 text",
        "is a directory, not a file",
        "is not a directory",
        "-byte limit for",
        "was cancelled",
    ];
    starts.iter().any(|p| text.starts_with(p))
        || (!text.contains('\n') && single_line.iter().any(|p| text.contains(p)))
}

/// What a `read_file` output holds: the content lines, and the file's line
/// count when a trailing note such as
/// `[showing lines 1-200 of 950; call read_file with start_line=201 to read on]`
/// says the output is only part of it.
pub(crate) fn read_content(output: &str) -> (Vec<&str>, Option<u64>) {
    let mut lines = content_lines(output);
    let mut total = None;
    while let Some(last) = lines.last() {
        let note = last.trim();
        if !(note.starts_with('[') && note.ends_with(']')) {
            break;
        }
        if let Some(rest) = note.strip_prefix("[showing lines ")
            && let Some(of) = rest.split(" of ").nth(1)
        {
            total = of
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok());
        }
        lines.pop();
    }
    (lines, total)
}

/// `text` cut to `max` characters on a character boundary, with an ellipsis.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max).collect();
        format!("{}…", cut.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_are_read_in_their_common_shapes() {
        let lines = "Contents of .:\n- README.md (120 bytes)\nsrc/\n[dir] docs\nCargo.toml\t310\n./notes.txt\n";
        let entries = parse_listing(lines);
        let names: Vec<(&str, bool)> = entries
            .iter()
            .map(|e| (e.path.as_str(), e.is_dir))
            .collect();
        assert_eq!(
            names,
            [
                ("README.md", false),
                ("src", true),
                ("docs", true),
                ("Cargo.toml", false),
                ("notes.txt", false)
            ]
        );
        let json = r#"[{"name":"a.rs","type":"file"},{"name":"b","type":"directory"},"c/"]"#;
        let names: Vec<(String, bool)> = parse_listing(json)
            .into_iter()
            .map(|e| (e.path, e.is_dir))
            .collect();
        assert_eq!(
            names,
            [
                ("a.rs".into(), false),
                ("b".into(), true),
                ("c".into(), true)
            ]
        );
    }

    #[test]
    fn line_number_gutters_are_stripped_only_when_every_line_has_one() {
        assert_eq!(
            content_lines("1\tfn main() {\n2\t}\n"),
            ["fn main() {", "}"]
        );
        assert_eq!(content_lines("     1→# Title\n     2→"), ["# Title", ""]);
        assert_eq!(content_lines("2024 was\na year"), ["2024 was", "a year"]);
    }

    #[test]
    fn notes_of_the_built_in_tools_are_not_entries_or_content() {
        assert!(parse_listing("src is an empty directory.").is_empty());
        assert!(parse_listing("nope does not exist").is_empty());
        let entries = parse_listing("a.txt\nb/\n[... 3 more entries not shown]");
        assert_eq!(entries.len(), 2);
        let (lines, total) = read_content(
            "l1\nl2\n[showing lines 1-2 of 950; call read_file with start_line=3 to read on]",
        );
        assert_eq!((lines, total), (vec!["l1", "l2"], Some(950)));
        assert!(looks_like_error("logo.bin is not UTF-8 text"));
        assert!(!looks_like_error("# Notes\nthe file does not exist yet\n"));
    }

    #[test]
    fn excerpts_cut_on_character_boundaries() {
        assert_eq!(excerpt("héllo wörld", 5), "héllo…");
        assert_eq!(excerpt("short", 10), "short");
    }
}
