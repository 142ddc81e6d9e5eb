//! A server's stdout as the protocol reads it, with the lines that are not
//! JSON-RPC messages counted and the last few kept: a server that prints a
//! banner or logs to stdout is misconfigured, and the person should see
//! what it printed instead of wondering why nothing works.
//!
//! Since the 2025-06-18 revision every message is one JSON object on one
//! line, so a line is counted when its first non-blank byte is not `{`.
//! Blank lines are not counted. The SDK ignores such lines itself; this only
//! watches the bytes go by.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// How many stray lines are kept.
pub const KEPT_LINES: usize = 20;
/// How much of each stray line is kept.
pub const KEPT_LINE_BYTES: usize = 512;

#[derive(Debug, Default)]
struct Stray {
    count: u64,
    lines: VecDeque<String>,
}

/// What a server printed to stdout that was not a message.
#[derive(Debug, Clone, Default)]
pub struct StrayStdout {
    stray: Arc<Mutex<Stray>>,
}

impl StrayStdout {
    /// How many lines were not messages.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.stray
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .count
    }

    /// The last of them (each cut at [`KEPT_LINE_BYTES`]), unescaped.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let stray = self.stray.lock().unwrap_or_else(PoisonError::into_inner);
        stray.lines.iter().cloned().collect()
    }

    fn record(&self, line: &[u8]) {
        let mut stray = self.stray.lock().unwrap_or_else(PoisonError::into_inner);
        stray.count += 1;
        if stray.lines.len() == KEPT_LINES {
            stray.lines.pop_front();
        }
        let text = String::from_utf8_lossy(line);
        stray
            .lines
            .push_back(text.trim_end_matches(['\r', '\n']).to_owned());
    }
}

/// Where the reader is within the current line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineState {
    /// Only blanks so far.
    Start,
    /// The line is a message (it began with `{`).
    Message,
    /// The line is not a message; its first bytes are being kept.
    Stray,
}

/// Passes a server's stdout through unchanged, watching for stray lines.
#[derive(Debug)]
pub struct WatchedStdout<R> {
    inner: R,
    state: LineState,
    /// The current stray line's first bytes.
    line: Vec<u8>,
    stray: StrayStdout,
}

impl<R> WatchedStdout<R> {
    pub fn new(inner: R, stray: StrayStdout) -> Self {
        Self {
            inner,
            state: LineState::Start,
            line: Vec::new(),
            stray,
        }
    }

    fn watch(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            match (self.state, byte) {
                (LineState::Stray, b'\n') => {
                    self.stray.record(&self.line);
                    self.line.clear();
                    self.state = LineState::Start;
                }
                (_, b'\n') => self.state = LineState::Start,
                (LineState::Start, b' ' | b'\t' | b'\r') | (LineState::Message, _) => {}
                (LineState::Start, b'{') => self.state = LineState::Message,
                (LineState::Start | LineState::Stray, _) => {
                    self.state = LineState::Stray;
                    if self.line.len() < KEPT_LINE_BYTES {
                        self.line.push(byte);
                    }
                }
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchedStdout<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let had_room = buf.remaining() > 0;
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let read = &buf.filled()[before..];
            if read.is_empty() && had_room && this.state == LineState::Stray {
                // The end of the stream ends a stray last line too.
                this.stray.record(&this.line);
                this.line.clear();
                this.state = LineState::Start;
            }
            this.watch(read);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn watched(input: &[u8]) -> (Vec<u8>, StrayStdout) {
        let stray = StrayStdout::default();
        let mut reader = WatchedStdout::new(input, stray.clone());
        let mut passed = Vec::new();
        reader.read_to_end(&mut passed).await.unwrap();
        (passed, stray)
    }

    #[tokio::test]
    async fn messages_pass_through_and_stray_lines_are_counted() {
        let input =
            b"Server v1 starting\n{\"jsonrpc\":\"2.0\"}\n\n  {\"id\":1}\r\nready.\nno newline";
        let (passed, stray) = watched(input).await;
        assert_eq!(passed, input);
        assert_eq!(stray.count(), 3);
        assert_eq!(
            stray.lines(),
            ["Server v1 starting", "ready.", "no newline"]
        );
    }

    #[tokio::test]
    async fn a_long_stray_line_is_kept_cut_and_only_the_last_lines_stay() {
        let mut input = vec![b'x'; KEPT_LINE_BYTES * 4];
        input.push(b'\n');
        for n in 0..KEPT_LINES * 2 {
            input.extend_from_slice(format!("noise {n}\n").as_bytes());
        }
        let (_, stray) = watched(&input).await;
        assert_eq!(stray.count(), 1 + 2 * KEPT_LINES as u64);
        let lines = stray.lines();
        assert_eq!(lines.len(), KEPT_LINES);
        assert_eq!(lines.last().map(String::as_str), Some("noise 39"));
    }
}
