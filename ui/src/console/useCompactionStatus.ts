// The session's compaction status (policy, threshold, circuit, the gauge's
// figure) from the `compaction_status` command, refetched whenever the live
// stream moves on. All state access of the context-management UI goes
// through this one hook and `gaugeReading`, so the app's store can change
// under them without touching the components.
import { useCallback, useEffect, useState } from "react";
import * as api from "../api/commands";
import type { EventEnvelope } from "../api/types";
import type { CompactionStatus } from "../bindings/CompactionStatus";

/** What the gauge shows: a reported figure, or an estimate (labelled so). */
export interface GaugeReading {
  tokens: number | null;
  estimated: boolean;
}

/**
 * The figure for the gauge, footer and console. The live stream decides
 * first: after a compaction step its estimate of the new history (computed
 * in Rust and carried by the event), after a round's report that report.
 * Without such an event the status decides. Never the pre-compaction report.
 */
export function gaugeReading(debugEvents: EventEnvelope[], status: CompactionStatus | null, fallbackReported: number | null): GaugeReading {
  for (let i = debugEvents.length - 1; i >= 0; i -= 1) {
    const envelope = debugEvents[i];
    if (!envelope || envelope.event.family !== "debug") continue;
    const event = envelope.event.event;
    switch (event.kind) {
      case "usage_reported":
        return { tokens: event.context_tokens ?? null, estimated: false };
      case "tool_outputs_evicted":
        return { tokens: event.eviction.estimated_after, estimated: true };
      case "layered_compacted":
        return { tokens: event.compaction.estimated_after, estimated: true };
      case "compaction_ineffective":
        return { tokens: event.estimated_tokens, estimated: true };
      case "history_compacted":
        // A base summary's event carries no estimate: the status's, once it
        // has caught up; until then nothing rather than the old report.
        return status?.estimated_tokens != null ? { tokens: status.estimated_tokens, estimated: true } : { tokens: null, estimated: true };
      case "round_started":
      case "retrying":
      case "summary_failed":
        continue;
    }
  }
  if (status?.reported_tokens != null) return { tokens: status.reported_tokens, estimated: false };
  if (status?.estimated_tokens != null) return { tokens: status.estimated_tokens, estimated: true };
  if (status) return { tokens: null, estimated: false };
  return { tokens: fallbackReported, estimated: false };
}

export interface CompactionStatusState {
  status: CompactionStatus | null;
  error: string | null;
  /** Fetches again now (after a policy change or a retry). */
  refresh: () => void;
  /** Replaces the status with one a command returned. */
  set: (status: CompactionStatus) => void;
}

/** The status of `sessionId`, fetched again whenever `revision` changes. */
export function useCompactionStatus(sessionId: string | null, revision: string): CompactionStatusState {
  const [state, setState] = useState<{ key: string; status: CompactionStatus | null; error: string | null }>({ key: "", status: null, error: null });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!sessionId) return;
    let cancelled = false;
    api
      .compactionStatus(sessionId)
      .then((status) => {
        if (!cancelled) setState({ key: sessionId, status, error: null });
      })
      .catch((error: unknown) => {
        if (!cancelled) setState((s) => ({ key: sessionId, status: s.key === sessionId ? s.status : null, error: String((error as Error).message ?? error) }));
      });
    return () => {
      cancelled = true;
    };
  }, [sessionId, revision, tick]);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  const set = useCallback((status: CompactionStatus) => {
    if (sessionId) setState({ key: sessionId, status, error: null });
  }, [sessionId]);
  const current = state.key === sessionId ? state : { status: null, error: null };
  return { status: current.status, error: current.error, refresh, set };
}

/** What the gauge, the banner and the console's policy control read and do. */
export interface SessionCompaction {
  sessionId: string | null;
  status: CompactionStatus | null;
  reading: GaugeReading;
  /** Records `policy` for the session; rejects with the command's error. Absent while another process holds the session (read-only). */
  setPolicy?: (policy: CompactionStatus["policy"]) => Promise<void>;
}

/**
 * The open session's compaction state, refetched as its live stream moves
 * (debug events and turn ends only). `onPolicySet` runs after a policy was
 * recorded: the session's agent was closed, so its next turn resumes with a
 * new event stream and the conversation must reload.
 */
export function useSessionCompaction(
  sessionId: string | null,
  debugEvents: EventEnvelope[],
  runningTurn: string | null,
  records: number,
  fallbackReported: number | null,
  onPolicySet: () => void,
  /** False while another process holds the session: the policy cannot be recorded. */
  writable = true,
): SessionCompaction {
  const revision = `${debugEvents.length}:${runningTurn ?? "idle"}:${records}`;
  const { status, set } = useCompactionStatus(sessionId, revision);
  const setPolicy = useCallback(
    async (policy: CompactionStatus["policy"]) => {
      if (!sessionId) return;
      set(await api.setCompactionPolicy(sessionId, policy));
      onPolicySet();
    },
    [sessionId, set, onPolicySet],
  );
  return { sessionId, status, reading: gaugeReading(debugEvents, status, fallbackReported), setPolicy: writable ? setPolicy : undefined };
}
