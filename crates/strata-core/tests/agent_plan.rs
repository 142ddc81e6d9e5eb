//! The `update_plan` tool in the live loop: the plan the model sets is kept
//! verbatim in the layered state sheet through any number of compactions
//! and evictions, names the sheet's next step whatever its wording, rides
//! in base's summary request, and replays from the file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use proptest::prelude::*;
use serde_json::json;
use strata_core::compaction::{EVICTED_PREFIX, STATE_SHEET_PREFIX};
use strata_core::plan::latest_plan;
use strata_core::{Agent, ApprovalBroker};
use strata_protocol::{CompactionPolicy, Plan, PlanStep, PlanStepStatus, ResponseItem, Role};
use support::*;

#[path = "agent_layered/helpers.rs"]
mod helpers;
use helpers::*;

fn plan_call(call_id: &str, plan: &Plan) -> Step {
    call(call_id, "update_plan", serde_json::to_value(plan).unwrap())
}

/// A turn whose first round sets `plan` and whose second answers `answer`.
fn push_plan_turn(harness: &Harness, call_id: &str, plan: &Plan, answer: &str) {
    harness
        .gateway
        .push_round(calls_round(vec![plan_call(call_id, plan)], None));
    harness.gateway.push_round(text_round(answer, None));
}

fn plan_of(steps: &[(&str, PlanStepStatus)]) -> Plan {
    Plan {
        explanation: None,
        plan: steps
            .iter()
            .map(|&(step, status)| PlanStep {
                step: step.to_owned(),
                status,
            })
            .collect(),
    }
}

/// The state sheet message in what the model sees now.
fn sheet_text(agent: &Agent) -> String {
    agent
        .history()
        .items()
        .iter()
        .find_map(|item| match item {
            ResponseItem::Message(m)
                if m.role == Role::User && m.content.starts_with(STATE_SHEET_PREFIX) =>
            {
                Some(m.content.clone())
            }
            _ => None,
        })
        .expect("a state sheet")
}

#[tokio::test]
async fn a_plan_phrased_without_keywords_survives_two_compactions_verbatim_and_names_the_next_step()
{
    let mut harness = layered(1_000_000);
    harness.config.context_window = Some(2_000_000);
    let plan = plan_of(&[
        ("read the parser", PlanStepStatus::Completed),
        ("NEXT-STEP-fix-the-parser", PlanStepStatus::InProgress),
        ("run the tests", PlanStepStatus::Pending),
    ]);
    push_plan_turn(&harness, "p1", &plan, "Parser read; fixing it now.");
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Fix the parser.").await;

    harness
        .gateway
        .push_summary(summary_response("Worked on the parser."));
    compact_by_hand(&mut agent).await;
    harness.gateway.push_round(text_round("Still on it.", None));
    run_turn(&mut agent, "Go on.").await;
    harness
        .gateway
        .push_summary(summary_response("Still the parser."));
    compact_by_hand(&mut agent).await;

    let sheet = sheet_text(&agent);
    assert!(sheet.contains(&plan.to_text()), "{sheet}");
    assert!(
        sheet.contains("Next step (from the plan):\nNEXT-STEP-fix-the-parser"),
        "{sheet}"
    );
    assert!(
        sheet.contains("Your final message of the latest finished turn (verbatim):\nStill on it."),
        "{sheet}"
    );
    // The model is reminded in the very next request.
    harness.gateway.push_round(text_round("Done.", None));
    run_turn(&mut agent, "Next?").await;
    let request = harness.gateway.last_request();
    assert!(request.input.iter().any(|item| matches!(
        item,
        ResponseItem::Message(m) if m.content.contains(&plan.to_text())
    )));
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn an_eviction_then_a_summary_keep_the_latest_plan_not_an_earlier_one() {
    let mut harness = layered(6_000);
    harness.config.context_window = Some(100_000);
    let first = plan_of(&[("look around", PlanStepStatus::InProgress)]);
    let second = plan_of(&[
        ("look around", PlanStepStatus::Completed),
        ("compare part 2 with part 4", PlanStepStatus::InProgress),
    ]);
    push_plan_turn(&harness, "p1", &first, "Looking.");
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Read the parts.").await;
    six_reads(&harness);
    harness
        .gateway
        .push_round(calls_round(vec![plan_call("p2", &second)], None));
    harness.gateway.push_round(text_round("All read.", None));
    run_turn(&mut agent, "Read all six.").await;
    assert!(outputs(agent.history().items())[1].starts_with(EVICTED_PREFIX));

    harness
        .gateway
        .push_summary(summary_response("Read six parts."));
    compact_by_hand(&mut agent).await;

    let sheet = sheet_text(&agent);
    assert!(sheet.contains(&second.to_text()), "{sheet}");
    assert!(!sheet.contains("[>] look around"), "{sheet}");
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn base_keeps_its_reference_shape_and_its_summary_request_carries_the_plan() {
    let mut harness = Harness::new();
    harness.config.compaction = Some(CompactionPolicy::Base);
    let plan = plan_of(&[("ship the fix", PlanStepStatus::InProgress)]);
    push_plan_turn(&harness, "p1", &plan, "Shipping.");
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Ship it.").await;
    harness
        .gateway
        .push_summary(summary_response("Shipping the fix."));
    compact_by_hand(&mut agent).await;

    let request = &harness.gateway.summary_requests()[0];
    let ResponseItem::Message(prompt) = &request.input[1] else {
        panic!()
    };
    assert!(prompt.content.contains(&format!(
        "restate it in the summary verbatim, each step with its status):\n{}",
        plan.to_text()
    )));
    assert_eq!(
        labels(agent.history().items()),
        ["system", "summary", "user"]
    );
    harness.assert_reopens_to(agent);
}

#[tokio::test]
async fn an_invalid_plan_is_an_error_output_and_the_plan_stays() {
    let harness = layered(1_000_000);
    let plan = plan_of(&[("keep me", PlanStepStatus::Pending)]);
    push_plan_turn(&harness, "p1", &plan, "Planned.");
    harness.gateway.push_round(calls_round(
        vec![call(
            "p2",
            "update_plan",
            json!({"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]}),
        )],
        None,
    ));
    harness.gateway.push_round(text_round("Oops.", None));
    let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
    run_turn(&mut agent, "Plan.").await;
    run_turn(&mut agent, "Change it.").await;
    let items = agent.history().items();
    assert_eq!(
        output_of(items, "p1"),
        "Plan updated: 0 of 1 steps completed."
    );
    assert!(output_of(items, "p2").contains("at most one may be"));
    assert_eq!(latest_plan(items.iter()), Some(plan));
}

fn status() -> impl Strategy<Value = PlanStepStatus> {
    prop_oneof![
        Just(PlanStepStatus::Pending),
        Just(PlanStepStatus::InProgress),
        Just(PlanStepStatus::Completed),
    ]
}

fn random_plan() -> impl Strategy<Value = Plan> {
    (
        prop::collection::vec(("[A-Za-z0-9 _-]{1,30}", status()), 1..6),
        prop::option::of("[a-z ]{1,40}"),
    )
        .prop_map(|(steps, explanation)| {
            let mut seen_in_progress = false;
            Plan {
                explanation: explanation
                    .map(|e| e.trim().to_owned())
                    .filter(|e| !e.is_empty()),
                plan: steps
                    .into_iter()
                    .filter(|(step, _)| !step.trim().is_empty())
                    .map(|(step, status)| {
                        // At most one step in progress, as the tool requires.
                        let status = if status == PlanStepStatus::InProgress && seen_in_progress {
                            PlanStepStatus::Pending
                        } else {
                            seen_in_progress |= status == PlanStepStatus::InProgress;
                            status
                        };
                        PlanStep {
                            step: step.trim().to_owned(),
                            status,
                        }
                    })
                    .collect(),
            }
        })
}

/// One turn of a random session: set a plan, talk, or compact after it.
#[derive(Clone, Debug)]
enum Action {
    SetPlan(Plan),
    Talk,
    Compact,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        2 => random_plan().prop_map(Action::SetPlan),
        2 => Just(Action::Talk),
        3 => Just(Action::Compact),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn after_any_compactions_the_sheet_holds_the_latest_plan_verbatim(
        actions in prop::collection::vec(action(), 1..10)
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let harness = layered(1_000_000);
            let (mut agent, _events) = harness.start(auto(), ApprovalBroker::non_interactive());
            let mut latest: Option<Plan> = None;
            for (n, action) in actions.iter().enumerate() {
                match action {
                    Action::SetPlan(plan) if !plan.plan.is_empty() => {
                        push_plan_turn(&harness, &format!("p{n}"), plan, &format!("answer {n}"));
                        run_turn(&mut agent, format!("turn {n}")).await;
                        latest = Some(plan.clone());
                    }
                    Action::SetPlan(_) | Action::Talk => {
                        harness.gateway.push_round(text_round(&format!("answer {n}"), None));
                        run_turn(&mut agent, format!("turn {n}")).await;
                    }
                    Action::Compact => {
                        harness.gateway.push_summary(summary_response(&format!("summary {n}")));
                        let outcome = agent
                            .compact_now(None, strata_core::tools::CancellationToken::new())
                            .await
                            .unwrap();
                        if let (strata_core::CompactOutcome::Compacted(_), Some(plan)) = (&outcome, &latest) {
                            let sheet = sheet_text(&agent);
                            prop_assert!(sheet.contains(&plan.to_text()), "{}", sheet);
                            if let Some(next) = plan.next_step() {
                                let expected = format!("Next step (from the plan):\n{}", next.step);
                                prop_assert!(sheet.contains(&expected), "{}", sheet);
                            }
                        }
                    }
                }
            }
            harness.assert_reopens_to(agent);
            Ok(())
        })?;
    }
}
