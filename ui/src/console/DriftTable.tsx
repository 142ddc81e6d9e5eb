import { useState } from "react";
import type { ChartPoint } from "../bindings/ChartPoint";
import { drift, exactTokens, formatDrift } from "./steps";

/** How many of the latest rounds the table shows. */
export const DRIFT_ROUNDS = 12;

/**
 * Per model call: the estimate of its request's input that the agent made
 * when it sent it (its calibrated token estimator, kept in the round record)
 * against the input tokens the provider then reported, from the console
 * fold's chart points. It shows how far the figures the gauge shows after a
 * compaction can be off. Base sessions and older files record no estimate.
 * Folded away by default, so the log below keeps the panel's height.
 */
export function DriftTable({ points }: { points: ChartPoint[] }) {
  const [open, setOpen] = useState(false);
  const rounds = points.slice(-DRIFT_ROUNDS);
  if (rounds.length === 0) return null;
  if (rounds.every((round) => round.estimated_input_tokens == null)) {
    return (
      <p className="muted" data-testid="drift-none">
        Estimates against reports: these model calls recorded no estimate (base sessions and sessions from older versions do not).
      </p>
    );
  }
  return (
    <div className="drift" data-testid="drift">
      <button type="button" className="button small ghost drift-toggle" aria-expanded={open} aria-controls="drift-table" onClick={() => setOpen(!open)}>
        <span aria-hidden="true" className={`chevron${open ? " open" : ""}`}>
          ▸
        </span>
        How far the estimates were off <span className="muted">· the last {rounds.length} model calls</span>
      </button>
      {open && (
        <table id="drift-table" className="drift-table" data-testid="drift-table">
          <caption className="visually-hidden">How far the estimates were off: estimated input against reported input</caption>
          <thead>
            <tr>
              <th scope="col">Model call</th>
              <th scope="col">Estimated</th>
              <th scope="col">Reported</th>
              <th scope="col">Off by</th>
            </tr>
          </thead>
          <tbody>
            {rounds.map((round) => {
              const reported = round.input_tokens ?? null;
              const d = drift(round.estimated_input_tokens, reported);
              return (
                <tr key={round.round} data-testid="drift-row">
                  <th scope="row">{round.round}</th>
                  <td>{round.estimated_input_tokens != null ? `≈ ${exactTokens(round.estimated_input_tokens)}` : "–"}</td>
                  <td>{reported != null ? exactTokens(reported) : "–"}</td>
                  <td className={d && Math.abs(d.percent) > 25 ? "drift-high" : undefined}>{d ? formatDrift(d) : "–"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
