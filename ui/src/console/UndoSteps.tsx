// The console's issue-12 steps: the Undo action on the latest compaction
// card (the transcript's divider offers the same one), the card of an undo
// that was recorded, and the card of a compaction the rule check refused.
import { useId, useState } from "react";
import { TipButton } from "../components/Tooltip";
import { toCommandFailure } from "../api/commands";
import type { CompactionUndone } from "../bindings/CompactionUndone";
import { formatRelativeTime } from "../lib/format";
import { ItemIdChip } from "./ItemIdChip";
import { exactTokens } from "./steps";

interface UndoActionProps {
  /** The compaction's number, where the caller knows it (the console's cards). */
  number?: number;
  /** Rejects with the refusal; nothing changed then. */
  onUndo: () => Promise<void>;
  running: boolean;
  /** Why the core would refuse it now: the button is disabled and says so. */
  refusedBecause?: string | null;
}

/**
 * Undo, after saying what it restores. A refusal (the result would be over
 * the threshold) is shown in place and leaves everything as it was.
 */
export function UndoAction({ number, onUndo, running, refusedBecause = null }: UndoActionProps) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const explainId = useId();
  const undo = async () => {
    setBusy(true);
    setRefusal(null);
    try {
      await onUndo();
      setConfirming(false);
    } catch (error) {
      setRefusal(toCommandFailure(error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <TipButton
        className="button small ghost"
        data-testid="compaction-undo"
        aria-expanded={confirming}
        disabled={running || refusedBecause !== null}
        aria-describedby={refusedBecause !== null ? `${explainId}-refused` : undefined}
        tip={running ? "Wait for the turn to finish" : (refusedBecause ?? "Restore the history from before this compaction")}
        onClick={() => {
          setConfirming(!confirming);
          setRefusal(null);
        }}
      >
        <span aria-hidden="true">↶</span> Undo
      </TipButton>
      {refusedBecause !== null && (
        <span id={`${explainId}-refused`} className="undo-refused-reason muted" data-testid="undo-refused-reason">
          {refusedBecause}
        </span>
      )}
      {confirming && (
        <div className="undo-confirm" data-testid="undo-confirm" data-no-reveal role="group" aria-labelledby={explainId}>
          <p id={explainId}>
            <strong>{number === undefined ? "Undo this compaction?" : `Undo compaction #${number}?`}</strong> The model will see the history exactly as it was just before this
            compaction, plus everything added since. The summary stays in the session file, and Strata refuses if the
            next request (the restored history and the tool specs every request carries) would reach the threshold.
          </p>
          {refusal && (
            <p className="undo-refusal" role="alert" data-testid="undo-refusal">
              <strong>Not undone.</strong> {refusal}
            </p>
          )}
          <div className="undo-confirm-actions">
            <button type="button" className="button small primary" data-testid="undo-confirm-button" disabled={busy || running} onClick={() => void undo()}>
              {busy ? "Undoing…" : "Undo compaction"}
            </button>
            <button type="button" className="button small ghost" disabled={busy} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </>
  );
}

interface UndoCardProps {
  undone: CompactionUndone;
  /** The summary's number, when it is known. */
  undid: number | null;
  ts: string;
}

/** A recorded undo: which compaction, what the model sees again, the estimate it was checked with. */
export function UndoCard({ undone, undid, ts }: UndoCardProps) {
  const [open, setOpen] = useState(false);
  const headingId = useId();
  const listId = useId();
  const count = undone.restored.length;
  return (
    <article className="compaction-card undo-card" data-testid="undo-card" aria-labelledby={headingId}>
      <header className="compaction-card-head">
        <h4 id={headingId}>
          <span className="pill step-badge step-undo">Undo</span>
          <span>{undid !== null ? `Compaction #${undid} undone` : "Compaction undone"}</span>
        </h4>
        <time dateTime={ts} className="muted compaction-card-when" title={new Date(ts).toLocaleString()}>
          {formatRelativeTime(ts)}
        </time>
      </header>
      <dl className="card-stats card-stats-3">
        <div>
          <dt>Items restored</dt>
          <dd data-testid="undo-restored">{count}</dd>
        </div>
        <div>
          <dt title="The estimate of the restored history: the undo was checked with it plus the tool specs every request carries, against the threshold">Restored estimate</dt>
          <dd>≈ {exactTokens(undone.estimated_tokens)}</dd>
        </div>
        <div>
          <dt>Threshold</dt>
          <dd>{exactTokens(undone.threshold)}</dd>
        </div>
      </dl>
      <p className="card-reason">
        The model sees the history as it was just before the compaction, plus everything added since. The summary{" "}
        <ItemIdChip id={undone.summary_item_id} /> no longer applies; it stays in the session file.
      </p>
      <div className="card-actions">
        <button type="button" className="button small ghost" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>
          <span aria-hidden="true" className={`chevron${open ? " open" : ""}`}>
            ▸
          </span>
          {count === 1 ? "The restored item" : `The ${count} restored items`}
        </button>
      </div>
      {open && (
        <ol id={listId} className="restored-list" data-testid="restored-list">
          {undone.restored.map((id) => (
            <li key={id}>
              <ItemIdChip id={id} />
            </li>
          ))}
        </ol>
      )}
    </article>
  );
}

/** A compaction the rule check refused: nothing was committed; what it would have dropped. */
export function RefusedCard({ dropped, message }: { dropped: string[]; message: string }) {
  const headingId = useId();
  return (
    <article className="compaction-card refused-card" data-testid="refused-card" aria-labelledby={headingId}>
      <header className="compaction-card-head">
        <h4 id={headingId}>
          <span className="pill step-badge step-refused">Refused</span>
          <span>Compaction not committed</span>
        </h4>
      </header>
      <p className="card-reason" data-testid="refused-message">
        {message}
      </p>
      {dropped.length > 0 && (
        <>
          <p className="refused-lead">It would have dropped:</p>
          <ul className="refused-list" data-testid="refused-dropped">
            {dropped.map((what, index) => (
              <li key={`${index}:${what}`}>{what}</li>
            ))}
          </ul>
        </>
      )}
      <p className="card-meta">The history the model sees is unchanged; the next round may try again.</p>
    </article>
  );
}
