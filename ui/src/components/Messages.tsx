import { useState } from "react";

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

/**
 * What the model thought before its answer (a reasoning summary, thinking text): open while it
 * streams, folded once it is done. Plain text, never markup: the model's words are not HTML.
 */
export function ThinkingBlock({ entry }: { entry: Of<"thinking"> }) {
  const [open, setOpen] = useState(entry.streaming);
  const bodyId = `${entry.id}-thinking`;
  const shown = open || entry.streaming;
  return (
    <section className="thinking-block" data-item-id={entry.id} data-testid="thinking-block" aria-label="Thinking" aria-busy={entry.streaming}>
      <button type="button" className="thinking-toggle" aria-expanded={shown} aria-controls={bodyId} onClick={() => setOpen(!shown)}>
        <span className="thinking-chevron" aria-hidden="true">
          {shown ? "▾" : "▸"}
        </span>
        {entry.streaming ? "Thinking…" : "Thinking"}
      </button>
      {shown && (
        <p id={bodyId} className="thinking-text">
          {entry.text}
        </p>
      )}
    </section>
  );
}

// The core commits nothing of a round cut short (the model never finished saying it), and nothing
// records the streamed text: say both, so the person copies what they need before they go.
const UNSAVED_LABEL: Record<NonNullable<Of<"assistant">["unsaved"]>, string> = { stopped: "Stopped", interrupted: "Interrupted" };
const UNSAVED_TEXT = "not sent to the model. The model will not see this partial answer, and it is not saved: it is gone once you reopen the session.";

/** Who wrote an answer: Strata, unless the session is another agent's. */
export interface Author {
  name: string;
  initials: string;
}
const STRATA: Author = { name: "Strata", initials: "S" };

export function AssistantMessage({ entry, history, author = STRATA }: { entry: Of<"assistant">; history?: ItemHistory; author?: Author }) {
  const noteId = `${entry.id}-unsaved`;
  return (
    <article
      className={`message message-assistant${entry.unsaved ? " message-unsaved" : ""}${entry.pinned ? " message-pinned" : ""}`}
      data-item-id={entry.id}
      aria-label={author.name}
      aria-busy={entry.streaming}
      aria-describedby={entry.unsaved ? noteId : undefined}
    >
      <div className="avatar" aria-hidden="true">
        {author.initials}
      </div>
      <div className="assistant-body">
        {entry.pinned && <PinnedBadge />}
        {entry.streaming ? <StreamingMarkdown text={entry.text} /> : <Markdown text={entry.text} />}
        {entry.unsaved && (
          <p id={noteId} className="unsaved-note" data-testid="unsaved-note">
            <span className="pill unsaved-pill">{UNSAVED_LABEL[entry.unsaved]}</span> — {UNSAVED_TEXT}
          </p>
        )}
        {entry.streaming ? (
          <span className="caret" aria-hidden="true" />
        ) : (
          <div className="message-actions">
            <CopyButton text={entry.text} label={entry.unsaved ? "Copy partial answer" : "Copy"} />
            <ItemActions history={history} subject="this answer" />
          </div>
        )}
      </div>
    </article>
  );
}
