import { useEffect, useImperativeHandle, useMemo, useRef, useState, type Ref, type RefObject } from "react";
import { useReturnFocus } from "../hooks/useReturnFocus";
import { clearMatches, findMatches, matchCount, paintMatches } from "../lib/find";
import type { Entry } from "../state/transcript";
import type { MessageListHandle } from "./MessageList";

export interface TranscriptFindHandle {
  /** Ctrl+F again: back to the field, its text selected. */
  focus(): void;
}

interface TranscriptFindProps {
  ref?: Ref<TranscriptFindHandle>;
  entries: readonly Entry[];
  list: RefObject<MessageListHandle | null>;
  /** What holds the rendered transcript (the conversation), where the matches are painted. */
  scope: RefObject<HTMLElement | null>;
  /** Whether older pages are not loaded yet: they are not searched. */
  hasOlder: boolean;
  onClose: () => void;
}

/** Two frames: the virtualised list has rendered (and measured) the rows it scrolled to. */
function afterRender(then: () => void): () => void {
  let second = 0;
  const first = requestAnimationFrame(() => {
    second = requestAnimationFrame(then);
  });
  return () => {
    cancelAnimationFrame(first);
    cancelAnimationFrame(second);
  };
}

/**
 * The find bar over the transcript (Ctrl+F): every match highlighted, the current one brighter and
 * scrolled to, "2 of 5"; Enter goes to the next, Shift+Enter to the previous, Escape closes it and
 * gives focus back.
 */
export function TranscriptFind({ ref, entries, list, scope, hasOlder, onClose }: TranscriptFindProps) {
  const [query, setQuery] = useState("");
  const [current, setCurrent] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  useReturnFocus(box);
  useImperativeHandle(ref, () => ({
    focus() {
      input.current?.focus();
      input.current?.select();
    },
  }));
  useEffect(() => input.current?.focus(), []);

  const matches = useMemo(() => findMatches(entries, query), [entries, query]);
  const at = matches.length === 0 ? -1 : Math.min(current, matches.length - 1);
  const match = at === -1 ? null : (matches[at] ?? null);
  // The current match by identity: new matches arriving while an answer streams do not move it.
  const matchKey = match ? `${entries[match.entry]?.id ?? ""}#${match.occurrence}` : null;
  const latest = useRef({ entries, match, query });
  latest.current = { entries, match, query };

  const scroller = () => scope.current?.querySelector<HTMLElement>(".message-list") ?? null;

  // Going to a match: its row scrolled to, then the match itself into view, and everything painted.
  useEffect(() => {
    const { entries: now, match: target } = latest.current;
    const id = target ? now[target.entry]?.id : undefined;
    if (target && id) list.current?.scrollToEntry(id);
    return afterRender(() => {
      const el = scroller();
      if (!el) return;
      const range = paintMatches(el, latest.current.query, latest.current.match);
      if (!range) return;
      const box = el.getBoundingClientRect();
      const rect = range.getBoundingClientRect();
      if (rect.top < box.top || rect.bottom > box.bottom) el.scrollTop += rect.top - (box.top + box.height / 2);
    });
    // `matchKey` names the match; the refs hold the rest.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [matchKey, query, list]);

  // Rows rendered later (scrolling, a streamed answer) are painted too.
  useEffect(() => {
    const el = scroller();
    if (!el) return;
    let cancel = () => {};
    const repaint = () => {
      cancel();
      cancel = afterRender(() => paintMatches(el, latest.current.query, latest.current.match));
    };
    el.addEventListener("scroll", repaint, { passive: true });
    repaint();
    return () => {
      cancel();
      el.removeEventListener("scroll", repaint);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [entries]);
  useEffect(() => clearMatches, []);

  const step = (by: number) => {
    if (matches.length === 0) return;
    setCurrent((at + by + matches.length) % matches.length);
  };
  const count = matchCount(query, matches.length, at);
  return (
    <div
      ref={box}
      className="transcript-find"
      role="search"
      aria-label="Find in the transcript"
      onKeyDown={(event) => {
        // Escape is the find bar's here, not the running turn's (the app's Escape stops a turn).
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          onClose();
        }
      }}
    >
      <input
        ref={input}
        type="search"
        className="transcript-find-input"
        aria-label="Find in the transcript"
        placeholder="Find in the transcript"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setCurrent(0);
        }}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            step(event.shiftKey ? -1 : 1);
          }
        }}
      />
      <span className="transcript-find-count" role="status" aria-live="polite" title={hasOlder ? "Older messages are not loaded yet: scroll up to search them too" : undefined}>
        {count}
        {hasOlder && count && matches.length > 0 ? " so far" : ""}
      </span>
      <button type="button" className="icon-button" aria-label="Previous match (Shift+Enter)" disabled={matches.length === 0} onClick={() => step(-1)}>
        <span aria-hidden="true">↑</span>
      </button>
      <button type="button" className="icon-button" aria-label="Next match (Enter)" disabled={matches.length === 0} onClick={() => step(1)}>
        <span aria-hidden="true">↓</span>
      </button>
      <button type="button" className="icon-button" aria-label="Close find (Escape)" onClick={onClose}>
        <span aria-hidden="true">✕</span>
      </button>
    </div>
  );
}
