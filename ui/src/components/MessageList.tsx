import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState, type Ref } from "react";
import type { ApprovalDecision } from "../api/types";
import type { Recovery } from "../bindings/Recovery";
import type { SandboxMode } from "../bindings/SandboxMode";
import { outOfContext, pinTarget, type Entry, type FullOutput } from "../state/transcript";
import type { ItemHistory } from "./ItemActions";
import { AssistantMessage, ThinkingBlock, UserMessage } from "./Messages";
import { ToolCallCard } from "./ToolCallCard";
import {
  CompactionDivider,
  CompactionProblemNotice,
  ErrorNotice,
  EvictionNotice,
  InfoNotice,
  ForkNotice,
  RecoveryNotice,
  RetryNotice,
  TurnEndNotice,
} from "./TranscriptNotices";

export interface MessageListHandle {
  /** Scrolls the divider of a compaction into view; false when unknown. */
  scrollToCompaction(summaryId: string): boolean;
  /** Scrolls an entry (by id) into view; false when unknown. */
  scrollToEntry(id: string): boolean;
  /** Scrolls a tool card waiting for approval into view and focuses its first choice. */
  focusApproval(id: string): void;
  /** Goes to the newest entry and keeps following it (the person just sent a message). */
  scrollToLatest(): void;
}

/** Issue 12's history actions, by item id; each is offered only when given. */
export interface HistoryHandlers {
  onPin?: (itemId: string, pinned: boolean) => void;
  onCompactUpTo?: (itemId: string, excerpt: string) => void;
  onFork?: (itemId: string) => void;
  onForkBeforeCompaction?: (summaryId: string) => void;
  /** The one compaction an Undo would undo now (the core's answer), and how. */
  undoCompaction?: { summaryId: string; onUndo: () => Promise<void> };
}

/** A short quote of an entry, to name it in a dialog. */
function excerptOf(entry: Entry): string {
  const text = entry.kind === "user" || entry.kind === "assistant" ? entry.text : entry.kind === "tool" ? `${entry.name} ${entry.arguments}` : "";
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 140 ? `${line.slice(0, 140)}…` : line;
}

const PIN_OUT_OF_CONTEXT = "Not in the model's context: a pin cannot bring it back. Fork from before the compaction instead.";

/** The actions one entry offers: compacting up to the first item would summarise nothing. */
function historyFor(entry: Entry, isFirstItem: boolean, handlers: HistoryHandlers | undefined, summarised: boolean): ItemHistory | undefined {
  const itemId = pinTarget(entry);
  if (!handlers || !itemId || (entry.kind !== "user" && entry.kind !== "assistant" && entry.kind !== "tool")) return undefined;
  const { onPin, onCompactUpTo, onFork } = handlers;
  const message = entry.kind !== "tool";
  return {
    pinned: entry.pinned ?? false,
    onPin: onPin ? (pinned) => onPin(itemId, pinned) : undefined,
    onCompactUpTo: onCompactUpTo && message && !isFirstItem ? () => onCompactUpTo(itemId, excerptOf(entry)) : undefined,
    onFork: onFork ? () => onFork(itemId) : undefined,
    pinDisabled: summarised ? PIN_OUT_OF_CONTEXT : undefined,
  };
}

/** Under an item the model no longer sees: where it went, and the way back to it. */
function ContextNote({ summaryId, onFork }: { summaryId: string; onFork?: (summaryId: string) => void }) {
  return (
    <p className="context-note" data-testid="context-note">
      <span>Not in the model's context — summarised in the compaction below</span>
      {onFork && (
        <button type="button" className="link-button" onClick={() => onFork(summaryId)}>
          Fork from before it
        </button>
      )}
    </p>
  );
}

interface MessageListProps {
  entries: Entry[];
  ref?: Ref<MessageListHandle>;
  /** The entry a search hit opened the session at: marked. */
  targetId?: string | null;
  onDecide?: (callId: string, decision: ApprovalDecision) => void;
  onInspectCompaction?: (summaryId: string) => void;
  onEditLast?: (text: string) => void;
  onRetryLast?: (text: string) => void;
  /** The ways out of the latest provider failure (Retry, Open profile settings, …); absent while a turn runs or the session is read-only. */
  onRecover?: (recovery: Recovery) => void;
  /** Whether older entries can be loaded, and how: called as the person nears the top. */
  hasOlder?: boolean;
  onLoadOlder?: () => void;
  /** Whole tool outputs fetched so far, by call id, and how to ask for one. */
  outputs?: Record<string, FullOutput>;
  onExpandOutput?: (callId: string) => void;
  history?: HistoryHandlers;
  /** The listed sessions' titles by id, for a fork's link to its parent, and how to open one. */
  sessionTitles?: ReadonlyMap<string, string>;
  onOpenSession?: (sessionId: string) => void;
  /** The session's sandbox, which shell approvals state. */
  sandbox?: SandboxMode | null;
  /** What its sandboxed commands reach, which shell approvals state too. */
  network?: string | null;
}

/** What every row is offered, the same object while the list's handlers stay the same. */
type EntryHandlers = Pick<
  MessageListProps,
  "onDecide" | "onInspectCompaction" | "onEditLast" | "onRetryLast" | "onRecover" | "onExpandOutput" | "history" | "sessionTitles" | "onOpenSession" | "sandbox" | "network"
>;

interface EntryViewProps {
  entry: Entry;
  isLastUser: boolean;
  /** The newest error: the one its recoveries are offered on. */
  isLastError: boolean;
  isFirstItem: boolean;
  /** This tool card's whole output, once fetched. */
  full: FullOutput | undefined;
  handlers: EntryHandlers;
  /** The summary id of the compaction that replaced this item in the model's context, if one did. */
  summarisedIn: string | undefined;
}

/**
 * One row. Memoised: while an answer streams, only the rows whose props changed (the streaming
 * entry) render again; the entries Rust did not touch keep their identity, and the handlers are stable.
 */
const EntryView = memo(function EntryView(props: EntryViewProps) {
  const { summarisedIn, handlers } = props;
  const view = <EntryBody {...props} />;
  if (summarisedIn === undefined) return view;
  return (
    <div className="out-of-context">
      {view}
      <ContextNote summaryId={summarisedIn} onFork={handlers.history?.onForkBeforeCompaction} />
    </div>
  );
});

function EntryBody({ entry, isLastUser, isLastError, isFirstItem, full, handlers, summarisedIn }: EntryViewProps) {
  const history = historyFor(entry, isFirstItem, handlers.history, summarisedIn !== undefined);
  switch (entry.kind) {
    case "user":
      return (
        <UserMessage
          entry={entry}
          onEdit={isLastUser ? handlers.onEditLast : undefined}
          onRetry={isLastUser ? handlers.onRetryLast : undefined}
          history={history}
        />
      );
    case "assistant":
      return <AssistantMessage entry={entry} history={history} />;
    case "thinking":
      return <ThinkingBlock entry={entry} />;
    case "tool":
      return <ToolCallCard tool={entry} onDecide={handlers.onDecide} full={full} onExpand={handlers.onExpandOutput} history={history} sandbox={handlers.sandbox} network={handlers.network} />;
    case "compaction": {
      const undo = handlers.history?.undoCompaction;
      return (
        <CompactionDivider
          entry={entry}
          onInspect={handlers.onInspectCompaction}
          onFork={handlers.history?.onForkBeforeCompaction}
          onUndo={undo?.summaryId === entry.summary.id ? undo.onUndo : undefined}
        />
      );
    }
    case "error":
      return <ErrorNotice entry={entry} onRecover={isLastError ? handlers.onRecover : undefined} />;
    case "compaction_problem":
      return <CompactionProblemNotice entry={entry} />;
    case "retry":
      return <RetryNotice entry={entry} />;
    case "turn_end":
      return <TurnEndNotice entry={entry} />;
    case "notice":
      return <InfoNotice entry={entry} />;
    case "eviction":
      return <EvictionNotice entry={entry} />;
    case "fork":
      return <ForkNotice entry={entry} parentTitle={handlers.sessionTitles?.get(entry.origin.parent_session_id)} onOpenParent={handlers.onOpenSession} />;
    case "recovery":
      return <RecoveryNotice entry={entry} />;
  }
}

/** Whether the conversation draws the entry (a completed turn's end it does not). */
function drawn(entry: Entry): boolean {
  return !(entry.kind === "turn_end" && entry.outcome === "completed");
}

/** How near the bottom still counts as "at the bottom", in pixels. */
const STICK_DISTANCE = 80;
/** Room under the last entry, so its last line never sits against the composer. */
const BOTTOM_ROOM = 24;
/** How near the top an older page is asked for. */
const TOP_DISTANCE = 200;

/** The transcript, virtualised: only the rows near the viewport are in the DOM. */
export function MessageList(props: MessageListProps) {
  const { ref, hasOlder, onLoadOlder, targetId, outputs } = props;
  // A completed turn's end is an entry (the printed transcript says its rounds) the
  // conversation draws nothing for: no row of its own.
  const entries = useMemo(() => props.entries.filter(drawn), [props.entries]);
  const { onDecide, onInspectCompaction, onEditLast, onRetryLast, onRecover, onExpandOutput, history, sessionTitles, onOpenSession, sandbox, network } = props;
  const handlers = useMemo<EntryHandlers>(
    () => ({ onDecide, onInspectCompaction, onEditLast, onRetryLast, onRecover, onExpandOutput, history, sessionTitles, onOpenSession, sandbox, network }),
    [onDecide, onInspectCompaction, onEditLast, onRetryLast, onRecover, onExpandOutput, history, sessionTitles, onOpenSession, sandbox, network],
  );
  const scroller = useRef<HTMLDivElement>(null);
  // Whether the list follows the newest entry: true while the person is at the bottom, false
  // once they scroll up (or are taken to an older entry); a ref, read at every render.
  const stickToBottom = useRef(true);
  // The same, for the "Jump to latest" pill.
  const [atBottom, setAtBottom] = useState(true);
  const lastTop = useRef(0);
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    overscan: 6,
    paddingEnd: BOTTOM_ROOM,
    getItemKey: (index) => entries[index]?.id ?? index,
  });
  const follow = useCallback((value: boolean) => {
    stickToBottom.current = value;
    setAtBottom(value);
  }, []);
  const scrollToLatest = useCallback(() => {
    follow(true);
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [follow]);

  const summarised = useMemo(() => outOfContext(entries), [entries]);
  // The first item of the whole session (no older page left to load).
  const firstItem = hasOlder ? -1 : entries.findIndex((e) => e.kind === "user" || e.kind === "assistant" || e.kind === "tool");
  let lastUser = -1;
  let lastError = -1;
  for (let i = entries.length - 1; i >= 0 && lastUser === -1; i -= 1) {
    const kind = entries[i]?.kind;
    if (kind === "user") lastUser = i;
    else if (kind === "error" && lastError === -1) lastError = i;
  }

  useImperativeHandle(
    ref,
    () => ({
      scrollToCompaction(summaryId) {
        const index = entries.findIndex((e) => e.kind === "compaction" && e.summary.id === summaryId);
        if (index === -1) return false;
        follow(false);
        virtualizer.scrollToIndex(index, { align: "center" });
        return true;
      },
      scrollToEntry(id) {
        const index = entries.findIndex((e) => e.id === id);
        if (index === -1) return false;
        follow(false);
        virtualizer.scrollToIndex(index, { align: "center" });
        return true;
      },
      focusApproval(id) {
        const index = entries.findIndex((e) => e.id === id);
        if (index === -1) return;
        follow(false);
        virtualizer.scrollToIndex(index, { align: "center" });
        // The row mounts once scrolled to; its prompt is inside this list.
        window.setTimeout(() => scroller.current?.querySelector<HTMLElement>("[data-approval-first]")?.focus(), 50);
      },
      scrollToLatest,
    }),
    [entries, virtualizer, follow, scrollToLatest],
  );

  // A new message of the person's at the end (sent here, or a retry): go to it, wherever they were.
  const lastUserId = lastUser === -1 ? null : (entries[lastUser]?.id ?? null);
  const seenUser = useRef(lastUserId);
  useLayoutEffect(() => {
    if (seenUser.current === lastUserId) return;
    seenUser.current = lastUserId;
    if (lastUserId !== null) follow(true);
  }, [lastUserId, follow]);

  // While following, every render ends at the bottom: new entries, streamed text, and rows
  // measured taller than estimated (the virtualizer renders again when it measures one).
  useLayoutEffect(() => {
    const el = scroller.current;
    if (stickToBottom.current && el && el.scrollHeight - el.scrollTop - el.clientHeight > 1) el.scrollTop = el.scrollHeight;
  });

  // An older page joined in front: keep the entry that was first where the person was reading.
  const firstId = useRef<string | null>(null);
  useLayoutEffect(() => {
    const previous = firstId.current;
    firstId.current = entries[0]?.id ?? null;
    if (previous === null || previous === firstId.current) return;
    const moved = entries.findIndex((e) => e.id === previous);
    if (moved > 0) virtualizer.scrollToIndex(moved, { align: "start" });
  }, [entries, virtualizer]);

  // A transcript shorter than the window cannot be scrolled up: load on.
  useEffect(() => {
    const el = scroller.current;
    if (hasOlder && onLoadOlder && el && el.clientHeight > 0 && el.scrollHeight <= el.clientHeight) onLoadOlder();
  }, [hasOlder, onLoadOlder, entries.length]);

  const items = virtualizer.getVirtualItems();
  return (
    <div className="message-list-frame">
    <div
      ref={scroller}
      className="message-list"
      role="log"
      aria-label="Conversation"
      aria-live="polite"
      tabIndex={0}
      onScroll={(event) => {
        const el = event.currentTarget;
        // Only the person scrolling up lets go of the bottom (or asks for more): growing
        // content and the list settling never scroll up past the margin.
        const up = el.scrollTop < lastTop.current;
        lastTop.current = el.scrollTop;
        const near = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_DISTANCE;
        if (near) follow(true);
        else if (up) follow(false);
        if (up && hasOlder && onLoadOlder && el.scrollTop < TOP_DISTANCE) onLoadOlder();
      }}
      data-has-older={hasOlder ? "true" : undefined}
    >
      <div className="message-list-inner" style={{ height: virtualizer.getTotalSize() }}>
        <div className="message-list-window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((item) => {
            const entry = entries[item.index];
            if (!entry) return null;
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className={entry.id === targetId ? "message-row search-target" : "message-row"}
                data-search-target={entry.id === targetId ? "true" : undefined}
              >
                <EntryView
                  entry={entry}
                  isLastUser={item.index === lastUser}
                  isLastError={item.index === lastError}
                  isFirstItem={item.index === firstItem}
                  full={entry.kind === "tool" ? outputs?.[entry.call_id] : undefined}
                  handlers={handlers}
                  summarisedIn={summarised.get(entry.id)}
                />
              </div>
            );
          })}
        </div>
      </div>
    </div>
      {!atBottom && (
        <button type="button" className="jump-latest" data-testid="jump-latest" onClick={scrollToLatest}>
          <span aria-hidden="true">↓</span> Jump to latest
        </button>
      )}
    </div>
  );
}
