//! The conversation's transcript through the application layer: live turns
//! on the offline demo model, their events turned into transcript updates,
//! give exactly the entries the session file gives when it is opened again;
//! the transcript opens in pages, newest first, and tool outputs come whole
//! only when asked for.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use strata_app::App;
use strata_app::transcript::TranscriptFeed;
use strata_core::StrataPaths;
mod preview;
mod support;

use strata_protocol::{
    CommandErrorKind, GetToolOutput, LiveEvent, OUTPUT_PREVIEW_CHARS, OpenSession, OpenTranscript,
    RecordBody, ResponseItem, Role, SessionId, ToolState, TranscriptEntry, TranscriptPage,
    TranscriptUpdate,
};
use support::{create, runtime, send};

/// What the UI does with updates (ui/src/state/store.ts `applyUpdates`).
fn apply(entries: &mut Vec<TranscriptEntry>, update: TranscriptUpdate) {
    let position =
        |entries: &[TranscriptEntry], id: &str| entries.iter().position(|e| e.id() == id);
    match update {
        TranscriptUpdate::Append { entry } => match position(entries, entry.id()) {
            Some(index) => entries[index] = entry,
            None => entries.push(entry),
        },
        TranscriptUpdate::Replace { id, entry } => match position(entries, &id) {
            Some(index) => entries[index] = entry,
            None => entries.push(entry),
        },
        TranscriptUpdate::Insert { before, entry } => match position(entries, &before) {
            Some(index) => entries.insert(index, entry),
            None => entries.push(entry),
        },
        TranscriptUpdate::Remove { id } => {
            if let Some(index) = position(entries, &id) {
                entries.remove(index);
            }
        }
        TranscriptUpdate::AppendText { id, delta } => {
            let index = position(entries, &id).expect("text for a known entry");
            match &mut entries[index] {
                TranscriptEntry::Assistant { text, .. } => text.push_str(&delta),
                other => panic!("text appended to {other:?}"),
            }
        }
    }
}

/// What the file cannot tell: a live card knows its call succeeded and how
/// long it took; read back, a call with an output is done.
fn as_read_back(mut entries: Vec<TranscriptEntry>) -> Vec<TranscriptEntry> {
    for entry in &mut entries {
        if let TranscriptEntry::Tool(tool) = entry {
            assert!(tool.duration_ms.is_some(), "a live card has its duration");
            tool.duration_ms = None;
            if tool.status == ToolState::Success {
                tool.status = ToolState::Finished;
            }
        }
    }
    entries
}

struct Fixture {
    _home: tempfile::TempDir,
    workspace: tempfile::TempDir,
    app: Arc<App>,
}

fn fixture() -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    // A file longer than a card's preview, for the demo model to read.
    let long: String = (0..1_500)
        .map(|n| format!("line {n} of the widget inventory\n"))
        .collect();
    std::fs::write(workspace.path().join("inventory.txt"), long).unwrap();
    let paths = StrataPaths::under(home.path());
    std::fs::create_dir_all(&paths.config).unwrap();
    std::fs::write(paths.config_file(), "").unwrap();
    Fixture {
        app: Arc::new(App::new(paths, |_| None)),
        _home: home,
        workspace,
    }
}

async fn whole_transcript(app: &Arc<App>, id: SessionId) -> Vec<TranscriptEntry> {
    app.open_transcript(OpenTranscript {
        session_id: id,
        before: None,
        at_item: None,
        limit: Some(1_000),
    })
    .await
    .unwrap()
    .entries
}

/// Turns "Question 0", "Question 1", … on the demo model.
async fn ask_questions(app: &Arc<App>, id: SessionId, count: usize) {
    for n in 0..count {
        let question = format!("Question {n}");
        send(app, id, &question, TranscriptFeed::new(|_| {})).await;
    }
}

/// A fresh app with one session that had a turn for each prompt (on the
/// demo model, events dropped), then `check` on it.
fn with_turns(prompts: &[&str], check: impl AsyncFnOnce(&Arc<App>, SessionId)) {
    let fixture = fixture();
    runtime().block_on(async {
        let app = &fixture.app;
        let id = create(app, fixture.workspace.path()).await;
        for prompt in prompts {
            send(app, id, prompt, TranscriptFeed::new(|_| {})).await;
        }
        check(app, id).await;
    });
}

fn tool_cards(entries: &[TranscriptEntry]) -> Vec<&strata_protocol::ToolEntry> {
    entries
        .iter()
        .filter_map(|e| match e {
            TranscriptEntry::Tool(tool) => Some(tool),
            _ => None,
        })
        .collect()
}

#[test]
fn live_updates_build_the_transcript_the_session_file_gives() {
    let fixture = fixture();
    runtime().block_on(async {
        let app = &fixture.app;
        let id = create(app, fixture.workspace.path()).await;
        // The transcript as a window that was open from the start sees it.
        let mut shown = whole_transcript(app, id).await;
        let mut streamed = 0;
        for text in [
            "What is in this folder?",
            "Read inventory.txt",
            "Summarise it",
        ] {
            let events: Arc<Mutex<Vec<LiveEvent>>> = Arc::default();
            let sink = Arc::clone(&events);
            send(
                app,
                id,
                text,
                TranscriptFeed::new(move |batch| sink.lock().unwrap().extend(batch.events)),
            )
            .await;
            for event in std::mem::take(&mut *events.lock().unwrap()) {
                for update in event.updates {
                    streamed += usize::from(matches!(update, TranscriptUpdate::AppendText { .. }));
                    apply(&mut shown, update);
                }
            }
        }
        assert!(streamed > 0, "the demo model's answers stream");
        let reopened = whole_transcript(app, id).await;
        assert_eq!(as_read_back(shown), reopened);
        assert!(reopened.iter().any(
            |e| matches!(e, TranscriptEntry::User { text, .. } if text == "Read inventory.txt")
        ));
        assert!(!tool_cards(&reopened).is_empty(), "{reopened:#?}");
    });
}

/// Where `page` starts in the whole transcript; the page's own `start` and
/// `total` agree when it carries them (a page folded from the file's tail
/// does not).
fn start_in(whole: &[TranscriptEntry], page: &TranscriptPage) -> usize {
    let start = page
        .entries
        .first()
        .and_then(|first| whole.iter().position(|e| e.id() == first.id()))
        .unwrap_or(whole.len());
    if let (Some(total), Some(at)) = (page.total, page.start) {
        assert_eq!((total as usize, at as usize), (whole.len(), start));
    }
    start
}

#[test]
fn the_transcript_opens_newest_page_first_and_older_pages_follow_without_overlap() {
    let fixture = fixture();
    runtime().block_on(async {
        let app = &fixture.app;
        let id = create(app, fixture.workspace.path()).await;
        ask_questions(app, id, 4).await;
        let whole = whole_transcript(app, id).await;
        assert!(whole.len() > 6, "{}", whole.len());
        let mut pages = Vec::new();
        let mut before = None;
        loop {
            let page = app
                .open_transcript(OpenTranscript {
                    session_id: id,
                    before: before.clone(),
                    at_item: None,
                    limit: Some(3),
                })
                .await
                .unwrap();
            assert!(page.entries.len() <= 3);
            let start = start_in(&whole, &page);
            assert_eq!(page.entries, whole[start..start + page.entries.len()]);
            pages.push(page.entries);
            match page.older {
                Some(cursor) => before = Some(cursor),
                None => {
                    assert_eq!(start, 0);
                    break;
                }
            }
        }
        let joined: Vec<TranscriptEntry> = pages.into_iter().rev().flatten().collect();
        assert_eq!(joined, whole);

        let unknown = app
            .open_transcript(OpenTranscript {
                session_id: id,
                before: Some("record:999999".into()),
                at_item: None,
                limit: None,
            })
            .await
            .unwrap_err();
        assert_eq!(unknown.kind, CommandErrorKind::NotFound);
        let empty = app
            .open_transcript(OpenTranscript {
                session_id: id,
                before: None,
                at_item: None,
                limit: Some(0),
            })
            .await
            .unwrap_err();
        assert_eq!(empty.kind, CommandErrorKind::InvalidInput);
    });
}

#[test]
fn tool_cards_carry_a_preview_and_the_whole_output_comes_on_request() {
    with_turns(&["Read inventory.txt"], async |app, id| {
        let entries = whole_transcript(app, id).await;
        let cards = tool_cards(&entries);
        let long = cards
            .iter()
            .find_map(|tool| {
                tool.output
                    .as_ref()
                    .filter(|o| o.chars as usize > OUTPUT_PREVIEW_CHARS)
                    .map(|o| (tool.call_id.clone(), o.clone()))
            })
            .unwrap_or_else(|| panic!("no output longer than a preview: {cards:#?}"));
        let (call_id, preview) = long;
        assert_eq!(preview.preview.chars().count(), OUTPUT_PREVIEW_CHARS);
        let full = app
            .tool_output(GetToolOutput {
                session_id: id,
                call_id: call_id.clone(),
            })
            .await
            .unwrap();
        assert_eq!(full.chars, preview.chars);
        assert!(full.output.starts_with(&preview.preview));
        assert!(full.output.contains("line 40 of the widget inventory"));

        let missing = app
            .tool_output(GetToolOutput {
                session_id: id,
                call_id: "no-such-call".into(),
            })
            .await
            .unwrap_err();
        assert_eq!(missing.kind, CommandErrorKind::NotFound);
    });
}

#[test]
fn a_page_opened_at_an_old_tool_output_reaches_back_to_its_card() {
    let fixture = fixture();
    runtime().block_on(async {
        let app = &fixture.app;
        let id = create(app, fixture.workspace.path()).await;
        send(app, id, "Read inventory.txt", TranscriptFeed::new(|_| {})).await;
        ask_questions(app, id, 4).await;
        let whole = whole_transcript(app, id).await;
        let records = app
            .open_session(OpenSession {
                session_id: id,
                ..OpenSession::default()
            })
            .await
            .unwrap()
            .records;
        let items: Vec<&ResponseItem> = records
            .iter()
            .filter_map(|r| match &r.body {
                RecordBody::ResponseItem(item) => Some(item),
                _ => None,
            })
            .collect();
        let output = items
            .iter()
            .find_map(|item| match item {
                ResponseItem::FunctionCallOutput(output) => Some(output),
                _ => None,
            })
            .expect("the demo model read the file");
        let question = items
            .iter()
            .find_map(|item| match item {
                ResponseItem::Message(m) if m.role == Role::User && m.content == "Question 1" => {
                    Some(m.id)
                }
                _ => None,
            })
            .unwrap();
        let card = format!("call:{}", output.call_id);
        let newest = app
            .open_transcript(OpenTranscript {
                session_id: id,
                limit: Some(3),
                ..OpenTranscript::default()
            })
            .await
            .unwrap();
        assert!(
            !newest.entries.iter().any(|e| e.id() == card),
            "the card is older than the newest page"
        );

        for (item, entry) in [
            (output.id.to_string(), card.clone()),
            (question.to_string(), question.to_string()),
        ] {
            let page = app
                .open_transcript(OpenTranscript {
                    session_id: id,
                    at_item: Some(item),
                    limit: Some(3),
                    ..OpenTranscript::default()
                })
                .await
                .unwrap();
            assert_eq!(page.target.as_deref(), Some(entry.as_str()));
            let start = start_in(&whole, &page);
            // From a few entries before the target to the newest, in order,
            // so older pages still join in front of it.
            assert_eq!(page.entries, whole[start..]);
            let at = whole.iter().position(|e| e.id() == entry).unwrap();
            assert_eq!(start, at.saturating_sub(5).min(whole.len() - 3));
            assert_eq!(page.older.is_some(), start > 0);
        }

        let unknown = app
            .open_transcript(OpenTranscript {
                session_id: id,
                at_item: Some("no-such-item".into()),
                ..OpenTranscript::default()
            })
            .await
            .unwrap_err();
        assert_eq!(unknown.kind, CommandErrorKind::NotFound);
        let both = app
            .open_transcript(OpenTranscript {
                session_id: id,
                before: Some(card.clone()),
                at_item: Some(output.id.to_string()),
                ..OpenTranscript::default()
            })
            .await
            .unwrap_err();
        assert_eq!(both.kind, CommandErrorKind::InvalidInput);
    });
}

#[test]
fn entries_carry_their_item_ids_and_pins_show_on_them_when_the_session_is_opened_again() {
    use strata_protocol::PinItem;
    with_turns(&["Read inventory.txt"], async |app, id| {
        let entries = whole_transcript(app, id).await;
        let user = entries
            .iter()
            .find_map(|e| match e {
                TranscriptEntry::User { id, pinned, .. } => Some((id.clone(), *pinned)),
                _ => None,
            })
            .unwrap();
        assert!(!user.1, "nothing is pinned yet");
        let card = tool_cards(&entries)[0].clone();
        let output = card.item_id.expect("a card with an output names its item");
        assert!(!card.pinned);
        let pin = |item: String, pinned: bool| {
            app.pin_item(PinItem {
                session_id: id,
                item,
                pinned,
            })
        };
        // An entry's id is what `pin_item` takes.
        pin(user.0.clone(), true).await.unwrap();
        pin(output.to_string(), true).await.unwrap();
        let pinned = whole_transcript(app, id).await;
        assert!(
            pinned.iter().any(
                |e| matches!(e, TranscriptEntry::User { id, pinned: true, .. } if *id == user.0)
            )
        );
        let card = tool_cards(&pinned)[0].clone();
        assert!(card.pinned, "{card:?}");
        assert_eq!(
            pinned.len(),
            entries.len(),
            "a pin marks its item; it adds no line"
        );

        pin(output.to_string(), false).await.unwrap();
        let unpinned = whole_transcript(app, id).await;
        assert!(!tool_cards(&unpinned)[0].pinned);
        assert!(
            unpinned
                .iter()
                .any(|e| matches!(e, TranscriptEntry::User { pinned: true, .. }))
        );
    });
}

#[test]
fn compacting_up_to_a_message_puts_the_divider_just_before_it_and_keeps_what_follows() {
    use strata_protocol::CompactUpTo;
    let prompts = [
        "What is in this folder?",
        "Read inventory.txt",
        "Summarise it",
    ];
    with_turns(&prompts, async |app, id| {
        let before = whole_transcript(app, id).await;
        let second = before
            .iter()
            .position(
                |e| matches!(e, TranscriptEntry::User { text, .. } if text == "Read inventory.txt"),
            )
            .unwrap();
        let outcome = app
            .compact_up_to(
                CompactUpTo {
                    session_id: id,
                    item: before[second].id().to_owned(),
                    focus: Some("the inventory".into()),
                },
                TranscriptFeed::new(|_| {}),
            )
            .await
            .unwrap();
        assert!(outcome.summary.is_some(), "{outcome:?}");
        let after = whole_transcript(app, id).await;
        assert_eq!(after.len(), before.len() + 1, "one divider, nothing lost");
        assert!(
            matches!(after[second], TranscriptEntry::Compaction { .. }),
            "{:#?}",
            &after[second.saturating_sub(1)..]
        );
        assert_eq!(after[..second], before[..second]);
        assert_eq!(after[second + 1..], before[second..]);
    });
}
