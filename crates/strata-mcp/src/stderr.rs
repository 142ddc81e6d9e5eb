//! A server's stderr, kept as its last lines in a bounded ring: a server
//! that writes megabytes of logs costs Strata at most [`MAX_BYTES`], and the
//! tail is there to explain a failed start or a crash.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncRead, AsyncReadExt};

/// The most bytes of stderr kept per server.
pub const MAX_BYTES: usize = 64 * 1024;
/// The most lines of stderr kept per server.
pub const MAX_LINES: usize = 200;
/// A longer line is cut here (a server may write a megabyte without a newline).
pub const MAX_LINE_BYTES: usize = 4 * 1024;
/// Marks a line that was cut.
const CUT: &str = "…";

#[derive(Debug, Default)]
struct Ring {
    lines: VecDeque<String>,
    bytes: usize,
    /// Lines seen in all, kept or not.
    seen: u64,
}

/// The last lines a server wrote to stderr.
#[derive(Debug, Clone, Default)]
pub struct StderrRing {
    ring: Arc<Mutex<Ring>>,
}

impl StderrRing {
    fn push(&self, line: String) {
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        ring.seen += 1;
        ring.bytes += line.len();
        ring.lines.push_back(line);
        while ring.lines.len() > MAX_LINES || ring.bytes > MAX_BYTES {
            match ring.lines.pop_front() {
                Some(dropped) => ring.bytes -= dropped.len(),
                None => break,
            }
        }
    }

    /// The kept lines, oldest first, as the server wrote them (lossy UTF-8).
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        ring.lines.iter().cloned().collect()
    }

    /// How many lines the server wrote in all.
    #[must_use]
    pub fn lines_seen(&self) -> u64 {
        self.ring
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .seen
    }

    /// The last `count` lines, escaped for a terminal, one per line.
    #[must_use]
    pub fn tail(&self, count: usize) -> String {
        let lines = self.lines();
        let start = lines.len().saturating_sub(count);
        lines[start..]
            .iter()
            .map(|line| printable(line))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Reads `stderr` to its end into the ring.
    pub async fn collect(self, mut stderr: impl AsyncRead + Unpin) {
        let mut chunk = vec![0_u8; 8 * 1024];
        let mut line: Vec<u8> = Vec::new();
        let mut cut = false;
        loop {
            let read = match stderr.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(read) => read,
            };
            for part in chunk[..read].split_inclusive(|&b| b == b'\n') {
                let (body, ends) = match part.split_last() {
                    Some((b'\n', body)) => (body, true),
                    _ => (part, false),
                };
                let room = MAX_LINE_BYTES.saturating_sub(line.len());
                if body.len() > room {
                    cut = true;
                }
                line.extend_from_slice(&body[..body.len().min(room)]);
                if ends {
                    self.push(finish_line(&mut line, &mut cut));
                }
            }
        }
        if !line.is_empty() {
            self.push(finish_line(&mut line, &mut cut));
        }
    }
}

fn finish_line(line: &mut Vec<u8>, cut: &mut bool) -> String {
    let mut text = String::from_utf8_lossy(line).into_owned();
    if text.ends_with('\r') {
        text.pop();
    }
    if *cut {
        text.push_str(CUT);
    }
    line.clear();
    *cut = false;
    text
}

/// `text` with every control character but tab shown as `\u{..}`, so a
/// server's bytes cannot move a terminal's cursor, set its title (OSC) or
/// hide text: they are shown, not obeyed.
#[must_use]
pub fn printable(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\t' {
            shown.extend(c.escape_unicode());
        } else {
            shown.push(c);
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[tokio::test]
    async fn lines_are_split_and_a_line_without_newline_is_kept() {
        let ring = StderrRing::default();
        ring.clone().collect(&b"first\r\nsecond\nlast"[..]).await;
        assert_eq!(ring.lines(), ["first", "second", "last"]);
    }

    #[tokio::test]
    async fn a_long_line_is_cut_and_marked() {
        let ring = StderrRing::default();
        let long = vec![b'x'; MAX_LINE_BYTES * 3];
        ring.clone().collect(&long[..]).await;
        let lines = ring.lines();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].len(), MAX_LINE_BYTES + CUT.len());
        assert!(lines[0].ends_with(CUT));
    }

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert_eq!(
            printable("\u{1b}]0;owned\u{7}red\u{1b}[31m\ttab"),
            "\\u{1b}]0;owned\\u{7}red\\u{1b}[31m\ttab"
        );
    }

    proptest! {
        /// However much a server writes, the ring stays within its bounds and
        /// keeps the newest line.
        #[test]
        fn the_ring_stays_bounded_and_keeps_the_newest_line(
            lengths in proptest::collection::vec(0_usize..3000, 1..400)
        ) {
            let lines: Vec<String> = lengths
                .iter()
                .enumerate()
                .map(|(n, &length)| format!("{n}:{}", "x".repeat(length)))
                .collect();
            let ring = StderrRing::default();
            for line in &lines {
                ring.push(line.clone());
            }
            let kept = ring.lines();
            prop_assert!(kept.len() <= MAX_LINES);
            prop_assert!(kept.iter().map(String::len).sum::<usize>() <= MAX_BYTES);
            prop_assert_eq!(kept.last(), lines.last());
            prop_assert_eq!(ring.lines_seen(), lines.len() as u64);
        }
    }
}
