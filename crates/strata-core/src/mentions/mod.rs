//! `@` mentions: the composer's way of pointing at workspace files.
//!
//! A mention is `@` at the start of the text or after whitespace, followed
//! by a workspace-relative path up to the next whitespace (`@src/main.rs`,
//! `@docs/`), or by a double-quoted path for one with spaces
//! (`@"notes/first draft.md"`). Sentence punctuation right after an
//! unquoted path (`.` `,` `;` `:` `!` `?` `)`) is not part of it. A trailing
//! `/` asks for a folder's listing. [`find`] ranks the workspace's paths for
//! the composer's finder; [`crate::tools::ToolRegistry::attach_mentions`]
//! appends what the mentioned paths hold for the model.

mod finder;

pub use finder::{FoundPath, FoundPaths, MAX_WALK_ENTRIES, find};

/// The most mentions one message attaches; later ones stay plain text.
pub const MAX_ATTACHED_MENTIONS: usize = 20;

/// The paths `text` mentions, in order of first appearance, each once.
pub fn mentioned_paths(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut previous: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let starts = c == '@' && previous.is_none_or(char::is_whitespace);
        previous = Some(c);
        if !starts {
            continue;
        }
        let rest = &text[at + 1..];
        let (path, used) = match rest.strip_prefix('"') {
            Some(quoted) => match quoted.find('"') {
                Some(end) => (&quoted[..end], end + 2),
                None => continue,
            },
            None => {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                let word = rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
                (word, end)
            }
        };
        // Skip what was consumed, so `@a@b` is one mention.
        while chars.peek().is_some_and(|(next, _)| *next <= at + used) {
            if let Some((_, skipped)) = chars.next() {
                previous = Some(skipped);
            }
        }
        if !path.is_empty() && !found.iter().any(|known| known == path) {
            found.push(path.to_owned());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::mentioned_paths;

    #[test]
    fn a_mention_is_an_at_sign_after_whitespace_up_to_the_next_whitespace() {
        assert_eq!(
            mentioned_paths("@src/main.rs and\n@docs/ please"),
            ["src/main.rs", "docs/"]
        );
    }

    #[test]
    fn an_email_address_or_a_lone_at_sign_is_no_mention() {
        assert!(mentioned_paths("mail me@example.com @ now").is_empty());
    }

    #[test]
    fn sentence_punctuation_after_the_path_is_not_part_of_it() {
        assert_eq!(
            mentioned_paths("look at @src/lib.rs, then (@Cargo.toml)."),
            ["src/lib.rs"]
        );
        assert_eq!(mentioned_paths("see @a.rs."), ["a.rs"]);
    }

    #[test]
    fn a_quoted_path_may_hold_spaces_and_an_unclosed_quote_is_no_mention() {
        assert_eq!(
            mentioned_paths("read @\"notes/first draft.md\" now @\"open"),
            ["notes/first draft.md"]
        );
    }

    #[test]
    fn each_path_is_given_once_in_order() {
        assert_eq!(mentioned_paths("@b @a @b"), ["b", "a"]);
    }
}
