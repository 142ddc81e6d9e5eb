import { useState } from "react";
import { listModels, testConnection, toCommandFailure } from "../api/commands";
import type { ProviderDraft } from "../bindings/ProviderDraft";
import { formatDuration } from "../lib/format";

type Result = { tone: "ok"; text: string } | { tone: "error"; text: string; details?: string } | null;

interface ConnectionCheckProps {
  /** The form as it stands, the typed key included (read when the button is pressed, never kept). */
  draft: () => ProviderDraft;
  /** The models the server lists, once it answered (empty: it offers no list). */
  onModels?: (models: string[]) => void;
}

/**
 * "Test connection": the server's model list, then one small request to the form's model (Rust's
 * `list_models` and `test_connection`); a ✓ with how long it took, or the failure's sentence inline with its raw
 * text under Details.
 */
export function ConnectionCheck({ draft, onModels }: ConnectionCheckProps) {
  const [result, setResult] = useState<Result>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    if (busy) return;
    let current = draft();
    setBusy(true);
    setResult(null);
    try {
      // The list first: a form without a model yet is tested with the server's first.
      if (onModels) {
        const list = await listModels(current);
        if (list.failure && !current.model) {
          // Nothing to test without a model: the list's failure is the server's answer.
          setResult({ tone: "error", text: list.failure.sentence, details: list.failure.details });
          return;
        }
        if (list.offered && !list.failure) {
          onModels(list.models);
          if (!current.model && list.models[0]) current = { ...current, model: list.models[0] };
        }
      }
      const report = await testConnection(current);
      if (report.failure) {
        setResult({ tone: "error", text: report.failure.sentence, details: report.failure.details });
      } else {
        setResult({ tone: "ok", text: `Connected: ${report.model} answered in ${formatDuration(report.duration_ms)}.` });
      }
    } catch (error) {
      setResult({ tone: "error", text: toCommandFailure(error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="connection-check">
      <button
        type="button"
        className="button"
        // Not `disabled` while it runs: a disabled button drops the focus it has.
        aria-disabled={busy}
        onClick={() => void run()}
      >
        {busy ? "Testing…" : "Test connection"}
      </button>
      <div className="connection-result" role="status" aria-live="polite" data-testid="connection-result" data-tone={result?.tone}>
        {result?.tone === "ok" && (
          <span className="field-ok">
            <span aria-hidden="true">✓ </span>
            {result.text}
          </span>
        )}
        {result?.tone === "error" && (
          <>
            <span className="field-error">{result.text}</span>
            {result.details && (
              <details className="failure-details">
                <summary>Details</summary>
                <pre>{result.details}</pre>
              </details>
            )}
          </>
        )}
      </div>
    </div>
  );
}
