import { memo, useEffect, useId, useState } from "react";
import { checkThreshold, toCommandFailure } from "../api/commands";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { ThresholdCheck } from "../bindings/ThresholdCheck";
import { POLICY_HINT, POLICY_LABEL } from "../console/steps";

const POLICIES: CompactionPolicy[] = ["layered", "base", "off"];

/** The threshold text's state: unchecked (empty), checking, valid with its tokens, or invalid with Rust's message. */
export type ThresholdState = { kind: "empty" } | { kind: "checking" } | { kind: "valid"; check: ThresholdCheck } | { kind: "invalid"; message: string };

/** Checks `text` against `profileId`'s window in Rust (strata-app's one threshold function), as the person types. */
export function useThresholdCheck(text: string, profileId: string): ThresholdState {
  const [state, setState] = useState<ThresholdState>({ kind: "empty" });
  useEffect(() => {
    const trimmed = text.trim();
    if (!trimmed) {
      setState({ kind: "empty" });
      return;
    }
    let cancelled = false;
    setState({ kind: "checking" });
    const timer = setTimeout(() => {
      checkThreshold(trimmed, profileId)
        .then((check) => !cancelled && setState({ kind: "valid", check }))
        .catch((error: unknown) => !cancelled && setState({ kind: "invalid", message: toCommandFailure(error).message }));
    }, 150);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [text, profileId]);
  return state;
}

interface CompactionSettingsProps {
  policy: CompactionPolicy;
  threshold: string;
  thresholdState: ThresholdState;
  onPolicy: (policy: CompactionPolicy) => void;
  onThreshold: (text: string) => void;
}

/** Settings: the policy and threshold new sessions start with (memoised: the form's other fields do not render it). */
export const CompactionSettings = memo(function CompactionSettings({ policy, threshold, thresholdState, onPolicy, onThreshold }: CompactionSettingsProps) {
  const id = useId();
  const inputId = `${id}-threshold`;
  const noteId = `${id}-threshold-note`;
  const invalid = thresholdState.kind === "invalid";
  return (
    <fieldset className="settings-section" data-testid="compaction-settings">
      <legend>Context management</legend>
      <p className="muted">For new sessions; each session keeps the policy it records, and the debug console changes it per session.</p>
      {POLICIES.map((value) => (
        <label key={value} className="radio-row">
          <input type="radio" name="compaction-policy" value={value} checked={policy === value} onChange={() => onPolicy(value)} />
          <span>
            <strong>{POLICY_LABEL[value]}</strong>
            {value === "layered" ? <span className="muted"> (default)</span> : null} <span className="muted">{POLICY_HINT[value]}</span>
          </span>
        </label>
      ))}
      <div className={`field context-settings-threshold${invalid ? " has-error" : ""}`}>
        <label htmlFor={inputId}>Compaction threshold</label>
        <input
          id={inputId}
          type="text"
          inputMode="text"
          spellCheck={false}
          placeholder="Each policy's default"
          value={threshold}
          aria-invalid={invalid}
          aria-describedby={noteId}
          onChange={(event) => onThreshold(event.target.value)}
        />
        <p className={invalid ? "field-error" : "field-hint"} id={noteId} data-testid="threshold-note" aria-live="polite">
          {thresholdState.kind === "empty" && "When to compact: at a share of the window (80%), at a number of tokens (12000), or when this many tokens are left (left:20000). Empty: the default for the policy."}
          {thresholdState.kind === "checking" && "Checking…"}
          {thresholdState.kind === "valid" &&
            `Compacts at ${thresholdState.check.tokens.toLocaleString("en-US")} tokens` +
              (thresholdState.check.context_window ? ` of the active profile's ${thresholdState.check.context_window.toLocaleString("en-US")}-token window.` : ".")}
          {thresholdState.kind === "invalid" && thresholdState.message}
        </p>
      </div>
    </fieldset>
  );
});
