//! The instruction files re-read at every resume: a change is recorded once
//! and the model sees the new text where the instructions stand, through
//! compactions and undos; the person's own file comes first.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_core::ApprovalBroker;
use strata_core::history::leading_instructions;
use strata_protocol::{RecordBody, ResponseItem, Role};
use support::*;

fn instructions_sets(harness: &Harness, id: strata_protocol::SessionId) -> usize {
    of_type(&harness.records(id), "instructions_set").len()
}

fn developer_text(request: &strata_protocol::ModelRequest) -> Option<String> {
    request.input.iter().find_map(|item| match item {
        ResponseItem::Message(m) if m.role == Role::Developer => Some(m.content.clone()),
        _ => None,
    })
}

#[tokio::test]
async fn a_resume_after_agents_md_changed_sends_the_new_text_where_the_old_stood_and_records_it_once()
 {
    let harness = Harness::new();
    harness.write("AGENTS.md", "Use tabs.\n");
    harness
        .gateway
        .push_round(text_round("ok", Some(usage(100, 5))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "first").await;
    let id = agent.id();
    assert!(agent.instructions_changed().is_none());
    drop(agent);

    // Unchanged: nothing recorded.
    let (agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert!(agent.instructions_changed().is_none());
    drop(agent);
    assert_eq!(instructions_sets(&harness, id), 0);

    harness.write("AGENTS.md", "Use spaces.\n");
    harness
        .gateway
        .push_round(text_round("ok", Some(usage(120, 5))));
    let (mut agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    let changed = agent.instructions_changed().expect("the change was found");
    assert_eq!(changed.sources[0].label, "AGENTS.md");
    assert_eq!(
        labels(agent.history().items()),
        ["system", "developer", "user", "assistant"]
    );
    run_turn(&mut agent, "second").await;
    let sent = harness.gateway.last_request();
    let developer = developer_text(&sent).expect("instructions sent");
    assert!(developer.ends_with("Use spaces."), "{developer}");
    assert!(
        !serde_json::to_string(&sent.input)
            .unwrap()
            .contains("Use tabs."),
        "the old instructions were sent too"
    );
    let reopened = harness.assert_reopens_to(agent);
    drop(reopened);
    assert_eq!(instructions_sets(&harness, id), 1);

    // Read again, still the same: still one record.
    let (agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert!(agent.instructions_changed().is_none());
    drop(agent);
    assert_eq!(instructions_sets(&harness, id), 1);
}

#[tokio::test]
async fn instructions_added_later_go_after_the_system_prompt_and_removed_ones_are_taken_out() {
    let harness = Harness::new();
    harness
        .gateway
        .push_round(text_round("ok", Some(usage(100, 5))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "first").await;
    let id = agent.id();
    drop(agent);

    harness.write("AGENTS.md", "Run the linter.\n");
    let (agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    assert_eq!(
        labels(agent.history().items()),
        ["system", "developer", "user", "assistant"]
    );
    harness.assert_reopens_to(agent);

    std::fs::remove_file(harness.workspace.path().join("AGENTS.md")).unwrap();
    let (agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    let removed = agent.instructions_changed().expect("the removal was found");
    assert_eq!(removed.item, None);
    assert_eq!(
        labels(agent.history().items()),
        ["system", "user", "assistant"]
    );
    harness.assert_reopens_to(agent);
    assert_eq!(instructions_sets(&harness, id), 2);
}

#[tokio::test]
async fn the_new_instructions_outlive_a_compaction_and_an_undo_that_restores_the_old_history() {
    let harness = Harness::new();
    harness.write("AGENTS.md", "Use tabs.\n");
    harness
        .gateway
        .push_round(text_round("ok", Some(usage(100, 5))));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "first").await;
    harness
        .gateway
        .push_summary(summary_response("We said hello."));
    compact_by_hand(&mut agent).await;
    let id = agent.id();
    drop(agent);

    harness.write("AGENTS.md", "Use spaces.\n");
    let (mut agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    let now = leading_instructions(agent.history().items())
        .unwrap()
        .to_owned();
    assert!(now.ends_with("Use spaces."), "{now}");

    // The undo brings back the history from before the compaction, which
    // held the old instructions: they are read again and stay the new ones.
    agent.undo_compaction().unwrap();
    let after = leading_instructions(agent.history().items())
        .unwrap()
        .to_owned();
    assert!(after.ends_with("Use spaces."), "{after}");
    harness
        .gateway
        .push_round(text_round("ok", Some(usage(120, 5))));
    run_turn(&mut agent, "second").await;
    let developer = developer_text(&harness.gateway.last_request()).unwrap();
    assert!(developer.ends_with("Use spaces."), "{developer}");
    harness.assert_reopens_to(agent);
    assert_eq!(instructions_sets(&harness, id), 2);
}

#[tokio::test]
async fn the_persons_own_agents_md_comes_first_and_the_repositorys_word_last() {
    let mut harness = Harness::new();
    let own = tempfile::tempdir().unwrap();
    std::fs::write(own.path().join("AGENTS.md"), "Answer in French.\n").unwrap();
    harness.config.own_instructions = Some(own.path().to_owned());
    harness.write("AGENTS.md", "Use tabs.\n");
    let (agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    let text = leading_instructions(agent.history().items()).unwrap();
    let (french, tabs) = (
        text.find("Answer in French.").unwrap(),
        text.find("Use tabs.").unwrap(),
    );
    assert!(french < tabs, "{text}");
    assert!(
        text.starts_with("Instructions from your own instruction file"),
        "{text}"
    );
    let id = agent.id();
    drop(agent);

    // Only the person's own file changes: the resume finds it.
    std::fs::write(own.path().join("AGENTS.md"), "Answer in Dutch.\n").unwrap();
    let (agent, _events) = harness.resume(id, auto(), ApprovalBroker::non_interactive());
    let changed = agent.instructions_changed().expect("changed");
    assert_eq!(changed.sources.len(), 2);
    let text = leading_instructions(agent.history().items()).unwrap();
    assert!(
        text.contains("Answer in Dutch.") && !text.contains("French"),
        "{text}"
    );
    let record = harness
        .records(id)
        .into_iter()
        .find_map(|record| match record.body {
            RecordBody::InstructionsSet(set) => Some(set),
            _ => None,
        })
        .unwrap();
    assert_eq!(record.sources[1].label, "AGENTS.md");
}
