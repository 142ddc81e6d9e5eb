import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import * as api from "../../api/commands";
import { toCommandFailure } from "../../api/commands";
import type { ChangedFile } from "../../bindings/ChangedFile";
import type { ChangeDiff } from "../../bindings/ChangeDiff";
import type { ChangeKind } from "../../bindings/ChangeKind";
import type { DiffTarget } from "../../bindings/DiffTarget";
import type { DiffWithheld } from "../../bindings/DiffWithheld";
import type { RestoreReport } from "../../bindings/RestoreReport";
import type { SessionChanges } from "../../bindings/SessionChanges";

/** The open session's file changes, as `list_changes` last answered, and the files each call changed. */
export interface ChangesData {
  sessionId: string;
  changes: SessionChanges | null;
  error: string | null;
  byCall: Map<string, ChangedFile[]>;
  reload: () => void;
}

/** Whether restores can run now (the session live and idle), and what follows one. */
export interface RestoreControl {
  allowed: boolean;
  /** Why they cannot, when they cannot. */
  offReason?: string;
  onRestored: (report: RestoreReport) => void;
}

/** What the Changes panel and the tool cards read (`restore` for their restore buttons); null outside a conversation. */
export const ChangesContext = createContext<(ChangesData & { restore?: RestoreControl }) | null>(null);

export const useChanges = () => useContext(ChangesContext);

/**
 * The session's changes, fetched when it opens and again whenever `revision` moves (a tool call
 * finished, a turn ended): what the records say, never a fold of the transcript here.
 */
export function useSessionChanges(sessionId: string, revision: string): ChangesData {
  const [changes, setChanges] = useState<SessionChanges | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  const current = useRef(sessionId);
  current.current = sessionId;
  useEffect(() => {
    let stale = false;
    api
      .listChanges(sessionId)
      .then((answer) => {
        if (stale) return;
        setChanges(answer);
        setError(null);
      })
      .catch((failure: unknown) => {
        if (!stale) setError(toCommandFailure(failure).message);
      });
    return () => {
      stale = true;
    };
  }, [sessionId, revision, reloads]);
  const reload = useCallback(() => setReloads((n) => n + 1), []);
  const byCall = useMemo(() => {
    const map = new Map<string, ChangedFile[]>();
    for (const group of changes?.session_id === sessionId ? changes.groups : []) {
      for (const call of group.calls) map.set(call.call_id, [...(map.get(call.call_id) ?? []), ...call.files]);
    }
    return map;
  }, [changes, sessionId]);
  const shown = changes?.session_id === sessionId ? changes : null;
  return useMemo(() => ({ sessionId, changes: shown, error, byCall, reload }), [sessionId, shown, error, byCall, reload]);
}

export type DiffState = { state: "loading" } | { state: "loaded"; diff: ChangeDiff } | { state: "failed"; message: string };

/** One diff, fetched once per target. */
export function useDiff(sessionId: string, target: DiffTarget): DiffState {
  const [state, setState] = useState<DiffState>({ state: "loading" });
  const key = target.kind === "change" ? `change:${target.record}` : `file:${target.path}`;
  useEffect(() => {
    let stale = false;
    setState({ state: "loading" });
    const request: DiffTarget = key.startsWith("change:")
      ? { kind: "change", record: Number(key.slice("change:".length)) }
      : { kind: "session_file", path: key.slice("file:".length) };
    api
      .changeDiff(sessionId, request)
      .then((diff) => {
        if (!stale) setState({ state: "loaded", diff });
      })
      .catch((failure: unknown) => {
        if (!stale) setState({ state: "failed", message: toCommandFailure(failure).message });
      });
    return () => {
      stale = true;
    };
  }, [sessionId, key]);
  return state;
}

export const KIND_LABEL: Record<ChangeKind, string> = { created: "Created", modified: "Modified", deleted: "Deleted" };

export const WITHHELD_TEXT: Record<DiffWithheld, string> = {
  not_kept: "Its content was recorded by hash and size only (a binary file, one over 4 MiB, or one holding a configured secret), so no diff can be shown.",
  pruned: "Its kept content was pruned (the session's store of earlier contents is full), so no diff can be shown.",
  secret_path: "This file looks like it holds secrets (keys, tokens), so its content is never shown.",
};

/** A byte count for people: 512 B, 3.4 KB, 1.2 MB. */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MB`;
}

/** "+3 −1" with each side its own colour; nothing when the counts are unknown. */
export function lineCounts(added: number | null, removed: number | null): { added: string; removed: string } | null {
  if (added === null || removed === null) return null;
  return { added: `+${added}`, removed: `−${removed}` };
}
