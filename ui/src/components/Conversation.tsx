import { useState, type Ref, type RefObject } from "react";
import type { ApprovalDecision, SessionListItem, SessionView } from "../api/types";
import { folderName } from "../lib/format";
import { pendingApprovals, type Transcript } from "../state/transcript";
import type { ConversationMode } from "../hooks/useConversation";
import { Composer } from "./Composer";
import { MessageList, type MessageListHandle } from "./MessageList";
import { sessionTitle } from "./SessionSidebar";

interface ConversationProps {
  view: SessionView;
  /** The session's freshest list row (its title and model may have changed since it opened). */
  summary: SessionListItem;
  mode: ConversationMode;
  transcript: Transcript;
  running: boolean;
  listRef: RefObject<MessageListHandle | null>;
  composerRef: Ref<HTMLTextAreaElement>;
  onSend: (text: string) => void;
  onStop: () => void;
  onResume: () => void;
  onDecide: (callId: string, decision: ApprovalDecision) => void;
  onInspectCompaction: (summaryId: string) => void;
}

/** The open session: title bar, transcript and composer. */
export function Conversation(props: ConversationProps) {
  const { mode, transcript, running, summary } = props;
  const [draft, setDraft] = useState("");
  const live = mode === "live";
  const waiting = live ? pendingApprovals(transcript)[0] : undefined;
  const reviewApproval = () => {
    if (!waiting) return;
    props.listRef.current?.scrollToEntry(waiting.key);
    window.setTimeout(() => document.querySelector<HTMLElement>("[data-approval-first]")?.focus(), 50);
  };
  const focusComposer = () => {
    const el = document.getElementById("composer-input");
    if (el instanceof HTMLTextAreaElement) el.focus();
  };
  return (
    <main className="conversation" aria-label="Conversation">
      <div className="conversation-header">
        <div className="conversation-title">
          <h1>{sessionTitle(summary)}</h1>
          <span className="workspace" title={summary.workspace}>
            <span aria-hidden="true">▣</span> {folderName(summary.workspace)}
            <span className="muted"> · {summary.model}</span>
          </span>
        </div>
        {!live && (
          <div className="readonly-banner" role="status">
            <span>Read-only: browsing the session file.</span>
            <button type="button" className="button small primary" onClick={props.onResume}>
              Resume session
            </button>
          </div>
        )}
      </div>
      {transcript.entries.length === 0 ? (
        <div className="empty-state conversation-empty">
          <div className="empty-icon" aria-hidden="true">
            ✦
          </div>
          <h2>What should Strata work on?</h2>
          <p>
            The agent reads, searches and edits files in <strong>{summary.workspace}</strong> and runs commands
            there, asking before anything changes.
          </p>
        </div>
      ) : (
        <MessageList
          ref={props.listRef}
          entries={transcript.entries}
          onDecide={live ? props.onDecide : undefined}
          onInspectCompaction={props.onInspectCompaction}
          onEditLast={
            live && !running
              ? (text) => {
                  setDraft(text);
                  focusComposer();
                }
              : undefined
          }
          onRetryLast={live && !running ? props.onSend : undefined}
        />
      )}
      <Composer
        value={draft}
        onChange={setDraft}
        textareaRef={props.composerRef}
        running={running}
        disabled={!live}
        disabledReason="Read-only. Resume the session to continue it."
        onSend={(text) => {
          props.onSend(text);
          setDraft("");
        }}
        onStop={props.onStop}
        waitingApproval={waiting ? { summary: waiting.approval?.summary || waiting.name, onReview: reviewApproval } : undefined}
      />
    </main>
  );
}
