//! Hostile input: any bytes read without a panic, and garbage lines, torn
//! writes and truncation never lose the readable records around them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod writers;

use proptest::prelude::*;
use strata_import::{ImportedSession, ItemKind, Tool, read_from};
use writers::{claude_session, codex_session, copilot_session, jsonl};

const TOOLS: [Tool; 3] = [Tool::Codex, Tool::ClaudeCode, Tool::CopilotCli];

fn lines_of(tool: Tool) -> Vec<Vec<u8>> {
    let records = match tool {
        Tool::Codex => codex_session("", vec![]),
        Tool::ClaudeCode => claude_session(),
        Tool::CopilotCli => copilot_session(),
    };
    records
        .iter()
        .map(|record| record.to_string().into_bytes())
        .collect()
}

fn read_lines(tool: Tool, lines: &[Vec<u8>]) -> ImportedSession {
    read_from(tool, lines.join(&b'\n').as_slice())
}

/// A line that is no record: garbage bytes, or a valid line torn part way
/// (a strict prefix of a JSON object never parses).
fn garbage(tool: Tool) -> impl Strategy<Value = Vec<u8>> {
    let lines = lines_of(tool);
    prop_oneof![
        proptest::collection::vec(
            any::<u8>().prop_filter("no newline", |b| *b != b'\n'),
            0..200
        )
        .prop_map(|bytes| [b"#".as_slice(), &bytes].concat()),
        (0..lines.len(), any::<prop::sample::Index>()).prop_map({
            let lines = lines.clone();
            move |(at, cut)| {
                let line = &lines[at];
                line[..1 + cut.index(line.len() - 1)].to_vec()
            }
        }),
        // Two writers interleaved on one line.
        (0..lines.len(), 0..lines.len())
            .prop_map(move |(a, b)| [lines[a].as_slice(), &lines[b]].concat()),
    ]
}

proptest! {
    #[test]
    fn any_bytes_read_without_a_panic_and_every_line_is_accounted_for(
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
    ) {
        for tool in TOOLS {
            let session = read_from(tool, bytes.as_slice());
            let warnings = &session.warnings;
            let lines = bytes.split(|b| *b == b'\n').count() as u64
                - u64::from(bytes.is_empty() || bytes.ends_with(b"\n"));
            prop_assert_eq!(warnings.lines, lines);
            prop_assert!(warnings.unreadable_lines + warnings.too_long_lines <= lines);
        }
    }

    #[test]
    fn garbage_and_torn_lines_between_records_lose_none_of_them(
        (tool, inserts) in prop::sample::select(TOOLS.to_vec()).prop_flat_map(|tool| {
            (Just(tool), proptest::collection::vec((any::<prop::sample::Index>(), garbage(tool)), 0..12))
        }),
    ) {
        let clean = lines_of(tool);
        let expected = read_lines(tool, &clean);
        let mut mixed = clean.clone();
        for (at, line) in &inserts {
            mixed.insert(at.index(mixed.len() + 1), line.clone());
        }
        let session = read_lines(tool, &mixed);
        // The same items, each at its line shifted by the garbage.
        prop_assert_eq!(kinds(&session), kinds(&expected));
        prop_assert_eq!(session.compactions.len(), expected.compactions.len());
        prop_assert_eq!(session.rounds.len(), expected.rounds.len());
        prop_assert_eq!(session.warnings.unreadable_lines, inserts.len() as u64);
    }

    #[test]
    fn a_file_cut_anywhere_keeps_every_whole_line_before_the_cut(
        tool in prop::sample::select(TOOLS.to_vec()),
        cut in any::<prop::sample::Index>(),
    ) {
        let bytes = jsonl_of(tool);
        let at = cut.index(bytes.len() + 1);
        let session = read_from(tool, &bytes[..at]);
        let whole_lines = bytes[..at].iter().filter(|b| **b == b'\n').count();
        let prefix = read_lines(tool, &lines_of(tool)[..whole_lines]);
        // The whole lines' items all come back, in order; a torn last line
        // adds at most its own or is one unreadable line.
        prop_assert!(session.items.starts_with(&prefix.items));
        prop_assert!(session.warnings.unreadable_lines <= 1);
    }
}

fn kinds(session: &ImportedSession) -> Vec<&ItemKind> {
    session.items.iter().map(|item| &item.kind).collect()
}

fn jsonl_of(tool: Tool) -> Vec<u8> {
    match tool {
        Tool::Codex => jsonl(&codex_session("", vec![])),
        Tool::ClaudeCode => jsonl(&claude_session()),
        Tool::CopilotCli => jsonl(&copilot_session()),
    }
}
