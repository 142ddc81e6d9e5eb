use std::path::PathBuf;

use chrono::Utc;
use strata_core::store::ReadReport;
use strata_protocol::{
    ApprovalDecision, ApprovalDecisionRecord, CompactionGuardRecord, CompactionMetadata,
    CompactionSummary, CompactionTrigger, ErrorRecord, ItemId, Record, RecordBody, ResponseItem,
    SessionId, SessionMeta, SessionRepaired, TitleSet, TurnFinished, TurnId, TurnOutcome,
    TurnStarted,
};

use super::*;

fn read_of(bodies: Vec<RecordBody>) -> SessionRead {
    let meta = SessionMeta {
        session_id: SessionId::new(),
        created_at: Utc::now(),
        workspace: "/work/widgets".into(),
        provider_kind: "demo".into(),
        model: "strata-demo".into(),
        strata_version: "0.1.0".into(),
    };
    let mut records = vec![Record::now(RecordBody::SessionMeta(meta.clone()))];
    records.extend(bodies.into_iter().map(Record::now));
    SessionRead {
        path: PathBuf::from("/tmp/session.jsonl"),
        meta,
        records,
        report: ReadReport::default(),
    }
}

fn sample() -> SessionRead {
    let turn_id = TurnId::new();
    read_of(vec![
        RecordBody::TitleSet(TitleSet {
            title: "Count  the\nwidgets".into(),
        }),
        RecordBody::ResponseItem(ResponseItem::system("You are Strata.")),
        RecordBody::TurnStarted(TurnStarted { turn_id }),
        RecordBody::ResponseItem(ResponseItem::user("How many widgets?")),
        RecordBody::ResponseItem(ResponseItem::function_call(
            "c1",
            "read_file",
            r#"{"path":"stock.csv"}"#,
        )),
        RecordBody::ApprovalDecision(ApprovalDecisionRecord {
            call_id: "c1".into(),
            tool: "read_file".into(),
            decision: ApprovalDecision::AllowOnce,
            by: Default::default(),
            rules: Vec::new(),
        }),
        RecordBody::ResponseItem(ResponseItem::function_call_output("c1", "widget,4\n```")),
        RecordBody::ResponseItem(ResponseItem::assistant("There are 4.")),
        RecordBody::ResponseItem(ResponseItem::CompactionSummary(CompactionSummary {
            id: ItemId::new(),
            summary: "Widgets: 4.\nAsked once.".into(),
            metadata: CompactionMetadata {
                trigger: CompactionTrigger::Auto,
                reason: "usage reached\nthe threshold".into(),
                context_tokens: Some(9120),
                threshold: Some(8000),
                removed: 3,
                kept: 2,
                summarizer_model: "strata-demo".into(),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: 5,
            },
        })),
        RecordBody::Error(ErrorRecord {
            turn_id: Some(turn_id),
            message: "the round failed".into(),
            model_error: None,
        }),
        RecordBody::CompactionGuard(CompactionGuardRecord::SummaryFailed {
            trigger: CompactionTrigger::Auto,
            attempts: 3,
            message: "rate limited".into(),
            estimated_tokens: 9000,
            threshold: 8000,
        }),
        RecordBody::TurnFinished(TurnFinished {
            turn_id,
            outcome: TurnOutcome::Failed,
            rounds: 1,
        }),
        RecordBody::SessionRepaired(SessionRepaired {
            torn_tail: None,
            aborted_calls: vec!["c9".into()],
        }),
    ])
}

#[test]
fn markdown_shows_the_whole_transcript_in_write_order_with_failed_summaries_and_repairs() {
    let read = sample();
    let md = markdown(&read, |model| model);
    assert!(md.starts_with("# Count the widgets\n"), "{md}");
    let needles = [
        format!("- Session: `{}`", read.meta.session_id),
        "- Model: demo / strata-demo".to_owned(),
        "<details><summary>system prompt</summary>\n\n```text\nYou are Strata.\n```".to_owned(),
        "## Turn 1".to_owned(),
        "**You:**\n\nHow many widgets?".to_owned(),
        "**Tool call** `read_file`:\n\n```json\n{\n  \"path\": \"stock.csv\"\n}\n```".to_owned(),
        "**Tool output** `read_file`:\n\n````text\nwidget,4\n```\n````".to_owned(),
        "*Approval: `read_file` allowed once.*".to_owned(),
        "**Assistant** (strata-demo):\n\nThere are 4.".to_owned(),
        "**History compacted (auto): 3 items removed, 2 kept, 9120 tokens (threshold 8000).** usage reached the threshold".to_owned(),
        "> Widgets: 4.\n> Asked once.".to_owned(),
        "> **Error:** the round failed".to_owned(),
        "> **Warning:** Compaction failed after 3 attempts: rate limited".to_owned(),
        "*Turn failed after 1 round(s).*".to_owned(),
        "> **Recovered:** 1 tool call of an earlier run never finished".to_owned(),
    ];
    let mut from = 0;
    for needle in &needles {
        let at = md[from..]
            .find(needle.as_str())
            .unwrap_or_else(|| panic!("{needle:?} missing (or out of order) in:\n{md}"));
        from += at;
    }
}

#[test]
fn markdown_names_models_with_the_given_labels() {
    let md = markdown(&sample(), |_| "demo");
    assert!(md.contains("**Assistant** (demo):"), "{md}");
    // The header keeps the ids.
    assert!(md.contains("- Model: demo / strata-demo"), "{md}");
}

#[test]
fn the_json_export_is_the_records_and_the_markdown_one_the_transcript() {
    let read = sample();
    let text = render(&read, ExportFormat::Json).unwrap();
    let parsed: Vec<Record> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(parsed, read.records);
    let md = render(&read, ExportFormat::Md).unwrap();
    assert_eq!(md, markdown(&read, model_label));
}

#[test]
fn fences_outgrow_backtick_runs_inside() {
    assert_eq!(fenced("a", "text"), "```text\na\n```\n");
    assert_eq!(fenced("x ```` y\n", ""), "`````\nx ```` y\n`````\n");
}
