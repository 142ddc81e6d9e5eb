//! What leaves the tool layer: secrets redacted first (so a cut can never
//! leave half a key visible), then capped to head and tail with a marker.
//!
//! The one cut made before redaction is the shell's capture limit (output is
//! cut as it streams in); [`Redactor::join_cut`] joins its two ends so that
//! no part of a secret the cut split stays visible.

/// Replaces configured secret values with `[redacted]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Redactor {
    secrets: Vec<String>,
}

/// Values shorter than this are not redacted: replacing every `abc` in
/// every output would garble it while protecting nothing real.
const MIN_SECRET_LEN: usize = 6;

pub(crate) const REDACTED: &str = "[redacted]";

/// A cut that splits a secret leaves a fragment of it on each side; one this
/// long or longer is redacted. Shorter ones are left: three characters tell
/// nothing (`sk-` starts most keys), and matching them would redact ordinary
/// text at every cut.
const MIN_FRAGMENT_LEN: usize = 4;

impl Redactor {
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| s.len() >= MIN_SECRET_LEN)
            .collect();
        // Longest first, so a secret containing another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Self { secrets }
    }

    pub fn redact(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for secret in &self.secrets {
            if text.contains(secret.as_str()) {
                text = text.replace(secret.as_str(), REDACTED);
            }
        }
        text
    }

    /// `head`, a line saying `marker`, then `tail`: the two ends kept of a
    /// text whose middle was cut, each redacted. A secret the cut split is
    /// not whole on either side, so also redacted are an end of `head` that
    /// is the start of a secret and a start of `tail` that is the end of one
    /// (at least [`MIN_FRAGMENT_LEN`] long).
    pub fn join_cut(&self, head: &str, marker: &str, tail: &str) -> String {
        let mut head = self.redact(head);
        let longest_start = self
            .secrets
            .iter()
            .filter_map(|secret| {
                longest_fragment(secret, |k| {
                    secret.get(..k).is_some_and(|start| head.ends_with(start))
                })
            })
            .max();
        if let Some(len) = longest_start {
            head.truncate(head.len() - len);
            head.push_str(REDACTED);
        }
        let mut tail = self.redact(tail);
        let longest_end = self
            .secrets
            .iter()
            .filter_map(|secret| {
                longest_fragment(secret, |k| {
                    secret
                        .get(secret.len() - k..)
                        .is_some_and(|end| tail.starts_with(end))
                })
            })
            .max();
        if let Some(len) = longest_end {
            tail.replace_range(..len, REDACTED);
        }
        let mut joined = head;
        if !joined.is_empty() && !joined.ends_with('\n') {
            joined.push('\n');
        }
        joined.push_str(marker);
        joined.push('\n');
        joined.push_str(&tail);
        joined
    }
}

/// The longest length in bytes, at least [`MIN_FRAGMENT_LEN`] and shorter
/// than `secret`, for which `matches` (a fragment of that length is found).
fn longest_fragment(secret: &str, matches: impl Fn(usize) -> bool) -> Option<usize> {
    (MIN_FRAGMENT_LEN..secret.len()).rev().find(|&k| matches(k))
}

/// How much tool output may enter the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputCap {
    pub max_bytes: usize,
    pub max_lines: usize,
}

impl Default for OutputCap {
    fn default() -> Self {
        Self {
            max_bytes: 16 * 1024,
            max_lines: 400,
        }
    }
}

impl OutputCap {
    /// `text` if within the cap; otherwise its head and tail around a marker
    /// saying how much was cut, and the full text.
    pub fn apply(&self, text: String) -> (String, Option<String>) {
        let lines = text.lines().count();
        if text.len() <= self.max_bytes && lines <= self.max_lines {
            return (text, None);
        }
        let head_end = self.head_end(&text);
        let tail_start = self.tail_start(&text).max(head_end);
        let cut = &text[head_end..tail_start];
        let marker = format!(
            "[... {} characters ({} lines) cut ...]",
            thousands(cut.chars().count()),
            thousands(cut.matches('\n').count()),
        );
        let mut capped =
            String::with_capacity(head_end + marker.len() + text.len() - tail_start + 2);
        capped.push_str(&text[..head_end]);
        if !capped.ends_with('\n') && !capped.is_empty() {
            capped.push('\n');
        }
        capped.push_str(&marker);
        capped.push('\n');
        capped.push_str(&text[tail_start..]);
        (capped, Some(text))
    }

    /// End of the kept head: at most half the lines and half the bytes, on a
    /// line end when one is close, else on a char boundary.
    fn head_end(&self, text: &str) -> usize {
        let by_lines = text
            .match_indices('\n')
            .nth((self.max_lines / 2).saturating_sub(1))
            .map_or(text.len(), |(i, _)| i + 1);
        let by_bytes = floor_char_boundary(text, self.max_bytes / 2);
        let end = by_lines.min(by_bytes);
        match text[..end].rfind('\n') {
            Some(i) if i + 1 >= end / 2 => i + 1,
            _ => end,
        }
    }

    /// Start of the kept tail, mirroring [`Self::head_end`].
    fn tail_start(&self, text: &str) -> usize {
        let tail_lines = self.max_lines / 2;
        let body = text.strip_suffix('\n').unwrap_or(text);
        let by_lines = if tail_lines == 0 {
            text.len()
        } else {
            body.rmatch_indices('\n')
                .nth(tail_lines - 1)
                .map_or(0, |(i, _)| i + 1)
        };
        let by_bytes = ceil_char_boundary(text, text.len().saturating_sub(self.max_bytes / 2));
        let start = by_lines.max(by_bytes);
        if start == 0 || text[..start].ends_with('\n') {
            return start;
        }
        let kept = text.len() - start;
        match text[start..].find('\n') {
            Some(i) if i < kept / 2 && start + i + 1 < text.len() => start + i + 1,
            _ => start,
        }
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// `12345` as `12,345`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_output_is_untouched() {
        let cap = OutputCap::default();
        assert_eq!(cap.apply("hello\n".into()), ("hello\n".into(), None));
    }

    #[test]
    fn long_output_keeps_head_and_tail_and_says_how_much_was_cut() {
        let cap = OutputCap {
            max_bytes: 1000,
            max_lines: 10_000,
        };
        let text: String = (0..500).map(|i| format!("line {i:04}\n")).collect();
        let (capped, full) = cap.apply(text.clone());
        assert_eq!(full.as_deref(), Some(text.as_str()));
        assert!(capped.starts_with("line 0000\n"));
        assert!(capped.ends_with("line 0499\n"));
        assert!(capped.len() < 1100, "{}", capped.len());
        let marker = capped.lines().find(|l| l.starts_with("[... ")).unwrap();
        let kept: usize = capped.len() - marker.len() - 1;
        let cut = text.len() - kept;
        assert_eq!(
            marker,
            format!(
                "[... {} characters ({} lines) cut ...]",
                thousands(cut),
                cut / 10
            )
        );
    }

    #[test]
    fn too_many_short_lines_are_cut_by_line_count() {
        let cap = OutputCap {
            max_bytes: 1 << 20,
            max_lines: 10,
        };
        let text: String = (0..100).map(|i| format!("{i}\n")).collect();
        let (capped, _) = cap.apply(text);
        let lines: Vec<&str> = capped.lines().collect();
        assert_eq!(lines[..5], ["0", "1", "2", "3", "4"]);
        assert_eq!(lines[6..], ["95", "96", "97", "98", "99"]);
        assert_eq!(lines[5], "[... 265 characters (90 lines) cut ...]");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(12_345), "12,345");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn redaction_replaces_every_occurrence_and_ignores_tiny_values() {
        let redactor = Redactor::new(["sk-test-123456".to_owned(), "abc".to_owned()]);
        assert_eq!(
            redactor.redact("k=sk-test-123456 again sk-test-123456 abc"),
            "k=[redacted] again [redacted] abc"
        );
    }

    #[test]
    fn a_cut_through_a_secret_redacts_its_fragment_on_each_side() {
        let redactor = Redactor::new(["sk-live-0123456789".to_owned(), "pässwört-42".to_owned()]);
        let join = |head: &str, tail: &str| redactor.join_cut(head, "[cut]", tail);
        assert_eq!(
            join("key=sk-li", "6789 ok"),
            "key=[redacted]\n[cut]\n[redacted] ok"
        );
        // Whole secrets on either side, then a fragment.
        assert_eq!(
            join("sk-live-0123456789 sk-live-01", "pässwört-42\n"),
            "[redacted] [redacted]\n[cut]\n[redacted]\n"
        );
        // Non-ASCII secrets are matched on char boundaries.
        assert_eq!(
            join("pw=päss", "rt-42."),
            "pw=[redacted]\n[cut]\n[redacted]."
        );
        // Three characters or fewer are left: too short to tell anything.
        assert_eq!(join("x sk-", "789\n"), "x sk-\n[cut]\n789\n");
        // Text that merely resembles a secret's middle is left alone.
        assert_eq!(join("live-012", "sk-live"), "live-012\n[cut]\nsk-live");
        assert_eq!(join("", ""), "[cut]\n");
    }

    proptest! {
        #[test]
        fn capping_never_splits_a_char_and_keeps_both_ends(
            text in "(\\PC{0,40}\n?){0,200}",
            max_bytes in 8usize..400,
            max_lines in 2usize..40,
        ) {
            let cap = OutputCap { max_bytes, max_lines };
            let (capped, full) = cap.apply(text.clone());
            match full {
                None => prop_assert_eq!(&capped, &text),
                Some(full) => {
                    prop_assert_eq!(&full, &text);
                    prop_assert!(capped.contains(" cut ...]"));
                    prop_assert!(capped.len() <= max_bytes + 80 + 1);
                    let head = &capped[..capped.find("[... ").unwrap_or(0)];
                    prop_assert!(text.starts_with(head.trim_end_matches('\n')));
                }
            }
        }
    }
}
