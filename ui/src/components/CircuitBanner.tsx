/** Automatic compaction is held off after repeated failed or refused summaries; Retry compacts now, which closes the circuit when it succeeds. */
export function CircuitBanner({ onRetry, busy, reason = null }: { onRetry: () => void; busy: boolean; reason?: string | null }) {
  return (
    <div className="circuit-banner" role="alert" data-testid="circuit-banner">
      <span className="circuit-icon" aria-hidden="true">
        !
      </span>
      <span>
        <strong>Automatic compaction is paused.</strong> Three compactions in a row could not get a summary from the model or were refused by the
        rule check, so Strata stopped trying on its own. The context may overflow until a compaction succeeds.
        {reason && (
          <span className="circuit-reason" data-testid="circuit-reason">
            {" "}
            Last error: {reason}
          </span>
        )}
      </span>
      <button type="button" className="button small" onClick={onRetry} disabled={busy}>
        Retry compaction
      </button>
    </div>
  );
}
