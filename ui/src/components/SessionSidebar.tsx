import { useEffect, useRef, useState } from "react";
import type { ExportFormat, SessionListItem } from "../api/types";
import type { SearchHit } from "../bindings/SearchHit";
import { folderName, formatRelativeTime } from "../lib/format";
import { ConfirmDialog } from "./Modal";
import { SearchHits } from "./SearchHits";

export function sessionTitle(session: SessionListItem): string {
  return session.title?.trim() || "Untitled session";
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
  onPickHit?: (hit: SearchHit) => void;
}

/** Past sessions: search, open, resume, rename, delete and export. */
export function SessionSidebar(props: SessionSidebarProps) {
  const { sessions, query, onQueryChange, onNew, loading } = props;
  const [deleting, setDeleting] = useState<SessionListItem | null>(null);
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
        {sessions.map((session) => (
          <SessionRow key={session.id} session={session} {...props} onAskDelete={() => setDeleting(session)} />
        ))}
      </ul>
      {props.hits && props.onPickHit && (
        <SearchHits hits={props.hits} total={props.hitsTotal ?? props.hits.length} onPick={props.onPickHit} />
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

interface SessionRowProps extends SessionSidebarProps {
  session: SessionListItem;
  onAskDelete: () => void;
}

function SessionRow({ session, activeId, onOpen, onResume, onRename, onExport, onAskDelete }: SessionRowProps) {
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
    <li className={`session-row${session.id === activeId ? " active" : ""}`}>
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
    </li>
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
