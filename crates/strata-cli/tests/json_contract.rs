//! The command line's `--json` output is the application contract's typed
//! structs (docs/cli-json.md): every top-level object parses into its Rust
//! type with unknown fields refused, and carries the format version. The
//! TypeScript side of the same types is checked by strata-protocol's
//! bindings drift test (`make bindings` regenerates them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CompactFinished, CompactPreview, CompactResult, CompactionList,
    EVENT_FORMAT_VERSION, EventEnvelope, OutputKind, ProviderKind, ResponseItem, SearchHitKind,
    SearchResults, SessionContext, SessionDeleted, SessionPage, SessionStarted,
    SessionVerification,
};
use strata_protocol::{CompactionUndoneView, ItemPinned, SessionForkView, SessionItems};
use support::{Home, announced_id};

#[test]
fn every_json_line_is_a_contract_type_with_its_version() {
    let home = Home::new();
    let run = home.run(&[
        "run",
        "-p",
        "List the files",
        "--provider",
        "demo",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{run:#?}");
    let mut lines = run.stdout.lines();
    let started: SessionStarted = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(started.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(started.kind, OutputKind::SessionStarted);
    assert_eq!(started.provider_kind, ProviderKind::Demo);
    assert_eq!(started.session_id, announced_id(&run.stderr));
    let mut events = 0;
    for line in lines {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if value.get("seq").is_some() {
            let envelope: EventEnvelope = serde_json::from_value(value).unwrap();
            assert_eq!(envelope.v, EVENT_FORMAT_VERSION);
            events += 1;
        }
    }
    assert!(events > 0, "{}", run.stdout);

    let list = home.run(&["sessions", "list", "--json"]);
    assert_eq!(list.code, 0, "{list:#?}");
    let page: SessionPage = serde_json::from_str(list.stdout.trim()).unwrap();
    assert_eq!(page.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(page.total, 1);
    assert_eq!(page.sessions[0].id, started.session_id);
    assert_eq!(page.sessions[0].title.as_deref(), Some("List the files"));

    let search = home.run(&["sessions", "search", "the files", "--json"]);
    assert_eq!(search.code, 0, "{search:#?}");
    let results: SearchResults = serde_json::from_str(search.stdout.trim()).unwrap();
    assert_eq!(results.v, CONTRACT_FORMAT_VERSION);
    // Newest text first: the request is the oldest text that matches.
    let hit = results.hits.last().unwrap();
    assert_eq!(hit.session_id, started.session_id);
    assert_eq!(hit.kind, SearchHitKind::User);
    assert!(hit.item_id.is_some());
    let marked: String = hit
        .snippet
        .chars()
        .skip(hit.matches[0].start as usize)
        .take((hit.matches[0].end - hit.matches[0].start) as usize)
        .collect();
    assert_eq!(marked, "the files");

    let id = started.session_id.to_string();
    let deleted = home.run(&["sessions", "delete", &id, "--json"]);
    assert_eq!(deleted.code, 0, "{deleted:#?}");
    let deleted: SessionDeleted = serde_json::from_str(deleted.stdout.trim()).unwrap();
    assert_eq!(deleted.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(deleted.session_id, started.session_id);
}

#[test]
fn compact_context_and_compactions_print_versioned_contract_objects() {
    let home = Home::new();
    let run = home.run(&["run", "-p", "List the files", "--provider", "demo"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let id = announced_id(&run.stderr).to_string();

    let preview = home.run(&["compact", &id, "--preview", "--json", "--provider", "demo"]);
    assert_eq!(preview.code, 0, "{preview:#?}");
    let preview: CompactPreview = serde_json::from_str(preview.stdout.trim()).unwrap();
    assert_eq!(preview.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(preview.kind, OutputKind::CompactPreview);
    assert_eq!(preview.session_id.to_string(), id);

    let compact = home.run(&["compact", &id, "--json", "--provider", "demo"]);
    assert_eq!(compact.code, 0, "{compact:#?}");
    let lines: Vec<&str> = compact.stdout.lines().collect();
    let started: SessionStarted = serde_json::from_str(lines[0]).unwrap();
    assert!(started.resumed);
    for line in &lines[1..lines.len() - 1] {
        let envelope: EventEnvelope = serde_json::from_str(line).unwrap();
        assert_eq!(envelope.v, EVENT_FORMAT_VERSION);
    }
    let finished: CompactFinished = serde_json::from_str(lines[lines.len() - 1]).unwrap();
    assert_eq!(finished.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(finished.kind, OutputKind::CompactFinished);
    assert_eq!(finished.session_id, started.session_id);
    assert_eq!(finished.outcome, CompactResult::Compacted);
    let summary_id = finished.summary_item_id.unwrap();
    assert!(finished.removed.unwrap() > 0, "{finished:?}");

    let context = home.run(&["context", &id, "--json"]);
    assert_eq!(context.code, 0, "{context:#?}");
    let context: SessionContext = serde_json::from_str(context.stdout.trim()).unwrap();
    assert_eq!(context.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(context.kind, OutputKind::Context);
    assert_eq!(context.session_id, started.session_id);
    assert!(
        context
            .items
            .iter()
            .any(|item| matches!(item, ResponseItem::CompactionSummary(s) if s.id == summary_id)),
        "{context:#?}"
    );

    let listed = home.run(&["compactions", &id, "--json"]);
    assert_eq!(listed.code, 0, "{listed:#?}");
    let listed: CompactionList = serde_json::from_str(listed.stdout.trim()).unwrap();
    assert_eq!(listed.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(listed.kind, OutputKind::Compactions);
    assert_eq!(listed.compactions.len(), 1);
    let entry = &listed.compactions[0];
    assert_eq!(entry.summary.id, summary_id);
    assert_eq!(Some(entry.summary.metadata.removed), finished.removed);
}

/// The `kind` of a `--json` object, as printed.
fn printed_kind(line: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    value["kind"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn issue_twelves_outputs_carry_their_kind_like_every_other_object() {
    let home = Home::new();
    let run = home.run(&["run", "-p", "List the files", "--provider", "demo"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let id = announced_id(&run.stderr).to_string();

    let shown = home.run(&["sessions", "show", &id, "--json"]);
    assert_eq!(shown.code, 0, "{shown:#?}");
    assert_eq!(printed_kind(shown.stdout.trim()), "session_items");
    let items: SessionItems = serde_json::from_str(shown.stdout.trim()).unwrap();
    assert_eq!(items.kind, OutputKind::SessionItems);
    let user = items
        .items
        .iter()
        .find(|item| item.role.as_deref() == Some("user"))
        .unwrap()
        .id
        .to_string();
    let last = items.items.last().unwrap().id.to_string();

    let pinned = home.run(&["pin", &id, &user, "--provider", "demo", "--json"]);
    assert_eq!(pinned.code, 0, "{pinned:#?}");
    assert_eq!(printed_kind(pinned.stdout.trim()), "item_pinned");
    let pinned: ItemPinned = serde_json::from_str(pinned.stdout.trim()).unwrap();
    assert_eq!(pinned.kind, OutputKind::ItemPinned);

    let compacted = home.run(&[
        "compact",
        &id,
        "--up-to",
        &last,
        "--provider",
        "demo",
        "--json",
    ]);
    assert_eq!(compacted.code, 0, "{compacted:#?}");
    let finished = compacted.stdout.lines().last().unwrap();
    assert_eq!(printed_kind(finished), "compact_finished");
    let finished: CompactFinished = serde_json::from_str(finished).unwrap();
    assert_eq!(finished.outcome, CompactResult::Compacted);

    let forked = home.run(&["fork", &id, "--before-compaction", "1", "--json"]);
    assert_eq!(forked.code, 0, "{forked:#?}");
    assert_eq!(printed_kind(forked.stdout.trim()), "session_forked");
    let forked: SessionForkView = serde_json::from_str(forked.stdout.trim()).unwrap();
    assert_eq!(forked.kind, OutputKind::SessionForked);

    let undone = home.run(&["compact", &id, "--undo", "--provider", "demo", "--json"]);
    assert_eq!(undone.code, 0, "{undone:#?}");
    assert_eq!(printed_kind(undone.stdout.trim()), "compaction_undone");
    let undone: CompactionUndoneView = serde_json::from_str(undone.stdout.trim()).unwrap();
    assert_eq!(undone.kind, OutputKind::CompactionUndone);
    assert_eq!(undone.v, CONTRACT_FORMAT_VERSION);
}

#[test]
fn verify_prints_a_session_verification_and_exits_3_when_a_checkpoint_disagrees() {
    let home = Home::new();
    let id = home.compacted_session();
    let session = id.to_string();
    let run = home.run(&["sessions", "verify", &session, "--json"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let report: SessionVerification = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(report.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(report.session_id, id);
    assert_eq!(report.checkpoints, 1);
    assert!(report.divergences.is_empty(), "{report:?}");

    // The checkpoint after the compaction now disagrees with the records
    // before it about the user message it kept (item 2, after the system
    // prompt and the summary).
    let path = home.session_file(id);
    let text = std::fs::read_to_string(&path).unwrap();
    let tampered: Vec<String> = text
        .lines()
        .map(|line| {
            if line.contains(r#""type":"checkpoint""#) {
                line.replace("How many widgets", "How many gadgets")
            } else {
                line.to_owned()
            }
        })
        .collect();
    std::fs::write(&path, tampered.join("\n") + "\n").unwrap();
    let run = home.run(&["sessions", "verify", &session, "--json"]);
    assert_eq!(run.code, 3, "{run:#?}");
    let report: SessionVerification = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(report.divergences.len(), 1, "{report:?}");
    let divergence = &report.divergences[0];
    assert_eq!(
        (divergence.checkpoint, divergence.field.as_str()),
        (1, "history")
    );
    assert_eq!(divergence.item, Some(2));

    let run = home.run(&["sessions", "verify", &session]);
    run.fails_with(3, "1 of the session's 1 checkpoint(s) disagree");
    assert!(
        run.stdout
            .contains(&format!("checkpoint 1 (line {})", divergence.line)),
        "{run:#?}"
    );
}
