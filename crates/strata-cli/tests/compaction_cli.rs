//! The compaction policy and threshold flags, and `compact --preview`,
//! through the built binary on the offline demo model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::Value;
use strata_core::store::ReadMode;
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CompactPreview, CompactionPolicy, RecordBody, SessionId,
    ThresholdSetting,
};
use support::Home;

fn demo_run(home: &Home, extra: &[&str]) -> SessionId {
    for n in 0..6 {
        let text = format!("notes {n}\n").repeat(300);
        std::fs::write(home.workspace.path().join(format!("notes-{n}.txt")), text).unwrap();
    }
    let mut args = vec![
        "run",
        "-p",
        "Read every notes file.",
        "--provider",
        "demo",
        "--json",
    ];
    args.extend(extra);
    let run = home.run(&args);
    assert_eq!(run.code, 0, "{run:#?}");
    let lines: Vec<Value> = run.json_lines();
    lines[0]["session_id"].as_str().unwrap().parse().unwrap()
}

fn policy_records(home: &Home, id: SessionId) -> Vec<(CompactionPolicy, Option<ThresholdSetting>)> {
    let read = home.store().open_reader(id, ReadMode::Strict).unwrap();
    read.records
        .iter()
        .filter_map(|record| match &record.body {
            RecordBody::CompactionPolicy(policy) => Some((policy.policy, policy.threshold)),
            _ => None,
        })
        .collect()
}

#[test]
fn new_sessions_record_layered_and_resume_keeps_the_recorded_policy_unless_given() {
    let home = Home::new();
    let id = demo_run(&home, &["--compact-threshold", "80%"]);
    assert_eq!(
        policy_records(&home, id),
        [(
            CompactionPolicy::Layered,
            Some(ThresholdSetting::Percent(80))
        )]
    );
    let session = id.to_string();
    let resumed = home.run(&["resume", &session, "-p", "again", "--provider", "demo"]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert_eq!(policy_records(&home, id).len(), 1, "kept, not re-recorded");
    let switched = home.run(&[
        "resume",
        &session,
        "-p",
        "again",
        "--provider",
        "demo",
        "--compaction",
        "off",
    ]);
    assert_eq!(switched.code, 0, "{switched:#?}");
    assert_eq!(
        policy_records(&home, id).last().map(|p| p.0),
        Some(CompactionPolicy::Off)
    );
}

#[test]
fn a_base_session_writes_no_policy_record() {
    let home = Home::new();
    let id = demo_run(&home, &["--compaction", "base"]);
    assert!(policy_records(&home, id).is_empty());
}

#[test]
fn bad_policy_and_threshold_flags_are_usage_errors() {
    let home = Home::new();
    for args in [
        ["run", "-p", "hi", "--compaction", "smart"],
        ["run", "-p", "hi", "--compact-threshold", "120%"],
        ["run", "-p", "hi", "--compact-threshold", "left:"],
    ] {
        home.run(&args).fails_with(2, "invalid");
    }
}

#[test]
fn the_preview_calls_no_model_leaves_the_file_byte_identical_and_prints_one_typed_object() {
    let home = Home::new();
    // Low enough that the notes outputs get evicted, high enough that the
    // latest round's two reads (about 1,200 tokens) with the tool specs
    // (recall's included) fit: the demo model re-reads what a summary drops.
    let id = demo_run(&home, &["--compact-threshold", "3600"]);
    let before = std::fs::read(home.session_file(id)).unwrap();
    let session = id.to_string();
    let run = home.run(&[
        "compact",
        &session,
        "--preview",
        "--json",
        "--provider",
        "demo",
    ]);
    assert_eq!(run.code, 0, "{run:#?}");
    assert_eq!(std::fs::read(home.session_file(id)).unwrap(), before);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let line: CompactPreview = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(line.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(line.session_id, id);
    let preview = line.preview;
    assert_eq!(preview.policy, CompactionPolicy::Layered);
    assert_eq!(preview.threshold, 3600);
    assert!(preview.estimated_after_summary < preview.estimated_before);
    assert!(preview.state_sheet.text.starts_with("[State sheet]"));

    let human = home.run(&["compact", &session, "--preview", "--provider", "demo"]);
    assert_eq!(human.code, 0, "{human:#?}");
    assert!(human.stdout.contains("estimates only"), "{}", human.stdout);
    assert_eq!(std::fs::read(home.session_file(id)).unwrap(), before);
}
