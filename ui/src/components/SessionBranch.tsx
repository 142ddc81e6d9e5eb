import { useEffect, useRef, useState, type ComponentProps, type ReactNode } from "react";
import { TipButton } from "./Tooltip";
import type { ExportFormat, SessionListItem } from "../api/types";
import { folderName, formatRelativeTime, shortId } from "../lib/format";
import { forkPointLabel, holdsSession, sessionTitle, type SessionNode } from "../lib/lineage";
import { useClickOutside } from "../hooks/useClickOutside";
import { formatUsd } from "../console/money";

/** What a row lets the person do, and which session is open. */
export interface RowActions {
  activeId: string | null;
  onOpen: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onExport: (id: string, format: ExportFormat) => void;
}

interface SessionBranchProps {
  node: SessionNode;
  /** Every listed session's title, for a fork's link to its parent. */
  titles: Map<string, string>;
  actions: RowActions;
  /** Sessions whose forks the person folded away (kept by the list: a row can leave the DOM). */
  folded: ReadonlySet<string>;
  onFold: (id: string, folded: boolean) => void;
  onAskDelete: (session: SessionListItem) => void;
  /** A top-level row's place in the virtualised list (its position, size and place in the set). */
  listItem?: ComponentProps<"li"> & { "data-index": number };
}

/** A session, the link to its parent when it is a fork, and its listed forks under a disclosure. */
export function SessionBranch({ node, titles, actions, folded, onFold, onAskDelete, listItem }: SessionBranchProps) {
  const { session, forks } = node;
  // The open session stays visible: its parent's forks unfold for it.
  const holdsActive = holdsSession(node, actions.activeId);
  const open = !folded.has(session.id) || holdsActive;
  const forksId = `forks-${session.id}`;
  const origin = session.forked_from;
  return (
    <li {...listItem} className="session-node" data-session-id={session.id}>
      <SessionRow session={session} {...actions} onAskDelete={() => onAskDelete(session)}>
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
                <TipButton
                  className="link-button lineage-parent"
                  data-testid="lineage-parent"
                  tip="Open the parent session"
                  onClick={() => actions.onOpen(origin.parent_session_id)}
                >
                  {titles.get(origin.parent_session_id)}
                </TipButton>
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
          <TipButton
            className="forks-toggle"
            data-testid="forks-toggle"
            aria-expanded={open}
            aria-controls={forksId}
            disabled={holdsActive}
            tip={holdsActive ? "The open session is one of these forks" : open ? "Hide its forks" : "Show its forks"}
            onClick={() => onFold(session.id, open)}
          >
            <span aria-hidden="true" className={`chevron${open ? " open" : ""}`}>
              ▸
            </span>
            {forks.length} {forks.length === 1 ? "fork" : "forks"}
          </TipButton>
          {open && (
            <ul className="session-forks" id={forksId} aria-label={`Forks of ${sessionTitle(session)}`}>
              {forks.map((fork) => (
                <SessionBranch
                  key={fork.session.id}
                  node={fork}
                  titles={titles}
                  actions={actions}
                  folded={folded}
                  onFold={onFold}
                  onAskDelete={onAskDelete}
                />
              ))}
            </ul>
          )}
        </>
      )}
    </li>
  );
}

interface SessionRowProps extends RowActions {
  session: SessionListItem;
  onAskDelete: () => void;
  /** Shown under the row, inside its box (a fork's lineage). */
  children?: ReactNode;
}

function SessionRow({ session, activeId, onOpen, onRename, onExport, onAskDelete, children }: SessionRowProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const title = sessionTitle(session);
  const menu = useRef<HTMLDivElement>(null);
  useClickOutside(menuOpen, [menu], () => setMenuOpen(false));
  useEffect(() => {
    if (menuOpen) menu.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
  }, [menuOpen]);
  const trigger = useRef<HTMLButtonElement>(null);
  // Closing the menu gives focus back to its button, before an action moves it on (a dialog
  // then returns it there, not to a menu item that is gone).
  const closeMenu = () => {
    setMenuOpen(false);
    trigger.current?.focus();
  };
  const act = (action: () => void) => () => {
    closeMenu();
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
          {/* Cut with an ellipsis in a narrow sidebar: the whole title on hover. */}
          <span className="session-title" title={title}>
            {title}
          </span>
          <span className="session-meta">
            <span title={session.workspace}>{folderName(session.workspace)}</span>
            <span aria-hidden="true"> · </span>
            <time dateTime={session.updated_at}>{formatRelativeTime(session.updated_at)}</time>
          </span>
          <span className="session-counts">
            <span>
              {session.item_count} {session.item_count === 1 ? "item" : "items"}
            </span>
            {session.cost && (
              <span className="session-cost" data-testid="session-row-cost">
                {formatUsd(session.cost.usd)}
              </span>
            )}
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
          ref={trigger}
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
              if (event.key === "Escape") {
                event.preventDefault();
                event.stopPropagation();
                closeMenu();
              }
              if (event.key === "ArrowDown") items[(at + 1) % items.length]?.focus();
              if (event.key === "ArrowUp") items[(at - 1 + items.length) % items.length]?.focus();
            }}
          >
            <button type="button" role="menuitem" onClick={act(() => onOpen(session.id))}>
              Open
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
