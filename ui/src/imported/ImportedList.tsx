import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef, useState } from "react";
import type { ImportedSearchHit } from "../bindings/ImportedSearchHit";
import type { ImportedSessionItem } from "../bindings/ImportedSessionItem";
import type { ImportSource } from "../bindings/ImportSource";
import { ConfirmDialog } from "../components/Modal";
import { HitSnippet } from "../components/SearchHits";
import { TipButton } from "../components/Tooltip";
import { formatRelativeTime } from "../lib/format";
import { FILTERS, SOURCE_LABEL, type SourceFilter } from "./api";

/** A row's height before it is measured. */
const ROW_ESTIMATE = 64;

/** The title an imported row shows: its own, else its first words are not known. */
export function importedTitle(session: ImportedSessionItem): string {
  return session.title?.trim() || "Untitled session";
}

/** Which tool wrote a session, as text (the colour only repeats it). */
export function SourceBadge({ source }: { source: ImportSource }) {
  return (
    <span className={`badge source-badge source-${source}`} data-testid="source-badge">
      <span className="visually-hidden">From </span>
      {SOURCE_LABEL[source]}
    </span>
  );
}

/** The sidebar's source filter: every session, Strata's own, or one tool's. */
export function SourceFilterSelect({ value, onChange }: { value: SourceFilter; onChange: (filter: SourceFilter) => void }) {
  return (
    <label className="source-filter">
      <span>Show</span>
      <select value={value} onChange={(event) => onChange(event.target.value as SourceFilter)} aria-label="Show sessions from">
        {FILTERS.map((filter) => (
          <option key={filter.value} value={filter.value}>
            {filter.label}
          </option>
        ))}
      </select>
    </label>
  );
}

interface ImportedListProps {
  sessions: ImportedSessionItem[];
  activeId: string | null;
  onOpen: (id: string) => void;
  onHide: (id: string) => void;
  onOpenFile: () => void;
}

/**
 * Other agents' sessions, virtualised like Strata's list: only the rows near the viewport are in
 * the DOM. Every string is another tool's and is rendered as text. Removing one hides it from
 * the library; its file is never touched.
 */
export function ImportedList({ sessions, activeId, onOpen, onHide, onOpenFile }: ImportedListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [hiding, setHiding] = useState<ImportedSessionItem | null>(null);
  const virtualizer = useVirtualizer({
    count: sessions.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_ESTIMATE,
    overscan: 8,
    getItemKey: (index) => sessions[index]?.path ?? index,
    useFlushSync: false,
  });
  return (
    <section className={`imported-sessions${sessions.length === 0 ? " empty" : ""}`} aria-labelledby="imported-heading">
      <div className="imported-heading">
        <h2 id="imported-heading">Other agents</h2>
        <TipButton className="link-button" tip="Open another agent's session file" onClick={onOpenFile}>
          Open file…
        </TipButton>
      </div>
      <div className="session-scroller imported-scroller" ref={scroller}>
        <ul className="session-list" style={{ height: virtualizer.getTotalSize() }} aria-label="Other agents' sessions">
          {virtualizer.getVirtualItems().map((item) => {
            const session = sessions[item.index];
            if (!session) return null;
            const active = session.id === activeId;
            return (
              <li
                key={item.key}
                className="session-node imported-node"
                data-index={item.index}
                data-imported-id={session.id}
                ref={virtualizer.measureElement}
                style={{ top: item.start }}
                aria-setsize={sessions.length}
                aria-posinset={item.index + 1}
              >
                <div className={`session-row${active ? " active" : ""}`}>
                  <button type="button" className="session-open" aria-current={active ? "page" : undefined} onClick={() => onOpen(session.id)}>
                    <span className="session-title" title={importedTitle(session)}>
                      {importedTitle(session)}
                    </span>
                    <span className="session-meta imported-row-meta">
                      <SourceBadge source={session.source} />
                      {session.updated_at && <time dateTime={session.updated_at}>{formatRelativeTime(session.updated_at)}</time>}
                      {session.compaction_count > 0 && (
                        <span>
                          {session.compaction_count} {session.compaction_count === 1 ? "compaction" : "compactions"}
                        </span>
                      )}
                    </span>
                  </button>
                  <TipButton className="icon-button imported-hide" tip="Remove from the library (the file stays)" aria-label={`Remove ${importedTitle(session)} from the library`} onClick={() => setHiding(session)}>
                    <span aria-hidden="true">×</span>
                  </TipButton>
                </div>
              </li>
            );
          })}
        </ul>
      </div>
      {sessions.length === 0 && <p className="sidebar-empty">None shown: turn them on in Settings, or open a file.</p>}
      {hiding && (
        <ConfirmDialog
          title="Remove from the library?"
          message={
            <p>
              <strong>{importedTitle(hiding)}</strong> will no longer be listed. Its {SOURCE_LABEL[hiding.source]} file is not changed or deleted.
            </p>
          }
          confirmLabel="Remove from library"
          onCancel={() => setHiding(null)}
          onConfirm={() => {
            onHide(hiding.id);
            setHiding(null);
          }}
        />
      )}
    </section>
  );
}

const HIT_KIND: Record<string, string> = { user: "You", assistant: "Assistant", summary: "Summary" };

/** Search hits in other agents' sessions, each opening at its entry. */
export function ImportedHits({ hits, onPick }: { hits: ImportedSearchHit[]; onPick: (hit: ImportedSearchHit) => void }) {
  if (hits.length === 0) return null;
  return (
    <section className="search-hits" aria-label="Matches in other agents' sessions">
      <h2 className="search-hits-heading">
        In other agents' sessions <span className="muted">{hits.length}</span>
      </h2>
      <ul>
        {hits.map((hit, index) => (
          <li key={`${hit.session_id}:${hit.entry_id ?? "none"}:${index}`}>
            <button type="button" className="search-hit" onClick={() => onPick(hit)}>
              <span className="search-hit-title">{hit.session_title?.trim() || "Untitled session"}</span>
              <span className="search-hit-meta">
                <SourceBadge source={hit.source} />
                <span aria-hidden="true"> · </span>
                {HIT_KIND[hit.kind] ?? "Text"}
              </span>
              <HitSnippet snippet={hit.snippet} matches={hit.matches} />
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
