//! Tests of the session record envelope and its one-pass reader.

use super::*;
use crate::rules::{RuleKind, RuleList, RuleSource};

fn round_trip(record: &Record) -> Record {
    let line = serde_json::to_string(record).unwrap();
    serde_json::from_str(&line).unwrap()
}

#[test]
fn envelope_has_version_timestamp_type_and_payload() {
    let record = Record::now(RecordBody::TitleSet(TitleSet {
        title: "Parser".into(),
    }));
    let value = serde_json::to_value(&record).unwrap();
    assert_eq!(value["v"], FIRST_RECORD_FORMAT_VERSION);
    assert!(value["ts"].is_string());
    assert_eq!(value["type"], "title_set");
    assert_eq!(value["payload"]["title"], "Parser");
    assert_eq!(round_trip(&record), record);
}

#[test]
fn unknown_record_types_survive_verbatim() {
    let line = r#"{"v":7,"ts":"2030-01-01T00:00:00Z","type":"hologram","payload":{"x":[1,2]}}"#;
    let record: Record = serde_json::from_str(line).unwrap();
    match &record.body {
        RecordBody::Unknown(unknown) => {
            assert_eq!(unknown.record_type, "hologram");
            assert_eq!(unknown.payload, serde_json::json!({"x": [1, 2]}));
        }
        other => panic!("expected unknown, got {other:?}"),
    }
    let again: serde_json::Value = serde_json::to_value(&record).unwrap();
    let original: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(again, original);
}

#[test]
fn a_known_type_with_a_broken_payload_is_an_error_not_unknown() {
    let line = r#"{"v":1,"ts":"2030-01-01T00:00:00Z","type":"title_set","payload":{"nope":1}}"#;
    assert!(serde_json::from_str::<Record>(line).is_err());
}

#[test]
fn layered_records_carry_format_version_two_and_older_types_one() {
    let policy = Record::now(RecordBody::CompactionPolicy(CompactionPolicyRecord {
        policy: crate::CompactionPolicy::Off,
        threshold: Some(crate::ThresholdSetting::Percent(80)),
    }));
    assert_eq!(policy.v, 2);
    let value = serde_json::to_value(&policy).unwrap();
    assert_eq!(value["payload"]["threshold"], "80%");
    assert_eq!(round_trip(&policy), policy);
    let title = Record::now(RecordBody::TitleSet(TitleSet { title: "t".into() }));
    assert_eq!(title.v, FIRST_RECORD_FORMAT_VERSION);
}

#[test]
fn pin_undo_and_fork_records_carry_format_version_three() {
    let pin = Record::now(RecordBody::ItemPin(ItemPin {
        item_id: ItemId::new(),
        pinned: true,
    }));
    assert_eq!(pin.v, 3);
    assert_eq!(round_trip(&pin), pin);
    let fork = Record::now(RecordBody::SessionForked(SessionForked {
        parent_session_id: SessionId::new(),
        parent_records: 7,
        point: crate::ForkPoint::BeforeCompaction { number: 2 },
    }));
    let value = serde_json::to_value(&fork).unwrap();
    assert_eq!(value["type"], "session_forked");
    assert_eq!(value["payload"]["point"]["kind"], "before_compaction");
    assert_eq!(round_trip(&fork), fork);
}

#[test]
fn a_repair_is_a_version_five_record_that_round_trips() {
    let repaired = Record::now(RecordBody::SessionRepaired(crate::SessionRepaired {
        torn_tail: Some(crate::TornTailMoved {
            bytes: 12,
            sidecar: "s.jsonl.torn".into(),
        }),
        aborted_calls: vec!["call_1".into()],
    }));
    assert_eq!(repaired.v, 5);
    let value = serde_json::to_value(&repaired).unwrap();
    assert_eq!(value["type"], "session_repaired");
    assert_eq!(value["payload"]["torn_tail"]["bytes"], 12);
    assert_eq!(round_trip(&repaired), repaired);
}

#[test]
fn a_refused_compaction_is_a_version_four_record() {
    let refused = Record::now(RecordBody::CompactionRefused(crate::CompactionRefused {
        trigger: crate::CompactionTrigger::Manual,
        dropped: vec!["the latest user request (verbatim)".into()],
        message: "refused".into(),
        summarizer_usage: None,
    }));
    assert_eq!(refused.v, 4);
    let value = serde_json::to_value(&refused).unwrap();
    assert_eq!(value["type"], "compaction_refused");
    assert_eq!(value["payload"]["trigger"], "manual");
    assert_eq!(round_trip(&refused), refused);
}

#[test]
fn a_payload_before_its_type_and_unknown_fields_still_read() {
    let line = r#"{"payload":{"title":"T"},"extra":[1],"ts":"2030-01-01T00:00:00Z","type":"title_set","v":1}"#;
    let record: Record = serde_json::from_str(line).unwrap();
    assert_eq!(
        record.body,
        RecordBody::TitleSet(TitleSet { title: "T".into() })
    );
    let missing = r#"{"v":1,"ts":"2030-01-01T00:00:00Z","payload":{}}"#;
    assert!(serde_json::from_str::<Record>(missing).is_err());
}

#[test]
fn every_known_type_is_read_as_its_own_body_never_as_unknown() {
    for name in RecordBody::KNOWN_TYPES {
        let line =
            format!(r#"{{"v":1,"ts":"2030-01-01T00:00:00Z","type":"{name}","payload":{{}}}}"#);
        // Most payloads miss required fields: an error is fine, an
        // Unknown body would mean the reader forgot the type.
        if let Ok(record) = serde_json::from_str::<Record>(&line) {
            assert!(!matches!(record.body, RecordBody::Unknown(_)), "{name}");
        }
    }
}

#[test]
fn checkpoints_carry_format_version_three_and_round_trip() {
    let checkpoint = Record::now(RecordBody::Checkpoint(Box::new(Checkpoint {
        history: vec![ResponseItem::user("hi")],
        last_usage: None,
        state: crate::CheckpointState {
            records: 3,
            derived_title: Some("hi".into()),
            ..crate::CheckpointState::default()
        },
    })));
    assert_eq!(checkpoint.v, 3);
    let value = serde_json::to_value(&checkpoint).unwrap();
    assert_eq!(value["type"], "checkpoint");
    assert_eq!(value["payload"]["history"][0]["content"], "hi");
    assert_eq!(value["payload"]["state"]["records"], 3);
    assert_eq!(round_trip(&checkpoint), checkpoint);
    assert!(RecordBody::KNOWN_TYPES.contains(&checkpoint.body.type_name()));
}

#[test]
fn every_known_type_name_is_listed() {
    let bodies = [
        RecordBody::TitleSet(TitleSet {
            title: String::new(),
        }),
        RecordBody::TurnStarted(TurnStarted {
            turn_id: TurnId::new(),
        }),
        RecordBody::ResponseItem(ResponseItem::user("hi")),
        RecordBody::CompactionPolicy(CompactionPolicyRecord {
            policy: crate::CompactionPolicy::Layered,
            threshold: None,
        }),
        RecordBody::ItemPin(ItemPin {
            item_id: ItemId::new(),
            pinned: true,
        }),
    ];
    for body in bodies {
        assert!(RecordBody::KNOWN_TYPES.contains(&body.type_name()));
    }
}

#[test]
fn a_round_keeps_the_agents_estimate_and_older_rounds_read_without_one() {
    // As the first version wrote it: no estimate, still a version 1 record.
    let old = r#"{"v":1,"ts":"2026-11-29T19:09:16Z","type":"round","payload":{"turn_id":"01a22695-a4df-7893-923f-0824128b2f33","round_id":"01a22695-a4e7-781f-a8e2-5d940ed90475","provider_kind":"demo","model":"m","input_items":2}}"#;
    let record: Record = serde_json::from_str(old).unwrap();
    let RecordBody::Round(mut round) = record.body else {
        panic!("a round: {record:?}");
    };
    assert_eq!(round.estimated_input_tokens, None);
    let written = serde_json::to_value(Record::now(RecordBody::Round(round.clone()))).unwrap();
    assert!(written["payload"].get("estimated_input_tokens").is_none());
    round.estimated_input_tokens = Some(1_234);
    let record = Record::now(RecordBody::Round(round));
    assert_eq!(record.v, FIRST_RECORD_FORMAT_VERSION);
    let value = serde_json::to_value(&record).unwrap();
    assert_eq!(value["payload"]["estimated_input_tokens"], 1_234);
    assert_eq!(round_trip(&record), record);
}

#[test]
fn a_reasoning_setting_is_a_version_six_record_that_round_trips() {
    let set = Record::now(RecordBody::ReasoningSet(crate::ReasoningSet {
        effort: crate::ReasoningEffort::High,
    }));
    assert_eq!(set.v, 6);
    let value = serde_json::to_value(&set).unwrap();
    assert_eq!(value["type"], "reasoning_set");
    assert_eq!(value["payload"], serde_json::json!({"effort": "high"}));
    assert_eq!(round_trip(&set), set);
    // A round written before the setting existed reads without one.
    let old = r#"{"turn_id":"019a0000-0000-7000-8000-000000000001","round_id":"019a0000-0000-7000-8000-000000000002","provider_kind":"demo","model":"m","input_items":3}"#;
    let round: crate::RoundRecord = serde_json::from_str(old).unwrap();
    assert_eq!(round.reasoning, None);
}

#[test]
fn a_sandbox_mode_is_a_version_seven_record_that_round_trips() {
    let set = Record::now(RecordBody::SandboxSet(crate::SandboxSet::offline(
        crate::SandboxMode::ReadOnly,
    )));
    assert_eq!(set.v, 7);
    let value = serde_json::to_value(&set).unwrap();
    assert_eq!(value["type"], "sandbox_set");
    assert_eq!(value["payload"], serde_json::json!({"mode": "read-only"}));
    assert_eq!(round_trip(&set), set);
    // The network rides in the same record (a reader that does not know it
    // sees network off, the narrower reading).
    let listed = Record::now(RecordBody::SandboxSet(crate::SandboxSet {
        mode: crate::SandboxMode::WorkspaceWrite,
        network: crate::SandboxNetwork::AllowList,
        allow_domains: vec!["*.npmjs.org".into()],
    }));
    assert_eq!(listed.v, 7);
    assert_eq!(round_trip(&listed), listed);
}

#[test]
fn a_file_change_is_a_version_eight_record_that_round_trips_and_omits_absent_states() {
    let change = Record::now(RecordBody::FileChange(crate::FileChange {
        path: "src/a.rs".into(),
        before: None,
        after: Some(crate::FileState {
            size: 3,
            sha256: Some("ab".repeat(32)),
            stored: true,
        }),
        cause: crate::ChangeCause::WriteFile,
        call_id: "call_1".into(),
        turn_id: None,
    }));
    assert_eq!(change.v, 8);
    let value = serde_json::to_value(&change).unwrap();
    assert_eq!(value["type"], "file_change");
    assert!(value["payload"].get("before").is_none());
    assert_eq!(value["payload"]["cause"], "write_file");
    assert_eq!(round_trip(&change), change);
}

#[test]
fn an_approval_decision_without_rules_reads_as_the_persons_and_writes_back_the_same() {
    let old = r#"{"call_id":"c1","tool":"run_shell","decision":"allow_once"}"#;
    let record: ApprovalDecisionRecord = serde_json::from_str(old).unwrap();
    assert_eq!(record.by, DecidedBy::Person);
    assert!(record.rules.is_empty());
    assert_eq!(serde_json::to_string(&record).unwrap(), old);
}

#[test]
fn an_approval_decision_names_the_rules_that_made_it() {
    let record = ApprovalDecisionRecord {
        call_id: "c1".into(),
        tool: "run_shell".into(),
        decision: ApprovalDecision::Deny,
        by: DecidedBy::Rule,
        rules: vec![RuleRef {
            source: RuleSource::User,
            list: RuleList::Deny,
            kind: RuleKind::Command,
            pattern: "rm*".into(),
        }],
    };
    let value = serde_json::to_value(&record).unwrap();
    assert_eq!(value["by"], "rule");
    assert_eq!(value["rules"][0]["pattern"], "rm*");
    assert_eq!(value["rules"][0]["list"], "deny");
    assert_eq!(
        serde_json::from_value::<ApprovalDecisionRecord>(value).unwrap(),
        record
    );
}

#[test]
fn an_mcp_catalog_is_a_version_nine_record_that_round_trips() {
    let catalog = Record::now(RecordBody::McpCatalog(crate::McpCatalog {
        tools: vec![crate::ToolSpec {
            name: "mcp__everything__echo".into(),
            description: "Echoes".into(),
            parameters: serde_json::json!({"type": "object"}),
        }],
        servers: vec![crate::McpCatalogServer {
            name: "everything".into(),
            fingerprint: format!("sha256:{}", "a".repeat(64)),
            tools: vec![crate::McpCatalogTool {
                name: "mcp__everything__echo".into(),
                tool: "echo".into(),
                definition: format!("sha256:{}", "b".repeat(64)),
            }],
        }],
    }));
    assert_eq!(catalog.v, 9);
    let value = serde_json::to_value(&catalog).unwrap();
    assert_eq!(value["type"], "mcp_catalog");
    assert_eq!(value["payload"]["servers"][0]["tools"][0]["tool"], "echo");
    assert_eq!(
        value["payload"]["tools"][0]["name"],
        "mcp__everything__echo"
    );
    assert_eq!(round_trip(&catalog), catalog);
}

#[test]
fn instructions_set_is_a_version_ten_record_that_round_trips_with_and_without_its_item() {
    let changed = Record::now(RecordBody::InstructionsSet(crate::InstructionsSet {
        item: Some(ResponseItem::message(crate::Role::Developer, "Use spaces.")),
        sources: vec![crate::InstructionSource {
            label: "services/AGENTS.md".into(),
            bytes: 12,
            omitted: 0,
        }],
    }));
    assert_eq!(changed.v, 10);
    let line = serde_json::to_string(&changed).unwrap();
    assert!(line.contains(r#""type":"instructions_set""#), "{line}");
    assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), changed);
    let removed = Record::now(RecordBody::InstructionsSet(crate::InstructionsSet {
        item: None,
        sources: Vec::new(),
    }));
    let line = serde_json::to_string(&removed).unwrap();
    assert!(line.contains(r#""payload":{"sources":[]}"#), "{line}");
    assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), removed);
}

#[test]
fn session_imported_is_the_newest_record_type_and_round_trips_naming_its_source() {
    let imported = Record::now(RecordBody::SessionImported(crate::SessionImported {
        source: crate::ImportSource::ClaudeCode,
        source_path: "/home/p/.claude/projects/x/\u{1b}[31mred.jsonl".into(),
        source_session_id: Some("abc".into()),
        source_items: 12,
        dropped_items: 3,
    }));
    assert_eq!(imported.v, 11);
    assert_eq!(imported.v, RECORD_FORMAT_VERSION);
    let line = serde_json::to_string(&imported).unwrap();
    assert!(line.contains(r#""type":"session_imported""#), "{line}");
    assert!(line.contains(r#""source":"claude_code""#), "{line}");
    assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), imported);
}
