import { formatTokens } from "../lib/format";
import { useTooltip } from "./Tooltip";

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
  const used = context_tokens ?? 0;
  const limits = (threshold ? `, compacts at ${formatTokens(threshold)}` : "") + (context_window ? `, window ${formatTokens(context_window)}` : "");
  const description =
    context_tokens === null
      ? estimated
        ? "Compacted; the next round reports the new size"
        : "No round has reported usage yet"
      : `${estimated ? "About " : ""}${formatTokens(used)} tokens in context${estimated ? " (estimated after a compaction, until the next round reports)" : ""}` + limits;
  // The app's own tooltip (a native title stays up over whatever opens next); it says what "≈"
  // means first, then the figures. Focusable, so the keyboard reaches it too.
  const marked = context_tokens !== null && estimated;
  const tip = useTooltip(marked ? `${ESTIMATE_HINT}: about ${formatTokens(used)} tokens in context${limits}` : description);
  if (!ceiling) {
    return <div className="gauge gauge-empty">No usage reported yet</div>;
  }
  const percent = Math.min(100, (used / ceiling) * 100);
  const thresholdPercent = threshold ? Math.min(100, (threshold / ceiling) * 100) : null;
  const tone = threshold && used >= threshold ? "over" : threshold && used >= threshold * 0.8 ? "near" : "ok";
  return (
    <div className={`gauge tone-${tone}${estimated ? " estimated" : ""}`} data-testid="context-gauge" tabIndex={0} {...tip.trigger}>
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
        {/* An estimate is marked by "≈" alone, said in full by the tooltip and the meter's text. */}
        {marked && <span className="estimate-mark">≈ </span>}
        {context_tokens === null ? "–" : formatTokens(used)}
        {threshold ? <span className="muted"> / {formatTokens(threshold)} compact</span> : null}
        {context_window ? <span className="muted"> / {formatTokens(context_window)} window</span> : null}
      </span>
      {tip.tooltip}
    </div>
  );
}
