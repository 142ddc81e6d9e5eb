import { useEffect, useId, useRef, type ReactNode } from "react";
import { restoreFocus } from "../hooks/useReturnFocus";

interface ModalProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
  /** Extra class names for the dialog box (e.g. a wider layout). */
  className?: string;
}

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The open modals, innermost last: Escape closes only the innermost. */
const openModals: symbol[] = [];

/**
 * A modal dialog: traps Tab, closes on Escape, gives focus back on close. Escape is heard on the
 * document, not only inside the box: focus can leave it (a button disabled while it worked, a
 * field removed), and the dialog must still close.
 */
export function Modal({ title, onClose, children, footer, wide, className }: ModalProps) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const first = box.current?.querySelector<HTMLElement>("[data-autofocus]") ?? box.current?.querySelector<HTMLElement>(FOCUSABLE);
    first?.focus();
    const me = Symbol("modal");
    openModals.push(me);
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented || openModals[openModals.length - 1] !== me) return;
      event.preventDefault();
      close.current();
    };
    // Focus that fell out of the box (to the body) is brought back into it.
    const onFocusOut = (event: FocusEvent) => {
      if (event.relatedTarget === null && openModals[openModals.length - 1] === me) {
        window.setTimeout(() => {
          if (document.activeElement === document.body || document.activeElement === null) box.current?.focus();
        }, 0);
      }
    };
    document.addEventListener("keydown", onKey);
    const node = box.current;
    node?.addEventListener("focusout", onFocusOut);
    return () => {
      document.removeEventListener("keydown", onKey);
      node?.removeEventListener("focusout", onFocusOut);
      openModals.splice(openModals.indexOf(me), 1);
      // Back to what had focus; when that is gone (the row a Delete removed), somewhere it can be.
      restoreFocus(previous instanceof HTMLElement && previous !== document.body ? previous : null, node);
    };
  }, []);
  return (
    <div className="modal-backdrop" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div
        ref={box}
        className={`modal${wide ? " modal-wide" : ""}${className ? ` ${className}` : ""}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={(event) => {
          if (event.key === "Tab" && box.current) {
            const nodes = Array.from(box.current.querySelectorAll<HTMLElement>(FOCUSABLE));
            const first = nodes[0];
            const last = nodes[nodes.length - 1];
            if (event.shiftKey && document.activeElement === first) {
              event.preventDefault();
              last?.focus();
            } else if (!event.shiftKey && document.activeElement === last) {
              event.preventDefault();
              first?.focus();
            }
          }
        }}
      >
        <header className="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            ✕
          </button>
        </header>
        <div className="modal-body">{children}</div>
        {footer && <footer className="modal-footer">{footer}</footer>}
      </div>
    </div>
  );
}

interface ConfirmDialogProps {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  className?: string;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ title, message, confirmLabel, danger, className, onConfirm, onCancel }: ConfirmDialogProps) {
  return (
    <Modal
      title={title}
      className={className}
      onClose={onCancel}
      footer={
        <>
          <button type="button" className="button" onClick={onCancel} data-autofocus>
            Cancel
          </button>
          <button type="button" className={`button ${danger ? "danger-solid" : "primary"}`} onClick={onConfirm}>
            {confirmLabel}
          </button>
        </>
      }
    >
      <div className="confirm-message">{message}</div>
    </Modal>
  );
}
