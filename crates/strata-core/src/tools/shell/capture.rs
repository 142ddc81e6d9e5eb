//! What a command printed, kept in bounded memory: the beginning and the end
//! (where errors usually are) around a count of what was dropped.

use std::collections::VecDeque;

use super::super::output::Redactor;

/// Output kept in memory: at most `limit` bytes, the first half in `head`
/// and the latest half in `tail`; bytes pushed out of the middle are counted.
pub(super) struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
    head_limit: usize,
    tail_limit: usize,
}

impl Capture {
    pub(super) fn new(limit: usize) -> Self {
        let head_limit = limit / 2;
        Self {
            head: Vec::new(),
            tail: VecDeque::new(),
            dropped: 0,
            head_limit,
            tail_limit: limit - head_limit,
        }
    }

    pub(super) fn push(&mut self, mut bytes: &[u8]) {
        let room = self
            .head_limit
            .saturating_sub(self.head.len())
            .min(bytes.len());
        self.head.extend_from_slice(&bytes[..room]);
        bytes = &bytes[room..];
        if bytes.len() >= self.tail_limit {
            // The whole tail is replaced: skip what would be dropped anyway.
            let skip = bytes.len() - self.tail_limit;
            self.dropped += (self.tail.len() + skip) as u64;
            self.tail.clear();
            bytes = &bytes[skip..];
        }
        self.tail.extend(bytes);
        let over = self.tail.len().saturating_sub(self.tail_limit);
        self.tail.drain(..over);
        self.dropped += over as u64;
    }

    /// The kept output as text. When the middle was dropped, the two ends are
    /// cut on char boundaries (the partial chars counted as dropped) and
    /// joined by `redactor`, so a secret split by the cut is not half shown.
    pub(super) fn text(&self, redactor: &Redactor) -> String {
        let tail_bytes: Vec<u8> = self.tail.iter().copied().collect();
        if self.dropped == 0 {
            let mut bytes = self.head.clone();
            bytes.extend_from_slice(&tail_bytes);
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        let head_end = self.head.len() - incomplete_char_at_end(&self.head);
        let tail_start = continuation_bytes_at_start(&tail_bytes);
        let dropped = self.dropped + (self.head.len() - head_end + tail_start) as u64;
        let marker = format!("[... {dropped} bytes of output in the middle were not kept ...]");
        redactor.join_cut(
            &String::from_utf8_lossy(&self.head[..head_end]),
            &marker,
            &String::from_utf8_lossy(&tail_bytes[tail_start..]),
        )
    }
}

/// How many bytes at the end of `bytes` are the start of a UTF-8 char whose
/// rest is missing.
fn incomplete_char_at_end(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(4) {
        let byte = bytes[bytes.len() - back];
        if byte & 0b1100_0000 != 0b1000_0000 {
            // A lead byte (or ASCII): incomplete if it needs more than it has.
            let needs = match byte {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if needs > back { back } else { 0 };
        }
    }
    0
}

/// How many continuation bytes (the rest of a char cut off) `bytes` starts
/// with, at most three.
fn continuation_bytes_at_start(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|&&byte| byte & 0b1100_0000 == 0b1000_0000)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(limit: usize, chunks: &[&[u8]], redactor: &Redactor) -> String {
        let mut capture = Capture::new(limit);
        for chunk in chunks {
            capture.push(chunk);
        }
        capture.text(redactor)
    }

    #[test]
    fn the_tail_is_the_latest_output_whatever_the_chunk_sizes() {
        let output: Vec<u8> = (0..200u8).map(|i| b'a' + i % 26).collect();
        let expected = format!(
            "{}\n[... 180 bytes of output in the middle were not kept ...]\n{}",
            String::from_utf8_lossy(&output[..10]),
            String::from_utf8_lossy(&output[190..]),
        );
        for size in [1, 3, 7, 10, 11, 64, 200] {
            let chunks: Vec<&[u8]> = output.chunks(size).collect();
            assert_eq!(
                captured(20, &chunks, &Redactor::default()),
                expected,
                "{size}"
            );
        }
        // Within the limit nothing is cut, however it arrived.
        assert_eq!(
            captured(20, &[b"0123456789", b"abcdefghij"], &Redactor::default()),
            "0123456789abcdefghij"
        );
    }

    #[test]
    fn a_cut_inside_a_char_drops_the_partial_char_and_counts_it() {
        // "é" is two bytes: the head's cut and the tail's cut both split one.
        // 16 bytes, 6 kept: "aa" and the first byte of "é", then the second
        // byte of "é" and "bb".
        let chunks: [&[u8]; 3] = ["aaéé".as_bytes(), b"bbbbbb", "ébb".as_bytes()];
        assert_eq!(
            captured(6, &chunks, &Redactor::default()),
            "aa\n[... 12 bytes of output in the middle were not kept ...]\nbb"
        );
    }

    #[test]
    fn a_secret_split_by_the_capture_cut_is_redacted_on_both_sides() {
        let secret = "sk-live-0123456789abcdefghij";
        let redactor = Redactor::new([secret.to_owned()]);
        let output = format!("xxxx{secret}yyyy");
        for limit in 8..output.len() {
            let text = captured(limit, &[output.as_bytes()], &redactor);
            for start in 0..secret.len() - 4 {
                assert!(!text.contains(&secret[start..start + 4]), "{limit}: {text}");
            }
        }
    }
}
