import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, type Ref } from "react";
import type { ApprovalDecision } from "../api/types";
import { pinTarget, type Entry, type FullOutput } from "../state/transcript";
import type { ItemHistory } from "./ItemActions";
import { AssistantMessage, UserMessage } from "./Messages";
import { ToolCallCard } from "./ToolCallCard";
import {
  CompactionDivider,
  CompactionProblemNotice,
  ErrorNotice,
  EvictionNotice,
  InfoNotice,
  PolicyNotice,
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

/** The actions one entry offers: compacting up to the first item would summarise nothing. */
function historyFor(entry: Entry, isFirstItem: boolean, handlers?: HistoryHandlers): ItemHistory | undefined {
  const itemId = pinTarget(entry);
  if (!handlers || !itemId || (entry.kind !== "user" && entry.kind !== "assistant" && entry.kind !== "tool")) return undefined;
  const { onPin, onCompactUpTo, onFork } = handlers;
  const message = entry.kind !== "tool";
  return {
    pinned: entry.pinned ?? false,
    onPin: onPin ? (pinned) => onPin(itemId, pinned) : undefined,
    onCompactUpTo: onCompactUpTo && message && !isFirstItem ? () => onCompactUpTo(itemId, excerptOf(entry)) : undefined,
    onFork: onFork ? () => onFork(itemId) : undefined,
  };
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
  /** Whether older entries can be loaded, and how: called as the person nears the top. */
  hasOlder?: boolean;
  onLoadOlder?: () => void;
  /** Whole tool outputs fetched so far, by call id, and how to ask for one. */
  outputs?: Record<string, FullOutput>;
  onExpandOutput?: (callId: string) => void;
  history?: HistoryHandlers;
}

/** What every row is offered, the same object while the list's handlers stay the same. */
type EntryHandlers = Pick<MessageListProps, "onDecide" | "onInspectCompaction" | "onEditLast" | "onRetryLast" | "onExpandOutput" | "history">;

interface EntryViewProps {
  entry: Entry;
  isLastUser: boolean;
  isFirstItem: boolean;
  /** This tool card's whole output, once fetched. */
  full: FullOutput | undefined;
  handlers: EntryHandlers;
}

/**
 * One row. Memoised: while an answer streams, only the rows whose props changed (the streaming
 * entry) render again; the entries Rust did not touch keep their identity, and the handlers are stable.
 */
const EntryView = memo(function EntryView({ entry, isLastUser, isFirstItem, full, handlers }: EntryViewProps) {
  const history = historyFor(entry, isFirstItem, handlers.history);
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
    case "tool":
      return <ToolCallCard tool={entry} onDecide={handlers.onDecide} full={full} onExpand={handlers.onExpandOutput} history={history} />;
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
      return <ErrorNotice entry={entry} />;
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
    case "policy":
      return <PolicyNotice entry={entry} />;
  }
});

const STICK_DISTANCE = 80;
/** How near the top an older page is asked for. */
const TOP_DISTANCE = 200;

/** The transcript, virtualised: only the rows near the viewport are in the DOM. */
export function MessageList(props: MessageListProps) {
  const { entries, ref, hasOlder, onLoadOlder, targetId, outputs } = props;
  const { onDecide, onInspectCompaction, onEditLast, onRetryLast, onExpandOutput, history } = props;
  const handlers = useMemo<EntryHandlers>(
    () => ({ onDecide, onInspectCompaction, onEditLast, onRetryLast, onExpandOutput, history }),
    [onDecide, onInspectCompaction, onEditLast, onRetryLast, onExpandOutput, history],
  );
  const scroller = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  const lastTop = useRef(0);
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    overscan: 6,
    getItemKey: (index) => entries[index]?.id ?? index,
  });

  // The first item of the whole session (no older page left to load).
  const firstItem = hasOlder ? -1 : entries.findIndex((e) => e.kind === "user" || e.kind === "assistant" || e.kind === "tool");
  let lastUser = -1;
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    if (entries[i]?.kind === "user") {
      lastUser = i;
      break;
    }
  }

  useImperativeHandle(
    ref,
    () => ({
      scrollToCompaction(summaryId) {
        const index = entries.findIndex((e) => e.kind === "compaction" && e.summary.id === summaryId);
        if (index === -1) return false;
        stickToBottom.current = false;
        virtualizer.scrollToIndex(index, { align: "center" });
        return true;
      },
      scrollToEntry(id) {
        const index = entries.findIndex((e) => e.id === id);
        if (index === -1) return false;
        stickToBottom.current = false;
        virtualizer.scrollToIndex(index, { align: "center" });
        return true;
      },
      focusApproval(id) {
        const index = entries.findIndex((e) => e.id === id);
        if (index === -1) return;
        stickToBottom.current = false;
        virtualizer.scrollToIndex(index, { align: "center" });
        // The row mounts once scrolled to; its prompt is inside this list.
        window.setTimeout(() => scroller.current?.querySelector<HTMLElement>("[data-approval-first]")?.focus(), 50);
      },
    }),
    [entries, virtualizer],
  );

  const last = entries[entries.length - 1];
  const lastSize = last && last.kind === "assistant" ? last.text.length : 0;
  useEffect(() => {
    if (stickToBottom.current && entries.length > 0) {
      virtualizer.scrollToIndex(entries.length - 1, { align: "end" });
    }
  }, [entries.length, lastSize, virtualizer]);

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
    <div
      ref={scroller}
      className="message-list"
      role="log"
      aria-label="Conversation"
      aria-live="polite"
      tabIndex={0}
      onScroll={(event) => {
        const el = event.currentTarget;
        stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_DISTANCE;
        // Only the person scrolling up asks for more, not the list settling at the bottom.
        const up = el.scrollTop < lastTop.current;
        lastTop.current = el.scrollTop;
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
                  isFirstItem={item.index === firstItem}
                  full={entry.kind === "tool" ? outputs?.[entry.call_id] : undefined}
                  handlers={handlers}
                />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
