//! The console's Vitest fixtures come from the Rust folds, so the UI's
//! tests render exactly what `open_console`, `compaction_views` and
//! `open_transcript` answer: `ui/src/test/console/scenarios.json` holds
//! session records (and live events), and `views.json` what the folds make
//! of them. A change to a fold fails this test until the fixture is
//! regenerated with
//! `STRATA_UPDATE_FIXTURES=1 cargo test -p strata-app --test console fixtures`.
//! (A module of the `console` test binary, so `make test` links one binary
//! less.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use strata_app::console::{ConsoleFold, view_of};
use strata_app::context::recorded_estimate;
use strata_app::transcript::from_records;
use strata_core::store::compaction_views;
use strata_protocol::{
    CompactionView, ConsoleView, EventEnvelope, Record, RecordBody, TranscriptEntry,
};

const UPDATE_ENV: &str = "STRATA_UPDATE_FIXTURES";

#[derive(Deserialize)]
struct Scenarios {
    threshold: u64,
    context_window: Option<u64>,
    scenarios: Vec<Scenario>,
}

#[derive(Deserialize)]
struct Scenario {
    name: String,
    records: Vec<Record>,
    /// Live events after the records (those the file does not keep).
    events: Vec<EventEnvelope>,
}

/// What the folds answer for one scenario.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Folded {
    /// `open_console`'s answer, every log row.
    console: ConsoleView,
    compaction_views: Vec<CompactionView>,
    transcript: Vec<TranscriptEntry>,
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../ui/src/test/console")
        .join(name)
}

fn fold(scenarios: &Scenarios, scenario: &Scenario) -> Folded {
    let Some(RecordBody::SessionMeta(meta)) = scenario.records.first().map(|r| &r.body) else {
        panic!("{}: a session starts with its meta", scenario.name);
    };
    let mut console = ConsoleFold::of_records(
        &scenario.records,
        scenarios.threshold,
        scenarios.context_window,
    );
    for event in &scenario.events {
        console.apply_event(event);
    }
    Folded {
        console: view_of(meta.session_id, &console, console.rows().to_vec()),
        compaction_views: compaction_views(meta, &scenario.records, recorded_estimate),
        transcript: from_records(&scenario.records),
    }
}

#[test]
fn the_console_fixtures_of_the_ui_tests_are_what_the_rust_folds_make() {
    let text = std::fs::read_to_string(fixture("scenarios.json")).unwrap();
    let scenarios: Scenarios = serde_json::from_str(&text).unwrap();
    let folded: BTreeMap<String, Folded> = scenarios
        .scenarios
        .iter()
        .map(|scenario| (scenario.name.clone(), fold(&scenarios, scenario)))
        .collect();
    let path = fixture("views.json");
    if std::env::var_os(UPDATE_ENV).is_some_and(|v| v == "1") {
        std::fs::write(&path, serde_json::to_string(&folded).unwrap() + "\n").unwrap();
        return;
    }
    let recorded: BTreeMap<String, Folded> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        recorded.keys().collect::<Vec<_>>(),
        folded.keys().collect::<Vec<_>>()
    );
    for (name, fresh) in &folded {
        let old = &recorded[name];
        assert_eq!(fresh.console, old.console, "{name}: console");
        assert_eq!(
            fresh.compaction_views, old.compaction_views,
            "{name}: views"
        );
        assert_eq!(fresh.transcript, old.transcript, "{name}: transcript");
    }
}
