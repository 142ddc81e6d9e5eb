import { formatTokens } from "../lib/format";

interface ContextGaugeProps {
  /** The last round's context tokens (input + output). */
  context_tokens: number | null;
  threshold: number | null;
  context_window: number | null;
}

/** Footer gauge: last round's context tokens against the threshold and the window. */
export function ContextGauge({ context_tokens, threshold, context_window }: ContextGaugeProps) {
  const ceiling = context_window ?? (threshold ? Math.round(threshold * 1.25) : null);
  if (!ceiling) {
    return <div className="gauge gauge-empty">No usage reported yet</div>;
  }
  const used = context_tokens ?? 0;
  const percent = Math.min(100, (used / ceiling) * 100);
  const thresholdPercent = threshold ? Math.min(100, (threshold / ceiling) * 100) : null;
  const tone = threshold && used >= threshold ? "over" : threshold && used >= threshold * 0.8 ? "near" : "ok";
  const description =
    context_tokens === null
      ? "No round has reported usage yet"
      : `${formatTokens(used)} tokens in context` +
        (threshold ? `, compacts at ${formatTokens(threshold)}` : "") +
        (context_window ? `, window ${formatTokens(context_window)}` : "");
  return (
    <div className={`gauge tone-${tone}`} title={description}>
      <span className="gauge-label">Context</span>
      <div
        className="gauge-track"
        role="meter"
        aria-label="Context tokens"
        aria-valuemin={0}
        aria-valuemax={ceiling}
        aria-valuenow={used}
        aria-valuetext={description}
      >
        <div className="gauge-fill" style={{ width: `${percent}%` }} />
        {thresholdPercent !== null && (
          <div className="gauge-threshold" style={{ left: `${thresholdPercent}%` }} aria-hidden="true" />
        )}
      </div>
      <span className="gauge-numbers">
        {context_tokens === null ? "–" : formatTokens(used)}
        {threshold ? <span className="muted"> / {formatTokens(threshold)} compact</span> : null}
        {context_window ? <span className="muted"> / {formatTokens(context_window)} window</span> : null}
      </span>
    </div>
  );
}
