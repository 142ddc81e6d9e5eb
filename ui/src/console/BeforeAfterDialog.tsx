import { useState } from "react";
import type { CompactionView } from "../bindings/CompactionView";
import { Modal } from "../components/Modal";
import { formatTokens } from "../lib/format";
import { ItemView } from "./ItemView";

interface BeforeAfterDialogProps {
  view: CompactionView;
  number: number;
  onClose: () => void;
}

/** What the model lost and what it got instead, side by side (from the core's replay). */
export function BeforeAfterDialog({ view, number, onClose }: BeforeAfterDialogProps) {
  return (
    <Modal title={`Compaction ${number}: before and after`} onClose={onClose} wide className="modal-xwide">
      <BeforeAfterView view={view} />
    </Modal>
  );
}

export function BeforeAfterView({ view }: { view: CompactionView }) {
  const removed = new Set(view.removed_indices);
  const kept = view.before.filter((_, index) => !removed.has(index));
  // What is after but was not before (the summary, a layered compaction's state sheet) Strata added.
  const wasBefore = new Set(view.before.map((item) => item.id));
  const summaryId = view.summary.id;
  const [onlyRemoved, setOnlyRemoved] = useState(true);
  return (
    <div className="before-after" data-testid="before-after">
      <p className="before-after-lead" data-testid="before-after-lead">
        The model's history went from <strong>{view.before.length} items</strong> (
        <span data-testid="before-after-estimate-before">≈ {formatTokens(view.estimated_tokens_before)} tokens</span>) to{" "}
        <strong>{view.after.length} items</strong> (
        <span data-testid="before-after-estimate-after">≈ {formatTokens(view.estimated_tokens_after)} tokens</span>):{" "}
        {view.removed_indices.length} removed, {kept.length} kept, and the summary added.
        <span className="muted">
          {" "}
          ≈ marks an estimate, made in Rust by the estimator the context gauge uses (a layered compaction's own); the chart
          shows reported usage.
        </span>
      </p>
      <div className="before-after-columns">
        <section
          className="before-after-column"
          aria-label={onlyRemoved ? `Removed: ${view.removed_indices.length} items` : `Before: ${view.before.length} items`}
          data-testid="before-after-before"
        >
          <div className="before-after-head">
            <h3>
              {onlyRemoved ? "Removed" : "Before"}{" "}
              <span className="muted">
                · {onlyRemoved ? `${view.removed_indices.length} of ${view.before.length} items` : `${view.before.length} items`}
              </span>
            </h3>
            <div className="segmented" role="group" aria-label="Items before the compaction">
              <button type="button" aria-pressed={onlyRemoved} className={onlyRemoved ? "active" : ""} onClick={() => setOnlyRemoved(true)}>
                Removed
              </button>
              <button type="button" aria-pressed={!onlyRemoved} className={onlyRemoved ? "" : "active"} onClick={() => setOnlyRemoved(false)}>
                Everything before
              </button>
            </div>
          </div>
          {onlyRemoved && view.removed_indices.length === 0 ? (
            <p className="muted">Nothing was removed: the history only held what a compaction keeps.</p>
          ) : (
            <ol className="history-list">
              {view.before.map((item, index) =>
                onlyRemoved && !removed.has(index) ? null : (
                  <li key={item.id}>
                    <ItemView item={item} status={removed.has(index) ? "removed" : "kept"} />
                  </li>
                ),
              )}
            </ol>
          )}
        </section>
        <section className="before-after-column" aria-label={`After: ${view.after.length} items`} data-testid="before-after-after">
          <div className="before-after-head">
            <h3>
              After <span className="muted">· {view.after.length} items: the summary and what was kept</span>
            </h3>
          </div>
          <ol className="history-list">
            {view.after.map((item) => (
              <li key={item.id}>
                {item.id === summaryId ? (
                  <ItemView item={item} status="added" text={view.summary_model_text} />
                ) : (
                  <ItemView item={item} status={wasBefore.has(item.id) ? "kept" : "added"} />
                )}
              </li>
            ))}
          </ol>
        </section>
      </div>
    </div>
  );
}
