//! The agent's plan: the steps the `update_plan` tool last set. Recorded as
//! that tool's call (its arguments are the plan), kept verbatim in the
//! layered state sheet, and shown in the plan panel and `strata chat`.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where one step stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PlanStepStatus {
    Pending,
    InProgress,
    /// Done. `completed` is the name models know from other harnesses;
    /// `done` is accepted too.
    #[serde(alias = "done")]
    Completed,
}

impl PlanStepStatus {
    /// The box a plain-text rendering shows.
    pub fn marker(self) -> &'static str {
        match self {
            PlanStepStatus::Pending => "[ ]",
            PlanStepStatus::InProgress => "[>]",
            PlanStepStatus::Completed => "[x]",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PlanStep {
    pub step: String,
    pub status: PlanStepStatus,
}

/// The plan as the latest `update_plan` call set it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Plan {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub explanation: Option<String>,
    pub plan: Vec<PlanStep>,
}

impl Plan {
    /// The step being worked on, else the first one still to do.
    pub fn next_step(&self) -> Option<&PlanStep> {
        self.plan
            .iter()
            .find(|s| s.status == PlanStepStatus::InProgress)
            .or_else(|| {
                self.plan
                    .iter()
                    .find(|s| s.status == PlanStepStatus::Pending)
            })
    }

    /// Steps done, of all.
    pub fn progress(&self) -> (usize, usize) {
        let done = self
            .plan
            .iter()
            .filter(|s| s.status == PlanStepStatus::Completed)
            .count();
        (done, self.plan.len())
    }

    /// One line a step, `[x] step`; the explanation last. What the state
    /// sheet and the base summary request carry, verbatim.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for step in &self.plan {
            out.push_str(step.status.marker());
            out.push(' ');
            out.push_str(&step.step);
            out.push('\n');
        }
        if let Some(explanation) = &self.explanation {
            out.push_str("Note: ");
            out.push_str(explanation);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(statuses: &[PlanStepStatus]) -> Plan {
        Plan {
            explanation: None,
            plan: statuses
                .iter()
                .enumerate()
                .map(|(i, &status)| PlanStep {
                    step: format!("step {i}"),
                    status,
                })
                .collect(),
        }
    }

    #[test]
    fn the_next_step_is_the_one_in_progress_else_the_first_pending() {
        use PlanStepStatus::*;
        let p = plan(&[Completed, Pending, InProgress]);
        assert_eq!(p.next_step().map(|s| s.step.as_str()), Some("step 2"));
        let p = plan(&[Completed, Pending, Pending]);
        assert_eq!(p.next_step().map(|s| s.step.as_str()), Some("step 1"));
        assert_eq!(plan(&[Completed]).next_step(), None);
        assert_eq!(plan(&[Completed, Pending]).progress(), (1, 2));
    }

    #[test]
    fn done_is_read_as_completed_and_written_as_completed() {
        let read: PlanStep = serde_json::from_str(r#"{"step":"a","status":"done"}"#).unwrap();
        assert_eq!(read.status, PlanStepStatus::Completed);
        assert_eq!(
            serde_json::to_string(&read).unwrap(),
            r#"{"step":"a","status":"completed"}"#
        );
    }
}
