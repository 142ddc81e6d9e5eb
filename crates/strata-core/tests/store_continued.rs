//! "Continue in Strata": a session written from another tool's converted
//! history resumes with that history and names where it came from, after a
//! reopen (full replay) and from its checkpoint alike.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use strata_core::store::{ReadMode, SessionStore};
use strata_core::{ContinuedSession, LiveSession};
use strata_protocol::{ImportSource, ResponseItem, Role, SessionImported};

fn lineage() -> SessionImported {
    SessionImported {
        source: ImportSource::ClaudeCode,
        source_path: "/home/p/.claude/projects/w/s.jsonl".into(),
        source_session_id: Some("s-1".into()),
        source_items: 5,
        dropped_items: 1,
    }
}

fn items() -> Vec<ResponseItem> {
    vec![
        ResponseItem::message(Role::User, "\u{1b}]0;title\u{7}<b>fix it</b>"),
        ResponseItem::function_call("call_1", "shell", r#"{"cmd":"ls"}"#),
        ResponseItem::function_call_output("call_1", "a.txt"),
        ResponseItem::message(Role::Assistant, "done"),
    ]
}

fn continued(store: &SessionStore, items: Vec<ResponseItem>) -> LiveSession {
    store
        .continue_imported(ContinuedSession {
            workspace: Path::new("/work/project"),
            provider_kind: "openai-responses",
            model: "gpt-5.4",
            lineage: lineage(),
            items,
            title: Some("Imported: fix it".into()),
        })
        .unwrap()
}

#[test]
fn a_continued_session_replays_to_the_converted_history_and_its_lineage() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    let items = items();
    let session = continued(&store, items.clone());
    let id = session.id();
    assert_eq!(session.history().items(), items.as_slice());
    assert_eq!(session.state().imported_from(), Some(&lineage()));
    drop(session);

    let read = store.open_reader(id, ReadMode::Strict).unwrap();
    let replay = read.replay();
    assert_eq!(replay.history().items(), items.as_slice());
    assert_eq!(replay.imported_from(), Some(&lineage()));
    assert_eq!(replay.title().as_deref(), Some("Imported: fix it"));
    assert_eq!(read.meta.workspace, "/work/project");

    let reopened = store.open_writer(id).unwrap();
    assert_eq!(reopened.history().items(), items.as_slice());
    assert_eq!(reopened.state().imported_from(), Some(&lineage()));
}
