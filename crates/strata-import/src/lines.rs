//! Lines of a JSONL file, each held at most up to a cap: a longer line is
//! consumed chunk by chunk and reported as too long, never loaded whole.

use std::io::{self, BufRead};

/// The longest line a reader holds. Real records stay far below it (a
/// Codex `compacted` line with its whole replacement history is about
/// a megabyte); anything longer is skipped and counted.
pub const LINE_CAP_BYTES: usize = 8 * 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

pub(crate) enum Line<'a> {
    /// The line's bytes without its end (`\n` or `\r\n`) or a leading BOM.
    Text(&'a [u8]),
    TooLong,
}

pub(crate) struct BoundedLines<R> {
    reader: R,
    cap: usize,
    buffer: Vec<u8>,
    /// 1-based number of the line last returned.
    number: u64,
}

impl<R: BufRead> BoundedLines<R> {
    pub(crate) fn new(reader: R, cap: usize) -> Self {
        BoundedLines {
            reader,
            cap,
            buffer: Vec::new(),
            number: 0,
        }
    }

    /// Lines returned so far.
    pub(crate) fn count(&self) -> u64 {
        self.number
    }

    /// The next line with its 1-based number, `None` at the end of the input.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<(u64, Line<'_>)>> {
        self.buffer.clear();
        let mut too_long = false;
        let mut read_any = false;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if chunk.is_empty() {
                if !read_any {
                    return Ok(None);
                }
                break;
            }
            read_any = true;
            let newline = memchr::memchr(b'\n', chunk);
            let part = match newline {
                Some(at) => &chunk[..at],
                None => chunk,
            };
            if !too_long {
                if self.buffer.len() + part.len() > self.cap {
                    too_long = true;
                    self.buffer = Vec::new();
                } else {
                    self.buffer.extend_from_slice(part);
                }
            }
            let used = newline.map_or(chunk.len(), |at| at + 1);
            self.reader.consume(used);
            if newline.is_some() {
                break;
            }
        }
        self.number += 1;
        if too_long {
            return Ok(Some((self.number, Line::TooLong)));
        }
        let mut text = self.buffer.as_slice();
        if let Some(rest) = text.strip_prefix(BOM) {
            text = rest;
        }
        if let Some(rest) = text.strip_suffix(b"\r") {
            text = rest;
        }
        Ok(Some((self.number, Line::Text(text))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<Option<Vec<u8>>> {
        // A tiny buffer so lines straddle many fill_buf chunks.
        let reader = io::BufReader::with_capacity(3, input);
        let mut lines = BoundedLines::new(reader, cap);
        let mut out = Vec::new();
        while let Some((_, line)) = lines.next_line().unwrap() {
            out.push(match line {
                Line::Text(text) => Some(text.to_vec()),
                Line::TooLong => None,
            });
        }
        out
    }

    #[test]
    fn a_line_over_the_cap_is_reported_and_the_next_line_still_read() {
        let got = lines(b"short\nthis one is long\nok\r\n\xEF\xBB\xBFbom\nlast", 8);
        assert_eq!(
            got,
            vec![
                Some(b"short".to_vec()),
                None,
                Some(b"ok".to_vec()),
                Some(b"bom".to_vec()),
                Some(b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn empty_input_has_no_lines_and_a_final_newline_adds_none() {
        assert!(lines(b"", 8).is_empty());
        assert_eq!(lines(b"a\n", 8), vec![Some(b"a".to_vec())]);
        assert_eq!(lines(b"\n\n", 8), vec![Some(vec![]), Some(vec![])]);
    }

    #[test]
    fn a_line_exactly_at_the_cap_is_kept() {
        assert_eq!(lines(b"12345678\n", 8), vec![Some(b"12345678".to_vec())]);
        assert_eq!(lines(b"123456789\n", 8), vec![None]);
    }
}
