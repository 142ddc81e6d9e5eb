//! Other tools' sessions in the library index: the real files in
//! `../shared/fixtures/sessions`, copied at test time into a temporary home
//! laid out as each tool lays out its own, indexed, searched, changed and
//! removed; the copies are never written by the index.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use strata_import::Tool;
use strata_index::{Filters, Index};

/// (fixture, where its tool keeps it under the home, a phrase of its text).
const FIXTURES: [(&str, &str, &str); 6] = [
    (
        "codex/agentv_0.142.2_two-compactions.jsonl",
        ".codex/sessions/2026/06/26/rollout-2026-06-26T12-20-52-019f03e0-321f-7eb2-83cc-b54ecd71be23.jsonl",
        "rank each by staleness",
    ),
    (
        "codex/agentv_0.140.0_tools-no-compaction.jsonl",
        ".codex/sessions/2026/06/20/rollout-2026-06-20T09-00-00-tools.jsonl",
        "No `prek.toml` or `.pre-commit-config.yaml`",
    ),
    (
        "claude/claude-code-log_1.0.29_summary-records.jsonl",
        ".claude/projects/-work-log/summary-records.jsonl",
        "all the token usage numbers added up",
    ),
    (
        "claude/entire-cli_2.0.76_auto-compact.jsonl",
        ".claude/projects/-work-entire/auto-compact.jsonl",
        "we shouldn't silently continue with an empty `baseCommit`",
    ),
    (
        "claude/entire-cli_2.1.14_manual-compact.jsonl",
        ".claude/projects/-work-entire/manual-compact.jsonl",
        "push and PR",
    ),
    (
        "copilot/agentv_copilot-1.0.64_tools.jsonl",
        ".copilot/session-state/10fb4666-56f0-4352-90fc-715caf95b418/events.jsonl",
        "Check hook recovered",
    ),
];

/// A temporary home holding a copy of every fixture, or `None` (with the
/// SKIPPED line) when `../shared` is absent.
fn home_with_fixtures() -> Option<tempfile::TempDir> {
    let sessions = strata_testkit::needs_shared(strata_testkit::SESSIONS)?;
    let home = tempfile::tempdir().unwrap();
    for (fixture, place, _) in FIXTURES {
        let to = home.path().join(place);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(sessions.join(fixture), &to).unwrap();
        // The shared copies are read-only; these are the test's to change.
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    Some(home)
}

fn open_index(data: &Path) -> Index {
    Index::open_at(&data.join("library.sqlite3"), &data.join("sessions")).unwrap()
}

/// Every file under `home`: its bytes and modification time.
fn snapshot(home: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    let mut files = BTreeMap::new();
    let mut folders = vec![home.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file() {
                let modified = entry.metadata().unwrap().modified().unwrap();
                files.insert(
                    entry.path(),
                    (std::fs::read(entry.path()).unwrap(), modified),
                );
            }
        }
    }
    files
}

fn hit_paths(index: &Index, query: &str) -> Vec<PathBuf> {
    index
        .search_imported(query, &Filters::default(), 50)
        .unwrap()
        .into_iter()
        .map(|hit| hit.path)
        .collect()
}

#[test]
fn search_finds_a_phrase_of_every_fixture_in_its_own_session_with_its_source() {
    let Some(home) = home_with_fixtures() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let mut index = open_index(data.path());
    let report = index.refresh_imported(home.path()).unwrap();
    assert_eq!(report.files, FIXTURES.len());
    assert_eq!(report.reindexed, FIXTURES.len());
    assert!(report.unreadable.is_empty(), "{:?}", report.unreadable);
    for (fixture, place, phrase) in FIXTURES {
        let hits = index
            .search_imported(phrase, &Filters::default(), 50)
            .unwrap();
        let hit = hits
            .iter()
            .find(|hit| hit.path == home.path().join(place))
            .unwrap_or_else(|| panic!("{fixture}: {phrase:?} not found in {hits:?}"));
        let expected = match fixture.split('/').next() {
            Some("codex") => Tool::Codex,
            Some("claude") => Tool::ClaudeCode,
            _ => Tool::CopilotCli,
        };
        assert_eq!(hit.source, expected, "{fixture}");
        assert!(hit.snippet.contains(strata_index::MATCH_START), "{hit:?}");
    }
    // Case folded, as Strata's own search is.
    assert!(!hit_paths(&index, "RANK EACH BY STALENESS").is_empty());
    assert!(hit_paths(&index, "a phrase in none of them zqx").is_empty());
}

#[test]
fn the_listing_comes_from_the_index_newest_first_as_reading_the_files_gives_it() {
    let Some(home) = home_with_fixtures() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let mut index = open_index(data.path());
    index.refresh_imported(home.path()).unwrap();
    let mut read: Vec<_> = strata_import::discover(home.path())
        .iter()
        .map(|file| strata_import::read_session(file).unwrap().list_item(file))
        .collect();
    read.sort_by_key(|item| std::cmp::Reverse(item.updated_at));
    assert_eq!(index.imported_sessions().unwrap(), read);
    // A second refresh reads nothing: every file's size and mtime match.
    let again = index.refresh_imported(home.path()).unwrap();
    assert_eq!((again.reindexed, again.removed), (0, 0));
}

#[test]
fn a_changed_file_is_read_again_and_a_removed_one_leaves_the_index() {
    let Some(home) = home_with_fixtures() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let mut index = open_index(data.path());
    index.refresh_imported(home.path()).unwrap();

    // Claude Code appends a message to a running session.
    let (_, claude, _) = FIXTURES[4];
    let claude = home.path().join(claude);
    let mut text = std::fs::read_to_string(&claude).unwrap();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(concat!(
        r#"{"type":"user","uuid":"appended-1","timestamp":"2026-01-23T00:00:00.000Z","#,
        r#""message":{"role":"user","content":"please add the frobnicator quux"}}"#,
        "\n"
    ));
    std::fs::write(&claude, text).unwrap();
    // The Codex rollout is gone.
    let (_, codex, phrase) = FIXTURES[0];
    std::fs::remove_file(home.path().join(codex)).unwrap();

    let report = index.refresh_imported(home.path()).unwrap();
    assert_eq!((report.reindexed, report.removed), (1, 1));
    assert_eq!(hit_paths(&index, "frobnicator quux"), vec![claude.clone()]);
    assert!(hit_paths(&index, phrase).is_empty());
    let listed = index.imported_sessions().unwrap();
    assert_eq!(listed.len(), FIXTURES.len() - 1);
    assert!(
        listed
            .iter()
            .all(|item| item.path != home.path().join(codex))
    );
}

#[test]
fn indexing_leaves_the_other_tools_files_byte_identical_with_their_mtimes() {
    let Some(home) = home_with_fixtures() else {
        return;
    };
    let before = snapshot(home.path());
    let data = tempfile::tempdir().unwrap();
    let mut index = open_index(data.path());
    index.refresh_imported(home.path()).unwrap();
    index
        .search_imported("the", &Filters::default(), 10)
        .unwrap();
    index.imported_sessions().unwrap();
    drop(index);
    // Nothing beside them either: no lock or journal files in their folders.
    assert_eq!(snapshot(home.path()), before);
}

/// A Claude Code session holding one user message, `text`.
fn claude_home(text: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".claude/projects/-work/s-1.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let line = serde_json::json!({
        "type": "user",
        "sessionId": "s-1",
        "uuid": "u1",
        "timestamp": "2026-01-22T01:40:57.814Z",
        "message": {"role": "user", "content": text},
    });
    std::fs::write(&path, format!("{line}\n")).unwrap();
    home
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Any part of a message is found in it (by trigrams from three
    /// characters, by a scan below), in any letter case, and the snippet
    /// marks it.
    #[test]
    fn any_part_of_an_imported_message_finds_it(
        text in "[a-zA-Z0-9 äöüß%_\\\\\"]{1,40}",
        start in 0usize..40,
        length in 1usize..12,
        upper in proptest::bool::ANY,
    ) {
        let chars: Vec<char> = text.chars().collect();
        let start = start % chars.len();
        let end = (start + length).min(chars.len());
        let part: String = chars[start..end].iter().collect();
        proptest::prop_assume!(!part.trim().is_empty());
        let query = if upper && part.is_ascii() { part.to_ascii_uppercase() } else { part.clone() };
        let home = claude_home(&text);
        let data = tempfile::tempdir().unwrap();
        let mut index = open_index(data.path());
        index.refresh_imported(home.path()).unwrap();
        let hits = index.search_imported(&query, &Filters::default(), 5).unwrap();
        proptest::prop_assert_eq!(hits.len(), 1, "{:?} in {:?}", query, text);
        proptest::prop_assert_eq!(hits[0].kind.as_str(), "user");
        proptest::prop_assert!(hits[0].snippet.contains(strata_index::MATCH_START));
    }
}
