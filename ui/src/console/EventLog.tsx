import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState } from "react";
import type { ConsoleView } from "../bindings/ConsoleView";
import { ALL_ROWS, filterLog, LOG_KINDS, type LogFamily, type LogFilter, type LogKind, type LogRow } from "./model";
import { RoundRequestDialog } from "./RoundRequestDialog";

interface EventLogProps {
  sessionId: string;
  /** The console fold's snapshot: its log rows (a page of the newest, older ones on request). */
  view: ConsoleView;
  onReveal: (summaryId: string) => void;
}

const FAMILIES: { id: LogFilter["family"]; label: string }[] = [
  { id: "all", label: "All" },
  { id: "mainline", label: "Mainline" },
  { id: "debug", label: "Debug" },
];

function timeOf(row: LogRow): string {
  if (!row.ts) return "live";
  const date = new Date(row.ts);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

/** Every record of the session (and the live debug events the file does not keep), filtered and searchable, virtualised. */
export function EventLog({ sessionId, view, onReveal }: EventLogProps) {
  const [filter, setFilter] = useState<LogFilter>(ALL_ROWS);
  const [openRound, setOpenRound] = useState<number | null>(null);
  const all = view.rows;
  const rows = useMemo(() => filterLog(all, filter), [all, filter]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 54,
    overscan: 8,
    getItemKey: (index) => rows[index]?.index ?? index,
    // Rows are measured as they render; a synchronous flush there would run inside React's own render.
    useFlushSync: false,
  });
  const rounds = view.chart.length;
  // Follow newest: while on, each new row scrolls the log to the end, as a terminal does.
  const [follow, setFollow] = useState(true);
  const newest = rows.length - 1;
  useEffect(() => {
    if (follow && newest >= 0) virtualizer.scrollToIndex(newest, { align: "end" });
  }, [follow, newest, virtualizer]);
  const toggleKind = (kind: LogKind) =>
    setFilter((current) => ({
      ...current,
      kinds: current.kinds.includes(kind) ? current.kinds.filter((k) => k !== kind) : [...current.kinds, kind],
    }));
  const visibleKinds = LOG_KINDS.filter((k) => filter.family === "all" || k.family === filter.family);
  const items = virtualizer.getVirtualItems();

  return (
    <div className="event-log" data-testid="event-log">
      <div className="log-filters">
        <div className="segmented" role="group" aria-label="Event family">
          {FAMILIES.map((family) => (
            <button
              key={family.id}
              type="button"
              aria-pressed={filter.family === family.id}
              className={filter.family === family.id ? "active" : ""}
              onClick={() => setFilter((current) => ({ ...current, family: family.id as LogFamily | "all", kinds: [] }))}
            >
              {family.label}
            </button>
          ))}
        </div>
        <input
          type="search"
          className="text-input log-search"
          placeholder="Search the log"
          aria-label="Search the log"
          value={filter.query}
          onChange={(event) => setFilter((current) => ({ ...current, query: event.target.value }))}
        />
        <label className="log-follow">
          <input type="checkbox" checked={follow} onChange={(event) => setFollow(event.target.checked)} data-testid="log-follow" />
          Follow newest
        </label>
      </div>
      <div className="chip-row" role="group" aria-label="Event kinds">
        {visibleKinds.map(({ kind, label }) => (
          <button
            key={kind}
            type="button"
            className={`chip${filter.kinds.includes(kind) ? " active" : ""}`}
            aria-pressed={filter.kinds.includes(kind)}
            onClick={() => toggleKind(kind)}
          >
            {label}
          </button>
        ))}
      </div>
      <p className="log-count muted" role="status" data-testid="log-count">
        {rows.length === all.length
          ? `${view.rows_total.toLocaleString()} ${view.rows_total === 1 ? "entry" : "entries"} · ${rounds.toLocaleString()} ${rounds === 1 ? "model call" : "model calls"}`
          : `Showing ${rows.length.toLocaleString()} of ${all.length.toLocaleString()} entries`}
      </p>
      {rows.length === 0 ? (
        <div className="console-hint" data-testid="log-empty">
          {all.length === 0 ? (
            <>
              <strong>Nothing logged yet.</strong> Every round with its exact request, the usage it reported, retries,
              errors, approvals and compactions are listed here as they happen.
            </>
          ) : (
            <>
              <strong>No entry matches.</strong> Clear the search or pick other kinds.
            </>
          )}
        </div>
      ) : (
        <div ref={scroller} className="log-scroller" role="list" aria-label="Rounds and events" tabIndex={0}>
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            <div style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
              {items.map((item) => {
                const row = rows[item.index];
                if (!row) return null;
                return (
                  <div
                    key={item.key}
                    ref={virtualizer.measureElement}
                    data-index={item.index}
                    role="listitem"
                    className={`log-row tone-${row.tone}`}
                    data-testid="log-row"
                    data-kind={row.kind}
                    data-family={row.family}
                  >
                    <span className="log-time">{timeOf(row)}</span>
                    <div className="log-main">
                      <div className="log-title">
                        <span className={`log-kind kind-${row.kind}`}>{row.kind}</span>
                        <span>{row.title}</span>
                      </div>
                      {row.detail && <div className="log-detail">{row.detail}</div>}
                    </div>
                    {row.round_number !== undefined && (
                      <button
                        type="button"
                        className="button small ghost log-action"
                        aria-label={`Show the exact request of round ${row.round_number}`}
                        onClick={() => setOpenRound(row.round_number ?? null)}
                      >
                        Request
                      </button>
                    )}
                    {row.summary_id !== undefined && row.record_index !== undefined && (
                      <button
                        type="button"
                        className="button small ghost log-action"
                        aria-label="Show this compaction in the transcript"
                        onClick={() => onReveal(row.summary_id ?? "")}
                      >
                        Show
                      </button>
                    )}
                  </div>
                );
              })}
            </div>
          </div>
        </div>
      )}
      {openRound !== null && <RoundRequestDialog sessionId={sessionId} round={openRound} onClose={() => setOpenRound(null)} />}
    </div>
  );
}
