import type { LibraryChange } from "../bindings/LibraryChange";
import type { SessionListItem } from "../bindings/SessionListItem";

const time = (row: SessionListItem) => Date.parse(row.updated_at);

/** Newest update first, then the larger id, as the shell lists them. */
function newestFirst(a: SessionListItem, b: SessionListItem): number {
  return time(b) - time(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * The sidebar's rows after a change to the library (`watch_library`): changed sessions get their
 * new row (a new one is added), removed ones go, and the list stays newest first.
 */
export function applyLibraryChange(rows: SessionListItem[], change: LibraryChange): SessionListItem[] {
  if (change.updated.length === 0 && change.removed.length === 0) return rows;
  const gone = new Set<string>([...change.removed, ...change.updated.map((row) => row.id)]);
  return [...rows.filter((row) => !gone.has(row.id)), ...change.updated].sort(newestFirst);
}
