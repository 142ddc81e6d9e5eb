import { useEffect } from "react";

export interface ToastMessage {
  tone: "ok" | "error";
  text: string;
}

/** A short-lived note at the top of the window, under the header (clear of the composer). */
export function Toast({ message, onDismiss }: { message: ToastMessage; onDismiss: () => void }) {
  useEffect(() => {
    const timer = window.setTimeout(onDismiss, message.tone === "error" ? 8000 : 3500);
    return () => window.clearTimeout(timer);
  }, [message, onDismiss]);
  return (
    <div className={`toast toast-${message.tone}`} role={message.tone === "error" ? "alert" : "status"}>
      <span>{message.text}</span>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
        ✕
      </button>
    </div>
  );
}
