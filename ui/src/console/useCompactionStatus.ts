// The open session's compaction state as the gauge, the circuit banner and
// the console's policy control read it: the one gauge reading Rust's console
// fold keeps (threshold, reported or estimated figure, policy, circuit) and
// whether Undo applies, from the app store, kept up to date by the live
// updates of the session's turns. Nothing here fetches on a timer.
import { useCallback } from "react";
import * as api from "../api/commands";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { GaugeReading } from "../bindings/GaugeReading";
import type { UndoState } from "../bindings/UndoState";
import { useAppState } from "../state/StoreProvider";

/** What the gauge, the banner and the console's policy control read and do. */
export interface SessionCompaction {
  sessionId: string | null;
  /** The fold's reading; null until the console's snapshot arrived. */
  gauge: GaugeReading | null;
  undo: UndoState | null;
  /** Records `policy` for the session; rejects with the command's error. Absent while another process holds the session (read-only). */
  setPolicy?: (policy: CompactionPolicy) => Promise<void>;
}

/**
 * The open session's compaction state. `onPolicySet` runs after a policy was recorded: the
 * session's agent was closed, so its next turn resumes with a new event stream and the
 * conversation (and its console) must reload.
 */
export function useSessionCompaction(
  sessionId: string | null,
  onPolicySet: () => void,
  /** False while another process holds the session: the policy cannot be recorded. */
  writable = true,
): SessionCompaction {
  const held = useAppState((s) => s.console);
  const view = sessionId && held.sessionId === sessionId ? held.view : null;
  const setPolicy = useCallback(
    async (policy: CompactionPolicy) => {
      if (!sessionId) return;
      await api.setCompactionPolicy(sessionId, policy);
      onPolicySet();
    },
    [sessionId, onPolicySet],
  );
  return { sessionId, gauge: view?.gauge ?? null, undo: view?.undo ?? null, setPolicy: writable ? setPolicy : undefined };
}

/** The summary Undo applies to now, when it would not be refused. */
export function undoableSummary(undo: UndoState | null): string | null {
  return undo?.kind === "available" ? undo.summary_id : null;
}
