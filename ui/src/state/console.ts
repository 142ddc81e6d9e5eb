// The debug console's data as the UI holds it: the snapshot Rust folded
// (`open_console`) and the updates a turn's live events carry, never folded
// here. Everything in this file is pure.
import type { ConsoleUpdate } from "../bindings/ConsoleUpdate";
import type { ConsoleView } from "../bindings/ConsoleView";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { LogRow } from "../bindings/LogRow";
import { NO_COST } from "../console/money";

export interface ConsoleState {
  /** The session the snapshot is of (or is being fetched for). */
  sessionId: string | null;
  view: ConsoleView | null;
  loading: boolean;
  loadingOlder: boolean;
  error: string | null;
}

export const emptyConsole: ConsoleState = { sessionId: null, view: null, loading: false, loadingOlder: false, error: null };

/** Log rows per `open_console` page. */
export const CONSOLE_PAGE = 200;

/** The console of a session with no records yet, as `open_console` answers for it. */
export function emptyConsoleView(sessionId: string, threshold: number, contextWindow?: number): ConsoleView {
  return {
    v: 1,
    session_id: sessionId,
    records: 0,
    rows: [],
    rows_total: 0,
    chart: [],
    markers: [],
    steps: [],
    model_view: [],
    gauge: { estimated: false, threshold, ...(contextWindow !== undefined ? { context_window: contextWindow } : {}), policy: "layered", cost: NO_COST },
    undo: { kind: "refused", reason: "Nothing to undo: the session has no compaction." },
  };
}

/** Applies one update; one the snapshot already holds (it folded as many records) changes nothing. */
export function applyConsoleUpdate(view: ConsoleView, update: ConsoleUpdate): ConsoleView {
  const fresh = update.records > view.records || update.rows.length > 0;
  if (!fresh) return view;
  let chart = view.chart;
  if (update.chart.length > 0) {
    chart = view.chart.slice();
    for (const point of update.chart) {
      const at = chart.findIndex((p) => p.round === point.round);
      if (at === -1) chart.push(point);
      else chart[at] = point;
    }
  }
  const known = view.rows.length > 0 ? (view.rows[view.rows.length - 1]?.index ?? -1) : view.rows_total - 1;
  const rows = update.rows.filter((row) => row.index > known);
  return {
    ...view,
    records: Math.max(view.records, update.records),
    rows: rows.length > 0 ? [...view.rows, ...rows] : view.rows,
    rows_total: view.rows_total + rows.length,
    chart,
    markers: update.markers.length > 0 ? [...view.markers, ...update.markers.filter((m) => !view.markers.some((k) => k.number === m.number))] : view.markers,
    steps: update.steps ?? view.steps,
    model_view: update.model_view ?? view.model_view,
    gauge: update.gauge,
    undo: update.undo,
  };
}

/** The console updates a batch of live events carries, applied in order. */
export function applyConsoleEvents(view: ConsoleView, events: readonly LiveEvent[]): ConsoleView {
  let next = view;
  for (const event of events) if (event.console) next = applyConsoleUpdate(next, event.console);
  return next;
}

/** An older page of rows put before the ones held. */
export function prependRows(view: ConsoleView, older: LogRow[]): ConsoleView {
  const first = view.rows[0]?.index ?? Number.POSITIVE_INFINITY;
  return { ...view, rows: [...older.filter((row) => row.index < first), ...view.rows] };
}
