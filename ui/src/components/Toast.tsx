import { useEffect } from "react";
import { withoutIds } from "../state/transcript";

export interface ToastMessage {
  tone: "ok" | "warning" | "error";
  text: string;
}

/** A short-lived note at the top of the window, under the header (clear of the composer); ids said in words. */
export function Toast({ message, onDismiss }: { message: ToastMessage; onDismiss: () => void }) {
  useEffect(() => {
    // A warning (the library's index was rebuilt) is as long to read as an error.
    const timer = window.setTimeout(onDismiss, message.tone === "ok" ? 3500 : 8000);
    return () => window.clearTimeout(timer);
  }, [message, onDismiss]);
  return (
    <div className={`toast toast-${message.tone}`} role={message.tone === "ok" ? "status" : "alert"}>
      {/* Never a raw id: a command's error is worded for the command line, which names them. */}
      <span>{withoutIds(message.text)}</span>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
        ✕
      </button>
    </div>
  );
}
