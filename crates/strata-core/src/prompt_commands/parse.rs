//! The pure half of prompt files: which names a command may have, how a
//! typed line names one, how a file's text becomes a description and a
//! body, and how a body and the typed arguments become the message.

/// Longest command name.
pub const NAME_MAX_CHARS: usize = 32;
/// Longest description shown; longer ones are cut with an ellipsis.
pub const DESCRIPTION_MAX_CHARS: usize = 120;
/// What a body's `$ARGUMENTS` is replaced with.
pub const ARGUMENTS_PLACEHOLDER: &str = "$ARGUMENTS";

/// Why `name` cannot be a command's name, if it cannot: 1 to 32 ASCII
/// letters, digits, `-` or `_`.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the name is empty".to_owned());
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Some(format!(
            "the name is longer than {NAME_MAX_CHARS} characters"
        ));
    }
    if !name.chars().all(is_name_char) {
        return Some(
            "a command's name has only letters, digits, - and _ (A-Z, a-z, 0-9)".to_owned(),
        );
    }
    None
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// A typed line that names a slash command: `/name`, alone or followed by
/// whitespace and its arguments (surrounding whitespace ignored), where
/// `name` is a valid command name. Anything else (`/src/main.rs is…`,
/// `please /compact`, a bare `/`) is not a command.
pub fn invocation(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim().strip_prefix('/')?;
    let (name, arguments) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(name, arguments)| (name, arguments.trim()));
    name_problem(name).is_none().then_some((name, arguments))
}

/// A prompt file's text, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedPrompt {
    pub description: String,
    pub argument_hint: Option<String>,
    pub body: String,
}

/// Reads a prompt file's text. An optional front matter block (a first
/// line `---`, then `key: value` lines up to the next `---`) may give a
/// `description` and an `argument-hint`; other keys are ignored. Without a
/// `description`, the body's first non-blank line is it (a Markdown
/// heading's `#`s dropped). The body is what follows the front matter,
/// trimmed. `None` when the body is blank.
pub fn parse_prompt(text: &str) -> Option<ParsedPrompt> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (front, body) = split_front_matter(text);
    let mut description = None;
    let mut argument_hint = None;
    for line in front.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = one_line(unquoted(value.trim()));
        if value.is_empty() {
            continue;
        }
        match key.trim() {
            "description" => description = Some(value),
            "argument-hint" | "argument_hint" => argument_hint = Some(value),
            _ => {}
        }
    }
    let body = body.trim();
    if body.is_empty() {
        return None;
    }
    let description = description.unwrap_or_else(|| {
        let first = body.lines().find(|line| !line.trim().is_empty());
        one_line(first.unwrap_or("").trim().trim_start_matches('#'))
    });
    Some(ParsedPrompt {
        description,
        argument_hint,
        body: body.to_owned(),
    })
}

/// The front matter's lines and the rest; no front matter without both
/// `---` lines.
fn split_front_matter(text: &str) -> (&str, &str) {
    let Some(after) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return ("", text);
    };
    let mut at = 0;
    for line in after.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (&after[..at], &after[at + line.len()..]);
        }
        at += line.len();
    }
    ("", text)
}

fn unquoted(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

/// One line of plain text: control characters (escapes, newlines) become
/// spaces, runs of whitespace one space, cut to [`DESCRIPTION_MAX_CHARS`].
fn one_line(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let joined = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= DESCRIPTION_MAX_CHARS {
        return joined;
    }
    let mut cut: String = joined.chars().take(DESCRIPTION_MAX_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// The message a prompt body and the typed arguments make: every
/// `$ARGUMENTS` replaced by them; a body without one gets non-empty
/// arguments after a blank line, so nothing typed is lost.
pub fn expand(body: &str, arguments: &str) -> String {
    let arguments = arguments.trim();
    if body.contains(ARGUMENTS_PLACEHOLDER) {
        return body.replace(ARGUMENTS_PLACEHOLDER, arguments);
    }
    if arguments.is_empty() {
        body.to_owned()
    } else {
        format!("{body}\n\n{arguments}")
    }
}
