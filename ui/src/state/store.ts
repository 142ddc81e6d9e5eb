// The app's one store: everything the window shows (app info, settings, the
// session list, the open session and its transcript, dialogs, toasts) and
// the actions that change it. Backend events reach it by one path,
// `actions.receive`, which applies the transcript updates Rust made.
// Components select what they need with `useAppState(selector)`.
import * as api from "../api/commands";
import { toCommandFailure } from "../api/commands";
import type { ApprovalDecision, ExportFormat, Settings } from "../api/types";
import type { ReasoningEffort } from "../bindings/ReasoningEffort";
import type { SetApiKey } from "../bindings/SetApiKey";
import type { LibraryChange } from "../bindings/LibraryChange";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { NewSessionChoice } from "../components/NewSessionSheet";
import { sessionTitle } from "../components/SessionSidebar";
import { pickExportPath, pickWorkspace, writeExport } from "../api/dialogs";
import { createHistoryActions, type HistoryHost } from "./historyActions";
import { applyLibraryChange } from "./library";
import { applyConsoleEvents, CONSOLE_PAGE, emptyConsole, prependRows } from "./console";
import { applyLiveEvents, contextTokensOf, emptyTranscript, prependPage, setPinned, type Entry, type Transcript } from "./transcript";

export {
  createStore,
  initialState,
  LAYOUT_SAVE_AFTER,
  TRANSCRIPT_PAGE,
  type AppState,
  type ConversationMode,
  type HistoryDialog,
  type Store,
  type ToastMessage,
} from "./appState";
export { forkToast } from "./forkToast";
import { LAYOUT_SAVE_AFTER, TRANSCRIPT_PAGE, type AppState, type Store, type ToastMessage } from "./appState";

function withEntry(transcript: Transcript, entry: Entry): Transcript {
  return { ...transcript, entries: [...transcript.entries, entry] };
}

/** Every action of the app; created once per store, so each is a stable function. */
export function createActions(store: Store) {
  const { get, set } = store;
  let localCount = 0;
  const openId = () => get().view?.summary.id ?? null;

  const fail = (error: unknown) => set({ toast: { tone: "error", text: toCommandFailure(error).message } });

  /** An error the UI met itself (a command failed), shown in place. */
  const localError = (message: string) =>
    set((s) => ({
      transcript: withEntry(
        {
          ...s.transcript,
          runningTurn: null,
          entries: s.transcript.entries.map((e) =>
            e.kind === "assistant" && e.streaming ? { ...e, streaming: false, unsaved: "interrupted" as const } : e,
          ),
        },
        { kind: "error", id: `local:${(localCount += 1)}`, message },
      ),
    }));

  const notice = (text: string) =>
    set((s) => ({ transcript: withEntry(s.transcript, { kind: "notice", id: `local:${(localCount += 1)}`, text }) }));

  // The pending save of the console's width (`save_layout`).
  let layoutSave: number | undefined;

  const actions = {
    fail,
    toast: (toast: ToastMessage | null) => set({ toast }),

    async loadApp() {
      try {
        const [info, settings] = await Promise.all([api.appInfo(), api.getSettings()]);
        // The console opens at the width the person chose last time.
        set(info.console_width ? { info, settings, consoleWidth: info.console_width } : { info, settings });
        void actions.reopenLast();
      } catch (error) {
        fail(error);
      }
    },

    setQuery: (query: string) => set({ query }),

    async refreshSessions() {
      try {
        const { sessions, notice } = await api.listSessions(get().query.trim() || undefined);
        // The open session's newest row goes into its snapshot too: a search that filters it out
        // of the list must not turn the header back to the title it had when it opened.
        const { view } = get();
        const row = view ? sessions.find((s) => s.id === view.summary.id) : undefined;
        set({
          sessions,
          ...(view && row ? { view: { ...view, summary: row } } : {}),
          ...(notice ? { toast: { tone: "warning" as const, text: notice } } : {}),
        });
      } catch (error) {
        fail(error);
      } finally {
        set({ loadingSessions: false });
      }
    },

    /**
     * Opens a session: its snapshot and the newest page of its transcript, or with `atItem` (a
     * search hit's item) the entries from the one showing that item on, which becomes the target.
     * The person's own sessions open live; one another process holds opens read-only (`held`).
     */
    async open(sessionId: string, atItem?: string) {
      set({ loadError: null });
      pendingOpen = sessionId;
      // An item the transcript does not show (a system prompt) opens at the newest page.
      const firstPage = () =>
        atItem === undefined
          ? api.openTranscript(sessionId, undefined, TRANSCRIPT_PAGE)
          : api
              .openTranscript(sessionId, undefined, TRANSCRIPT_PAGE, atItem)
              .catch(() => api.openTranscript(sessionId, undefined, TRANSCRIPT_PAGE));
      if (get().console.sessionId !== sessionId) set({ console: { ...emptyConsole, sessionId, loading: true } });
      void actions.loadConsole(sessionId);
      try {
        // The snapshot first: the app knows the file as it was when the snapshot was taken, so a
        // change outside it after that is reported (and the transcript, read next, is no older).
        const view = await api.openSessionState(sessionId);
        const page = await firstPage();
        if (pendingOpen !== sessionId) return;
        // Reopened on the next start; a failure only loses that.
        api.rememberOpen(sessionId).catch(() => undefined);
        set({
          view,
          mode: view.held_elsewhere ? "held" : "live",
          transcript: {
            ...emptyTranscript,
            entries: page.entries,
            older: page.older ?? null,
            target: page.target ?? null,
            pagePlan: page.plan ?? null,
            last_usage: view.last_usage ?? null,
            context_tokens: view.context_tokens ?? (view.last_usage ? contextTokensOf(view.last_usage) : null),
            threshold: view.threshold,
          },
        });
      } catch (error) {
        if (pendingOpen === sessionId) set({ loadError: toCommandFailure(error).message });
      }
    },

    /** The page before the oldest entry shown, as the person scrolls up. */
    async loadOlder() {
      const { view, transcript } = get();
      if (!view || !transcript.older || transcript.loadingOlder) return;
      const sessionId = view.summary.id;
      set({ transcript: { ...transcript, loadingOlder: true } });
      try {
        const page = await api.openTranscript(sessionId, transcript.older, TRANSCRIPT_PAGE);
        if (openId() !== sessionId) return;
        set((s) => ({
          transcript: { ...s.transcript, entries: prependPage(s.transcript.entries, page.entries), older: page.older ?? null, loadingOlder: false },
        }));
      } catch (error) {
        if (openId() === sessionId) set((s) => ({ transcript: { ...s.transcript, loadingOlder: false } }));
        fail(error);
      }
    },

    /** Fetches a tool call's whole output when its card is expanded (once). */
    async expandOutput(callId: string) {
      const sessionId = openId();
      if (!sessionId || get().transcript.outputs[callId]) return;
      const put = (output: Transcript["outputs"][string]) =>
        set((s) => (openId() === sessionId ? { transcript: { ...s.transcript, outputs: { ...s.transcript.outputs, [callId]: output } } } : {}));
      put({ state: "loading" });
      try {
        const full = await api.toolOutput(sessionId, callId);
        put({ state: "loaded", text: full.output });
      } catch (error) {
        put({ state: "failed", message: toCommandFailure(error).message });
      }
    },

    close() {
      pendingOpen = null;
      set({ view: null, transcript: emptyTranscript, console: emptyConsole });
    },

    /**
     * The console's snapshot of `sessionId` (its log's newest page), folded in Rust; after that a
     * turn's live events carry the console's updates. Fetched again only after a change no turn
     * made (an undo, a policy), never while a turn streams.
     */
    async loadConsole(sessionId: string) {
      try {
        const view = await api.openConsole(sessionId, undefined, CONSOLE_PAGE);
        if (pendingOpen !== sessionId && openId() !== sessionId) return;
        set({ console: { sessionId, view, loading: false, loadingOlder: false, error: null } });
      } catch (error) {
        if (pendingOpen !== sessionId && openId() !== sessionId) return;
        set((s) => ({ console: { ...s.console, sessionId, loading: false, error: toCommandFailure(error).message } }));
      }
    },

    /** The console log's page before its oldest row held, as the person scrolls up. */
    async loadOlderConsoleRows() {
      const { console: held } = get();
      const first = held.view?.rows[0]?.index;
      if (!held.view || !held.sessionId || held.loadingOlder || first === undefined || first === 0) return;
      const sessionId = held.sessionId;
      set({ console: { ...held, loadingOlder: true } });
      try {
        const page = await api.openConsole(sessionId, first, CONSOLE_PAGE);
        set((s) => (s.console.sessionId === sessionId && s.console.view ? { console: { ...s.console, view: prependRows(s.console.view, page.rows), loadingOlder: false } } : {}));
      } catch (error) {
        set((s) => ({ console: { ...s.console, loadingOlder: false } }));
        fail(error);
      }
    },


    /**
     * The one path from backend events to the store: live events with the transcript and console
     * updates Rust made of them, applied as they come (Rust batches streamed text by the frame).
     */
    receive(sessionId: string, events: readonly LiveEvent[]) {
      if (openId() !== sessionId) return;
      const { transcript, console: held } = get();
      const next = applyLiveEvents(transcript, events);
      const consoleView = held.view && held.sessionId === sessionId ? applyConsoleEvents(held.view, events) : held.view;
      if (next === transcript && consoleView === held.view) return;
      set({ transcript: next, console: consoleView === held.view ? held : { ...held, view: consoleView } });
    },

    async send(text: string) {
      const sessionId = openId();
      if (!sessionId) return;
      // Each command's events come on its own channel, numbered by the agent that
      // runs it; an agent resumed since (after a settings or profile change)
      // starts again at 0, so the numbering restarts with the command.
      set((s) => ({ pendingFor: sessionId, transcript: { ...s.transcript, lastSeq: -1 } }));
      const onEvent = (events: LiveEvent[]) => actions.receive(sessionId, events);
      try {
        // The app decides what the text asks for: a turn, or `/compact [focus]`.
        const outcome = await api.sendMessage(sessionId, text, onEvent);
        if (outcome.kind === "compaction" && outcome.skipped && openId() === sessionId) notice(outcome.skipped);
      } catch (error) {
        const failure = toCommandFailure(error);
        if (openId() !== sessionId) return;
        // Changed outside Strata since it was shown: nothing was written; show what changed.
        if (failure.kind === "stale") void actions.followOutside(sessionId, failure.message);
        else localError(failure.message);
      } finally {
          set((s) => (s.pendingFor === sessionId ? { pendingFor: null } : {}));
        void actions.refreshSessions();
      }
    },

    async stop() {
      const sessionId = openId();
      if (sessionId) await api.stopTurn(sessionId).catch(() => false);
    },

    async decide(callId: string, decision: ApprovalDecision) {
      const sessionId = openId();
      if (!sessionId) return;
      try {
        await api.answerApproval(sessionId, callId, decision);
      } catch (error) {
        localError(toCommandFailure(error).message);
      }
    },

    /** Creates a session in `workspace` (with the sheet's choices) and opens it live; false when it was not created. */
    async createIn(workspace: string, allowBroad: boolean): Promise<boolean> {
      try {
        const choice = sheetChoice ? { profile_id: sheetChoice.profileId, approval_policy: sheetChoice.approval, sandbox: sheetChoice.sandbox, network: sheetChoice.network } : {};
        const created = await api.createSession(workspace, allowBroad, choice);
        if (choice.approval_policy) void actions.reloadSettings();
        await actions.refreshSessions();
        await actions.open(created.id);
        return true;
      } catch (error) {
        // `/` or the home folder: ask the person rather than show an error.
        if (!allowBroad && toCommandFailure(error).kind === "broad_workspace") set({ broadWorkspace: workspace });
        else fail(error);
        return false;
      }
    },

    /** Opens the new-session sheet and fetches the recent folders it offers. */
    async openNewSession() {
      set({ newSession: { recent: null } });
      try {
        const { workspaces } = await api.recent();
        set((s) => (s.newSession ? { newSession: { recent: workspaces } } : {}));
      } catch (error) {
        set((s) => (s.newSession ? { newSession: { recent: [] } } : {}));
        fail(error);
      }
    },

    closeNewSession: () => set({ newSession: null }),

    /** The sheet's Browse…: the system folder picker; `null` when cancelled. */
    async browseWorkspace(): Promise<string | null> {
      try {
        return await pickWorkspace();
      } catch (error) {
        fail(error);
        return null;
      }
    },

    /** Starts a session with the sheet's choices; false when it was not created (or waits for a broad folder's confirmation). */
    async startSession(choice: NewSessionChoice): Promise<boolean> {
      set({ newSession: null });
      sheetChoice = choice;
      return actions.createIn(choice.workspace, false);
    },

    /** The settings again (after a change made elsewhere, e.g. the sheet's approval policy). */
    async reloadSettings() {
      try {
        set({ settings: await api.getSettings() });
      } catch (error) {
        fail(error);
      }
    },

    /** On start: the session the window showed last, if it is still there and nothing else opened meanwhile. */
    async reopenLast() {
      try {
        const { last_session } = await api.recent();
        if (last_session && !get().view && pendingOpen === null) await actions.open(last_session);
      } catch {
        // Nothing to reopen: the app starts on its welcome screen.
      }
    },

    confirmBroadWorkspace(): Promise<boolean> {
      const workspace = get().broadWorkspace;
      set({ broadWorkspace: null });
      return workspace ? actions.createIn(workspace, true) : Promise.resolve(false);
    },

    cancelBroadWorkspace: () => set({ broadWorkspace: null }),

    async rename(id: string, title: string) {
      try {
        const renamed = await api.renameSession(id, title);
        set((s) => ({
          sessions: s.sessions.map((x) => (x.id === id ? renamed : x)),
          view: s.view?.summary.id === id ? { ...s.view, summary: renamed } : s.view,
        }));
      } catch (error) {
        fail(error);
      }
    },

    async remove(id: string) {
      try {
        await api.deleteSession(id);
        if (openId() === id) actions.close();
        await actions.refreshSessions();
        set({ toast: { tone: "ok", text: "Session deleted." } });
      } catch (error) {
        fail(error);
      }
    },

    async exportSession(id: string, format: ExportFormat) {
      const session = get().sessions.find((s) => s.id === id);
      try {
        const path = await pickExportPath(session ? sessionTitle(session) : "session", format);
        if (!path) return;
        // The shell renders; the fs plugin writes the one file the save dialog allowed.
        const exported = await api.exportSession(id, format);
        await writeExport(path, exported.text);
        set({ toast: { tone: "ok", text: `Exported to ${path}` } });
      } catch (error) {
        fail(error);
      }
    },

    /** Saves settings; a failure is thrown to the dialog, which shows it by its fields. */
    async saveSettings(next: Settings, apiKeys: SetApiKey[] = []) {
      const settings = await api.saveSettings(next, apiKeys);
      set({ settings });
      set({ info: await api.appInfo(), toast: { tone: "ok", text: "Settings saved." } });
    },

    /**
     * Subscribes to the library's changes (`watch_library`): sessions any process creates,
     * appends to or deletes reach the sidebar as they happen.
     */
    async watchLibrary() {
      try {
        await api.watchLibrary(actions.libraryChanged);
      } catch (error) {
        fail(error);
      }
    },

    /** Applies a library change; a search asks the shell again rather than guess which rows match. */
    libraryChanged(change: LibraryChange) {
      if (get().query.trim()) void actions.refreshSessions();
      else set((s) => ({ sessions: applyLibraryChange(s.sessions, change) }));
      const open = openId();
      if (open && change.removed.includes(open) && !isRunning(get())) {
        actions.close();
        set({ toast: { tone: "ok", text: "The open session was deleted elsewhere." } });
        return;
      }
      // Written outside Strata (the strata command line, another window), or held by another
      // process that may have let go since: read it again, so the window shows what the model sees.
      const outside = open !== null && (change.changed_outside ?? []).includes(open);
      const held = open !== null && get().mode === "held" && change.updated.some((row) => row.id === open);
      if (open && (outside || held) && !isRunning(get())) void actions.followOutside(open);
    },

    /**
     * Reads the open session again after a change outside Strata: read-only while another
     * process still holds it, live once it let go (then says so once, or says `refusal`: the
     * write that was refused because of the change).
     */
    async followOutside(sessionId: string, refusal?: string) {
      const wasHeld = get().mode === "held";
      await actions.open(sessionId);
      if (openId() !== sessionId) return;
      if (refusal) set({ toast: { tone: "warning", text: refusal } });
      else if (get().mode === "live") {
        set({
          toast: {
            tone: "ok",
            text: wasHeld ? "The other process let go of this session: it is yours to continue." : "This session changed outside Strata; it now shows what was added.",
          },
        });
      }
    },

    setSwitchingProfile: (switchingProfile: boolean) => set({ switchingProfile }),

    /**
     * Moves the open session to the saved profile `profileId` (after the person confirmed where
     * its history goes), then reopens it, so the recorded switch shows in the transcript.
     */
    async switchProfile(profileId: string) {
      const sessionId = openId();
      set({ switchingProfile: false });
      if (!sessionId) return;
      try {
        const switched = await api.switchProfile(sessionId, profileId);
        set((s) => ({ sessions: s.sessions.map((row) => (row.id === switched.id ? switched : row)) }));
        await actions.open(switched.id);
        set({ toast: { tone: "ok", text: `Switched to ${switched.provider_kind} · ${switched.model}.` } });
      } catch (error) {
        fail(error);
      }
    },

    /**
     * Pins or unpins an item (issue 12). A refused pin (e.g. the pins would exceed half the
     * threshold) changes nothing and says why.
     */
    async pin(itemId: string, pinned: boolean) {
      const sessionId = openId();
      if (!sessionId) return;
      try {
        const result = await api.pinItem(sessionId, itemId, pinned);
        if (openId() !== sessionId) return;
        set((s) => ({
          transcript: { ...s.transcript, entries: setPinned(s.transcript.entries, itemId, result.pinned) },
          toast: { tone: "ok", text: result.pinned ? "Pinned: kept verbatim through every compaction." : "Unpinned: later compactions may summarise it." },
        }));
        void actions.loadConsole(sessionId);
      } catch (error) {
        set({ toast: { tone: "error", text: `${pinned ? "Not pinned" : "Not unpinned"}: ${toCommandFailure(error).message}` } });
      }
    },

    /** Sets how hard the open session's model thinks from its next round on (a `reasoning_set` record). */
    async setReasoning(effort: ReasoningEffort) {
      const sessionId = openId();
      if (!sessionId) return;
      try {
        const set_to = await api.setReasoning(sessionId, effort);
        set((s) => (s.view?.summary.id === sessionId ? { view: { ...s.view, reasoning: set_to } } : {}));
      } catch (error) {
        set({ toast: { tone: "error", text: `Reasoning not changed: ${toCommandFailure(error).message}` } });
      }
    },

    ...createHistoryActions({ set, openId, fail, notice, localError, host: (): HistoryHost => actions }),

    setSettingsOpen: (settingsOpen: boolean, settingsProfile: string | null = null) => set({ settingsOpen, settingsProfile }),
    setConnectOpen: (connectOpen: boolean) => set({ connectOpen }),
    toggleConsole: () => set((s) => ({ consoleOpen: !s.consoleOpen })),
    setConsoleOpen: (consoleOpen: boolean) => set({ consoleOpen }),
    toggleChanges: () => set((s) => ({ changesOpen: !s.changesOpen })),
    setChangesOpen: (changesOpen: boolean) => set({ changesOpen }),
    /** The console's chosen width, kept for the next run once the resize settles (a drag sends many). */
    setConsoleWidth: (consoleWidth: number) => {
      set({ consoleWidth });
      window.clearTimeout(layoutSave);
      layoutSave = window.setTimeout(() => void api.saveLayout(consoleWidth).catch(fail), LAYOUT_SAVE_AFTER);
    },
    inspectCompaction: (summaryId: string) => set({ consoleOpen: true, focusedCompaction: summaryId }),

  };
  // The session `open` is fetching, so a slower earlier open cannot win.
  let pendingOpen: string | null = null;
  // The new-session sheet's last choices, which a broad folder's confirmation starts with too.
  let sheetChoice: NewSessionChoice | null = null;
  return actions;
}

export type Actions = ReturnType<typeof createActions>;

/** Whether a turn or compaction runs in the open session. */
export function isRunning(state: AppState): boolean {
  const id = state.view?.summary.id;
  return (state.pendingFor !== null && state.pendingFor === id) || state.transcript.runningTurn !== null;
}
