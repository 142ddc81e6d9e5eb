//! Input validation for every operation, once, for both front ends: what a
//! webview or a command line hands over is checked here before anything
//! touches a file, the keychain or a provider.

use std::path::PathBuf;

use strata_protocol::{ItemId, SessionId};

use crate::error::{AppResult, invalid_input};

/// The longest title a session can be given, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// The longest profile id, in characters.
pub const MAX_PROFILE_ID_CHARS: usize = 64;
/// The longest message a turn takes, in bytes (a sanity bound, far above
/// what any model accepts).
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
/// The longest path, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;

/// A session id (ids are UUIDs; anything else is a bad request, not a
/// missing session).
pub fn session_id(text: &str) -> AppResult<SessionId> {
    text.trim()
        .parse()
        .map_err(|_| invalid_input(format!("{} is not a session id.", shown(text))))
}

/// An item id or a prefix of one, as a person types it: hexadecimal digits
/// and dashes, at most a full id long.
pub fn item_query(text: &str) -> AppResult<String> {
    let query = text.trim();
    let valid = !query.is_empty()
        && query.len() <= 36
        && query.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    if valid {
        Ok(query.to_ascii_lowercase())
    } else {
        Err(invalid_input(format!(
            "{} is not an item id or a prefix of one.",
            shown(text)
        )))
    }
}

/// An item id from the front end (a search hit's).
pub fn item_id(text: &str) -> AppResult<ItemId> {
    text.trim()
        .parse()
        .map_err(|_| invalid_input(format!("{} is not an item id.", shown(text))))
}

/// A title: whitespace runs collapsed to one space, no control characters,
/// at most [`MAX_TITLE_CHARS`] characters, not empty.
pub fn title(text: &str) -> AppResult<String> {
    if text.chars().any(|c| c.is_control() && !c.is_whitespace()) {
        return Err(invalid_input("The title holds control characters."));
    }
    let title = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if title.is_empty() {
        return Err(invalid_input("The title is empty."));
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(invalid_input(format!(
            "The title is longer than {MAX_TITLE_CHARS} characters."
        )));
    }
    Ok(title)
}

/// The longest search query, in characters.
pub const MAX_SEARCH_CHARS: usize = 1_000;

/// A search query: trimmed, not blank, not absurdly long. It is literal
/// text to the index, never syntax.
pub fn search_query(text: &str) -> AppResult<String> {
    let query = text.trim();
    if query.is_empty() {
        return Err(invalid_input("The search is empty."));
    }
    if query.chars().count() > MAX_SEARCH_CHARS {
        return Err(invalid_input(format!(
            "The search is longer than {MAX_SEARCH_CHARS} characters."
        )));
    }
    Ok(query.to_owned())
}

/// A message for a turn: not blank, not absurdly long, no NUL bytes.
pub fn message(text: &str) -> AppResult<()> {
    if text.trim().is_empty() {
        return Err(invalid_input("The message is empty."));
    }
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(invalid_input("The message is too long."));
    }
    if text.contains('\0') {
        return Err(invalid_input("The message holds a NUL character."));
    }
    Ok(())
}

/// An absolute path without NUL bytes, `..` components or control
/// characters, of a sane length.
fn absolute_path(text: &str, what: &str) -> AppResult<PathBuf> {
    let trimmed = text.trim();
    let path = PathBuf::from(trimmed);
    let bad = trimmed.is_empty()
        || trimmed.len() > MAX_PATH_BYTES
        || trimmed.chars().any(char::is_control)
        || !path.is_absolute()
        || path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    if bad {
        return Err(invalid_input(format!(
            "Choose {what} (got {}).",
            shown(text)
        )));
    }
    Ok(path)
}

/// The folder a new session works in: absolute, and an existing folder.
pub fn workspace(text: &str) -> AppResult<PathBuf> {
    let folder = absolute_path(text, "the folder the agent works in")?;
    if !folder.is_dir() {
        return Err(invalid_input(format!(
            "{} is not a folder.",
            folder.display()
        )));
    }
    Ok(folder)
}

/// A profile id: letters, digits, `-`, `_` and `.`, at most
/// [`MAX_PROFILE_ID_CHARS`] characters (it becomes a TOML key and a
/// keychain account name).
pub fn profile_id(text: &str) -> AppResult<String> {
    let id = text.trim();
    let ok = !id.is_empty()
        && id.chars().count() <= MAX_PROFILE_ID_CHARS
        && id
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !ok {
        return Err(invalid_input(format!(
            "{} is not a profile name: use letters, digits, '-', '_' or '.', at most {MAX_PROFILE_ID_CHARS} characters.",
            shown(text)
        )));
    }
    Ok(id.to_owned())
}

/// An API key: one line of printable characters.
pub fn api_key(text: &str) -> AppResult<&str> {
    let key = text.trim();
    if key.is_empty() {
        return Err(invalid_input("The API key is empty."));
    }
    if key.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(invalid_input(
            "The API key holds spaces or control characters.",
        ));
    }
    Ok(key)
}

/// Input echoed in an error: quoted, escaped, and cut short.
fn shown(text: &str) -> String {
    let cut: String = text.chars().take(80).collect();
    format!("{cut:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_collapsed_bounded_and_free_of_control_characters() {
        assert_eq!(title("  Fix \n the   parser ").unwrap(), "Fix the parser");
        assert!(title("   ").is_err());
        assert!(title("bell\u{7}").is_err());
        assert!(title("escape\u{1b}[31m").is_err());
        assert!(title(&"x".repeat(MAX_TITLE_CHARS)).is_ok());
        assert!(title(&"x".repeat(MAX_TITLE_CHARS + 1)).is_err());
    }

    #[test]
    fn ids_and_profile_names_are_checked() {
        assert!(session_id("not-an-id").is_err());
        let id = SessionId::new();
        assert_eq!(session_id(&format!(" {id} ")).unwrap(), id);
        assert_eq!(profile_id(" work-2 ").unwrap(), "work-2");
        assert!(profile_id("a b").is_err());
        assert!(profile_id("x/../y").is_err());
        assert!(profile_id("").is_err());
    }

    #[test]
    fn workspaces_must_be_existing_absolute_folders() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(workspace(dir.path().to_str().unwrap()).unwrap(), dir.path());
        assert!(workspace("relative/dir").is_err());
        assert!(workspace(dir.path().join("missing").to_str().unwrap()).is_err());
    }

    #[test]
    fn messages_and_keys_are_checked() {
        assert!(message(" \n").is_err());
        assert!(message("hi\0").is_err());
        assert!(message("hello").is_ok());
        assert_eq!(api_key(" sk-1 ").unwrap(), "sk-1");
        assert!(api_key("sk 1").is_err());
        assert!(api_key("").is_err());
    }
}
