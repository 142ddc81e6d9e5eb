//! Drives the core by hand: a session, a round's usage, the compaction
//! decision, a summary, and a resume that sees the compacted history.
//! (`cargo run -p strata-core --example compact_and_resume`)

// An example talks to its reader on stdout.
#![allow(clippy::print_stdout)]

use std::error::Error;

use strata_core::SessionStore;
use strata_core::compaction::{
    CompactionDecision, CompactionPlan, build_compaction_summary_request, decide_compaction,
};
use strata_protocol::{
    CompactionMetadata, CompactionSummary, CompactionTrigger, ItemId, ResponseItem, TokenUsage,
};

fn main() -> Result<(), Box<dyn Error>> {
    let home = tempfile::tempdir()?;
    let store = SessionStore::new(home.path().join("sessions"));
    let mut session = store.create(home.path(), "demo", "strata-demo")?;
    session.commit_item(ResponseItem::system("You are Strata."))?;
    session.commit_item(ResponseItem::user("Count the lines in notes.txt."))?;
    session.commit_item(ResponseItem::function_call(
        "c1",
        "read_file",
        r#"{"path":"notes.txt"}"#,
    ))?;
    session.commit_item(ResponseItem::function_call_output("c1", "one\ntwo\nthree"))?;
    session.commit_item(ResponseItem::assistant("notes.txt has 3 lines."))?;
    let usage = TokenUsage {
        input_tokens: Some(8_100),
        output_tokens: Some(40),
        ..Default::default()
    };
    session.record_usage(usage, None, None)?;

    let history = session.history();
    let decision = decide_compaction(history.last_usage(), 8_000, history.items());
    let CompactionDecision::Compact {
        context_tokens,
        threshold,
        reason,
    } = decision
    else {
        return Err(format!("expected a compaction, got {decision:?}").into());
    };
    // A model gateway would answer this request; here we write the summary.
    let request = build_compaction_summary_request(history.items(), None, "strata-demo");
    assert!(request.tools.is_empty());
    let plan = CompactionPlan::for_history(history.items());
    session.commit_compaction(CompactionSummary {
        id: ItemId::new(),
        summary: "The user asked for the line count of notes.txt: 3 lines.".into(),
        metadata: CompactionMetadata {
            trigger: CompactionTrigger::Auto,
            reason,
            context_tokens: Some(context_tokens),
            threshold: Some(threshold),
            removed: u32::try_from(plan.removed())?,
            kept: u32::try_from(plan.kept())?,
            summarizer_model: "strata-demo".into(),
            summarizer_usage: None,
            summarizer_cost: None,
            duration_ms: 0,
        },
    })?;
    let id = session.id();
    drop(session);

    // Resume replays the file: system message, summary, the user's request.
    let resumed = store.open_writer(id)?;
    for item in resumed.history().items() {
        println!("{}", serde_json::to_string(item)?);
    }
    assert_eq!(resumed.history().len(), 3);
    Ok(())
}
