import { useEffect, useState } from "react";
import * as api from "../../api/commands";
import { toCommandFailure } from "../../api/commands";
import type { RestoreReport } from "../../bindings/RestoreReport";
import type { RestoreTarget } from "../../bindings/RestoreTarget";
import { Modal } from "../Modal";

interface RestoreDialogProps {
  sessionId: string;
  target: RestoreTarget;
  /** What the restore returns to, as the title says it: "before turn 2", "before this restore". */
  label: string;
  onClose: () => void;
  /** Called once the files were restored. */
  onRestored: (report: RestoreReport) => void;
}

type Phase =
  | { phase: "previewing" }
  | { phase: "preview"; report: RestoreReport }
  | { phase: "restoring"; report: RestoreReport }
  | { phase: "failed"; message: string };

/**
 * "Restore to before …": the preview first (each file written back or deleted), or the files
 * that refuse it because they changed outside Strata since; the restore only on confirmation.
 */
export function RestoreDialog({ sessionId, target, label, onClose, onRestored }: RestoreDialogProps) {
  const [phase, setPhase] = useState<Phase>({ phase: "previewing" });
  useEffect(() => {
    let stale = false;
    api
      .previewRestore(sessionId, target)
      .then((report) => !stale && setPhase({ phase: "preview", report }))
      .catch((error: unknown) => !stale && setPhase({ phase: "failed", message: toCommandFailure(error).message }));
    return () => {
      stale = true;
    };
  }, [sessionId, target]);

  const restore = (report: RestoreReport) => {
    setPhase({ phase: "restoring", report });
    api
      .restoreFiles(sessionId, target)
      .then((done) => {
        if (done.restored) onRestored(done);
        else setPhase({ phase: "preview", report: done });
      })
      .catch((error: unknown) => setPhase({ phase: "failed", message: toCommandFailure(error).message }));
  };

  const report = phase.phase === "preview" || phase.phase === "restoring" ? phase.report : null;
  const refused = report !== null && report.refused.length > 0;
  const nothing = report !== null && !refused && report.files.length === 0;
  const canRestore = report !== null && !refused && !nothing;
  const count = report?.files.length ?? 0;
  return (
    <Modal
      title={`Restore files to ${label}`}
      onClose={onClose}
      className="restore-dialog"
      wide
      footer={
        <>
          <button type="button" className="button" onClick={onClose} data-autofocus={!canRestore || undefined}>
            {canRestore ? "Cancel" : "Close"}
          </button>
          {canRestore && (
            <button type="button" className="button primary" disabled={phase.phase === "restoring"} onClick={() => restore(report)} data-autofocus>
              {phase.phase === "restoring" ? "Restoring…" : `Restore ${count} ${count === 1 ? "file" : "files"}`}
            </button>
          )}
        </>
      }
    >
      {phase.phase === "previewing" && <p role="status">Checking what a restore would change…</p>}
      {phase.phase === "failed" && (
        <p className="restore-error" role="alert">
          {phase.message}
        </p>
      )}
      {refused && (
        <div className="restore-refused" role="alert">
          <p>
            <strong>Strata will not restore these files</strong>: they were changed outside Strata after its last recorded change, or their earlier
            content is gone. Nothing was changed; your own edits stay as they are.
          </p>
          <ul className="restore-files">
            {report.refused.map((file) => (
              <li key={file.path}>
                <span className="change-path">{file.path}</span>
                <span className="restore-reason">{file.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {nothing && <p>Nothing to restore: no file changed since then, or every one already holds its earlier content.</p>}
      {canRestore && (
        <>
          <p>
            These files go back to what they held {label}. The restore is recorded in the session, so it can be undone from the Changes view.
          </p>
          <ul className="restore-files" aria-label="Files the restore changes">
            {report.files.map((file) => (
              <li key={file.path}>
                <span className={`change-kind ${file.step === "delete" ? "change-kind-deleted" : "change-kind-modified"}`}>
                  {file.step === "delete" ? "Delete" : "Write back"}
                </span>
                <span className="change-path">{file.path}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </Modal>
  );
}
