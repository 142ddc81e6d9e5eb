import { defaultRangeExtractor, useVirtualizer, type Range } from "@tanstack/react-virtual";
import { TipButton } from "./Tooltip";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import type { SessionListItem } from "../api/types";
import type { SearchHit } from "../bindings/SearchHit";
import { lineageTree, sessionTitle, shownRows } from "../lib/lineage";
import { ConfirmDialog } from "./Modal";
import { SearchHits } from "./SearchHits";
import { SessionBranch, type RowActions } from "./SessionBranch";

export { forkPointLabel, lineageTree, sessionTitle, type SessionNode } from "../lib/lineage";

interface SessionSidebarProps extends RowActions {
  sessions: SessionListItem[];
  query: string;
  onQueryChange: (query: string) => void;
  onNew: () => void;
  onDelete: (id: string) => void;
  loading?: boolean;
  /** Full-text hits for the query, shown below the matching sessions. */
  hits?: SearchHit[];
  hitsTotal?: number;
  /** More hits match than `hitsTotal` counts (shown as "1000+"). */
  hitsTotalCapped?: boolean;
  onPickHit?: (hit: SearchHit) => void;
  /** The source filter, under the search box. */
  filter?: ReactNode;
  /** Other agents' sessions and their hits, below Strata's own. */
  imported?: ReactNode;
  /** The filter shows another tool's sessions alone: Strata's list is left out. */
  hideOwn?: boolean;
}

/** A plain row's height before it is measured (a fork's lineage or forks make it taller). */
const ROW_ESTIMATE = 74;
const FORK_ESTIMATE = 96;

/** The session buttons that arrow keys move between, and the keys that move. */
const MOVES: Record<string, (at: number, last: number) => number> = {
  ArrowDown: (at, last) => Math.min(at + 1, last),
  ArrowUp: (at) => Math.max(at - 1, 0),
  Home: () => 0,
  End: (_, last) => last,
};

/** The `.session-open` button of session `id` inside `list`, if it is rendered. */
function openButton(list: HTMLElement | null, id: string): HTMLElement | null {
  const node = Array.from(list?.querySelectorAll<HTMLElement>("li.session-node") ?? []).find((li) => li.dataset.sessionId === id);
  return node?.querySelector<HTMLElement>(":scope > .session-row .session-open") ?? null;
}

/**
 * Past sessions: search, open, resume, rename, delete and export. The list
 * is virtualised by top-level row (a session with its listed forks): only
 * the rows near the viewport are in the DOM, plus the row holding focus, so
 * a library of thousands lists as fast as a few. Arrow keys, Home and End
 * move between sessions, bringing rows outside the window in.
 */
export function SessionSidebar(props: SessionSidebarProps) {
  const { sessions, query, onQueryChange, onNew, loading, activeId } = props;
  const [deleting, setDeleting] = useState<SessionListItem | null>(null);
  const [folded, setFolded] = useState<ReadonlySet<string>>(() => new Set());
  const tree = useMemo(() => lineageTree(sessions), [sessions]);
  const titles = useMemo(() => new Map(sessions.map((session) => [session.id, sessionTitle(session)])), [sessions]);
  const rows = useMemo(() => shownRows(tree, folded, activeId), [tree, folded, activeId]);
  // A session is always under some root, even in folded forks: for scrolling to the open one.
  const rootOfAny = useMemo(() => new Map(shownRows(tree, new Set(), null).map((row) => [row.id, row.root])), [tree]);

  const scroller = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLUListElement>(null);
  // The top-level row holding focus stays rendered when it scrolls away, so
  // focus is never lost (a ref: the range is worked out again as it scrolls).
  const focusedRoot = useRef<string | null>(null);
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      const kept = focusedRoot.current === null ? undefined : rootOfAny.get(focusedRoot.current);
      if (kept === undefined || indexes.includes(kept)) return indexes;
      return [...indexes, kept].sort((a, b) => a - b);
    },
    [rootOfAny],
  );
  const virtualizer = useVirtualizer({
    count: tree.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (tree[index]?.forks.length || tree[index]?.session.forked_from ? FORK_ESTIMATE : ROW_ESTIMATE),
    overscan: 8,
    getItemKey: (index) => tree[index]?.session.id ?? index,
    rangeExtractor,
    // Scrolls from effects (to the open session, to the top) render on the next tick, not inside React's commit.
    useFlushSync: false,
  });

  // A session opened from elsewhere (a fork's parent link, a search hit, a new session) is scrolled to.
  const scrolledTo = useRef<string | null>(null);
  useEffect(() => {
    if (!activeId || scrolledTo.current === activeId) return;
    const index = rootOfAny.get(activeId);
    if (index === undefined) return;
    scrolledTo.current = activeId;
    virtualizer.scrollToIndex(index, { align: "auto" });
  }, [activeId, rootOfAny, virtualizer]);

  // A new query lists other sessions: show them from the top.
  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
  }, [query]);

  // The session an arrow key moved to: focused once its row is rendered.
  const [focusNext, setFocusNext] = useState<string | null>(null);
  const items = virtualizer.getVirtualItems();
  useLayoutEffect(() => {
    if (focusNext === null) return;
    const button = openButton(list.current, focusNext);
    if (!button) return;
    setFocusNext(null);
    button.focus();
  }, [focusNext, items]);

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const move = MOVES[event.key];
    const target = event.target as HTMLElement;
    if (!move || !target.classList.contains("session-open")) return;
    const id = target.closest<HTMLElement>("li.session-node")?.dataset.sessionId;
    const at = rows.findIndex((row) => row.id === id);
    if (at < 0) return;
    event.preventDefault();
    const next = rows[move(at, rows.length - 1)];
    if (!next || next.id === id) return;
    focusedRoot.current = tree[next.root]?.session.id ?? null;
    setFocusNext(next.id);
    virtualizer.scrollToIndex(next.root, { align: "auto" });
  };

  const onFold = useCallback((id: string, fold: boolean) => {
    setFolded((current) => {
      const next = new Set(current);
      if (fold) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);

  return (
    <nav className="sidebar" aria-label="Sessions">
      <div className="sidebar-top">
        <TipButton className="button primary new-session" onClick={onNew} tip="New session (Ctrl+N)">
          <span aria-hidden="true" className="plus">+</span> New session
        </TipButton>
        <label className="search">
          <span className="visually-hidden">Search sessions</span>
          <svg className="search-icon" width="14" height="14" viewBox="0 0 14 14" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
            <circle cx="6" cy="6" r="4.5" />
            <path d="M9.5 9.5 13 13" />
          </svg>
          <input
            type="search"
            placeholder="Search sessions"
            value={query}
            onChange={(event) => onQueryChange(event.target.value)}
          />
        </label>
        {props.filter}
      </div>
      <div className="session-scroller" ref={scroller} hidden={props.hideOwn}>
        <ul
          ref={list}
          className="session-list"
          aria-busy={loading}
          style={{ height: virtualizer.getTotalSize() }}
          onKeyDown={onKeyDown}
          onFocus={(event) => {
            const root = (event.target as HTMLElement).closest<HTMLElement>("ul.session-list > li");
            focusedRoot.current = root?.dataset.sessionId ?? null;
          }}
          onBlur={(event) => {
            if (!list.current?.contains(event.relatedTarget as Node | null)) focusedRoot.current = null;
          }}
        >
          {items.map((item) => {
            const node = tree[item.index];
            if (!node) return null;
            return (
              <SessionBranch
                key={item.key}
                node={node}
                titles={titles}
                actions={props}
                folded={folded}
                onFold={onFold}
                onAskDelete={setDeleting}
                listItem={{
                  "data-index": item.index,
                  ref: virtualizer.measureElement,
                  style: { top: item.start },
                  "aria-setsize": tree.length,
                  "aria-posinset": item.index + 1,
                }}
              />
            );
          })}
        </ul>
      </div>
      {props.hits && props.onPickHit && !props.hideOwn && (
        <SearchHits hits={props.hits} total={props.hitsTotal ?? props.hits.length} totalCapped={props.hitsTotalCapped} onPick={props.onPickHit} />
      )}
      {sessions.length === 0 && !loading && !props.hits?.length && !props.hideOwn && (
        <p className="sidebar-empty">
          {query ? `No session matches “${query}”.` : "No sessions yet. Start one and it will be listed here."}
        </p>
      )}
      {props.imported}
      {deleting && (
        <ConfirmDialog
          title="Delete session?"
          message={
            <>
              <p>
                <strong>{sessionTitle(deleting)}</strong> and its session file will be removed from disk. This cannot be
                undone.
              </p>
              <p className="muted">Export it first if you may need it again.</p>
            </>
          }
          confirmLabel="Delete session"
          danger
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            props.onDelete(deleting.id);
            setDeleting(null);
          }}
        />
      )}
    </nav>
  );
}
