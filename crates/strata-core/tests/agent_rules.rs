//! Approval rules in the loop: a rule decides before the policy, every
//! decision names the rule that made it, and "allow for this session" on a
//! shell command allows only the rule proposed for it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::HashMap;

use serde_json::json;
use strata_core::agent::Agent;
use strata_core::tools::rules::RuleSet;
use strata_core::tools::{CancellationToken, SessionApprovals};
use strata_core::{ApprovalBroker, TurnReport};
use strata_protocol::{
    AgentEvent, ApprovalDecision, ApprovalDecisionRecord, ApprovalPolicy, DecidedBy, MainlineEvent,
    RecordBody, RuleKind, RuleList, RuleRef, RuleSource, RulesConfig,
};
use support::*;

fn with_rules(policy: ApprovalPolicy, config: RulesConfig) -> SessionApprovals {
    let rules = RuleSet::from_configs(&[(RuleSource::User, &config)]).unwrap();
    SessionApprovals::with_rules(policy, rules)
}

fn shell(call_id: &str, command: &str) -> Step {
    call(call_id, "run_shell", json!({ "command": command }))
}

/// Runs a turn answering approvals from `answers`; returns the report and
/// the call ids that were asked about.
async fn turn_answering(
    agent: &mut Agent,
    events: &mut Events,
    answers: HashMap<&str, ApprovalDecision>,
) -> (TurnReport, Vec<String>) {
    let broker = agent.broker().clone();
    let mut asked = Vec::new();
    let (report, ()) = within(async {
        tokio::join!(agent.run_turn("go", CancellationToken::new()), async {
            loop {
                match &events.next().await.event {
                    AgentEvent::Mainline(MainlineEvent::ApprovalRequested { call_id, .. }) => {
                        asked.push(call_id.clone());
                        assert!(broker.answer(call_id, answers[call_id.as_str()]));
                    }
                    AgentEvent::Mainline(MainlineEvent::TurnFinished { .. }) => break,
                    _ => {}
                }
            }
        })
    })
    .await;
    (report.unwrap(), asked)
}

fn decisions(harness: &Harness, agent: &Agent) -> Vec<ApprovalDecisionRecord> {
    harness
        .records(agent.id())
        .into_iter()
        .filter_map(|record| match record.body {
            RecordBody::ApprovalDecision(d) => Some(d),
            _ => None,
        })
        .collect()
}

fn rule(source: RuleSource, list: RuleList, kind: RuleKind, pattern: &str) -> RuleRef {
    RuleRef {
        source,
        list,
        kind,
        pattern: pattern.into(),
    }
}

#[tokio::test]
async fn allow_for_session_on_a_shell_command_allows_its_proposed_rule_not_every_command() {
    let harness = Harness::new();
    harness.gateway.push_round(calls_round(
        vec![
            shell("c1", "git status"),
            shell("c2", "git status --short"),
            shell("c3", "echo other"),
        ],
        None,
    ));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, mut events) = harness.start(
        SessionApprovals::new(ApprovalPolicy::Ask),
        ApprovalBroker::interactive(),
    );
    let answers = HashMap::from([
        ("c1", ApprovalDecision::AllowForSession),
        ("c3", ApprovalDecision::Deny),
    ]);
    let (_, asked) = turn_answering(&mut agent, &mut events, answers).await;

    assert_eq!(asked, ["c1", "c3"]);
    let session_rule = rule(
        RuleSource::Session,
        RuleList::Allow,
        RuleKind::Command,
        "git status*",
    );
    let recorded: Vec<_> = decisions(&harness, &agent)
        .into_iter()
        .map(|d| (d.call_id, d.decision, d.by, d.rules))
        .collect();
    assert_eq!(
        recorded,
        [
            (
                "c1".to_owned(),
                ApprovalDecision::AllowForSession,
                DecidedBy::Person,
                vec![]
            ),
            (
                "c2".to_owned(),
                ApprovalDecision::AllowOnce,
                DecidedBy::Rule,
                vec![session_rule]
            ),
            (
                "c3".to_owned(),
                ApprovalDecision::Deny,
                DecidedBy::Person,
                vec![]
            ),
        ]
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn always_allow_announces_its_proposal_and_later_commands_run_by_the_saved_rule() {
    let harness = Harness::new();
    harness.gateway.push_round(calls_round(
        vec![
            shell("c1", "cargo test --workspace"),
            shell("c2", "cargo test -p parser"),
        ],
        None,
    ));
    harness.gateway.push_round(text_round("Done.", None));
    let (mut agent, mut events) = harness.start(
        SessionApprovals::new(ApprovalPolicy::Ask),
        ApprovalBroker::interactive(),
    );
    let broker = agent.broker().clone();
    let mut proposals = Vec::new();
    let (report, ()) = within(async {
        tokio::join!(agent.run_turn("go", CancellationToken::new()), async {
            loop {
                match &events.next().await.event {
                    AgentEvent::Mainline(MainlineEvent::ApprovalRequested {
                        call_id,
                        proposed_rules,
                        ..
                    }) => {
                        proposals.push(proposed_rules.clone());
                        assert_eq!(
                            broker.proposed_rules(call_id).map(|p| p.patterns).as_ref(),
                            Some(proposed_rules)
                        );
                        assert!(broker.answer(call_id, ApprovalDecision::AlwaysAllow));
                    }
                    AgentEvent::Mainline(MainlineEvent::TurnFinished { .. }) => break,
                    _ => {}
                }
            }
        })
    })
    .await;
    report.unwrap();
    assert_eq!(proposals, [vec!["cargo test*".to_owned()]]);
    let saved = vec![rule(
        RuleSource::Workspace,
        RuleList::Allow,
        RuleKind::Command,
        "cargo test*",
    )];
    let recorded: Vec<_> = decisions(&harness, &agent)
        .into_iter()
        .map(|d| (d.decision, d.by, d.rules))
        .collect();
    assert_eq!(
        recorded,
        [
            (
                ApprovalDecision::AlwaysAllow,
                DecidedBy::Person,
                saved.clone()
            ),
            (ApprovalDecision::AllowOnce, DecidedBy::Rule, saved),
        ]
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn a_deny_rule_refuses_a_compound_command_under_auto_and_the_record_names_it() {
    let harness = Harness::new();
    harness.write("keep.txt", "kept\n");
    harness
        .gateway
        .push_round(calls_round(vec![shell("c1", "ls && rm -f keep.txt")], None));
    harness.gateway.push_round(text_round("Refused.", None));
    let config = RulesConfig {
        allow: vec!["ls*".into()],
        deny: vec!["rm*".into()],
        ..RulesConfig::default()
    };
    let (mut agent, mut events) = harness.start(
        with_rules(ApprovalPolicy::Auto, config),
        ApprovalBroker::interactive(),
    );
    let (_, asked) = turn_answering(&mut agent, &mut events, HashMap::new()).await;

    assert!(asked.is_empty());
    assert!(harness.workspace.path().join("keep.txt").exists());
    let output = output_of(agent.history().items(), "c1").to_owned();
    assert!(output.contains("user deny `rm*`"), "{output}");
    let deny = rule(RuleSource::User, RuleList::Deny, RuleKind::Command, "rm*");
    let [decision] = decisions(&harness, &agent).try_into().unwrap();
    assert_eq!(decision.decision, ApprovalDecision::Deny);
    assert_eq!(decision.by, DecidedBy::Rule);
    assert_eq!(decision.rules, [deny]);
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn allow_rules_run_commands_and_writes_under_ask_and_an_ask_rule_asks_under_auto() {
    let harness = Harness::new();
    harness.gateway.push_round(calls_round(
        vec![
            call(
                "w1",
                "write_file",
                json!({"path": "notes/a.txt", "content": "a\n"}),
            ),
            shell("s1", "cat notes/a.txt > notes/b.txt"),
        ],
        None,
    ));
    harness.gateway.push_round(text_round("Done.", None));
    let config = RulesConfig {
        allow: vec!["cat*".into()],
        write_allow: vec!["notes/**".into()],
        ..RulesConfig::default()
    };
    let (mut agent, mut events) = harness.start(
        with_rules(ApprovalPolicy::Ask, config),
        ApprovalBroker::interactive(),
    );
    let (_, asked) = turn_answering(&mut agent, &mut events, HashMap::new()).await;
    assert!(asked.is_empty());
    let copied = std::fs::read_to_string(harness.workspace.path().join("notes/b.txt")).unwrap();
    assert_eq!(copied, "a\n");
    let recorded: Vec<_> = decisions(&harness, &agent)
        .into_iter()
        .map(|d| (d.call_id, d.by, d.rules.len()))
        .collect();
    assert_eq!(
        recorded,
        [
            ("w1".to_owned(), DecidedBy::Rule, 1),
            ("s1".to_owned(), DecidedBy::Rule, 2)
        ]
    );

    let harness = Harness::new();
    harness
        .gateway
        .push_round(calls_round(vec![shell("a1", "git push")], None));
    harness.gateway.push_round(text_round("Asked.", None));
    let config = RulesConfig {
        ask: vec!["git push*".into()],
        ..RulesConfig::default()
    };
    let (mut agent, mut events) = harness.start(
        with_rules(ApprovalPolicy::Auto, config),
        ApprovalBroker::interactive(),
    );
    let answers = HashMap::from([("a1", ApprovalDecision::Deny)]);
    let (_, asked) = turn_answering(&mut agent, &mut events, answers).await;
    assert_eq!(asked, ["a1"]);
    let [decision] = decisions(&harness, &agent).try_into().unwrap();
    assert_eq!(decision.by, DecidedBy::Person);
    assert_eq!(
        decision.rules,
        [rule(
            RuleSource::User,
            RuleList::Ask,
            RuleKind::Command,
            "git push*"
        )]
    );
}
