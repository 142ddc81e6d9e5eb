//! What the composer's text asks for, decided once for both front ends:
//! the desktop's `send_message` and the CLI's REPL read `/compact [focus]`
//! through [`ComposerInput::parse`].

/// What a composer's text asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComposerInput<'a> {
    /// A message for a turn: the text as given.
    Message(&'a str),
    /// `/compact [focus]`: compact the history now, with an optional focus
    /// for the summary.
    Compact { focus: Option<&'a str> },
}

impl<'a> ComposerInput<'a> {
    /// `/compact`, alone or followed by whitespace and a focus, with any
    /// whitespace around it, is a compaction; anything else (`/compaction`,
    /// `/Compact`, `please /compact`) is a message, returned untouched.
    pub fn parse(text: &'a str) -> Self {
        let Some(rest) = text.trim().strip_prefix("/compact") else {
            return Self::Message(text);
        };
        if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
            return Self::Message(text);
        }
        let focus = rest.trim();
        Self::Compact {
            focus: (!focus.is_empty()).then_some(focus),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ComposerInput::{self, Compact, Message};

    #[test]
    fn compact_alone_has_no_focus_whatever_the_whitespace() {
        assert_eq!(ComposerInput::parse("/compact"), Compact { focus: None });
        assert_eq!(
            ComposerInput::parse("  /compact \n"),
            Compact { focus: None }
        );
        assert_eq!(
            ComposerInput::parse("/compact   \t"),
            Compact { focus: None }
        );
    }

    #[test]
    fn compact_takes_the_trimmed_rest_as_its_focus() {
        assert_eq!(
            ComposerInput::parse("  /compact   keep the parser notes "),
            Compact {
                focus: Some("keep the parser notes")
            }
        );
        assert_eq!(
            ComposerInput::parse("/compact\tthe parser work"),
            Compact {
                focus: Some("the parser work")
            }
        );
        assert_eq!(
            ComposerInput::parse("/compact keep\nboth lines"),
            Compact {
                focus: Some("keep\nboth lines")
            }
        );
    }

    #[test]
    fn a_longer_word_a_capital_or_text_before_it_is_a_message() {
        for text in [
            "/compactfoo",
            "/compaction is great",
            "/Compact",
            "/COMPACT now",
            "please /compact",
            "compact",
        ] {
            assert_eq!(ComposerInput::parse(text), Message(text), "{text:?}");
        }
    }

    #[test]
    fn a_message_is_returned_as_typed() {
        assert_eq!(
            ComposerInput::parse("  list the files \n"),
            Message("  list the files \n")
        );
        assert_eq!(ComposerInput::parse(""), Message(""));
    }
}
