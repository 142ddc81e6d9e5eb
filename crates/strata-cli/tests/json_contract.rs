//! The command line's `--json` output is the application contract's typed
//! structs (docs/cli-json.md): every top-level object parses into its Rust
//! type with unknown fields refused, and carries the format version. The
//! TypeScript side of the same types is checked by strata-protocol's
//! bindings drift test (`make bindings` regenerates them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_protocol::{
    CONTRACT_FORMAT_VERSION, EVENT_FORMAT_VERSION, EventEnvelope, OutputKind, ProviderKind,
    SearchHitKind, SearchResults, SessionDeleted, SessionPage, SessionStarted,
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
