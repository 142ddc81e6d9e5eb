//! A unified diff of two texts, bounded for display: three lines of
//! context, numbered lines, at most [`MAX_DIFF_LINES`] lines shown and each
//! cut at [`MAX_LINE_CHARS`] characters.

use strata_protocol::{DiffBody, DiffHunk, DiffLine, DiffTag};

/// Lines a diff shows at most; the rest are counted in `omitted_lines`.
pub const MAX_DIFF_LINES: usize = 2000;
/// Characters of one line shown at most.
pub const MAX_LINE_CHARS: usize = 1000;
const CONTEXT_LINES: usize = 3;

fn shown(text: &str) -> String {
    let line = text.strip_suffix('\n').unwrap_or(text);
    let line = line.strip_suffix('\r').unwrap_or(line);
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

fn number(index: Option<usize>) -> Option<u32> {
    index.map(|i| u32::try_from(i + 1).unwrap_or(u32::MAX))
}

/// The diff of `before` to `after` (an absent file is the empty text).
pub fn text_diff(before: &str, after: &str) -> DiffBody {
    let diff = similar::TextDiff::from_lines(before, after);
    let (mut added, mut removed) = (0u64, 0u64);
    let mut hunks = Vec::new();
    let mut budget = MAX_DIFF_LINES;
    let mut omitted = 0u64;
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let mut lines = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let tag = match change.tag() {
                    similar::ChangeTag::Equal => DiffTag::Context,
                    similar::ChangeTag::Insert => {
                        added += 1;
                        DiffTag::Added
                    }
                    similar::ChangeTag::Delete => {
                        removed += 1;
                        DiffTag::Removed
                    }
                };
                if budget == 0 {
                    omitted += 1;
                    continue;
                }
                budget -= 1;
                lines.push(DiffLine {
                    tag,
                    old: number(change.old_index()),
                    new: number(change.new_index()),
                    text: shown(change.value()),
                });
            }
        }
        if lines.is_empty() {
            continue;
        }
        hunks.push(DiffHunk {
            header: header(&group),
            lines,
        });
    }
    DiffBody::Text {
        hunks,
        added,
        removed,
        omitted_lines: omitted,
    }
}

/// `@@ -a,b +c,d @@` for a group of operations.
fn header(group: &[similar::DiffOp]) -> String {
    let (Some(first), Some(last)) = (group.first(), group.last()) else {
        return "@@ @@".into();
    };
    let old = first.old_range().start..last.old_range().end;
    let new = first.new_range().start..last.new_range().end;
    let side = |range: std::ops::Range<usize>| {
        let len = range.end - range.start;
        let start = if len == 0 {
            range.start
        } else {
            range.start + 1
        };
        format!("{start},{len}")
    };
    format!("@@ -{} +{} @@", side(old), side(new))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(body: &DiffBody) -> Vec<(DiffTag, Option<u32>, Option<u32>, String)> {
        let DiffBody::Text { hunks, .. } = body else {
            panic!("a text diff");
        };
        hunks
            .iter()
            .flat_map(|h| h.lines.iter())
            .map(|l| (l.tag, l.old, l.new, l.text.clone()))
            .collect()
    }

    #[test]
    fn a_changed_line_is_removed_then_added_with_both_numbers() {
        let body = text_diff("one\ntwo\nthree\n", "one\nTWO\nthree\n");
        assert_eq!(
            lines(&body),
            vec![
                (DiffTag::Context, Some(1), Some(1), "one".into()),
                (DiffTag::Removed, Some(2), None, "two".into()),
                (DiffTag::Added, None, Some(2), "TWO".into()),
                (DiffTag::Context, Some(3), Some(3), "three".into()),
            ]
        );
        let DiffBody::Text {
            hunks,
            added,
            removed,
            omitted_lines,
        } = body
        else {
            panic!("a text diff");
        };
        assert_eq!((added, removed, omitted_lines), (1, 1, 0));
        assert_eq!(hunks[0].header, "@@ -1,3 +1,3 @@");
    }

    #[test]
    fn a_new_file_is_all_added_from_line_one() {
        let body = text_diff("", "a\nb\n");
        let DiffBody::Text { hunks, added, .. } = &body else {
            panic!("a text diff");
        };
        assert_eq!(*added, 2);
        assert_eq!(hunks[0].header, "@@ -0,0 +1,2 @@");
    }

    #[test]
    fn far_apart_changes_are_separate_hunks_with_three_lines_of_context() {
        let before: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let after = before
            .replace("line 2\n", "line two\n")
            .replace("line 28\n", "line twenty-eight\n");
        let DiffBody::Text { hunks, .. } = text_diff(&before, &after) else {
            panic!("a text diff");
        };
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[1].header, "@@ -25,6 +25,6 @@");
    }

    #[test]
    fn a_long_diff_is_cut_and_counts_what_it_left_out() {
        let after: String = (0..MAX_DIFF_LINES + 50).map(|n| format!("{n}\n")).collect();
        let DiffBody::Text {
            hunks,
            added,
            omitted_lines,
            ..
        } = text_diff("", &after)
        else {
            panic!("a text diff");
        };
        let shown: usize = hunks.iter().map(|h| h.lines.len()).sum();
        assert_eq!(shown, MAX_DIFF_LINES);
        assert_eq!(omitted_lines, 50);
        assert_eq!(added, (MAX_DIFF_LINES + 50) as u64);
    }

    #[test]
    fn a_very_long_line_is_cut_with_a_mark() {
        let long = "x".repeat(MAX_LINE_CHARS + 10);
        let body = text_diff("", &format!("{long}\n"));
        let text = &lines(&body)[0].3;
        assert_eq!(text.chars().count(), MAX_LINE_CHARS + 1);
        assert!(text.ends_with('…'));
    }
}
