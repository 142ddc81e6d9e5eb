import { formatTokens } from "../lib/format";

interface ContextGaugeProps {
  /** The last round's context tokens (input + output). */
  context_tokens: number | null;
  threshold: number | null;
  context_window: number | null;
  /** The figure is an estimate of the history right after a compaction, until the next round reports. */
  estimated?: boolean;
}

/** Footer gauge: last round's context tokens against the threshold and the window. */
/** What the "≈" before an estimated figure means. */
export const ESTIMATE_HINT = "Estimated after a compaction, until the next round reports";

export function ContextGauge({ context_tokens, threshold, context_window, estimated = false }: ContextGaugeProps) {
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
      ? estimated
        ? "Compacted; the next round reports the new size"
        : "No round has reported usage yet"
      : `${estimated ? "About " : ""}${formatTokens(used)} tokens in context${estimated ? " (estimated after a compaction, until the next round reports)" : ""}` +
        (threshold ? `, compacts at ${formatTokens(threshold)}` : "") +
        (context_window ? `, window ${formatTokens(context_window)}` : "");
  return (
    <div className={`gauge tone-${tone}${estimated ? " estimated" : ""}`} title={description} data-testid="context-gauge">
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
        {/* An estimate is marked by "≈" alone, said in full by its tooltip and the meter's text. */}
        {context_tokens !== null && estimated && (
          <abbr className="estimate-mark" title={ESTIMATE_HINT}>
            ≈{" "}
          </abbr>
        )}
        {context_tokens === null ? "–" : formatTokens(used)}
        {threshold ? <span className="muted"> / {formatTokens(threshold)} compact</span> : null}
        {context_window ? <span className="muted"> / {formatTokens(context_window)} window</span> : null}
      </span>
    </div>
  );
}
