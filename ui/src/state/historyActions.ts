// The actions that change a session's history: compact up to an item, fork
// (from an item, or from before a compaction), undo the latest compaction,
// and the dialogs that ask first. Part of the store's actions
// (`createActions` spreads them in); `host` reaches the rest.
import * as api from "../api/commands";
import { toCommandFailure } from "../api/commands";
import type { ForkFiles } from "../bindings/ForkFiles";
import type { ForkPoint } from "../bindings/ForkPoint";
import type { LiveEvent } from "../bindings/LiveEvent";
import { TRANSCRIPT_PAGE, type Store } from "./appState";
import { forkToast } from "./forkToast";

/** What the history actions use of the store's other actions. */
export interface HistoryHost {
  receive(sessionId: string, events: readonly LiveEvent[]): void;
  refreshSessions(): Promise<void>;
  open(sessionId: string, atItem?: string): Promise<void>;
  askFork(point: ForkPoint, label: string): void;
  reloadTranscript(sessionId: string): Promise<void>;
}

interface HistoryContext {
  set: Store["set"];
  openId: () => string | null;
  fail: (error: unknown) => void;
  notice: (text: string) => void;
  localError: (message: string) => void;
  host: () => HistoryHost;
}

export function createHistoryActions({ set, openId, fail, notice, localError, host }: HistoryContext) {
  return {
    askCompactUpTo: (itemId: string, excerpt: string) => set({ historyDialog: { kind: "compact_up_to", itemId, excerpt } }),
    askFork: (point: ForkPoint, label: string) => set({ historyDialog: { kind: "fork", point, label } }),
    closeHistoryDialog: () => set({ historyDialog: null }),

    /** Fork from before the compaction whose summary is `summaryId`, numbered as `strata compactions` numbers them. */
    async askForkBeforeCompaction(summaryId: string) {
      const sessionId = openId();
      if (!sessionId) return;
      try {
        const { items } = await api.sessionItems(sessionId);
        const number = items.filter((item) => item.kind === "compaction_summary").findIndex((item) => item.id === summaryId) + 1;
        if (number === 0) throw new Error("That compaction is not in the session's file.");
        if (openId() === sessionId) host().askFork({ kind: "before_compaction", number }, `just before compaction ${number}`);
      } catch (error) {
        fail(error);
      }
    },

    /**
     * Summarises everything before `itemId` and keeps the rest verbatim; its events arrive like
     * any compaction's, then the transcript is read again so the divider sits above the item.
     */
    async compactUpTo(itemId: string, focus: string) {
      const sessionId = openId();
      set({ historyDialog: null });
      if (!sessionId) return;
      set((s) => ({ pendingFor: sessionId, transcript: { ...s.transcript, lastSeq: -1 } }));
      try {
        const outcome = await api.compactUpTo(sessionId, itemId, focus.trim() || undefined, (events) => host().receive(sessionId, events));
          if (openId() !== sessionId) return;
        if (outcome.skipped) notice(outcome.skipped);
        else await host().reloadTranscript(sessionId);
      } catch (error) {
        if (openId() === sessionId) localError(`Compact up to here failed: ${toCommandFailure(error).message}`);
      } finally {
        set((s) => (s.pendingFor === sessionId ? { pendingFor: null } : {}));
        void host().refreshSessions();
      }
    },

    /** The newest transcript page again (after a change Rust placed mid-transcript). */
    async reloadTranscript(sessionId: string) {
      const page = await api.openTranscript(sessionId, undefined, TRANSCRIPT_PAGE);
      if (openId() !== sessionId) return;
      set((s) => ({ transcript: { ...s.transcript, entries: page.entries, older: page.older ?? null, pagePlan: page.plan ?? null } }));
    },

    /** Forks the open session at `point` (with its files, unless `keep`) and opens the new one, live. */
    async fork(point: ForkPoint, files: ForkFiles = "keep") {
      const sessionId = openId();
      set({ historyDialog: null });
      if (!sessionId) return;
      try {
        const fork = await api.forkSession(sessionId, point, files);
        await host().refreshSessions();
        await host().open(fork.session_id);
        set({ toast: { tone: "ok", text: forkToast(fork) } });
      } catch (error) {
        fail(error);
      }
    },

    /**
     * Undoes the open session's latest compaction, then reloads it so the
     * transcript, console and gauge show the restored history. A refusal
     * (over the threshold, nothing to undo, a turn running) rejects with the
     * command's message and changes nothing.
     */
    async undoCompaction() {
      const sessionId = openId();
      if (!sessionId) return;
      const result = await api.undoCompaction(sessionId);
      const restored = result.undone.restored.length;
      if (openId() === sessionId) await host().open(sessionId);
      void host().refreshSessions();
      set({ toast: { tone: "ok", text: `Compaction undone: the model sees ${restored} ${restored === 1 ? "item" : "items"} again.` } });
    },
  };
}
