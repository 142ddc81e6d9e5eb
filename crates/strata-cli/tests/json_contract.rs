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
    let hit = &results.hits[0];
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
