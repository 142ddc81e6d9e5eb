import { useEffect, useState } from "react";
import * as api from "../api/commands";
import { toCommandFailure } from "../api/ipc";
import type { RoundPage } from "../bindings/RoundPage";
import { drift, exactTokens, formatDrift } from "./steps";

/** How many of the latest rounds the table shows. */
export const DRIFT_ROUNDS = 12;

/**
 * Per round: the estimate of its request's input that the agent made when it
 * sent it (its calibrated token estimator, kept in the round record) against
 * the input tokens the provider then reported. It shows how far the figures
 * the gauge shows after a compaction can be off. Base sessions and older
 * files record no estimate.
 */
export function DriftTable({ sessionId, revision }: { sessionId: string; revision: string }) {
  const [page, setPage] = useState<RoundPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    api
      .roundRequests(sessionId, 0, 0)
      .then(({ total }) => api.roundRequests(sessionId, Math.max(0, total - DRIFT_ROUNDS), DRIFT_ROUNDS))
      .then((p) => !cancelled && setPage(p))
      .catch((e: unknown) => !cancelled && setError(toCommandFailure(e).message));
    return () => {
      cancelled = true;
    };
  }, [sessionId, revision]);
  if (error) return <p className="console-error">Estimate drift unavailable: {error}</p>;
  if (!page || page.rounds.length === 0) return null;
  if (page.rounds.every((round) => round.estimated_input_tokens == null)) {
    return (
      <p className="muted" data-testid="drift-none">
        Estimate drift: these rounds recorded no estimate (base sessions and sessions from older versions do not).
      </p>
    );
  }
  return (
    <table className="drift-table" data-testid="drift-table">
      <caption>
        Estimate drift <span className="muted">· the last {page.rounds.length} rounds: estimated input against reported input</span>
      </caption>
      <thead>
        <tr>
          <th scope="col">Round</th>
          <th scope="col">Estimated</th>
          <th scope="col">Reported</th>
          <th scope="col">Drift</th>
        </tr>
      </thead>
      <tbody>
        {page.rounds.map((round) => {
          const reported = round.usage?.input_tokens ?? null;
          const d = drift(round.estimated_input_tokens, reported);
          return (
            <tr key={round.number} data-testid="drift-row">
              <th scope="row">{round.number}</th>
              <td>{round.estimated_input_tokens != null ? `≈ ${exactTokens(round.estimated_input_tokens)}` : "–"}</td>
              <td>{reported != null ? exactTokens(reported) : "–"}</td>
              <td className={d && Math.abs(d.percent) > 25 ? "drift-high" : undefined}>{d ? formatDrift(d) : "–"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
