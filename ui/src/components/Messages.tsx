import type { Entry } from "../state/transcript";
import { CopyButton } from "./CopyButton";
import { ItemActions, PinnedBadge, type ItemHistory } from "./ItemActions";
import { Markdown, StreamingMarkdown } from "./Markdown";

type Of<K extends Entry["kind"]> = Extract<Entry, { kind: K }>;

interface UserMessageProps {
  entry: Of<"user">;
  /** Offered on the last user message of a live session. */
  onEdit?: (text: string) => void;
  onRetry?: (text: string) => void;
  /** Pin, Compact up to here, Fork from here (issue 12). */
  history?: ItemHistory;
}

export function UserMessage({ entry, onEdit, onRetry, history }: UserMessageProps) {
  return (
    <article className={`message message-user${entry.pinned ? " message-pinned" : ""}`} aria-label="You" data-item-id={entry.id}>
      <div className="bubble">
        {entry.pinned && <PinnedBadge />}
        <p className="user-text">{entry.text}</p>
      </div>
      {(onEdit || onRetry || history) && (
        <div className="message-actions">
          <ItemActions history={history} subject="your message" />
          {onEdit && (
            <button type="button" className="link-button" onClick={() => onEdit(entry.text)}>
              Edit
            </button>
          )}
          {onRetry && (
            <button type="button" className="link-button" onClick={() => onRetry(entry.text)}>
              Retry
            </button>
          )}
        </div>
      )}
    </article>
  );
}

const UNSAVED_TEXT: Record<NonNullable<Of<"assistant">["unsaved"]>, string> = {
  stopped: "Stopped — this partial answer was not saved and the model will not see it.",
  interrupted: "Interrupted — this partial answer was not saved and the model will not see it.",
};

export function AssistantMessage({ entry, history }: { entry: Of<"assistant">; history?: ItemHistory }) {
  const noteId = `${entry.id}-unsaved`;
  return (
    <article
      className={`message message-assistant${entry.unsaved ? " message-unsaved" : ""}${entry.pinned ? " message-pinned" : ""}`}
      data-item-id={entry.id}
      aria-label="Strata"
      aria-busy={entry.streaming}
      aria-describedby={entry.unsaved ? noteId : undefined}
    >
      <div className="avatar" aria-hidden="true">
        S
      </div>
      <div className="assistant-body">
        {entry.pinned && <PinnedBadge />}
        {entry.streaming ? <StreamingMarkdown text={entry.text} /> : <Markdown text={entry.text} />}
        {entry.unsaved && (
          <p id={noteId} className="unsaved-note" data-testid="unsaved-note">
            {UNSAVED_TEXT[entry.unsaved]}
          </p>
        )}
        {entry.streaming ? (
          <span className="caret" aria-hidden="true" />
        ) : (
          <div className="message-actions">
            <CopyButton text={entry.text} label="Copy" />
            <ItemActions history={history} subject="this answer" />
          </div>
        )}
      </div>
    </article>
  );
}
