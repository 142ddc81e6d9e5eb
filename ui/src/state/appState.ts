// The app's state: its shape (`AppState`), where it starts, and the store
// that holds it and tells subscribers of each change. The actions that change
// it are in store.ts.
import type { AppInfo, SessionListItem, SessionView, Settings } from "../api/types";
import type { ForkPoint } from "../bindings/ForkPoint";
import { emptyConsole, type ConsoleState } from "./console";
import { emptyTranscript, type Transcript } from "./transcript";

/**
 * How the open session is shown: `live` (the person's own: the composer and every control that
 * writes work), or `held` (another process, the `strata` command line or another window, holds it
 * open for writing: shown read-only, following that writer, until it lets go).
 */
export type ConversationMode = "held" | "live";

/** How long the console's width must stay put before it is saved, in milliseconds. */
export const LAYOUT_SAVE_AFTER = 400;

export interface ToastMessage {
  tone: "ok" | "warning" | "error";
  text: string;
}

/** A history action waiting for the person to confirm it. */
export type HistoryDialog =
  /** Compact up to an item: `excerpt` names it in the dialog. */
  | { kind: "compact_up_to"; itemId: string; excerpt: string }
  /** Fork at `point`; `label` says where, for a person. */
  | { kind: "fork"; point: ForkPoint; label: string };

export interface AppState {
  info: AppInfo | null;
  settings: Settings | null;
  sessions: SessionListItem[];
  query: string;
  loadingSessions: boolean;
  /** The open session's snapshot, if one is open. */
  view: SessionView | null;
  mode: ConversationMode;
  transcript: Transcript;
  /** The debug console's data for the open session (folded in Rust), with its gauge reading. */
  console: ConsoleState;
  /** The session a `send_message` runs in (a turn or a `/compact`), until it returns. */
  pendingFor: string | null;
  loadError: string | null;
  toast: ToastMessage | null;
  settingsOpen: boolean;
  /** The profile Settings opens on ("Open profile settings"); null: the active one. */
  settingsProfile: string | null;
  /** "Connect a provider" is open. */
  connectOpen: boolean;
  consoleOpen: boolean;
  /** The Changes view beside the transcript. */
  changesOpen: boolean;
  consoleWidth: number;
  focusedCompaction: string | null;
  /** `/` or the home folder, waiting for the person to confirm it. */
  broadWorkspace: string | null;
  /** The switch-profile dialog is open for the open session. */
  switchingProfile: boolean;
  historyDialog: HistoryDialog | null;
  /** The new-session sheet, when open: the recent folders it offers (`null` while they load). */
  newSession: { recent: string[] | null } | null;
}

export const initialState: AppState = {
  info: null,
  settings: null,
  sessions: [],
  query: "",
  loadingSessions: true,
  view: null,
  mode: "live",
  transcript: emptyTranscript,
  console: emptyConsole,
  pendingFor: null,
  loadError: null,
  toast: null,
  settingsOpen: false,
  settingsProfile: null,
  connectOpen: false,
  consoleOpen: false,
  changesOpen: false,
  consoleWidth: 460,
  focusedCompaction: null,
  broadWorkspace: null,
  switchingProfile: false,
  historyDialog: null,
  newSession: null,
};

/** Entries per `open_transcript` page. */
export const TRANSCRIPT_PAGE = 200;

export interface Store {
  get(): AppState;
  set(change: Partial<AppState> | ((state: AppState) => Partial<AppState>)): void;
  subscribe(listener: () => void): () => void;
}

export function createStore(initial: AppState = initialState): Store {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    set(change) {
      const patch = typeof change === "function" ? change(state) : change;
      state = { ...state, ...patch };
      listeners.forEach((listener) => listener());
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
