import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useImperativeHandle, useRef, type Ref } from "react";
import type { ApprovalDecision } from "../api/types";
import type { Entry } from "../state/transcript";
import { AssistantMessage, UserMessage } from "./Messages";
import { ToolCallCard } from "./ToolCallCard";
import { CompactionDivider, ErrorNotice, InfoNotice, RetryNotice, TurnEndNotice } from "./TranscriptNotices";

export interface MessageListHandle {
  /** Scrolls the divider of a compaction into view; false when unknown. */
  scrollToCompaction(summaryId: string): boolean;
  /** Scrolls an entry (by key) into view; false when unknown. */
  scrollToEntry(key: string): boolean;
}

interface MessageListProps {
  entries: Entry[];
  ref?: Ref<MessageListHandle>;
  onDecide?: (callId: string, decision: ApprovalDecision) => void;
  onInspectCompaction?: (summaryId: string) => void;
  onEditLast?: (text: string) => void;
  onRetryLast?: (text: string) => void;
}

function EntryView({
  entry,
  isLastUser,
  props,
}: {
  entry: Entry;
  isLastUser: boolean;
  props: MessageListProps;
}) {
  switch (entry.kind) {
    case "user":
      return (
        <UserMessage
          entry={entry}
          onEdit={isLastUser ? props.onEditLast : undefined}
          onRetry={isLastUser ? props.onRetryLast : undefined}
        />
      );
    case "assistant":
      return <AssistantMessage entry={entry} />;
    case "tool":
      return <ToolCallCard tool={entry} onDecide={props.onDecide} />;
    case "compaction":
      return <CompactionDivider entry={entry} onInspect={props.onInspectCompaction} />;
    case "error":
      return <ErrorNotice entry={entry} />;
    case "retry":
      return <RetryNotice entry={entry} />;
    case "turn_end":
      return <TurnEndNotice entry={entry} />;
    case "notice":
      return <InfoNotice entry={entry} />;
  }
}

const STICK_DISTANCE = 80;

/** The transcript, virtualised: only the rows near the viewport are in the DOM. */
export function MessageList(props: MessageListProps) {
  const { entries, ref } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    overscan: 6,
    getItemKey: (index) => entries[index]?.key ?? index,
  });

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
        const index = entries.findIndex((e) => e.kind === "compaction" && e.summaryId === summaryId);
        if (index === -1) return false;
        stickToBottom.current = false;
        virtualizer.scrollToIndex(index, { align: "center" });
        return true;
      },
      scrollToEntry(key) {
        const index = entries.findIndex((e) => e.key === key);
        if (index === -1) return false;
        virtualizer.scrollToIndex(index, { align: "center" });
        return true;
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
      }}
    >
      <div className="message-list-inner" style={{ height: virtualizer.getTotalSize() }}>
        <div className="message-list-window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((item) => {
            const entry = entries[item.index];
            if (!entry) return null;
            return (
              <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} className="message-row">
                <EntryView entry={entry} isLastUser={item.index === lastUser} props={props} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
