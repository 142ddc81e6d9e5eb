// The confirmations of issue 12's history actions: Compact up to here (with
// an optional focus for the summary) and Fork from here (which says plainly
// that workspace files are not rewound).
import { useId, useState } from "react";
import { Modal } from "./Modal";

interface CompactUpToDialogProps {
  /** The first line of the item everything before which is summarised. */
  excerpt: string;
  onCancel: () => void;
  onConfirm: (focus: string) => void;
}

export function CompactUpToDialog({ excerpt, onCancel, onConfirm }: CompactUpToDialogProps) {
  const [focus, setFocus] = useState("");
  const formId = useId();
  const focusId = useId();
  return (
    <Modal
      title="Compact up to here?"
      onClose={onCancel}
      className="history-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" form={formId} className="button primary">
            Compact up to here
          </button>
        </>
      }
    >
      <form
        id={formId}
        className="history-dialog-body"
        onSubmit={(event) => {
          event.preventDefault();
          onConfirm(focus);
        }}
      >
        <ul className="history-split" aria-label="What happens">
          <li className="history-split-before">
            <strong>Everything before this item</strong> is summarised by the model (pinned items stay verbatim).
          </li>
          <li className="history-split-after">
            <strong>This item and everything after it</strong> stay verbatim.
          </li>
        </ul>
        {excerpt && (
          <blockquote className="history-excerpt" data-testid="history-excerpt">
            {excerpt}
          </blockquote>
        )}
        <div className="field">
          <label htmlFor={focusId}>Focus for the summary (optional)</label>
          <input
            id={focusId}
            type="text"
            value={focus}
            placeholder="e.g. the decisions about the billing module"
            onChange={(event) => setFocus(event.target.value)}
            data-autofocus
          />
        </div>
        <p className="muted history-note">The session file keeps every original: undo the latest compaction or fork from before it at any time.</p>
      </form>
    </Modal>
  );
}

interface ForkDialogProps {
  /** Where the fork starts, for a person ("up to and including this item", "just before compaction 2"). */
  label: string;
  workspace: string;
  onCancel: () => void;
  onConfirm: () => void;
}

export function ForkDialog({ label, workspace, onCancel, onConfirm }: ForkDialogProps) {
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
          <button type="button" className="button primary" onClick={onConfirm}>
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
        <div className="history-warning" role="note" data-testid="fork-files-notice">
          <span className="history-warning-icon" aria-hidden="true">
            !
          </span>
          <p>
            <strong>Files in the workspace are not rewound.</strong> Only the conversation is forked: the new session works in{" "}
            <code>{workspace}</code> with the files as they are now, including every change made after this point.
          </p>
        </div>
      </div>
    </Modal>
  );
}
