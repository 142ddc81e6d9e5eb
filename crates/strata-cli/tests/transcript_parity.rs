//! One transcript for people (issue 21): `strata sessions show` prints the
//! entries the desktop receives from `open_transcript`, in their order, a
//! failed summary and the recovery notices included, for every kind of
//! session the tests build.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::Write;
use std::sync::Arc;

use strata_app::App;
use strata_app::transcript::MAX_TRANSCRIPT_PAGE;
use strata_app::transcript::text::{compaction_line, decision_text, lower_first, outcome_text};
use strata_core::StrataPaths;
use strata_protocol::{
    CompactionGuardRecord, CompactionTrigger, OpenTranscript, RecordBody, ResponseItem, SessionId,
    TranscriptEntry, TurnId, TurnStarted,
};
use support::Home;

/// The whole transcript as the desktop receives it.
fn desktop_entries(home: &Home, id: SessionId) -> Vec<TranscriptEntry> {
    let app = Arc::new(App::new(StrataPaths::under(home.path()), |_| None));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let page = runtime
        .block_on(app.open_transcript(OpenTranscript {
            session_id: id,
            before: None,
            at_item: None,
            limit: Some(MAX_TRANSCRIPT_PAGE),
        }))
        .unwrap();
    assert_eq!(page.older, None, "the whole transcript is on one page");
    page.entries
}

/// What the printed transcript must say for `entry`, in order.
fn printed(entry: &TranscriptEntry) -> Vec<String> {
    let first_line = |text: &str| text.lines().next().unwrap_or_default().to_owned();
    match entry {
        TranscriptEntry::User { text, .. }
        | TranscriptEntry::Assistant { text, .. }
        | TranscriptEntry::Thinking { text, .. } => {
            vec![first_line(text)]
        }
        TranscriptEntry::Tool(tool) => {
            let mut lines = vec![format!("→ {}", tool.name)];
            if let Some(output) = &tool.output {
                lines.push(format!("← {}", tool.name));
                lines.push(first_line(&output.preview));
            }
            if let Some(decision) = tool.approval.as_ref().and_then(|a| a.decision) {
                lines.push(format!(
                    "approval: {} {}",
                    tool.name,
                    decision_text(decision)
                ));
            }
            lines
        }
        TranscriptEntry::Compaction { summary, .. } => vec![compaction_line(summary)],
        TranscriptEntry::Eviction { .. } => vec!["older tool outputs".to_owned()],
        TranscriptEntry::Error { message, .. } => vec![format!("error: {message}")],
        TranscriptEntry::CompactionProblem { message, .. } => vec![message.clone()],
        TranscriptEntry::Retry { cause, .. } => vec![cause.clone()],
        TranscriptEntry::TurnEnd { outcome, .. } => {
            vec![format!("turn {}", outcome_text(*outcome))]
        }
        TranscriptEntry::Notice { text, .. } => vec![lower_first(text)],
        TranscriptEntry::Fork { text, origin, .. } => vec![format!(
            "{} (parent session {})",
            lower_first(text),
            origin.parent_session_id
        )],
        TranscriptEntry::Recovery { text, .. } => vec![format!("recovered: {text}")],
    }
}

/// Every entry the desktop gets is printed by `sessions show`, in order;
/// returns the entries.
fn shows_the_same_entries(home: &Home, id: SessionId) -> Vec<TranscriptEntry> {
    let entries = desktop_entries(home, id);
    let run = home.run(&["sessions", "show", &id.to_string()]);
    assert_eq!(run.code, 0, "{run:#?}");
    let shown = run.stdout;
    let mut from = 0;
    for entry in &entries {
        for needle in printed(entry) {
            let at = shown[from..].find(&needle).unwrap_or_else(|| {
                panic!("{needle:?} of {entry:?} missing after byte {from} in:\n{shown}")
            });
            from += at + needle.len();
        }
    }
    entries
}

fn kinds(entries: &[TranscriptEntry]) -> Vec<String> {
    entries
        .iter()
        .map(|entry| {
            let value = serde_json::to_value(entry).unwrap();
            value["kind"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn show_and_the_desktop_list_the_same_entries_for_the_test_sessions() {
    let home = Home::new();
    let compacted = home.compacted_session();
    let kinds_of = kinds(&shows_the_same_entries(&home, compacted));
    assert!(kinds_of.contains(&"compaction".to_owned()), "{kinds_of:?}");
    shows_the_same_entries(&home, home.small_session("Just one question"));

    // A real run of the demo model: policy, profile, tool cards.
    let run = home.run(&["run", "-p", "What is in this folder?", "--provider", "demo"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let demo = shows_the_same_entries(&home, support::announced_id(&run.stderr));
    assert!(kinds(&demo).contains(&"tool".to_owned()), "{demo:?}");
}

#[test]
fn a_failed_summary_shows_in_both() {
    let home = Home::new();
    let id = home.compacted_session();
    let mut session = home.store().open_writer(id).unwrap();
    session
        .append(RecordBody::CompactionGuard(
            CompactionGuardRecord::SummaryFailed {
                trigger: CompactionTrigger::Auto,
                attempts: 3,
                message: "the summary request was rate limited".into(),
                estimated_tokens: 9_000,
                threshold: 8_000,
            },
        ))
        .unwrap();
    drop(session);
    let entries = shows_the_same_entries(&home, id);
    assert!(
        kinds(&entries).contains(&"compaction_problem".to_owned()),
        "{entries:?}"
    );
}

#[test]
fn a_torn_tail_and_aborted_calls_are_notices_in_both_after_a_resume_and_on_reading() {
    let home = Home::new();
    let mut session = home
        .store()
        .create(home.workspace.path(), "demo", strata_providers::DEMO_MODEL)
        .unwrap();
    session
        .commit_item(ResponseItem::system("You are Strata."))
        .unwrap();
    session
        .append(RecordBody::TurnStarted(TurnStarted {
            turn_id: TurnId::new(),
        }))
        .unwrap();
    session
        .commit_item(ResponseItem::user("List the files"))
        .unwrap();
    // A call the run was killed in, and half a record after it.
    session
        .commit_item(ResponseItem::function_call(
            "call_killed",
            "list_directory",
            r#"{"path":"."}"#,
        ))
        .unwrap();
    let id = session.id();
    drop(session);
    let path = home.session_file(id);
    let torn = |tail: &[u8]| {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(tail).unwrap();
    };
    torn(b"{\"v\":1,\"ts\":\"2025");

    // Resuming repairs both and says so where it happened.
    let resumed = home.run(&["resume", &id.to_string(), "-p", "Go on"]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert!(resumed.stderr.contains("moved aside"), "{resumed:#?}");
    assert!(
        resumed
            .stderr
            .contains("1 tool call of an earlier run never finished"),
        "{resumed:#?}"
    );
    let entries = shows_the_same_entries(&home, id);
    let recoveries: Vec<_> = entries
        .iter()
        .filter(|entry| matches!(entry, TranscriptEntry::Recovery { .. }))
        .collect();
    assert_eq!(recoveries.len(), 2, "{entries:?}");

    // A line that is no record and a new torn tail, as a browsing read finds them.
    torn(b"not a record\n{\"v\":1");
    let entries = shows_the_same_entries(&home, id);
    let texts: Vec<String> = entries
        .iter()
        .filter_map(|entry| match entry {
            TranscriptEntry::Recovery { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert!(texts[2].contains("is not a record"), "{texts:?}");
    assert!(texts[3].contains("left out"), "{texts:?}");
}
