//! Issue 12 through the built binary on the offline demo model: item ids in
//! `sessions show --json` and `context`, pin and unpin, compact up to an
//! item, undo, and fork, each printing its typed contract object.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::Value;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CompactionUndoneView, ItemId, ItemPinned, RecordBody, RecordedItem,
    SessionForkView, SessionId, SessionItems,
};
use support::Home;

fn demo_session(home: &Home) -> SessionId {
    for n in 0..3 {
        let text = format!("notes {n}\n").repeat(50);
        std::fs::write(home.workspace.path().join(format!("notes-{n}.txt")), text).unwrap();
    }
    let run = home.run(&[
        "run",
        "-p",
        "Read every notes file.",
        "--provider",
        "demo",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:#?}");
    let lines: Vec<Value> = run.json_lines();
    lines[0]["session_id"].as_str().unwrap().parse().unwrap()
}

fn items(home: &Home, id: SessionId) -> Vec<RecordedItem> {
    let run = home.run(&["sessions", "show", &id.to_string(), "--json"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let items: SessionItems = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(items.session_id, id);
    assert_eq!(items.v, CONTRACT_FORMAT_VERSION);
    items.items
}

/// `strata compact SESSION --up-to ITEM --json` on the demo model.
fn compact_up_to(home: &Home, session: &str, item: &str) -> support::Run {
    home.run(&[
        "compact",
        session,
        "--up-to",
        item,
        "--provider",
        "demo",
        "--json",
    ])
}

fn user_message(items: &[RecordedItem]) -> ItemId {
    items
        .iter()
        .find(|item| item.role.as_deref() == Some("user"))
        .unwrap()
        .id
}

#[test]
fn every_recorded_item_has_an_id_and_a_unique_prefix_pins_and_unpins_it() {
    let home = Home::new();
    let id = demo_session(&home);
    let listed = items(&home, id);
    assert!(listed.iter().all(|item| item.in_context && !item.pinned));
    let user = user_message(&listed);
    let context = home.run(&["context", &id.to_string()]);
    assert!(
        context.stdout.contains(&user.to_string()),
        "{}",
        context.stdout
    );

    let session = id.to_string();
    let prefix = &user.to_string()[..33];
    let pinned = home.run(&["pin", &session, prefix, "--provider", "demo", "--json"]);
    assert_eq!(pinned.code, 0, "{pinned:#?}");
    let pinned: ItemPinned = serde_json::from_str(pinned.stdout.trim()).unwrap();
    assert!(pinned.pinned && pinned.item_id == user);
    assert_eq!(pinned.v, CONTRACT_FORMAT_VERSION);
    let listed = items(&home, id);
    assert!(listed.iter().any(|item| item.id == user && item.pinned));

    home.run(&["pin", &session, prefix, "--provider", "demo"])
        .fails_with(1, "already pinned");
    // Every id of a session shares its first characters: a clear error.
    home.run(&["pin", &session, "0", "--provider", "demo"])
        .fails_with(1, "give more of the id");
    home.run(&["pin", &session, "not-an-id!", "--provider", "demo"])
        .fails_with(1, "not an item id");
    let unpinned = home.run(&["unpin", &session, prefix, "--provider", "demo"]);
    assert_eq!(unpinned.code, 0, "{unpinned:#?}");
    assert!(
        unpinned.stdout.contains("unpinned item"),
        "{}",
        unpinned.stdout
    );
    assert!(!items(&home, id).iter().any(|item| item.pinned));
}

#[test]
fn compact_up_to_undo_and_fork_before_the_compaction() {
    let home = Home::new();
    let id = demo_session(&home);
    let session = id.to_string();
    let before = items(&home, id);
    // Up to the last item: everything before it is summarized.
    let last = before.last().unwrap().id.to_string();
    let compacted = compact_up_to(&home, &session, &last);
    assert_eq!(compacted.code, 0, "{compacted:#?}");
    assert_eq!(
        compacted.json_lines().last().unwrap()["outcome"],
        "compacted"
    );
    let after = items(&home, id);
    assert!(after.iter().any(|item| !item.in_context));
    assert!(
        after
            .iter()
            .any(|item| item.id.to_string() == last && item.in_context)
    );

    // A fork just before it carries the originals, nothing later.
    let forked = home.run(&["fork", &session, "--before-compaction", "1", "--json"]);
    assert_eq!(forked.code, 0, "{forked:#?}");
    let fork: SessionForkView = serde_json::from_str(forked.stdout.trim()).unwrap();
    assert_eq!(fork.parent_session_id, id);
    assert_eq!(fork.v, CONTRACT_FORMAT_VERSION);
    let fork_items = items(&home, fork.session_id);
    let visible: Vec<ItemId> = fork_items
        .iter()
        .filter(|item| item.in_context)
        .map(|item| item.id)
        .collect();
    let originals: Vec<ItemId> = before.iter().map(|item| item.id).collect();
    assert_eq!(visible, originals);
    assert_eq!(fork.history_items as usize, originals.len());
    home.run(&["fork", &session, "--before-compaction", "2"])
        .fails_with(1, "no compaction 2");

    // Undo: the history before the compaction is back.
    let undone = home.run(&[
        "compact",
        &session,
        "--undo",
        "--provider",
        "demo",
        "--json",
    ]);
    assert_eq!(undone.code, 0, "{undone:#?}");
    let undone: CompactionUndoneView = serde_json::from_str(undone.stdout.trim()).unwrap();
    assert_eq!(undone.undone.restored, originals);
    home.run(&["compact", &session, "--undo", "--provider", "demo"])
        .fails_with(1, "no compaction to undo");
    let records = home
        .store()
        .open_reader(id, strata_core::store::ReadMode::Strict)
        .unwrap()
        .records;
    assert!(
        records
            .iter()
            .any(|record| matches!(record.body, RecordBody::CompactionUndone(_)))
    );
    assert!(records.iter().any(|record| matches!(
        &record.body,
        RecordBody::LayeredCompaction(layered) if layered.kept.iter().any(|k| k.to_string() == last)
    )));
}

/// The rule check, not the planner, stops this: the person's latest message
/// starts like a state sheet (one copied from a compaction card and pasted
/// back), so the planner takes it for Strata's and would summarize it away.
#[test]
fn the_rule_check_refuses_compacting_away_the_latest_request_and_records_it() {
    let home = Home::new();
    let id = demo_session(&home);
    let session = id.to_string();
    // Longer than the demo model's echo of it (160 characters), which the
    // sheet keeps as the latest finished turn's final message.
    let pasted = format!(
        "[State sheet] pasted back: go on with the notes files, never edit vendor/.{}",
        " Then check them again.".repeat(8)
    );
    let resumed = home.run(&["resume", &session, "-p", &pasted, "--provider", "demo"]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    let before = items(&home, id);
    let last = before.last().unwrap().id.to_string();

    let refused = home.run(&["compact", &session, "--up-to", &last, "--provider", "demo"]);
    refused.fails_with(4, "the latest user request (verbatim)");
    assert!(
        refused.stderr.contains("warning (compaction_refused)"),
        "{}",
        refused.stderr
    );
    let json = compact_up_to(&home, &session, &last);
    assert_eq!(json.code, 4, "{json:#?}");
    let finished = json.json_lines().pop().unwrap();
    assert_eq!(finished["outcome"], "refused");
    assert_eq!(
        finished["dropped"],
        serde_json::json!(["the latest user request (verbatim)"])
    );

    // Nothing changed but the two refusals, each a record with its cost.
    assert_eq!(items(&home, id), before);
    let records = home
        .store()
        .open_reader(id, strata_core::store::ReadMode::Strict)
        .unwrap()
        .records;
    let refusals: Vec<_> = records
        .iter()
        .filter_map(|record| match &record.body {
            RecordBody::CompactionRefused(refused) => Some(refused),
            _ => None,
        })
        .collect();
    assert_eq!(refusals.len(), 2);
    assert_eq!(refusals[0].dropped, ["the latest user request (verbatim)"]);
    assert!(
        !records
            .iter()
            .any(|r| matches!(r.body, RecordBody::LayeredCompaction(_)))
    );
    let transcript = home.run(&["sessions", "show", &session]).ok();
    assert!(
        transcript.contains("compaction refused by the rule check (manual)"),
        "{transcript}"
    );
    home.run(&["sessions", "verify", &session]).ok();
}
