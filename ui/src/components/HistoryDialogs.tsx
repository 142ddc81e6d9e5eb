// The confirmation of issue 12's Compact up to here (with an optional focus
// for the summary); Fork from here's is ForkDialog.tsx.
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
