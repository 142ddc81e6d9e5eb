import { useEffect, useRef, type Ref } from "react";
import { TipButton } from "./Tooltip";

interface ComposerProps {
  value: string;
  onChange: (value: string) => void;
  onSend: (text: string) => void;
  onStop: () => void;
  running: boolean;
  disabled?: boolean;
  disabledReason?: string;
  textareaRef?: Ref<HTMLTextAreaElement>;
  /** A tool call waiting for the person, offered as a way to reach its prompt. */
  /** `alwaysOffered`: the card offers "Always allow" (its R key). */
  waitingApproval?: { summary: string; alwaysOffered?: boolean; onReview: () => void };
}

/** Multi-line input: Enter sends, Shift+Enter adds a line, `/compact [focus]` compacts. */
export function Composer({
  value,
  onChange,
  onSend,
  onStop,
  running,
  disabled,
  disabledReason,
  textareaRef,
  waitingApproval,
}: ComposerProps) {
  const local = useRef<HTMLTextAreaElement | null>(null);
  useEffect(() => {
    const el = local.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [value]);
  const canSend = !disabled && !running && value.trim().length > 0;
  const send = () => {
    if (canSend) onSend(value.trim());
  };
  const isCommand = value.trimStart().startsWith("/compact");
  const hint = isCommand
    ? "Compacts the history now; text after /compact guides the summary."
    : "Enter to send · Shift+Enter for a new line · /compact [focus] compacts now";
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <label htmlFor="composer-input" className="visually-hidden">
        Message
      </label>
      <textarea
        id="composer-input"
        ref={(el) => {
          local.current = el;
          if (typeof textareaRef === "function") textareaRef(el);
          else if (textareaRef) textareaRef.current = el;
        }}
        rows={1}
        value={value}
        disabled={disabled}
        placeholder={disabled ? disabledReason : "Ask Strata to work in this folder…"}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            send();
          }
        }}
        aria-describedby="composer-hint"
      />
      <div className="composer-bar">
        {waitingApproval ? (
          <span className="approval-waiting" role="status">
            {/* One line: a long or hostile command must not push the transcript (and its full approval card) away. */}
            <span className="approval-waiting-summary">Waiting for your approval: {waitingApproval.summary}</span>
            <span
              className="approval-waiting-keys"
              title={waitingApproval.alwaysOffered ? "Allow once, allow for the session, always allow, deny" : "Allow once, allow for the session, deny"}
            >
              <kbd>Y</kbd> <kbd>A</kbd> {waitingApproval.alwaysOffered && <kbd>R</kbd>} <kbd>N</kbd>
            </span>
            <button type="button" className="button small" onClick={waitingApproval.onReview}>
              Review
            </button>
          </span>
        ) : (
          /* One line beside the button (a narrow chat cuts it with an ellipsis; the tooltip has it all). */
          <span id="composer-hint" className="composer-hint" title={hint}>
            {hint}
          </span>
        )}
        {running ? (
          <TipButton className="button danger" onClick={onStop} tip="Stop (Esc)">
            <span className="stop-square" aria-hidden="true" /> Stop
          </TipButton>
        ) : (
          <button type="submit" className="button primary" disabled={!canSend}>
            {isCommand ? "Compact" : "Send"}
          </button>
        )}
      </div>
    </form>
  );
}
