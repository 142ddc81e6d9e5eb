// Fork from here's confirmation: the conversation forks at the point, and
// the "Files" choice says what happens to the workspace: left as it is (the
// default, said plainly), restored in place to that point, or a new git
// worktree at that point (offered only in a git repository). Rust's
// preview_fork shows what the files would become, or which files refuse
// it, before the person confirms.
import { useEffect, useId, useState } from "react";
import { Modal } from "./Modal";
import * as api from "../api/commands";
import type { ForkFiles } from "../bindings/ForkFiles";
import type { ForkPoint } from "../bindings/ForkPoint";
import type { ForkPreview } from "../bindings/ForkPreview";
import type { SessionId } from "../bindings/SessionId";

interface ForkDialogProps {
  sessionId: SessionId;
  point: ForkPoint;
  /** Where the fork starts, for a person ("up to and including this item", "just before compaction 2"). */
  label: string;
  workspace: string;
  onCancel: () => void;
  onConfirm: (files: ForkFiles) => void;
}

type Preview = { state: "loading" } | { state: "ready"; preview: ForkPreview } | { state: "failed"; message: string };

const CHOICES: { value: ForkFiles; label: string }[] = [
  { value: "keep", label: "Leave files as they are" },
  { value: "in_place", label: "Restore this folder to that point" },
  { value: "worktree", label: "New git worktree at that point" },
];

export function ForkDialog({ sessionId, point, label, workspace, onCancel, onConfirm }: ForkDialogProps) {
  const [files, setFiles] = useState<ForkFiles>("keep");
  const [preview, setPreview] = useState<Preview>({ state: "loading" });
  const name = useId();
  useEffect(() => {
    let current = true;
    api
      .previewFork(sessionId, point)
      .then((answer) => current && setPreview({ state: "ready", preview: answer }))
      .catch((error: unknown) => current && setPreview({ state: "failed", message: error instanceof Error ? error.message : String(error) }));
    return () => {
      current = false;
    };
  }, [sessionId, point]);
  const ready = preview.state === "ready" ? preview.preview : null;
  const unavailable = (value: ForkFiles): string | null => {
    if (value === "keep") return null;
    if (!ready) return preview.state === "loading" ? "Looking at the files…" : "The files could not be previewed.";
    if (value === "worktree" && !ready.worktree) return `Not available: ${ready.worktree_unavailable ?? "the workspace is not in a git repository"}.`;
    return null;
  };
  const refused = files !== "keep" && ready !== null && ready.refused.length > 0;
  const blocked = unavailable(files) !== null || refused;
  return (
    <Modal
      title="Fork from here?"
      onClose={onCancel}
      className="history-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onCancel} data-autofocus>
            Cancel
          </button>
          <button type="button" className="button primary" disabled={blocked} onClick={() => onConfirm(files)}>
            Fork session
          </button>
        </>
      }
    >
      <div className="history-dialog-body">
        <p>
          A new session starts with this conversation <strong>{label}</strong>: the original items, not a summary, and nothing later. This
          session stays as it is.
        </p>
        <fieldset className="fork-files">
          <legend className="field-label">Files</legend>
          <div role="radiogroup" aria-label="Files" className="fork-files-choices">
            {CHOICES.map((choice) => {
              const why = choice.value === "worktree" ? unavailable(choice.value) : null;
              return (
                <label key={choice.value} className={`fork-files-choice${files === choice.value ? " selected" : ""}${why ? " disabled" : ""}`}>
                  <input
                    type="radio"
                    name={`${name}-files`}
                    value={choice.value}
                    checked={files === choice.value}
                    disabled={why !== null}
                    onChange={() => setFiles(choice.value)}
                  />
                  <span>{choice.label}</span>
                  {why && <span className="muted small fork-files-why">{why}</span>}
                </label>
              );
            })}
          </div>
        </fieldset>
        {files === "keep" ? (
          <div className="history-warning" role="note" data-testid="fork-files-notice">
            <span className="history-warning-icon" aria-hidden="true">
              !
            </span>
            <p>
              <strong>Files in the workspace are not rewound.</strong> Only the conversation is forked: the new session works in{" "}
              <code>{workspace}</code> with the files as they are now, including every change made after this point.
            </p>
          </div>
        ) : (
          <FilesPreview files={files} preview={preview} workspace={workspace} />
        )}
      </div>
    </Modal>
  );
}

function FilesPreview({ files, preview, workspace }: { files: ForkFiles; preview: Preview; workspace: string }) {
  if (preview.state === "loading") return <p className="muted">Looking at the files…</p>;
  if (preview.state === "failed") {
    return (
      <p className="history-warning" role="alert">
        The files could not be previewed: {preview.message}
      </p>
    );
  }
  const { refused, files: changes, worktree } = preview.preview;
  if (refused.length > 0) {
    return (
      <div className="history-warning" role="alert" data-testid="fork-files-refused">
        <span className="history-warning-icon" aria-hidden="true">
          !
        </span>
        <div>
          <p>
            <strong>The files cannot be returned to that point.</strong> Nothing would be changed:
          </p>
          <ul className="fork-files-list">
            {refused.map((file) => (
              <li key={file.path}>
                <code>{file.path}</code>: {file.reason}
              </li>
            ))}
          </ul>
        </div>
      </div>
    );
  }
  return (
    <div className="fork-files-preview" data-testid="fork-files-preview">
      {files === "worktree" && worktree ? (
        <p>
          A new git worktree at <code>{worktree}</code> (your branches and checkout stay as they are) gets this folder's files as they are now, then:
        </p>
      ) : (
        <p>
          In <code>{workspace}</code>, as a restore recorded in the new session (undo it from its Changes view):
        </p>
      )}
      {changes.length === 0 ? (
        <p className="muted">No file changed after this point: nothing to take back.</p>
      ) : (
        <ul className="fork-files-list" aria-label="Files that would change">
          {changes.map((file) => (
            <li key={file.path}>
              {file.step === "write" ? "Restore" : "Delete"} <code>{file.path}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
