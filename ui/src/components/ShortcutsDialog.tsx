import { Fragment } from "react";
import { SHORTCUT_LIST } from "../hooks/useShortcuts";
import { Modal } from "./Modal";

/** "?": every keyboard shortcut, in a dialog (Escape closes it, focus goes back). */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Modal
      title="Keyboard shortcuts"
      onClose={onClose}
      className="shortcuts-dialog"
      wide
      footer={
        <button type="button" className="button primary" onClick={onClose} data-autofocus>
          Done
        </button>
      }
    >
      <dl className="shortcut-list">
        {SHORTCUT_LIST.map(({ keys, does }) => (
          <Fragment key={keys.join("+")}>
            <dt>
              {keys.map((key, index) => (
                <Fragment key={key}>
                  {index > 0 && <span className="shortcut-plus">+</span>}
                  <kbd>{key}</kbd>
                </Fragment>
              ))}
            </dt>
            <dd>{does}</dd>
          </Fragment>
        ))}
      </dl>
    </Modal>
  );
}
