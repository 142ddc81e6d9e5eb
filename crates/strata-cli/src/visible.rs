//! Text from the model, a tool, a file or an endpoint made safe to print:
//! every character a terminal would act on instead of showing (C0 and C1
//! controls, so every escape sequence; a carriage return not followed by a
//! newline; backspace) and every invisible character that changes what a
//! reader sees (bidi overrides and isolates, zero-width and other format
//! characters, line and paragraph separators) is replaced by a visible
//! spelling: `\x1b`, `\r`, `<U+202E>`. Newlines and tabs stay in
//! [`visible`]; [`visible_inline`] spells them out too, for text that must
//! stay on one line (a command in an approval prompt).
//!
//! Every sink in the CLI that prints such text passes it through here, and
//! the style helpers ([`crate::style::one_line`], [`crate::style::indented`])
//! do so themselves.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with newlines and tabs kept (and `\r\n` kept as a line end), every
/// other control or invisible character spelled out.
pub fn visible(text: &str) -> Cow<'_, str> {
    escape(text, Layout::Lines)
}

/// `text` on one line: like [`visible`], with newlines and tabs spelled out
/// as `\n` and `\t` too.
pub fn visible_inline(text: &str) -> Cow<'_, str> {
    escape(text, Layout::Inline)
}

/// [`visible`] over text that arrives in pieces (streamed deltas): a
/// carriage return ending one piece is held until the next shows whether
/// it ends a line (`\r\n`, kept) or stands alone (spelled out).
#[derive(Debug, Default)]
pub struct VisibleStream {
    held_cr: bool,
}

impl VisibleStream {
    /// What to print of the next piece.
    pub fn push(&mut self, piece: &str) -> String {
        let mut text = String::with_capacity(piece.len() + 1);
        if std::mem::take(&mut self.held_cr) {
            text.push('\r');
        }
        text.push_str(piece);
        if text.ends_with('\r') {
            text.pop();
            self.held_cr = true;
        }
        visible(&text).into_owned()
    }

    /// What is still held when the text ends.
    pub fn finish(&mut self) -> &'static str {
        if std::mem::take(&mut self.held_cr) {
            "\\r"
        } else {
            ""
        }
    }
}

/// A JSON text with every C1 control and invisible character (which
/// serde_json leaves raw; it escapes only C0 controls) written as a `\u`
/// escape: the same JSON value, safe on a terminal. Outside strings JSON
/// holds only ASCII, so every such character is inside a string.
pub fn json_safe(json: &str) -> Cow<'_, str> {
    let risky = |c: char| ('\u{80}'..='\u{9f}').contains(&c) || is_invisible(c);
    if !json.chars().any(risky) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if risky(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    Lines,
    Inline,
}

fn escape(text: &str, layout: Layout) -> Cow<'_, str> {
    let needs = |(index, c): (usize, char)| spelled(c, layout, next_is_newline(text, index));
    if !text.char_indices().any(|pair| needs(pair).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (index, c) in text.char_indices() {
        match spelled(c, layout, next_is_newline(text, index)) {
            Some(Spelling::Named(name)) => out.push_str(name),
            Some(Spelling::Hex) => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            Some(Spelling::CodePoint) => {
                let _ = write!(out, "<U+{:04X}>", u32::from(c));
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn next_is_newline(text: &str, index: usize) -> bool {
    text.as_bytes().get(index + 1) == Some(&b'\n')
}

enum Spelling {
    Named(&'static str),
    Hex,
    CodePoint,
}

/// How `c` is shown, or `None` when it is printed as itself.
fn spelled(c: char, layout: Layout, before_newline: bool) -> Option<Spelling> {
    let lines = layout == Layout::Lines;
    match c {
        '\n' | '\t' if lines => None,
        // A CRLF line end moves the cursor nowhere a reader would not expect.
        '\r' if lines && before_newline => None,
        '\n' => Some(Spelling::Named("\\n")),
        '\t' => Some(Spelling::Named("\\t")),
        '\r' => Some(Spelling::Named("\\r")),
        '\u{0}'..='\u{1f}' | '\u{7f}' => Some(Spelling::Hex),
        '\u{80}'..='\u{9f}' => Some(Spelling::CodePoint),
        c if is_invisible(c) => Some(Spelling::CodePoint),
        _ => None,
    }
}

/// Unicode format characters (general category Cf: bidi embeddings,
/// overrides, isolates and marks, zero-width characters, the byte-order
/// mark, tag characters), line and paragraph separators, and the blank
/// Hangul fillers: characters that print as nothing, or reorder what
/// follows them.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{115f}'..='\u{1160}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        let text = "fn main() {\n\tprintln!(\"héllo ✓ 日本\");\r\n}\n";
        assert!(matches!(visible(text), Cow::Borrowed(t) if t == text));
    }

    #[test]
    fn escape_sequences_are_spelled_out() {
        // CSI erase-line then carriage return: hides the real command.
        assert_eq!(visible("rm -rf ~\x1b[2K\rls"), "rm -rf ~\\x1b[2K\\rls");
        // OSC 8 hyperlink and OSC 52 clipboard write, BEL- and ST-ended.
        assert_eq!(
            visible("\x1b]52;c;ZXZpbA==\x07"),
            "\\x1b]52;c;ZXZpbA==\\x07"
        );
        assert_eq!(visible("\x1bP1$r\x1b\\"), "\\x1bP1$r\\x1b\\");
        // Single-character C1 CSI and backspace over text.
        assert_eq!(visible("a\u{9b}2Kb"), "a<U+009B>2Kb");
        assert_eq!(
            visible("safe\x08\x08\x08\x08evil"),
            "safe\\x08\\x08\\x08\\x08evil"
        );
        assert_eq!(visible("\0\x7f"), "\\x00\\x7f");
    }

    #[test]
    fn bidi_and_invisible_characters_are_named() {
        assert_eq!(visible("invoice\u{202e}fdp.exe"), "invoice<U+202E>fdp.exe");
        assert_eq!(
            visible("\u{2066}a\u{2069}\u{200b}\u{feff}\u{e0041}"),
            "<U+2066>a<U+2069><U+200B><U+FEFF><U+E0041>"
        );
        assert_eq!(visible("a\u{2028}b"), "a<U+2028>b");
    }

    #[test]
    fn lines_keep_newlines_tabs_and_crlf_but_not_a_bare_cr() {
        assert_eq!(visible("a\tb\r\nc\rd\n"), "a\tb\r\nc\\rd\n");
        assert_eq!(visible("end\r"), "end\\r");
    }

    #[test]
    fn a_stream_keeps_a_crlf_split_between_pieces_and_spells_a_lone_cr() {
        let mut stream = VisibleStream::default();
        assert_eq!(stream.push("one\r"), "one");
        assert_eq!(stream.push("\ntwo\r"), "\r\ntwo");
        assert_eq!(stream.push("three\x1b"), "\\rthree\\x1b");
        assert_eq!(stream.push("end\r"), "end");
        assert_eq!(stream.finish(), "\\r");
        assert_eq!(stream.finish(), "");
    }

    #[test]
    fn inline_spells_out_every_line_break() {
        assert_eq!(visible_inline("a\tb\r\nc\n"), "a\\tb\\r\\nc\\n");
    }

    #[test]
    fn json_keeps_its_value_and_loses_raw_c1_and_bidi() {
        let value = serde_json::json!({"t": "a\u{9b}2K\u{202e}b\u{e0041}\x1b\n"});
        let text = serde_json::to_string(&value).unwrap();
        assert!(text.contains('\u{9b}'), "serde_json leaves C1 raw: {text}");
        let safe = json_safe(&text);
        assert!(
            !safe.chars().any(|c| c.is_control() || is_invisible(c)),
            "{safe}"
        );
        assert_eq!(safe, r#"{"t":"a\u009b2K\u202eb\udb40\udc41\u001b\n"}"#);
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }

    /// What must never reach a terminal from hostile text.
    fn is_unsafe(output: &str, layout: Layout) -> Option<String> {
        let chars: Vec<char> = output.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let bad = match c {
                '\n' | '\t' => layout == Layout::Inline,
                '\r' => layout == Layout::Inline || chars.get(i + 1) != Some(&'\n'),
                c if c.is_control() => true,
                c => is_invisible(c),
            };
            if bad {
                return Some(format!("{c:?} at {i} in {output:?}"));
            }
        }
        None
    }

    fn hostile() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            any::<char>().prop_map(String::from),
            prop::sample::select(vec![
                "\x1b[2K",
                "\r",
                "\r\n",
                "\n",
                "\t",
                "\x08",
                "\x1b]0;t\x07",
                "\x1bP",
                "\x1b\\",
                "\u{9b}",
                "\u{9d}",
                "\u{202e}",
                "\u{2067}",
                "\u{200b}",
                "\u{feff}",
                "ok",
            ])
            .prop_map(str::to_owned),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn no_output_carries_a_control_or_invisible_character(text in hostile()) {
            let lines = visible(&text);
            prop_assert_eq!(is_unsafe(&lines, Layout::Lines), None);
            let inline = visible_inline(&text);
            prop_assert_eq!(is_unsafe(&inline, Layout::Inline), None);
            prop_assert!(!inline.contains('\n'));
            // Nothing is dropped: every character is there or spelled out.
            prop_assert!(lines.chars().count() >= text.chars().count());
        }

        #[test]
        fn text_without_controls_is_unchanged(text in "[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\u{115f}\u{1160}\u{2060}-\u{206f}\u{3164}\u{ffa0}]*") {
            prop_assert_eq!(visible(&text), text.as_str());
        }
    }
}
