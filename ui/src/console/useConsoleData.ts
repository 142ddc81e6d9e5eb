// The console's data: a fresh `open_session` snapshot (records and the
// model-visible context) and the core's compaction views, fetched together
// and shared by every section. A live session is refetched, shortly after
// the stream moves on, whenever something that changes the file happened.
import { createContext, useContext, useEffect, useSyncExternalStore } from "react";
import * as api from "../api/commands";
import { toCommandFailure } from "../api/ipc";
import type { SessionView } from "../api/types";
import type { CompactionView } from "../bindings/CompactionView";
import type { ConsoleContext } from "../components/DebugConsolePanel";

export interface ConsoleSnapshot {
  sessionId: string | null;
  /** What the key below was fetched for. */
  revision: string;
  view: SessionView | null;
  compactions: CompactionView[] | null;
  loading: boolean;
  error: string | null;
}

const EMPTY: ConsoleSnapshot = { sessionId: null, revision: "", view: null, compactions: null, loading: false, error: null };

/** How long a live session waits for the stream to settle before refetching. */
export const LIVE_REFRESH_MS = 350;

/** The console's fetched data; one per open console panel (`ConsoleDataContext`). */
export class ConsoleStore {
  private snapshot: ConsoleSnapshot = EMPTY;
  private listeners = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private wanted = "";

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  get = () => this.snapshot;

  private set(next: ConsoleSnapshot) {
    this.snapshot = next;
    this.listeners.forEach((listener) => listener());
  }

  /** Asks for `sessionId` at `revision`; a new session loads at once, a new revision after a pause. */
  request(sessionId: string, revision: string) {
    const key = `${sessionId}|${revision}`;
    if (key === this.wanted) return;
    this.wanted = key;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.snapshot.sessionId !== sessionId) {
      this.set({ ...EMPTY, sessionId, revision, loading: true });
      this.load(sessionId, revision);
    } else {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.load(sessionId, revision);
      }, LIVE_REFRESH_MS);
    }
  }

  /** The fetch under way (`session|revision`); one at a time per session. */
  private inFlight: string | null = null;

  private load(sessionId: string, revision: string) {
    const key = `${sessionId}|${revision}`;
    // A fetch of this session is under way: when it returns it fetches what is wanted then.
    if (this.inFlight?.startsWith(`${sessionId}|`)) return;
    this.inFlight = key;
    if (this.snapshot.sessionId === sessionId && !this.snapshot.loading) this.set({ ...this.snapshot, loading: true });
    Promise.all([api.openSession(sessionId), api.compactionViews(sessionId)])
      .then(([view, compactions]) => {
        if (this.snapshot.sessionId === sessionId) this.set({ sessionId, revision, view, compactions, loading: false, error: null });
      })
      .catch((error: unknown) => {
        if (this.snapshot.sessionId === sessionId) {
          this.set({ ...this.snapshot, sessionId, revision, loading: false, error: toCommandFailure(error).message });
        }
      })
      .finally(() => {
        if (this.inFlight === key) this.inFlight = null;
        // Something newer was asked for meanwhile and is not waiting on its timer: fetch it now.
        const prefix = `${sessionId}|`;
        if (this.wanted !== key && this.wanted.startsWith(prefix) && !this.timer && this.snapshot.sessionId === sessionId) {
          this.load(sessionId, this.wanted.slice(prefix.length));
        }
      });
  }

  /** Stops a pending refetch (the panel closed). */
  dispose() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.wanted = "";
    this.inFlight = null;
  }
}

/** The console panel's data store, shared by its sections. */
export const ConsoleDataContext = createContext<ConsoleStore | null>(null);

/**
 * What changes the session file: the records the app holds and, in a live
 * turn, every event of the stream (a round sent, an item committed, a tool's
 * output, usage, a compaction) and the end of the turn. A burst of events
 * (streamed text) refetches once, after it pauses.
 */
export function consoleRevision(context: ConsoleContext): string {
  const { session, transcript } = context;
  return [session?.record_count ?? 0, transcript.lastSeq, transcript.debugEvents.length, transcript.runningTurn ?? "idle"].join(":");
}

export function useConsoleData(context: ConsoleContext): ConsoleSnapshot {
  const store = useContext(ConsoleDataContext);
  if (!store) throw new Error("useConsoleData needs the DebugConsolePanel around it");
  const sessionId = context.session?.summary.id ?? null;
  const revision = consoleRevision(context);
  useEffect(() => {
    if (sessionId) store.request(sessionId, revision);
  }, [store, sessionId, revision]);
  const snapshot = useSyncExternalStore(store.subscribe, store.get);
  if (!sessionId) return EMPTY;
  if (snapshot.sessionId !== sessionId) return { ...EMPTY, sessionId, loading: true };
  return snapshot;
}
