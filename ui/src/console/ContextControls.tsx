import { useState } from "react";
import { TipButton, TipLabel } from "../components/Tooltip";
import { toCommandFailure } from "../api/commands";
import type { EventEnvelope } from "../api/types";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import { formatTokens } from "../lib/format";
import { PreviewDialog } from "./PreviewDialog";
import { exactTokens, POLICY_HINT, POLICY_LABEL } from "./steps";
import type { SessionCompaction } from "./useCompactionStatus";

const POLICIES: CompactionPolicy[] = ["off", "base", "layered"];
const READ_ONLY = "Read-only: another Strata process is writing this session";

/** The session's policy (a control that records a `compaction_policy`), its threshold, the gauge's figure, the Preview button, and the circuit breaker when it is open (its reason and Retry). */
export function ContextControls({ compaction, running, onRetry }: { compaction: SessionCompaction; running: boolean; onRetry?: () => void }) {
  const { gauge: status, sessionId } = compaction;
  const [previewing, setPreviewing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const choose = async (policy: CompactionPolicy) => {
    if (!status || policy === status.policy || !compaction.setPolicy) return;
    setSaving(true);
    setError(null);
    try {
      await compaction.setPolicy(policy);
    } catch (e) {
      setError(toCommandFailure(e).message);
    } finally {
      setSaving(false);
    }
  };
  return (
    <div className="context-controls" data-testid="context-controls">
      <div className="context-controls-row">
        <div className="segmented policy-control" role="radiogroup" aria-label="Compaction policy for this session">
          {POLICIES.map((policy) => {
            const checked = status?.policy === policy;
            return (
              <TipLabel key={policy} className={checked ? "selected" : undefined} tip={compaction.setPolicy ? POLICY_HINT[policy] : READ_ONLY}>
                <input
                  type="radio"
                  name={`session-policy-${sessionId ?? "none"}`}
                  value={policy}
                  checked={checked}
                  disabled={!status || saving || running || !compaction.setPolicy}
                  onChange={() => void choose(policy)}
                />
                {POLICY_LABEL[policy]}
              </TipLabel>
            );
          })}
        </div>
        <button type="button" className="button small" onClick={() => setPreviewing(true)} disabled={!sessionId}>
          Preview compaction
        </button>
      </div>
      <p className="context-controls-figures muted" data-testid="context-reading">
        {status?.tokens == null ? (
          "No model call has reported usage since the last change"
        ) : status.estimated ? (
          <>
            <strong>≈ {exactTokens(status.tokens)}</strong> tokens <span className="estimate-tag" title="An estimate: the next model call reports the real figure">estimate</span> until the next model call reports
          </>
        ) : (
          <>
            <strong>{exactTokens(status.tokens)}</strong> tokens reported by the last model call
          </>
        )}
        {status && (
          <>
            {" · "}compacts at {formatTokens(status.threshold)}
            {status.threshold_setting ? ` (${status.threshold_setting})` : ""}
          </>
        )}
      </p>
      {status?.circuit_reason != null && (
        <div className="console-warning circuit-console" role="status" data-testid="console-circuit">
          <strong>Automatic compaction is paused</strong> after three compactions in a row whose summary failed or was refused.
          {status.circuit_reason && <span className="circuit-reason"> Last reason: {status.circuit_reason}</span>}{" "}
          <TipButton
            className="button small"
            onClick={onRetry}
            disabled={!onRetry || running}
            tip={onRetry && !running ? "Try the compaction again now" : "Available between turns, in a live session"}
          >
            Retry compaction
          </TipButton>
        </div>
      )}
      {running && <p className="muted small">The policy can be changed between turns.</p>}
      {error && (
        <p className="console-error" role="alert">
          {error}
        </p>
      )}
      {previewing && sessionId && <PreviewDialog sessionId={sessionId} onClose={() => setPreviewing(false)} onCompact={running ? undefined : onRetry} />}
    </div>
  );
}

/** Each `compaction_ineffective` warning of the live stream. */
export function IneffectiveWarnings({ debugEvents }: { debugEvents: EventEnvelope[] }) {
  const warnings = debugEvents.flatMap((envelope) =>
    envelope.event.family === "debug" && envelope.event.event.kind === "compaction_ineffective" ? [{ seq: envelope.seq, event: envelope.event.event }] : [],
  );
  if (warnings.length === 0) return null;
  return (
    <ul className="ineffective-warnings" aria-label="Compaction warnings">
      {warnings.map(({ seq, event }) => (
        <li key={seq} className="console-warning" data-testid="compaction-ineffective">
          <strong>Compaction ineffective:</strong> about {exactTokens(event.estimated_tokens)} tokens remain (estimate) against a threshold of{" "}
          {exactTokens(event.threshold)}. Strata will not compact again until new content arrives.
        </li>
      ))}
    </ul>
  );
}
