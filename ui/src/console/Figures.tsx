import type { StepFigures } from "../bindings/StepFigures";
import { drift, exactTokens, formatDrift } from "./steps";

/** The step's figures: ≈ before → ≈ after, ≈ freed, and what the next model call then reported. */
export function FiguresLine({ figures, testId }: { figures: StepFigures; testId: string }) {
  const off = drift(figures.after.tokens, figures.next_reported);
  return (
    <p className="card-meta" data-testid={testId}>
      <span title="Estimates of the history just before and just after, by the estimator the gauge uses">
        ≈ {exactTokens(figures.before.tokens)} → ≈ {exactTokens(figures.after.tokens)} tokens · <strong data-testid={`${testId}-freed`}>≈ {exactTokens(figures.freed.tokens)} freed</strong>
      </span>
      {figures.next_reported != null && (
        <span data-testid={`${testId}-next`} title="The context tokens the next model call reported">
          the next model call reported {exactTokens(figures.next_reported)}
          {off && ` (the estimate was off by ${formatDrift(off)})`}
        </span>
      )}
    </p>
  );
}
