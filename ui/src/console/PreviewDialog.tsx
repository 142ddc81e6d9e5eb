import { useEffect, useState } from "react";
import * as api from "../api/commands";
import { toCommandFailure } from "../api/commands";
import type { CompactionPreview } from "../bindings/CompactionPreview";
import { Modal } from "../components/Modal";
import { TipButton } from "../components/Tooltip";
import { StateSheetView } from "./StateSheetView";
import { exactTokens, POLICY_LABEL } from "./steps";

/**
 * What a compaction would do now: the same preview as
 * `strata compact --preview --json`, computed in Rust from the session file
 * (read-only, no model call).
 */
export function PreviewDialog({ sessionId, onClose, onCompact }: { sessionId: string; onClose: () => void; onCompact?: () => void }) {
  const [preview, setPreview] = useState<CompactionPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    api
      .previewCompaction(sessionId)
      .then((p) => !cancelled && setPreview(p))
      .catch((e: unknown) => !cancelled && setError(toCommandFailure(e).message));
    return () => {
      cancelled = true;
    };
  }, [sessionId]);

  return (
    <Modal
      title="Compaction preview"
      wide
      onClose={onClose}
      footer={
        <>
          <TipButton
            className="button primary"
            disabled={!onCompact}
            tip={onCompact ? "Compact the history now, as /compact does" : "Available between turns, in a live session"}
            onClick={() => {
              onClose();
              onCompact?.();
            }}
          >
            Compact now
          </TipButton>
          <button type="button" className="button" onClick={onClose} data-autofocus>
            Close
          </button>
        </>
      }
    >
      <div className="compaction-preview" data-testid="compaction-preview">
        {error && (
          <p className="console-error" role="alert">
            No preview: {error}
          </p>
        )}
        {!preview && !error && (
          <div className="console-loading" role="status" aria-label="Loading">
            <span className="skeleton" />
            <span className="skeleton short" />
          </div>
        )}
        {preview && <PreviewBody preview={preview} />}
      </div>
    </Modal>
  );
}

function PreviewBody({ preview }: { preview: CompactionPreview }) {
  const freedByEviction = preview.estimated_before - preview.estimated_after_eviction;
  const after = preview.summary_needed ? preview.estimated_after_summary : preview.estimated_after_eviction;
  return (
    <>
      <p className="muted">
        Nothing was changed: this reads the session file and calls no model. Token figures are estimates, calibrated against the last reported
        usage.
      </p>
      <dl className="card-stats preview-stats">
        <div>
          <dt>Policy</dt>
          <dd data-testid="preview-policy">{POLICY_LABEL[preview.policy]}</dd>
        </div>
        <div>
          <dt>Threshold</dt>
          <dd>{exactTokens(preview.threshold)}</dd>
        </div>
        <div>
          <dt>Before (est.)</dt>
          <dd data-testid="preview-before">{exactTokens(preview.estimated_before)}</dd>
        </div>
        <div>
          <dt>After (est.)</dt>
          <dd data-testid="preview-after">{exactTokens(after)}</dd>
        </div>
        <div>
          <dt>Cached tokens given up</dt>
          <dd data-testid="preview-cached" title="Cached input tokens the last round reported; the provider's prompt cache no longer matches after a compaction">
            {preview.cached_tokens_given_up != null ? exactTokens(preview.cached_tokens_given_up) : "–"}
          </dd>
        </div>
        <div>
          <dt>Last reported</dt>
          <dd>{preview.reported_tokens != null ? exactTokens(preview.reported_tokens) : "–"}</dd>
        </div>
      </dl>

      <section className="preview-part" aria-labelledby="preview-evicted">
        <h4 id="preview-evicted">
          Evicted <span className="muted">· no model call</span>
        </h4>
        {preview.evicted.length === 0 ? (
          <p className="muted" data-testid="preview-evicted-none">
            {preview.policy === "layered" ? "No tool output is old enough to evict." : "This policy does not evict tool outputs."}
          </p>
        ) : (
          <>
            <p data-testid="preview-evicted-count">
              {preview.evicted.length} tool {preview.evicted.length === 1 ? "output" : "outputs"}, about {exactTokens(freedByEviction)} tokens freed.
            </p>
            <ul className="evicted-list">
              {preview.evicted.map((item) => (
                <li key={item.item_id}>
                  <strong>{item.tool}</strong> <span className="muted">{exactTokens(item.chars)} characters</span>
                  <code className="evicted-placeholder">{item.placeholder}</code>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>

      <section className="preview-part" aria-labelledby="preview-summarized">
        <h4 id="preview-summarized">Summarised and kept</h4>
        <p data-testid="preview-summary">
          {preview.summary_needed
            ? `A summary would replace ${preview.summarized.length} ${preview.summarized.length === 1 ? "item" : "items"}; ${preview.kept.length} would be kept verbatim.`
            : `${preview.evicted.length > 0 ? "Eviction alone brings the context" : "The context is"} under the threshold, so no summary would follow. A summary would replace ${preview.summarized.length} ${preview.summarized.length === 1 ? "item" : "items"} and keep ${preview.kept.length} verbatim.`}
        </p>
      </section>

      {preview.state_sheet.text && (
        <section className="preview-part" aria-labelledby="preview-sheet">
          <h4 id="preview-sheet">State sheet</h4>
          <StateSheetView sheet={preview.state_sheet} />
        </section>
      )}
    </>
  );
}
