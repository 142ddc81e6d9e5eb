import { useId, useState } from "react";
import type { Plan } from "../bindings/Plan";
import type { PlanStepStatus } from "../bindings/PlanStepStatus";

const STEP_LABEL: Record<PlanStepStatus, string> = {
  pending: "To do",
  in_progress: "In progress",
  completed: "Done",
};

/** Steps done, of all. */
export function planProgress(plan: Plan): string {
  return `${plan.plan.filter((s) => s.status === "completed").length} of ${plan.plan.length} done`;
}

/** One step's box: empty, a ring being worked on, or a tick. */
function StepMark({ status }: { status: PlanStepStatus }) {
  return (
    <svg className={`plan-mark plan-mark-${status}`} viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
      <circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
      {status === "in_progress" && <circle cx="8" cy="8" r="3" fill="currentColor" />}
      {status === "completed" && <path d="M4.8 8.2l2.1 2.1 4.3-4.6" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />}
    </svg>
  );
}

/** The plan's steps as a list, each with its status (read out, not only drawn). */
export function PlanSteps({ plan }: { plan: Plan }) {
  return (
    <ol className="plan-steps">
      {plan.plan.map((step, index) => (
        <li key={index} className={`plan-step plan-step-${step.status}`}>
          <StepMark status={step.status} />
          <span className="plan-step-text">{step.step}</span>
          <span className="visually-hidden"> ({STEP_LABEL[step.status]})</span>
        </li>
      ))}
    </ol>
  );
}

/** The agent's plan as its latest `update_plan` call set it: beside the transcript, folding to one line. */
export function PlanPanel({ plan }: { plan: Plan }) {
  const [open, setOpen] = useState(true);
  const bodyId = useId();
  const current = plan.plan.find((s) => s.status === "in_progress") ?? plan.plan.find((s) => s.status === "pending");
  return (
    <aside className="plan-panel" aria-label="Plan">
      <button type="button" className="plan-panel-head" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen((v) => !v)}>
        <span className="chevron" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
        <span className="plan-panel-title">Plan</span>
        <span className="plan-progress">{planProgress(plan)}</span>
        {!open && current && <span className="plan-current">{current.step}</span>}
      </button>
      {open && (
        <div id={bodyId} className="plan-panel-body">
          <PlanSteps plan={plan} />
          {plan.explanation && <p className="plan-explanation">{plan.explanation}</p>}
        </div>
      )}
    </aside>
  );
}
