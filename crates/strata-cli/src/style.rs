//! Output: colour on a terminal (unless `NO_COLOR`), plain text when piped,
//! and the few styles every command shares.

use std::io::{self, Write};

use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Style};

use crate::cli::ColorWhen;
use crate::visible::{visible, visible_inline};

pub const DIM: Style = Style::new().dimmed();
pub const BOLD: Style = Style::new().bold();
pub const USER: Style = AnsiColor::Cyan.on_default().bold();
pub const ASSISTANT: Style = AnsiColor::Green.on_default().bold();
pub const TOOL: Style = AnsiColor::Yellow.on_default();
pub const ERROR: Style = AnsiColor::Red.on_default().bold();
pub const WARN: Style = AnsiColor::Yellow.on_default().bold();
pub const COMPACTION: Style = AnsiColor::Magenta.on_default().bold();

/// `text` wrapped in `style` (the stream strips it when colour is off).
pub fn paint(style: Style, text: impl std::fmt::Display) -> String {
    format!("{style}{text}{style:#}")
}

/// How the process writes: the colour choice made once from `--color`.
#[derive(Clone, Copy, Debug)]
pub struct Output {
    choice: ColorChoice,
}

impl Output {
    pub fn new(when: ColorWhen) -> Self {
        let choice = match when {
            ColorWhen::Auto => ColorChoice::Auto,
            ColorWhen::Always => ColorChoice::Always,
            ColorWhen::Never => ColorChoice::Never,
        };
        Self { choice }
    }

    /// Standard output, with styles kept or stripped as chosen.
    pub fn stdout(&self) -> AutoStream<io::StdoutLock<'static>> {
        AutoStream::new(io::stdout().lock(), self.choice)
    }

    /// Standard error, with styles kept or stripped as chosen.
    pub fn stderr(&self) -> AutoStream<io::Stderr> {
        AutoStream::new(io::stderr(), self.choice)
    }

    /// A warning line on standard error; a failure to write it is ignored
    /// (there is nowhere left to report it).
    pub fn warn(&self, message: impl std::fmt::Display) {
        let message = message.to_string();
        let _ = writeln!(
            self.stderr(),
            "{} {}",
            paint(WARN, "warning:"),
            visible_inline(&message)
        );
    }
}

/// `text` on one line, whitespace runs collapsed, controls spelled out
/// ([`visible_inline`]), cut to `max` characters with an ellipsis.
pub fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = visible_inline(&line).into_owned();
    if line.chars().count() <= max {
        return line;
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// Every line of `text` prefixed with `indent`, controls spelled out
/// ([`visible`]).
pub fn indented(text: &str, indent: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(indent);
        out.push_str(&visible(line));
        out.push('\n');
    }
    if out.is_empty() {
        out.push_str(indent);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_collapses_and_cuts() {
        assert_eq!(one_line("a\n  b\tc", 10), "a b c");
        assert_eq!(one_line("abcdefghijkl", 5), "abcd…");
    }

    #[test]
    fn one_line_and_indented_spell_out_controls() {
        assert_eq!(one_line("ls\x1b[2K\rrm -rf ~", 40), "ls\\x1b[2K rm -rf ~");
        assert_eq!(indented("a\u{202e}b\rc", "  "), "  a<U+202E>b\\rc\n");
    }

    #[test]
    fn indented_prefixes_every_line() {
        assert_eq!(indented("a\nb", "  "), "  a\n  b\n");
        assert_eq!(indented("", "  "), "  \n");
    }
}
