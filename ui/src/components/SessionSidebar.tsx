import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { ExportFormat, SessionListItem } from "../api/types";
import type { ForkPoint } from "../bindings/ForkPoint";
import type { SearchHit } from "../bindings/SearchHit";
import { folderName, formatRelativeTime, shortId } from "../lib/format";
import { ConfirmDialog } from "./Modal";
import { SearchHits } from "./SearchHits";

export function sessionTitle(session: SessionListItem): string {
  return session.title?.trim() || "Untitled session";
}

/** Where a fork starts, for a person: `after item 0193a1b2` or `before compaction 2`. */
export function forkPointLabel(point: ForkPoint): string {
  return point.kind === "at_item" ? `after item ${shortId(point.item_id)}` : `before compaction ${point.number}`;
}

export interface SessionNode {
  session: SessionListItem;
  /** Forks of it that are listed too, in list order. */
  forks: SessionNode[];
}

/**
 * The list as a forest: a fork whose parent is listed sits under it; every
 * other session (a fork whose parent is not listed included) is a root, in
 * list order.
 */
export function lineageTree(sessions: SessionListItem[]): SessionNode[] {
  const nodes = new Map(sessions.map((session) => [session.id, { session, forks: [] as SessionNode[] }]));
  const roots: SessionNode[] = [];
  for (const session of sessions) {
    const node = nodes.get(session.id);
    if (!node) continue;
    const parentId = session.forked_from?.parent_session_id;
    const parent = parentId && parentId !== session.id ? nodes.get(parentId) : undefined;
    if (parent && !isDescendant(nodes, parent.session, session.id)) parent.forks.push(node);
    else roots.push(node);
  }
  return roots;
}

/** Whether `session` descends from `ancestorId` (so no cycle can hide a row). */
function isDescendant(nodes: Map<string, SessionNode>, session: SessionListItem, ancestorId: string): boolean {
  const seen = new Set<string>();
  let current: SessionListItem | undefined = session;
  while (current?.forked_from && !seen.has(current.id)) {
    seen.add(current.id);
    if (current.forked_from.parent_session_id === ancestorId) return true;
    current = nodes.get(current.forked_from.parent_session_id)?.session;
  }
  return false;
}

interface SessionSidebarProps {
  sessions: SessionListItem[];
  activeId: string | null;
  query: string;
  onQueryChange: (query: string) => void;
  onNew: () => void;
  onOpen: (id: string) => void;
  onResume: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
  onExport: (id: string, format: ExportFormat) => void;
  loading?: boolean;
  /** Full-text hits for the query, shown below the matching sessions. */
  hits?: SearchHit[];
  hitsTotal?: number;
  /** More hits match than `hitsTotal` counts (shown as "1000+"). */
  hitsTotalCapped?: boolean;
  onPickHit?: (hit: SearchHit) => void;
}

/** Past sessions: search, open, resume, rename, delete and export. */
export function SessionSidebar(props: SessionSidebarProps) {
  const { sessions, query, onQueryChange, onNew, loading } = props;
  const [deleting, setDeleting] = useState<SessionListItem | null>(null);
  const tree = useMemo(() => lineageTree(sessions), [sessions]);
  const titles = useMemo(() => new Map(sessions.map((session) => [session.id, sessionTitle(session)])), [sessions]);
  return (
    <nav className="sidebar" aria-label="Sessions">
      <div className="sidebar-top">
        <button type="button" className="button primary new-session" onClick={onNew} title="New session (Ctrl+N)">
          <span aria-hidden="true" className="plus">+</span> New session
        </button>
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
      </div>
      <ul className="session-list" aria-busy={loading}>
        {tree.map((node) => (
          <SessionBranch key={node.session.id} node={node} titles={titles} props={props} onAskDelete={setDeleting} />
        ))}
      </ul>
      {props.hits && props.onPickHit && (
        <SearchHits hits={props.hits} total={props.hitsTotal ?? props.hits.length} totalCapped={props.hitsTotalCapped} onPick={props.onPickHit} />
      )}
      {sessions.length === 0 && !loading && !props.hits?.length && (
        <p className="sidebar-empty">
          {query ? `No session matches “${query}”.` : "No sessions yet. Start one and it will be listed here."}
        </p>
      )}
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

interface SessionBranchProps {
  node: SessionNode;
  /** Every listed session's title, for a fork's link to its parent. */
  titles: Map<string, string>;
  props: SessionSidebarProps;
  onAskDelete: (session: SessionListItem) => void;
}

function containsSession(node: SessionNode, id: string | null): boolean {
  return id !== null && node.forks.some((fork) => fork.session.id === id || containsSession(fork, id));
}

/** A session, the link to its parent when it is a fork, and its listed forks under a disclosure. */
function SessionBranch({ node, titles, props, onAskDelete }: SessionBranchProps) {
  const { session, forks } = node;
  const [collapsed, setCollapsed] = useState(false);
  // The open session stays visible: its parent's forks unfold for it.
  const holdsActive = containsSession(node, props.activeId);
  const open = !collapsed || holdsActive;
  const forksId = `forks-${session.id}`;
  const origin = session.forked_from;
  return (
    <li className="session-node" data-session-id={session.id}>
      <SessionRow session={session} {...props} onAskDelete={() => onAskDelete(session)}>
        {origin && (
          <div className="session-lineage" data-testid="session-lineage">
            <span className="lineage-of">
              <svg className="lineage-icon" width="12" height="12" viewBox="0 0 12 12" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
                <circle cx="3" cy="2.5" r="1.5" />
                <circle cx="9" cy="2.5" r="1.5" />
                <circle cx="6" cy="9.5" r="1.5" />
                <path d="M3 4v1a2 2 0 0 0 2 2h2a2 2 0 0 0 2-2V4M6 7v1" />
              </svg>
              Fork of{" "}
              {titles.has(origin.parent_session_id) ? (
                <button
                  type="button"
                  className="link-button lineage-parent"
                  data-testid="lineage-parent"
                  title={`Open the parent session (${origin.parent_session_id})`}
                  onClick={() => props.onOpen(origin.parent_session_id)}
                >
                  {titles.get(origin.parent_session_id)}
                </button>
              ) : (
                <span className="lineage-missing" title={origin.parent_session_id}>
                  session {shortId(origin.parent_session_id)} (not listed)
                </span>
              )}
            </span>{" "}
            <span className="lineage-point">· {forkPointLabel(origin.point)}</span>
          </div>
        )}
      </SessionRow>
      {forks.length > 0 && (
        <>
          <button
            type="button"
            className="forks-toggle"
            data-testid="forks-toggle"
            aria-expanded={open}
            aria-controls={forksId}
            disabled={holdsActive}
            title={holdsActive ? "The open session is one of these forks" : undefined}
            onClick={() => setCollapsed(open)}
          >
            <span aria-hidden="true" className={`chevron${open ? " open" : ""}`}>
              ▸
            </span>
            {forks.length} {forks.length === 1 ? "fork" : "forks"}
          </button>
          {open && (
            <ul className="session-forks" id={forksId} aria-label={`Forks of ${sessionTitle(session)}`}>
              {forks.map((fork) => (
                <SessionBranch key={fork.session.id} node={fork} titles={titles} props={props} onAskDelete={onAskDelete} />
              ))}
            </ul>
          )}
        </>
      )}
    </li>
  );
}

interface SessionRowProps extends SessionSidebarProps {
  session: SessionListItem;
  onAskDelete: () => void;
  /** Shown under the row, inside its box (a fork's lineage). */
  children?: ReactNode;
}

function SessionRow({ session, activeId, onOpen, onResume, onRename, onExport, onAskDelete, children }: SessionRowProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const title = sessionTitle(session);
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!menuOpen) return;
    const close = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node)) setMenuOpen(false);
    };
    document.addEventListener("mousedown", close);
    menu.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    return () => document.removeEventListener("mousedown", close);
  }, [menuOpen]);
  const act = (action: () => void) => () => {
    setMenuOpen(false);
    action();
  };
  return (
    <div className={`session-row${session.id === activeId ? " active" : ""}`}>
      {renaming ? (
        <RenameField
          initial={session.title ?? ""}
          onDone={(value) => {
            setRenaming(false);
            if (value !== null && value.trim() && value.trim() !== session.title) onRename(session.id, value.trim());
          }}
        />
      ) : (
        <button
          type="button"
          className="session-open"
          aria-current={session.id === activeId ? "page" : undefined}
          onClick={() => onOpen(session.id)}
        >
          <span className="session-title">{title}</span>
          <span className="session-meta">
            <span title={session.workspace}>{folderName(session.workspace)}</span>
            <span aria-hidden="true"> · </span>
            <time dateTime={session.updated_at}>{formatRelativeTime(session.updated_at)}</time>
          </span>
          <span className="session-counts">
            <span>{session.item_count} items</span>
            {session.compaction_count > 0 && (
              <span className="badge badge-compaction">
                {session.compaction_count} {session.compaction_count === 1 ? "compaction" : "compactions"}
              </span>
            )}
          </span>
        </button>
      )}
      <div className="session-menu" ref={menu}>
        <button
          type="button"
          className="icon-button"
          aria-label={`Actions for ${title}`}
          aria-haspopup="menu"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen((value) => !value)}
        >
          ⋯
        </button>
        {menuOpen && (
          <div
            className="menu"
            role="menu"
            aria-label={`Actions for ${title}`}
            onKeyDown={(event) => {
              const items = Array.from(event.currentTarget.querySelectorAll<HTMLElement>("[role=menuitem]"));
              const at = items.indexOf(document.activeElement as HTMLElement);
              if (event.key === "Escape") setMenuOpen(false);
              if (event.key === "ArrowDown") items[(at + 1) % items.length]?.focus();
              if (event.key === "ArrowUp") items[(at - 1 + items.length) % items.length]?.focus();
            }}
          >
            <button type="button" role="menuitem" onClick={act(() => onOpen(session.id))}>
              Open read-only
            </button>
            <button type="button" role="menuitem" onClick={act(() => onResume(session.id))}>
              Resume
            </button>
            <button type="button" role="menuitem" onClick={act(() => setRenaming(true))}>
              Rename
            </button>
            <button type="button" role="menuitem" onClick={act(() => onExport(session.id, "md"))}>
              Export as Markdown
            </button>
            <button type="button" role="menuitem" onClick={act(() => onExport(session.id, "json"))}>
              Export as JSON
            </button>
            <button type="button" role="menuitem" className="danger-text" onClick={act(onAskDelete)}>
              Delete…
            </button>
          </div>
        )}
      </div>
      {children}
    </div>
  );
}

function RenameField({ initial, onDone }: { initial: string; onDone: (value: string | null) => void }) {
  const [value, setValue] = useState(initial);
  return (
    <form
      className="rename-form"
      onSubmit={(event) => {
        event.preventDefault();
        onDone(value);
      }}
    >
      <label className="visually-hidden" htmlFor="rename-input">
        Session title
      </label>
      <input
        id="rename-input"
        autoFocus
        value={value}
        onChange={(event) => setValue(event.target.value)}
        onBlur={() => onDone(value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            onDone(null);
          }
        }}
      />
    </form>
  );
}
