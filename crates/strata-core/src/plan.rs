//! The `update_plan` tool: the model states its plan as steps with a
//! status, replacing the previous plan whole. The plan is the latest valid
//! call's arguments, so it is derived from the records by the same parse
//! live and on replay; the layered state sheet keeps it verbatim and the
//! base summary request carries it. Pure functions over items.

use serde::Deserialize;
use strata_protocol::tool_names::UPDATE_PLAN;
use strata_protocol::{Plan, PlanStep, PlanStepStatus, ResponseItem, Role, ToolSpec};

/// Steps a plan may have.
pub const PLAN_MAX_STEPS: usize = 40;
/// Characters of one step.
pub const PLAN_MAX_STEP_CHARS: usize = 400;
/// Characters of the explanation.
pub const PLAN_MAX_EXPLANATION_CHARS: usize = 2_000;

/// The tool's spec, offered in every round under every policy.
pub fn update_plan_spec() -> ToolSpec {
    ToolSpec {
        name: UPDATE_PLAN.to_owned(),
        description: format!(
            "Set your plan for the task: the whole list of steps, each pending, in_progress or \
             completed (at most one in_progress), replacing the previous plan. Update it as you \
             finish steps. The plan is kept verbatim through every compaction of your context, \
             so state in it what you are doing next. At most {PLAN_MAX_STEPS} steps of \
             {PLAN_MAX_STEP_CHARS} characters."
        ),
        parameters: serde_json::json!({
            "type": "object",
            "properties": {
                "explanation": {"type": "string", "description": "Why the plan is what it is or changed (optional)."},
                "plan": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "string"},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        },
                        "required": ["step", "status"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["plan"],
            "additionalProperties": false
        }),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdatePlanArgs {
    #[serde(default)]
    explanation: Option<String>,
    plan: Vec<PlanStep>,
}

/// The plan an `update_plan` call's arguments set, or why they set none
/// (the tool's error output).
pub fn parse_plan(arguments: &str) -> Result<Plan, String> {
    let args: UpdatePlanArgs = serde_json::from_str(arguments)
        .map_err(|e| format!("update_plan: invalid arguments: {e}"))?;
    if args.plan.len() > PLAN_MAX_STEPS {
        return Err(format!(
            "update_plan: {} steps; at most {PLAN_MAX_STEPS}",
            args.plan.len()
        ));
    }
    let mut steps = Vec::with_capacity(args.plan.len());
    for step in args.plan {
        let text = step.step.trim();
        if text.is_empty() {
            return Err("update_plan: a step is empty".to_owned());
        }
        if text.chars().count() > PLAN_MAX_STEP_CHARS {
            return Err(format!(
                "update_plan: a step is longer than {PLAN_MAX_STEP_CHARS} characters"
            ));
        }
        steps.push(PlanStep {
            step: text.to_owned(),
            status: step.status,
        });
    }
    let in_progress = steps
        .iter()
        .filter(|s| s.status == PlanStepStatus::InProgress)
        .count();
    if in_progress > 1 {
        return Err(format!(
            "update_plan: {in_progress} steps are in_progress; at most one may be"
        ));
    }
    let explanation = args
        .explanation
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty());
    if explanation
        .as_ref()
        .is_some_and(|e| e.chars().count() > PLAN_MAX_EXPLANATION_CHARS)
    {
        return Err(format!(
            "update_plan: the explanation is longer than {PLAN_MAX_EXPLANATION_CHARS} characters"
        ));
    }
    Ok(Plan {
        explanation,
        plan: steps,
    })
}

/// What the tool answers for a plan it set.
pub fn plan_set_output(plan: &Plan) -> String {
    let (done, all) = plan.progress();
    format!("Plan updated: {done} of {all} steps completed.")
}

/// The plan the latest valid `update_plan` call in `items` set.
pub fn latest_plan<'a>(items: impl DoubleEndedIterator<Item = &'a ResponseItem>) -> Option<Plan> {
    items.rev().find_map(|item| match item {
        ResponseItem::FunctionCall(call) if call.name == UPDATE_PLAN => {
            parse_plan(&call.arguments).ok()
        }
        _ => None,
    })
}

/// The final assistant message of the latest finished turn in `items`: the
/// last assistant message followed by a person's message, or ending the
/// items (a turn ends on an answer without calls).
pub fn latest_final_message(items: &[ResponseItem]) -> Option<&str> {
    let ends_turn = |next: Option<&ResponseItem>| match next {
        None => true,
        Some(item) => item.is_message_with_role(Role::User),
    };
    items
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, item)| match item {
            ResponseItem::Message(message)
                if message.role == Role::Assistant
                    && !message.content.trim().is_empty()
                    && ends_turn(items.get(i + 1)) =>
            {
                Some(message.content.as_str())
            }
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_replaces_the_previous_one_whole() {
        let items = [
            ResponseItem::function_call(
                "a",
                UPDATE_PLAN,
                r#"{"plan":[{"step":"read","status":"in_progress"},{"step":"fix","status":"pending"}]}"#,
            ),
            ResponseItem::function_call(
                "b",
                UPDATE_PLAN,
                r#"{"plan":[{"step":"fix","status":"in_progress"}],"explanation":"read done"}"#,
            ),
        ];
        let plan = latest_plan(items.iter()).unwrap();
        assert_eq!(plan.plan.len(), 1);
        assert_eq!(plan.explanation.as_deref(), Some("read done"));
        assert_eq!(plan.to_text(), "[>] fix\nNote: read done\n");
    }

    #[test]
    fn an_invalid_call_leaves_the_plan_as_it_was() {
        let items = [
            ResponseItem::function_call(
                "a",
                UPDATE_PLAN,
                r#"{"plan":[{"step":"keep me","status":"pending"}]}"#,
            ),
            ResponseItem::function_call(
                "b",
                UPDATE_PLAN,
                r#"{"plan":[{"step":"x","status":"in_progress"},{"step":"y","status":"in_progress"}]}"#,
            ),
            ResponseItem::function_call("c", UPDATE_PLAN, "not json"),
        ];
        let plan = latest_plan(items.iter()).unwrap();
        assert_eq!(plan.plan[0].step, "keep me");
        assert!(parse_plan(r#"{"plan":[{"step":"  ","status":"pending"}]}"#).is_err());
        assert!(parse_plan(r#"{"plan":[],"extra":1}"#).is_err());
        let long = "s".repeat(PLAN_MAX_STEP_CHARS + 1);
        assert!(
            parse_plan(&format!(
                r#"{{"plan":[{{"step":"{long}","status":"pending"}}]}}"#
            ))
            .is_err()
        );
    }

    #[test]
    fn the_final_message_is_the_last_answer_that_ended_a_turn() {
        let items = vec![
            ResponseItem::user("go"),
            ResponseItem::assistant("first turn's answer"),
            ResponseItem::user("more"),
            ResponseItem::assistant("thinking aloud before a call"),
            ResponseItem::function_call("a", "read_file", "{}"),
            ResponseItem::function_call_output("a", "x"),
        ];
        assert_eq!(latest_final_message(&items), Some("first turn's answer"));
        let mut ended = items.clone();
        ended.push(ResponseItem::assistant("second turn's answer"));
        assert_eq!(latest_final_message(&ended), Some("second turn's answer"));
        assert_eq!(latest_final_message(&items[..1]), None);
    }
}
