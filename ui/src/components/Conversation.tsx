import { useCallback, useMemo, useState, type RefObject } from "react";
import type { SessionListItem } from "../api/types";
import { useApprovalKeys } from "../hooks/useApprovalKeys";
import { approvalAction } from "../lib/approvalWords";
import { isRunning } from "../state/store";
import { useActions, useAppState } from "../state/StoreProvider";
import { pendingApprovals } from "../state/transcript";
import { Composer } from "./Composer";
import { ConversationHeader, HELD_SHORT } from "./ConversationHeader";
import { MessageList, type HistoryHandlers, type MessageListHandle } from "./MessageList";

interface ConversationProps {
  /** The session's freshest list row (its title and model may have changed since it opened). */
  summary: SessionListItem;
  listRef: RefObject<MessageListHandle | null>;
  composerRef: RefObject<HTMLTextAreaElement | null>;
  /** The summary of the compaction an Undo would undo now (`compaction_status`), if any. */
  undoableCompaction?: string | null;
}

/** The open session: title bar, transcript and composer, selected from the store. */
export function Conversation({ summary, listRef, composerRef, undoableCompaction = null }: ConversationProps) {
  const actions = useActions();
  const mode = useAppState((s) => s.mode);
  const transcript = useAppState((s) => s.transcript);
  const running = useAppState(isRunning);
  const [draft, setDraft] = useState("");
  const live = mode === "live";
  const waiting = live ? pendingApprovals(transcript)[0] : undefined;
  const reviewApproval = () => {
    if (!waiting) return;
    listRef.current?.focusApproval(waiting.id);
  };
  const focusComposer = useCallback(() => composerRef.current?.focus(), [composerRef]);
  const editLast = useCallback(
    (text: string) => {
      setDraft(text);
      focusComposer();
    },
    [focusComposer],
  );
  const send = useCallback((text: string) => void actions.send(text), [actions]);
  const decide = useCallback((callId: string, decision: Parameters<typeof actions.decide>[1]) => void actions.decide(callId, decision), [actions]);
  const loadOlder = useCallback(() => void actions.loadOlder(), [actions]);
  const expandOutput = useCallback((callId: string) => void actions.expandOutput(callId), [actions]);
  useApprovalKeys(waiting?.call_id ?? null, decide, composerRef);
  const inspect = actions.inspectCompaction;
  // Pins, partial compactions and undos write to the session: live and idle only. A fork
  // only reads it, so a session another process holds can be forked too.
  const history = useMemo<HistoryHandlers | undefined>(() => {
    if (running) return undefined;
    const fork = {
      onFork: (itemId: string) => actions.askFork({ kind: "at_item", item_id: itemId }, "up to and including this item"),
      onForkBeforeCompaction: (summaryId: string) => void actions.askForkBeforeCompaction(summaryId),
    };
    if (!live) return fork;
    return {
      ...fork,
      onPin: (itemId: string, pinned: boolean) => void actions.pin(itemId, pinned),
      onCompactUpTo: actions.askCompactUpTo,
      undoCompaction: undoableCompaction ? { summaryId: undoableCompaction, onUndo: actions.undoCompaction } : undefined,
    };
  }, [actions, live, running, undoableCompaction]);
  return (
    <main className="conversation" aria-label="Conversation">
      <ConversationHeader
        summary={summary}
        live={live}
        running={running}
        onSwitchProfile={() => actions.setSwitchingProfile(true)}
        onReload={() => void actions.open(summary.id)}
      />
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
          ref={listRef}
          entries={transcript.entries}
          targetId={transcript.target}
          hasOlder={transcript.older !== null}
          onLoadOlder={loadOlder}
          outputs={transcript.outputs}
          onExpandOutput={expandOutput}
          onDecide={live ? decide : undefined}
          onInspectCompaction={inspect}
          history={history}
          onEditLast={live && !running ? editLast : undefined}
          onRetryLast={live && !running ? send : undefined}
        />
      )}
      <Composer
        value={draft}
        onChange={setDraft}
        textareaRef={composerRef}
        running={running}
        disabled={!live}
        disabledReason={HELD_SHORT}
        onSend={(text) => {
          // Their own message is where the person looks next, however far up they were.
          listRef.current?.scrollToLatest();
          send(text);
          setDraft("");
        }}
        onStop={() => void actions.stop()}
        waitingApproval={
          waiting
            ? { summary: waiting.approval ? approvalAction(waiting.name, waiting.approval.summary, waiting.approval.detail).action : waiting.name, onReview: reviewApproval }
            : undefined
        }
      />
    </main>
  );
}
