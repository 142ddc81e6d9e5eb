//! The plan an `update_plan` card carries, and the page's plan.

use strata_protocol::{MainlineEvent, ToolCallStatus};

use super::fold_tests::Live;

/// The live fold sees the model start `name` with `arguments` in the turn.
fn started(live: &mut Live, call_id: &str, name: &str, arguments: impl Into<String>) {
    let turn_id = live.turn;
    live.main(MainlineEvent::ToolCallStarted {
        turn_id,
        call_id: call_id.into(),
        name: name.into(),
        arguments: arguments.into(),
    });
}

#[test]
fn an_update_plan_card_carries_the_plan_its_arguments_set_and_none_when_they_set_none() {
    let mut live = Live::new();
    live.start("Plan it");
    started(
        &mut live,
        "p1",
        "update_plan",
        r#"{"plan":[{"step":"read","status":"completed"},{"step":"fix","status":"in_progress"}]}"#,
    );
    let plan = live.tool("p1").plan.expect("the plan");
    assert_eq!(plan.progress(), (1, 2));
    assert_eq!(plan.next_step().map(|s| s.step.as_str()), Some("fix"));
    started(&mut live, "p2", "update_plan", r#"{"plan":"not a list"}"#);
    assert_eq!(live.tool("p2").plan, None);
    started(&mut live, "c3", "read_file", r#"{"plan":[]}"#);
    assert_eq!(live.tool("c3").plan, None, "only update_plan sets a plan");
}

#[test]
fn the_page_plan_is_the_newest_plan_that_ran_not_a_cancelled_one() {
    let mut live = Live::new();
    let turn_id = live.turn;
    live.start("Plan it");
    for (call_id, step) in [("p1", "first"), ("p2", "second")] {
        started(
            &mut live,
            call_id,
            "update_plan",
            format!(r#"{{"plan":[{{"step":"{step}","status":"pending"}}]}}"#),
        );
    }
    live.main(MainlineEvent::ToolCallFinished {
        turn_id,
        call_id: "p2".into(),
        name: "update_plan".into(),
        status: ToolCallStatus::Cancelled,
        output: "The user cancelled the turn before this update_plan call ran.".into(),
        duration_ms: 0,
    });
    let plan = super::latest_plan(live.entries()).expect("a plan");
    assert_eq!(plan.plan[0].step, "first");
}

#[test]
fn a_plan_card_that_did_not_run_carries_no_plan() {
    let mut live = Live::new();
    let turn_id = live.turn;
    live.start("Plan it");
    started(
        &mut live,
        "p1",
        "update_plan",
        r#"{"plan":[{"step":"a","status":"pending"}]}"#,
    );
    assert!(live.tool("p1").plan.is_some());
    live.main(MainlineEvent::ToolCallFinished {
        turn_id,
        call_id: "p1".into(),
        name: "update_plan".into(),
        status: ToolCallStatus::Denied,
        output: "denied".into(),
        duration_ms: 0,
    });
    assert_eq!(live.tool("p1").plan, None);
}
